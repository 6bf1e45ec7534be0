"""bench.thresholds' table: the best threshold per type, and its gain over the shipped one."""

from bench.thresholds import table


def test_table_names_each_types_best_threshold_and_its_gain():
    found = {"all": {0.2: [0.5, 0.7], 0.3: [0.6, 0.8]}, "product": {0.2: [0.9], 0.3: [0.4]}}
    lines = table("dev", found, (0.2, 0.3), shipped=0.3)
    rows = {line.split(" | ")[0].strip("| "): line for line in lines if line.startswith("| ") and "---" not in line}
    assert rows["all"].endswith("| 0.3 | +0.0000 |")  # the shipped threshold is best: no gain
    assert rows["product"].endswith("| 0.2 | +0.5000 |")  # .9 at .2 against .4 at .3
    assert lines.index(rows["all"]) < lines.index(rows["product"])


def test_ties_go_to_the_threshold_nearest_the_shipped_one():
    lines = table("dev", {"all": {0.2: [0.5], 0.3: [0.5], 0.5: [0.5]}}, (0.2, 0.3, 0.5), shipped=0.3)
    assert any(line.startswith("| all |") and line.endswith("| 0.3 | +0.0000 |") for line in lines)
