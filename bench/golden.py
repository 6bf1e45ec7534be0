"""Pin every stage's output before a speed change, then prove the change altered none of it.

    python -m bench.golden write runs/golden.pkl [--every 3]   # before: record
    python -m bench.golden check runs/golden.pkl               # after: compare, exit 1 on any difference
    python -m bench.golden pin                                 # rewrite the repository's pages' pins, on purpose

Pages: the repository's pages (below) and every `every`-th dev page. Per page it keeps the snapshot, the blocks, the
model inputs (features.PageInputs) and the whole extraction result but its timings. Integer arrays must be
equal, float arrays equal within 1e-6; everything else equal. Speed work must not move the model's inputs:
the shipped model (and the one being retrained) was trained on exactly these.

The repository's pages: each folder of tests/pages/ holding a `source.html` (`tests/pages/<name>/`, or
`tests/pages/<group>/<name>/`), and the pages the browser tests serve (tests/pages/extension/, kept as files
since they link to each other). `pin` first folds a flat `tests/pages/<name>.html` (outside extension/) into
`tests/pages/<name>/source.html`, then writes, for every page, what a person reads and diffs: `expected.md`
(the Markdown document `pith extract -f markdown` writes, its `created` the fixed CREATED) and
`expected-metadata.json` (the result but its renderings: metadata, counts, and each block's decision, main
score and text, one line each); a served page `x.html` gets `x.expected.md` and `x.expected-metadata.json`
beside it. The model's side goes to tests/pinned/stages.json: snapshots, blocks, model inputs, scores.

tests/test_pinned_stages.py checks them on every run, on any machine: snapshots, blocks and model inputs
exactly; the model's scores within SCORE_TOLERANCE (int8 kernels differ by CPU instruction set: AVX2 and
AVX-512-VNNI round differently, in the third or fourth decimal); the main/not-main decision of each block
exactly, but only where its pinned score sits at least DECISION_MARGIN from the threshold (blocks nearer are
marked undecided, null); and the expected files exactly, rebuilt from the pinned scores without the model.
Token and class-word ids and the scores depend on the model's assets, so the file records their digests: those
parts are compared only while the assets are the pinned ones. A retrained model is re-pinned with
`python -m bench.golden pin`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ARRAYS = ("text_ids", "tag_ids", "class_ids", "class_level", "numeric")
PINNED = ROOT / "tests" / "pinned" / "stages.json"
PAGES = ROOT / "tests" / "pages"
SERVED = PAGES / "extension"  # pages the browser tests serve by their file names
SOURCE = "source.html"
PAGE_URL = "https://pages.example/"  # a pinned page's URL: this and its name, as <name>.html
CREATED = "2000-01-01T00:00:00+00:00"  # the pinned documents' `created`: the pin's, not the clock's
# The result fields an expected-metadata.json leaves out: the renderings (expected.md holds the Markdown), the
# blocks (written one line each, shorter), the node ids (in the pinned blocks) and the timings.
NOT_METADATA = ("text", "markdown", "html", "blocks", "node_ids", "timings")
# A score may move this much between CPUs: over twice the largest difference seen between two machines' int8
# kernels (0.0087: pins made on one CPU, read on an AMD EPYC), and well inside DECISION_MARGIN, so no score
# within it can flip a pinned decision.
SCORE_TOLERANCE = 0.02
# A block's decision is pinned only when its main score is at least this far from the threshold.
DECISION_MARGIN = 0.05


def pages(every: int) -> list[tuple[str, str | bytes, str | None]]:
    """(name, html, url) for the repository's test pages and a sample of the dev pages."""
    from export.data import iter_records

    out: list[tuple[str, str | bytes, str | None]] = [(name, path.read_bytes(), None) for name, path in repo_pages()]
    for k, record in enumerate(iter_records(split="dev")):
        if k % every == 0:
            out.append((record["id"], record["html"], record.get("url")))
    return out


def outputs(extractor, html: str | bytes, url: str | None) -> dict:
    """Every stage's output for one page, as plain data."""
    from native_host.pipeline.blocks import blocks_from_snapshot
    from native_host.pipeline.snapshot import snapshot_from_html

    snapshot = snapshot_from_html(html, url=url)
    blocks = blocks_from_snapshot(snapshot)
    inputs = extractor.featurize(snapshot, blocks)
    scores, types = extractor.model.predict(inputs)
    result = extractor.extract_html(html, url=url).to_dict()
    result.pop("timings")
    return {
        "snapshot": snapshot,
        "blocks": [asdict(b) for b in blocks],
        "inputs": {name: getattr(inputs, name) for name in ARRAYS},
        "scores": scores,  # the model's own: the result's main column is the trees' where they ran (rescore.py)
        "result": result,
        "page_type_scores": None if types is None else types,
    }


