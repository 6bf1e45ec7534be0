"""`scripts/cv.sh rules NAME`: each fold's model through the working tree's rules on the pages it never saw,
pooled under one name, so that two runs of the rules pair page by page in bench.by_type."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.tiny_data import write_tiny_data

ROOT = Path(__file__).resolve().parents[1]
FOLDS = 2


def test_rules_pools_every_folds_pages_under_the_name(tmp_path):
    data = write_tiny_data(tmp_path / "data")
    out = tmp_path / "cv"
    for k in range(FOLDS):  # the shipped model stands in for each fold's
        (out / f"fold-{k}").mkdir(parents=True)
        (out / f"fold-{k}" / "assets").symlink_to(ROOT / "native_host" / "assets")
    env = {**os.environ, "PITH_DATA": str(data), "OUT": str(out), "FOLDS": str(FOLDS)}
    subprocess.run(["bash", "scripts/cv.sh", "rules", "tried"], cwd=ROOT, env=env, check=True, timeout=300)

    rows = [json.loads(line) for line in (out / "rules" / "tried.jsonl").read_text().splitlines()]
    assert {r["extractor"] for r in rows} == {"tried"}
    scored = [r["id"] for r in rows]
    assert len(scored) == len(set(scored))  # each page in one fold only
    assert {"cleaneval/dev-1", "cleaneval/train-1", "wcxb/dev-1"} <= set(scored)  # folds span train and dev
