"""Per-page scores -> per-group figures -> the markdown report.

Groups are the whole run, each dataset, and each WCXB page type, because a single average hides where an
extractor fails: an article-tuned extractor can look fine overall while emptying product and forum pages.
Every figure is a mean over pages (macro), the field's convention, so a long page weighs no more than a short one.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from export.data import DATASETS, PAGE_TYPES, PARSER_GOLDS

ALL = "all pages"
HUMAN = "pages with human golds"  # all but the datasets whose golds per-site parsers made (narrower)
SEP = " · "  # between a dataset and its page type in a row name
ROWS = "dataset · page type"


@dataclass(frozen=True)
class PageScore:
    """One extractor on one page."""

    id: str
    dataset: str
    page_type: str | None
    extractor: str
    precision: float
    recall: float
    f1: float
    snippet_accuracy: float | None  # None where the page has no snippets
    seconds: float
    error: str | None
    chars: int  # length of the extracted text
    words: int  # words in the extracted text


@dataclass
class GroupStats:
    """The figures of one extractor over one group of pages."""

    pages: int
    f1_mean: float
    f1_median: float
    precision: float
    recall: float
    snippet_accuracy: float | None  # mean over the pages that have snippets; None if none has
    seconds_per_page: float
    empty: int  # pages where the extractor returned no word (errors included)
    errors: int


@dataclass
class RunInfo:
    """What a reader needs to reproduce the run and trust its figures."""

    command: str
    date: str
    machine: str
    split: str
    versions: dict[str, str]  # extractor -> version, for those that ran
    unavailable: dict[str, str]  # extractor -> why it could not run
    sees_gold: set[str] = field(default_factory=set)  # ceilings (the oracle): never bolded as best
    pages: dict[str, int] = field(default_factory=dict)  # group -> pages scored
    skipped: dict[str, int] = field(default_factory=dict)  # group -> pages skipped (gold without words)


def groups_of(dataset: str, page_type: str | None) -> list[str]:
    """The report rows a page counts in."""
    return (
        [ALL]
        + ([HUMAN] if dataset not in PARSER_GOLDS else [])
        + [dataset]
        + ([f"{dataset}{SEP}{page_type}"] if page_type else [])
    )


def row_order(present: set[str]) -> list[str]:
    """All pages first, then the datasets in their usual order, each followed by its page types."""
    datasets = [d for d in DATASETS if d in present]
    datasets += sorted(k for k in present if k not in (ALL, HUMAN) and SEP not in k and k not in DATASETS)
    rank = {t: i for i, t in enumerate(PAGE_TYPES)}
    order = [ALL] if ALL in present else []
    if HUMAN in present and PARSER_GOLDS & present:  # a row of its own only where it differs from all pages
        order.append(HUMAN)
    for ds in datasets:
        types = [k.split(SEP, 1)[1] for k in present if k.startswith(ds + SEP)]
        order += [ds] + [f"{ds}{SEP}{t}" for t in sorted(types, key=lambda t: (rank.get(t, len(rank)), t))]
    return order


def summarize(scores: list[PageScore]) -> dict[tuple[str, str], GroupStats]:
    """(group, extractor) -> figures over that group's pages."""
    bins: dict[tuple[str, str], list[PageScore]] = {}
    for s in scores:
        for group in groups_of(s.dataset, s.page_type):
            bins.setdefault((group, s.extractor), []).append(s)
    stats = {}
    for key, rows in bins.items():
        snippets = [s.snippet_accuracy for s in rows if s.snippet_accuracy is not None]
        f1 = [s.f1 for s in rows]
        stats[key] = GroupStats(
            pages=len(rows),
            f1_mean=statistics.fmean(f1),
            f1_median=statistics.median(f1),
            precision=statistics.fmean(s.precision for s in rows),
            recall=statistics.fmean(s.recall for s in rows),
            snippet_accuracy=statistics.fmean(snippets) if snippets else None,
            seconds_per_page=statistics.fmean(s.seconds for s in rows),
            empty=sum(s.words == 0 for s in rows),
            errors=sum(s.error is not None for s in rows),
        )
    return stats