def asset_digests(model_dir: Path) -> dict[str, str]:
    """sha256 of each asset file the ids and scores depend on."""
    from native_host.pipeline.features import FILES as FEATURIZER_FILES
    from native_host.pipeline.inference import MODEL_FILE
    from native_host.pipeline.rescore import RESCORE_FILE

    names = (MODEL_FILE, *FEATURIZER_FILES, RESCORE_FILE)
    return {
        name: hashlib.sha256((model_dir / name).read_bytes()).hexdigest()
        for name in names
        if (model_dir / name).is_file()
    }


@dataclass(frozen=True)
class RepoPage:
    """One of the repository's pages: its name (its path from the repository's root, the folder's for a page
    folder), its HTML and where its expected files go."""

    name: str
    source: Path
    expected_md: Path
    expected_metadata: Path

    @property
    def url(self) -> str:
        return PAGE_URL + (self.source.name if self.source.name != SOURCE else self.source.parent.name + ".html")


def repo_page_list() -> list[RepoPage]:
    folders = [
        RepoPage(str(s.parent.relative_to(ROOT)), s, s.parent / "expected.md", s.parent / "expected-metadata.json")
        for s in PAGES.rglob(SOURCE)
        if SERVED not in s.parents
    ]
    served = [
        RepoPage(
            str(s.relative_to(ROOT)),
            s,
            s.with_name(s.stem + ".expected.md"),
            s.with_name(s.stem + ".expected-metadata.json"),
        )
        for s in SERVED.rglob("*.html")
    ]
    return sorted(folders + served, key=lambda page: page.name)


def repo_pages() -> list[tuple[str, Path]]:
    return [(page.name, page.source) for page in repo_page_list()]


def fold_flat_pages() -> list[Path]:
    """Each flat page (`tests/pages/<name>.html`, outside the served pages) moved to `<name>/source.html`;
    the folders made. A folder that exists already is left alone, and said."""
    moved = []
    for flat in sorted(PAGES.rglob("*.html")):
        if SERVED in flat.parents or flat.name == SOURCE:
            continue
        folder = flat.with_suffix("")
        if folder.exists():
            raise SystemExit(f"golden: {flat.relative_to(ROOT)}: {folder.relative_to(ROOT)} exists; rename one")
        folder.mkdir()
        flat.rename(folder / SOURCE)
        moved.append(folder)
    return moved


def expected(result: dict) -> tuple[str, str]:
    """(expected.md, expected-metadata.json) of a result (`Result.to_dict()`): the Markdown document as
    `pith extract -f markdown` writes it, and the rest but the renderings, a block a line."""
    from native_host.pipeline.inert import strip_controls
    from native_host.render.document import document

    markdown = strip_controls(document(result, "markdown", created=CREATED)[1])
    head = [(k, v) for k, v in result.items() if k not in NOT_METADATA]
    blocks = [
        {"index": b["index"], "main": b["main"], "score": round(b["scores"]["main"], 3), "text": b["text"][:80]}
        for b in result["blocks"]
    ]
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in head]
    lines.append(' "blocks": [' + ",".join("\n  " + json.dumps(b, ensure_ascii=False) for b in blocks) + "\n ]")
    return markdown, "{\n" + ",\n".join(lines) + "\n}\n"


def pinned(extractor) -> dict:
    """Every stage's output for the repository's pages, as JSON-ready data: the stages of `outputs`, the
    model's scores, the decisions that sit clear of the threshold, and the result built from those scores."""
    from native_host.pipeline.blocks import blocks_from_snapshot
    from native_host.pipeline.extractor import result_from_scores
    from native_host.result import PAGE_TYPES

    out = {
        "assets": asset_digests(extractor.model.dir),
        "threshold": extractor.threshold,
        "labels": list(extractor.model.labels),
        "score_tolerance": SCORE_TOLERANCE,
        "decision_margin": DECISION_MARGIN,
        "pages": {},
        "expected": {},
    }
    for page in repo_page_list():
        stages = outputs(extractor, page.source.read_bytes(), page.url)
        snapshot = stages["snapshot"]
        blocks = blocks_from_snapshot(snapshot)
        scores, types = extractor.model.predict(extractor.featurize(snapshot, blocks))
        predicted = None if types is None else PAGE_TYPES[int(np.argmax(types))]
        stages["inputs"] = {name: a.tolist() for name, a in stages["inputs"].items()}
        stages["scores"] = scores.tolist()
        stages["decided"] = decisions(scores[:, 0].tolist(), extractor.threshold)
        stages["page_type_scores"] = None if types is None else types.tolist()
        stages["predicted_type"] = predicted
        result = result_from_scores(
            snapshot,
            blocks,
            scores,
            extractor.model.labels,
            extractor.threshold,
            type_scores=types,
            rescorer=extractor.rescorer,
        ).to_dict()
        del stages["result"]
        out["pages"][page.name] = stages
        out["expected"][page.name] = expected(result)
    return out


