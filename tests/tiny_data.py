"""A tiny data folder in the format of ../shared/data, written by the tests that need one."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

MENU = (
    '<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/about">About us</a>'
    "</li></ul></nav>"
)
FOOTER = '<footer><p>Copyright 2024 Example Media. All rights reserved.</p><a href="/privacy">Privacy</a></footer>'


def article_page(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{MENU}"
        f"<main><article><h1>{title}</h1>{body}</article></main>{FOOTER}</body></html>"
    )


GARDEN = [
    "Tomatoes want six to eight hours of direct sun every day, so the bed against the south wall is the best "
    "place for them in a small garden.",
    "Water deeply twice a week rather than a little every day: deep watering sends the roots down, where the "
    "soil stays cool and moist through a dry spell.",
    "A layer of straw around the stems keeps the leaves clean when it rains and slows the spread of blight "
    "from the soil to the lower leaves.",
]
BRIDGE = [
    "The new footbridge over the river opened on Saturday after two years of work and a long argument about its cost.",
    "It links the old market square with the railway station, and the council expects four thousand people "
    "to cross it on a working day.",
    "Engineers chose a steel arch because the river carries barges and the bridge could not rest on piers in "
    "the middle of the channel.",
]
FORUM = [
    "Has anyone managed to get the printer driver working on the new release? Mine installs but every page "
    "comes out blank.",
    "Same problem here. Removing the old configuration folder and adding the printer again fixed it for me, "
    "the driver keeps stale settings otherwise.",
    "Thanks, that worked. I also had to switch the paper size back to A4 because it defaulted to letter.",
]


def record(
    id_: str,
    dataset: str,
    split: str,
    html: str,
    main_text: str | None,
    page_type: str | None = None,
    with_: list[str] | None = None,
    without: list[str] | None = None,
) -> dict:
    return {
        "id": id_,
        "dataset": dataset,
        "split": split,
        "url": f"https://example.org/{id_}",
        "lang": None,
        "page_type": page_type,
        "title": None,
        "main_text": main_text,
        "with": with_ or [],
        "without": without or [],
        "html": html,
    }


def write_jsonl_gz(path: Path, records: list[dict]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def write_tiny_data(folder: Path) -> Path:
    """Three dev pages worth scoring (two datasets, two WCXB page types), one dev page with an empty gold,
    and one train page the dev split must not pick up; the other datasets' files are there but empty."""
    folder.mkdir(parents=True, exist_ok=True)
    from export.data import FILES

    for name in FILES.values():
        write_jsonl_gz(folder / name, [])
    write_jsonl_gz(
        folder / "cleaneval.jsonl.gz",
        [
            record(
                "cleaneval/dev-1",
                "cleaneval",
                "dev",
                article_page("Growing tomatoes", GARDEN),
                "Growing tomatoes\n" + "\n".join(GARDEN),
            ),
            record(
                "cleaneval/train-1", "cleaneval", "train", article_page("Growing tomatoes", GARDEN), "\n".join(GARDEN)
            ),
            record("cleaneval/dev-2", "cleaneval", "dev", article_page("Empty gold", GARDEN), "  "),
        ],
    )
    wcxb = [
        record(
            "wcxb/dev-1",
            "wcxb",
            "dev",
            article_page("A bridge opens", BRIDGE),
            "A bridge opens\n" + "\n".join(BRIDGE),
            "article",
            with_=["new footbridge over the river", "steel arch"],
            without=["All rights reserved"],
        ),
        record(
            "wcxb/dev-2",
            "wcxb",
            "dev",
            article_page("Blank pages from the printer", FORUM),
            "\n".join(FORUM),
            "forum",
            with_=["stale settings"],
            without=["About us"],
        ),
        # WCXB's file keeps its first-published split; its sidecar moves this page to train, and drops the next
        record("wcxb/dev-3", "wcxb", "dev", article_page("A bridge opens", BRIDGE), "\n".join(BRIDGE), "article"),
        record("wcxb/dev-4", "wcxb", "dev", article_page("A repeated test page", BRIDGE), "\n".join(BRIDGE), "article"),
    ]
    write_jsonl_gz(folder / "wcxb-dev.jsonl.gz", wcxb)
    sidecar = [
        {"id": r["id"], "site": f"site{n}.example", "split": "dev", "author": None, "date": None, "drop": None}
        for n, r in enumerate(wcxb)
    ]
    sidecar[2]["split"] = "train"
    sidecar[2]["author"], sidecar[2]["date"] = "Ann Example", "2024-05-01"
    sidecar[3]["drop"] = "repeats a held-back test page"
    write_jsonl_gz(folder / "wcxb-dev.sites.jsonl.gz", sidecar)
    return folder
