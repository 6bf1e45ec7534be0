"""export.prepare's vocabularies are the same from run to run: the same pages give the same class ids and
token ids, so a model can be trained again from the same data and code."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

from export.prepare import CLASS_MIN_SITES, write_class_vocab

ROOT = Path(__file__).resolve().parents[1]

# Every word on the same number of sites: the order among them is all ties. The sites' words are sets, as
# prepare gathers them, so their order follows the run's string hashes.
TIED = """
import collections, sys
from pathlib import Path
from export.prepare import CLASS_MIN_SITES, write_class_vocab
sites = [{f"word{i}" for i in range(200)} for _ in range(CLASS_MIN_SITES)]
write_class_vocab(collections.Counter(w for words in sites for w in words), Path(sys.argv[1]))
"""


def test_class_words_rank_by_sites_then_by_the_word(tmp_path):
    counts = collections.Counter({"nav": CLASS_MIN_SITES, "body": CLASS_MIN_SITES + 3, "aside": CLASS_MIN_SITES})
    counts["onesite"] = 1
    write_class_vocab(counts, tmp_path / "v.json")
    assert json.loads((tmp_path / "v.json").read_text()) == ["<pad>", "<unk>", "body", "aside", "nav"]


def test_the_class_vocabulary_is_the_same_whatever_the_string_hashes(tmp_path):
    written = []
    for seed in ("1", "2", "3"):
        out = tmp_path / f"vocab-{seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", TIED, str(out)], cwd=ROOT, env=env, check=True, timeout=120)
        written.append(out.read_text())
    assert written[0] == written[1] == written[2]
    assert json.loads(written[0])[2:5] == ["word0", "word1", "word10"]