def decisions(main_scores: list[float], threshold: float) -> list[bool | None]:
    """Each block's main decision, or None where its score sits within DECISION_MARGIN of the threshold:
    another CPU's rounding could flip it, so it is not pinned."""
    return [None if abs(s - threshold) < DECISION_MARGIN else s >= threshold for s in main_scores]


def _pinned_json(data: dict) -> str:
    """One line per page, so a change to one page's stages reads as one line of the diff."""
    pages = ",\n".join(
        f"  {json.dumps(name)}: {json.dumps(stages, ensure_ascii=False, separators=(',', ':'))}"
        for name, stages in data["pages"].items()
    )
    head = "".join(
        f" {json.dumps(key)}: {json.dumps(value)},\n" for key, value in data.items() if key not in ("pages", "expected")
    )
    return f'{{\n{head} "pages": {{\n{pages}\n }}\n}}\n'


def differences(before: dict, after: dict) -> list[str]:
    """What differs between two `outputs`, one line per stage that moved."""
    found = []
    for stage in ("snapshot", "blocks", "result"):
        if before[stage] != after[stage]:
            found.append(stage)
    for name in ARRAYS:
        a, b = before["inputs"][name], after["inputs"][name]
        same = (
            a.shape == b.shape
            and a.dtype == b.dtype
            and (np.allclose(a, b, rtol=0, atol=1e-6) if a.dtype.kind == "f" else np.array_equal(a, b))
        )
        if not same:
            found.append(f"inputs.{name}")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.golden", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("action", choices=["write", "check", "pin"])
    ap.add_argument("path", type=Path, nargs="?", default=None)
    ap.add_argument("--every", type=int, default=3, help="take every N-th dev page (default: %(default)s)")
    args = ap.parse_args(argv)
    from native_host import Extractor

    extractor = Extractor()
    if args.action == "pin":
        for folder in fold_flat_pages():
            print(f"golden: moved to {(folder / SOURCE).relative_to(ROOT)}")
        data = pinned(extractor)
        PINNED.parent.mkdir(parents=True, exist_ok=True)
        PINNED.write_text(_pinned_json(data), encoding="utf-8")
        files = {page.name: page for page in repo_page_list()}
        for name, (markdown, metadata) in data["expected"].items():
            files[name].expected_md.write_text(markdown, encoding="utf-8")
            files[name].expected_metadata.write_text(metadata, encoding="utf-8")
        decided = [d for page in data["pages"].values() for d in page["decided"]]
        print(
            f"golden: {PINNED.relative_to(ROOT)} and the pages' expected files rewritten: {len(data['pages'])} pages, {len(decided)} blocks, "
            f"{decided.count(None)} within {DECISION_MARGIN} of the threshold {data['threshold']:.4f} (not pinned "
            "as decisions)"
        )
        return 0
    if args.path is None:
        ap.error(f"{args.action} needs a path")
    if args.action == "write":
        recorded = {name: outputs(extractor, html, url) for name, html, url in pages(args.every)}
        args.path.parent.mkdir(parents=True, exist_ok=True)
        with open(args.path, "wb") as f:
            pickle.dump({"every": args.every, "pages": recorded}, f)
        print(f"golden: {len(recorded)} pages written to {args.path}")
        return 0
    with open(args.path, "rb") as f:
        recorded = pickle.load(f)
    bad = compared = 0
    for name, html, url in pages(recorded["every"]):
        # a page folder recorded before it was one: tests/pages/<name>.html
        key = name if name in recorded["pages"] else name + ".html"
        if key not in recorded["pages"]:
            continue
        compared += 1
        moved = differences(recorded["pages"][key], outputs(extractor, html, url))
        if moved:
            bad += 1
            print(f"golden: {name}: {', '.join(moved)} changed")
    missing = len(recorded["pages"]) - compared
    print(f"golden: {compared} pages, {bad} changed" + (f"; {missing} recorded pages not found" if missing else ""))
    return 1 if bad or missing else 0


if __name__ == "__main__":
    sys.exit(main())
