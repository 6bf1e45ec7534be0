"""The training and evaluation pages: thirteen public datasets as gzipped JSON lines, streamed one record at a time.

The pages live outside the repository (they may not be committed): in ``$PITH_DATA`` if set, else in
``../shared/data`` beside the project root. Streaming keeps memory flat; the WCXB file alone is ~70 MB
compressed. No torch here: the evaluation harness imports this module without the training extras.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

from native_host.errors import PithError
from native_host.result import PAGE_TYPES  # noqa: F401 (WCXB's seven: one list, trained and served)


class DataError(PithError):
    """The training and evaluation pages cannot be read (missing folder or file, unknown dataset, bad line)."""

    code = "data_unavailable"


# dataset name (the records' "dataset" field) -> file in the data folder
FILES = {
    "cleaneval": "cleaneval.jsonl.gz",
    "cleanportaleval": "cleanportaleval.jsonl.gz",
    "dragnet": "dragnet.jsonl.gz",
    "l3s-gn1": "l3s-gn1.jsonl.gz",
    "wcxb": "wcxb-dev.jsonl.gz",
    "googletrends": "googletrends.jsonl.gz",
    "msv-chaos": "msv-chaos.jsonl.gz",
    "msv-big5": "msv-big5.jsonl.gz",
    "daniel": "daniel.jsonl.gz",
    "canola": "canola.jsonl.gz",
    "zh-cwce": "zh-cwce.jsonl.gz",
    "htmltotext": "htmltotext.jsonl.gz",
    "fundus": "fundus.jsonl.gz",
}
DATASETS = list(FILES)
# WCXB's file is kept as first published; its site, site-disjoint split, author, date and the pages that repeat
# held-back test pages ("drop") come from this sidecar, one line per page with the same ids (data README).
SIDECARS = {"wcxb": "wcxb-dev.sites.jsonl.gz"}
SIDECAR_FIELDS = ("site", "split", "author", "date")
# Golds made by hand-written per-site parsers, not people: narrower than human golds, reported apart.
PARSER_GOLDS = frozenset({"fundus"})
SPLITS = ("train", "dev")
BUCKETS = 10  # the split's hash buckets: a site is dev when its bucket is 0 (data README)
FOLD_COUNTS = (2, 5, 10)  # cross-validation fold counts that take whole buckets
_ALIASES = {name.removesuffix(".jsonl.gz"): ds for ds, name in FILES.items()}  # "wcxb-dev" names the file
_UTF16_BOMS = ("\xff\xfe", "\xfe\xff")


# One page as the data README describes it ("with" is a Python keyword, hence the functional form).
Record = TypedDict(
    "Record",
    {
        "id": str,
        "dataset": str,
        "split": str,  # "train" or "dev", fixed by a hash of the site
        "url": "str | None",
        "site": "str | None",  # the registered domain; the split is drawn by site (no site on both sides)
        "lang": "str | None",
        "page_type": "str | None",  # WCXB only
        "title": "str | None",
        "author": "str | None",  # gold byline (WCXB, zh-cwce, fundus)
        "date": "str | None",  # gold publish date, YYYY-MM-DD (same datasets)
        "main_text": "str | None",  # gold main content, blocks separated by newlines; may be empty
        "with": list[str],  # snippets a correct extraction contains (WCXB only)
        "without": list[str],  # snippets it must not contain
        "html": str,
    },
)


def data_dir() -> Path:
    """The folder holding the datasets; DataError with what to set when it is not there."""
    env = os.environ.get("PITH_DATA")
    path = Path(env) if env else (Path(__file__).resolve().parents[1].parent / "shared" / "data")
    if not path.is_dir():
        source = "$PITH_DATA" if env else "the default ../shared/data (relative to the project root)"
        raise DataError(
            f"data folder {path} not found ({source}); set PITH_DATA to the folder holding {', '.join(FILES.values())}"
        )
    return path


def dataset_name(name: str) -> str:
    """The canonical dataset name for `name` (a dataset or its file stem, e.g. 'wcxb-dev'); DataError if unknown."""
    if name in FILES:
        return name
    if name in _ALIASES:
        return _ALIASES[name]
    raise DataError(f"unknown dataset {name!r}; choose among {', '.join(DATASETS)}")


def repair_gold(text: str | None) -> str | None:
    """Undo a known encoding fault: a few Dragnet golds are UTF-16 bytes that were decoded as Latin-1."""
    if text and text.startswith(_UTF16_BOMS):
        return text.encode("latin-1", "replace").decode("utf-16", "replace")
    return text


def _lines(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"{path}:{n}: not a JSON record ({exc.msg}); the file is damaged, fetch it again"
                ) from exc


def _sidecar(path: Path) -> dict[str, dict]:
    if not path.is_file():
        raise DataError(
            f"{path} not found; it carries the site-disjoint split of {path.name.split('.')[0]}: "
            f"set PITH_DATA to the folder holding it"
        )
    return {row["id"]: row for row in _lines(path)}


def _records_in(path: Path, sidecar: dict[str, dict] | None = None) -> Iterator[Record]:
    for record in _lines(path):
        if sidecar is not None:
            extra = sidecar.get(record["id"])
            if extra is None or extra.get("drop"):
                continue  # repeats a held-back test page (or is unknown to the sidecar): never used
            record.update({k: extra.get(k) for k in SIDECAR_FIELDS})
        record["main_text"] = repair_gold(record.get("main_text"))
        record["with"] = record.get("with") or []
        record["without"] = record.get("without") or []
        yield record


def bucket_of(site: str) -> int:
    """The site's hash bucket, the data README's rule: sha1 of the site (of the page id where it has none)."""
    return int(hashlib.sha1(site.encode()).hexdigest(), 16) % BUCKETS


def fold_buckets(fold: int, folds: int) -> frozenset[int]:
    """The buckets whose sites are the dev pages of cross-validation fold `fold` of `folds` (site-grouped:
    fold k of 5 holds out buckets 2k and 2k+1, so fold 0 contains the data's own dev split)."""
    if folds not in FOLD_COUNTS:
        raise DataError(f"--folds {folds}: choose among {', '.join(map(str, FOLD_COUNTS))} (whole hash buckets)")
    if not 0 <= fold < folds:
        raise DataError(f"--fold {fold}: choose 0 to {folds - 1}")
    width = BUCKETS // folds
    return frozenset(range(fold * width, (fold + 1) * width))


def in_buckets(record: Record, buckets: frozenset[int]) -> bool:
    return bucket_of(record.get("site") or record["id"]) in buckets


def iter_records(
    datasets: list[str] | None = None,
    split: str | None = None,
    limit: int | None = None,
    buckets: frozenset[int] | None = None,
) -> Iterator[Record]:
    """Records of `datasets` (default: all, in DATASETS order), of one `split` if given, of the sites in
    `buckets` if given (a cross-validation fold's pages, `fold_buckets`), at most `limit` per dataset (after
    these filters)."""
    if split is not None and split not in SPLITS:
        raise DataError(f"unknown split {split!r}; choose 'train' or 'dev'")
    names = [dataset_name(d) for d in (datasets or DATASETS)]
    folder = data_dir()
    for name in names:
        path = folder / FILES[name]
        if not path.is_file():
            raise DataError(f"{path} not found; set PITH_DATA to the folder holding {FILES[name]}")
        taken = 0
        if limit is not None and limit <= 0:
            continue
        sidecar = _sidecar(folder / SIDECARS[name]) if name in SIDECARS else None
        for record in _records_in(path, sidecar):
            if split is not None and record.get("split") != split:
                continue
            if buckets is not None and not in_buckets(record, buckets):
                continue
            yield record
            taken += 1
            if limit is not None and taken >= limit:
                break