def _num(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _seconds(x: float) -> str:
    return f"{x:.4f}" if x < 0.1 else f"{x:.3f}"


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> list[str]:
    align = ["---"] * numeric_from + ["---:"] * (len(header) - numeric_from)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _repeats_its_dataset(group: str, info: RunInfo) -> bool:
    """A page type's row that holds every page of its dataset (the dataset has that one type) repeats the
    dataset's row figure for figure: the report leaves it out."""
    if SEP not in group:
        return False
    dataset = group.split(SEP, 1)[0]
    return all(counts.get(group, 0) == counts.get(dataset, 0) for counts in (info.pages, info.skipped))


def render(
    info: RunInfo,
    stats: dict[tuple[str, str], GroupStats],
    extractors: list[str],
    detail: list[str] | None = None,
) -> str:
    """The markdown report: run facts, a mean-F1 overview (best per row in bold, with the pages scored), then
    one table per extractor in `detail` (default: all) with the other figures (the overview's are not repeated
    there), and one row over all pages for each extractor left out of `detail`."""
    groups = [g for g in row_order(set(info.pages) | set(info.skipped)) if not _repeats_its_dataset(g, info)]
    out = [
        f"# Evaluation on the {info.split} split",
        "",
        f"- command: `{info.command}`",
        f"- date: {info.date}",
        f"- machine: {info.machine}",
        f"- pages scored: {info.pages.get(ALL, 0)}; skipped (gold main text without words): {info.skipped.get(ALL, 0)}",
    ]
    for name in extractors:
        if name in info.versions:
            out.append(f"- {name}: {info.versions[name]}")
    for name, why in info.unavailable.items():
        out.append(f"- {name}: **unavailable**: {why}")
    out += [
        "",
        "Metric: word-bag F1 between extracted text and gold main text (words are lower-cased `\\w+` "
        "runs), averaged over pages; snippet accuracy only where the page has with/without snippets "
        "(WCXB). Seconds per page time the extractor call alone, one page at a time in one process.",
        "",
    ]

    ran = [e for e in extractors if e in info.versions]
    competing = [e for e in ran if e not in info.sees_gold]
    out += ["## Mean F1", ""]
    if info.sees_gold & set(ran):
        out += [
            f"Best per row in bold, leaving out {', '.join(e for e in ran if e in info.sees_gold)}, which "
            "sees the gold.",
            "",
        ]
    rows = []
    for g in groups:
        best = max((stats[(g, e)].f1_mean for e in competing if (g, e) in stats), default=None)
        row = [g, str(info.pages.get(g, 0)), str(info.skipped.get(g, 0))]
        for e in ran:
            c = stats.get((g, e))
            text = _num(c.f1_mean if c else None)
            bold = c and len(competing) > 1 and e in competing and c.f1_mean == best
            row.append(f"**{text}**" if bold else text)
        rows.append(row)
    out += _table([ROWS, "scored", "skipped"] + ran, rows) + [""]

    # A column of zeros says less than one line: the errors column is shown only where some page raised.
    raised = any(c.errors for (_, e), c in stats.items() if e in ran)
    if not raised:
        out += ["No extractor raised or ran past the timeout on any page.", ""]
    columns = ["F1 median", "precision", "recall", "snippet acc.", "s/page", "empty"] + (["errors"] if raised else [])

    def cells(c: GroupStats) -> list[str]:
        row = [_num(c.f1_median), _num(c.precision), _num(c.recall), _num(c.snippet_accuracy)]
        return row + [_seconds(c.seconds_per_page), str(c.empty)] + ([str(c.errors)] if raised else [])

    detailed = [e for e in ran if detail is None or e in detail]
    for e in detailed:
        out += [f"## {e}", ""]
        rows = [[g] + cells(stats[(g, e)]) for g in groups if (g, e) in stats]
        out += _table([ROWS] + columns, rows) + [""]
    rest = [e for e in ran if e not in detailed and (ALL, e) in stats]
    if rest:
        out += ["## Other extractors, all pages", ""]
        out += _table(["extractor"] + columns, [[e] + cells(stats[(ALL, e)]) for e in rest]) + [""]
    return "\n".join(out)
