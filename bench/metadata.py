"""Article metadata on the dev split: title, author and publish date right, Pith beside trafilatura.

    python -m bench.metadata                     # the table: Pith and trafilatura, same pages, same run
    python -m bench.metadata --sources           # and each of Pith's sources alone, and title policies
    python -m bench.metadata --date-libraries    # and dateparser / htmldate against Pith's own date parser
    python -m bench.metadata --split train --misses titles.jsonl   # each wrong title with every source's
    python -m bench.metadata --live snapshots-dev.msgpack   # and Pith on recorded live snapshots (export.record)

Pages: the dev records that carry a gold title, author, date or language (WCXB through its sidecar, fundus,
zh-cwce, the titles of GoogleTrends, MSV and CANOLA, the languages of DANIEL and others). Scoring rules, one
per field:

- **title**: right when the word-bag F1 with the gold title is at least 0.9; scored twice: against each
  dataset's own gold, and against the dev title set built by Pith's title policy (`title (policy)`,
  `bench/titles-dev.json`, made by `python -m bench.title_policy` from the golds and the pages' visible
  `<h1>`, never from Pith's output);
- **author**: right when the word-bag F1 of the names with the gold byline is at least 0.9 (so the names
  must all be there, in any order, joined any way, and nothing much else: "By", a role or a date cost); the
  words that join names ("and", "und", "et", "og") are not counted, and underscores are spaces (`name_words`);
- **date**: right when the day (YYYY-MM-DD) is the gold's;
- **lang**: right when the primary language subtag is the dataset's (`lang` in the record);
- **site_name** (no gold): "agrees" when the name and the site's registered name in the page's host hold
  one another, squashed ("The Atlantic" on theatlantic.com); a disagreement is not always wrong ("Süddeutsche
  Zeitung" on sueddeutsche.de), so its column is an upper bound on wrong.
- **the checked fields** (`bench/fields-dev.json`, 100 dev pages drawn with a fixed seed, each value read
  off the page's own HTML and text by hand, the policy per field in docs/metadata.md): `site_name (checked)`
  right when it is one of the names the page calls itself, squashed; `description (checked)` when its first
  12 words are (word-F1 >= 0.9) those of a summary the page declares of itself; `image (checked)` when its
  address holds the file name of the page's lead image; `lang (checked)` when the primary subtag is the
  language the page's text is written in. An empty list: the page has none, so any answer is wrong.

With `--live FILE` (a corpus of recorded snapshots, docs/recording.md) only the pages recorded there are
scored, and `pith live` is Pith on the live snapshot of each, beside `pith` on its HTML.

Each cell: right / wrong when given / missing, over the pages with the gold; "wrong when given" is wrong
answers over the pages where the extractor said something. Words are lower-cased `\\w+` runs after NFKC,
each CJK character a word of its own. A page without the gold is not scored for that field.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import subprocess
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable
from importlib import metadata as dist_metadata
from pathlib import Path

from export.data import iter_records
from export.metric import words
from export.recordings import as_browsed, load_at
from export.recordings import index as corpus_index
from native_host.errors import PithError
from native_host.progress import progress

from .evaluate import machine

FIELDS = (("title", "title", "title"), ("author", "byline", "author"), ("date", "date", "date"))  # (gold, pith, traf.)
POLICY_TITLES = Path(__file__).with_name("titles-dev.json")  # the dev title set (bench/title_policy.py)
CHECKED_FIELDS = Path(__file__).with_name("fields-dev.json")  # site name, description, image, language by hand
CHECKED = ("site_name", "description", "image", "lang")
DESCRIPTION_WORDS = 12  # a description is held to the summary by its opening words: sources cut it differently
TITLE_F1 = AUTHOR_F1 = 0.9
WHOLE_TITLE_GOLDS = ("googletrends", "canola")  # datasets whose gold title is the whole <title>, site and all
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af])")


def tokens(text: str | None) -> list[str]:
    return words(_CJK.sub(r" \1 ", unicodedata.normalize("NFKC", text or "")))


NAME_JOINERS = frozenset({"and", "und", "et", "og"})  # words that join names, not names: "A and B" is "A, B"


def name_words(text: str | None) -> list[str]:
    """A byline's words for comparing names: `tokens` less the words that join names, and a user name's
    underscores read as spaces ("Matt_Brooks" and "Matt Brooks" name the same person)."""
    return [w for w in tokens((text or "").replace("_", " ")) if w not in NAME_JOINERS]


def word_f1(pred: str | None, gold: str | None, words: Callable[[str | None], list[str]] = tokens) -> float:
    a, b = Counter(words(pred)), Counter(words(gold))
    common = sum((a & b).values())
    if not common:
        return 0.0
    p, r = common / sum(a.values()), common / sum(b.values())
    return 2 * p * r / (p + r)


def right(field: str, pred: str | None, gold: str) -> bool:
    if not pred:
        return False
    if field == "date":
        return str(pred)[:10] == gold[:10]
    if field == "lang":
        return str(pred).split("-")[0].split("_")[0].lower() == gold.split("-")[0].lower()
    if field == "site_name":
        name, host = re.sub(r"\W+", "", unicodedata.normalize("NFKC", str(pred)).lower()), gold
        return bool(name) and (host in name or name in host)
    if field.endswith("(checked)"):
        return checked_right(field.split()[0], pred, gold)
    if field == "author":
        return word_f1(pred, gold, name_words) >= AUTHOR_F1
    return word_f1(pred, gold) >= TITLE_F1


def checked_right(field: str, pred: str | None, accepted) -> bool:
    """One answer against the hand-checked values of `bench/fields-dev.json` (rules in the docstring above)."""
    if not pred:
        return False
    if field == "lang":
        return right("lang", pred, accepted)
    if field == "site_name":
        return any(_squashed(pred) == _squashed(name) for name in accepted)
    if field == "description":
        head = " ".join(tokens(pred)[:DESCRIPTION_WORDS])
        return any(word_f1(head, " ".join(tokens(d)[:DESCRIPTION_WORDS])) >= TITLE_F1 for d in accepted)
    return any(key in pred for key in accepted)  # image: its address holds the lead image's file name


def _squashed(text: str) -> str:
    return re.sub(r"\W+", "", unicodedata.normalize("NFKC", text).lower())


def checked_fields() -> dict[str, dict]:
    """page id -> the hand-checked fields that are set for it (a field left out was not sure, so not scored)."""
    if not CHECKED_FIELDS.exists():
        return {}
    pages = json.loads(CHECKED_FIELDS.read_text(encoding="utf-8"))["pages"]
    return {ident: {k: v for k, v in page.items() if k in CHECKED and v is not None} for ident, page in pages.items()}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of k in n."""
    if not n:
        return 0.0, 1.0
    p = k / n
    centre, half = p + z * z / (2 * n), z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5
    return max(0.0, (centre - half) / (1 + z * z / n)), min(1.0, (centre + half) / (1 + z * z / n))


def answers(result) -> dict:
    """The fields a reader's header and a clip's front matter show, from Pith's Result, by the gold's names."""
    return {
        "title": result.title,
        "author": result.byline,
        "date": result.date,
        "site_name": result.site_name,
        "lang": result.lang,
        "description": result.description,
        "image": result.image.url if result.image else None,
    }


def policy_titles() -> dict[str, str]:
    """page id -> its title by Pith's title policy, from the committed dev title set."""
    if not POLICY_TITLES.exists():
        return {}
    pages = json.loads(POLICY_TITLES.read_text(encoding="utf-8"))["pages"]
    return {ident: page["title"] for ident, page in pages.items() if page.get("title")}


def site_key(record: dict) -> str | None:
    """The name the page's site registered, squashed ("theatlantic"), as the gold a site name is held to."""
    from native_host.pipeline.metadata import _registered_name, site_of

    host = site_of(record.get("url")) or record.get("site")
    return re.sub(r"\W+", "", _registered_name(host).lower()) or None if host else None


def _trafilatura() -> tuple[Callable[[str, str | None], dict], str]:
    import trafilatura
    from trafilatura import extract_metadata

    def read(html: str, url: str | None) -> dict:
        found = extract_metadata(html, default_url=url)
        return (
            {
                "title": found.title,
                "author": found.author,
                "date": found.date,
                "site_name": found.sitename,
                "lang": found.language,
                "description": found.description,
                "image": found.image,
            }
            if found
            else {}
        )

    return read, trafilatura.__version__


class Tally:
    """Right answers, answers given, per (field, group, extractor), and how many pages had the gold."""

    def __init__(self):
        self.right: dict[tuple, int] = defaultdict(int)
        self.given: dict[tuple, int] = defaultdict(int)
        self.pages: dict[tuple, int] = defaultdict(int)

    def add(self, field: str, groups: list[str], name: str, ok: bool, given: bool = True) -> None:
        for group in groups:
            self.right[field, group, name] += ok
            self.given[field, group, name] += given

    def count(self, field: str, groups: list[str]) -> None:
        for group in groups:
            self.pages[field, group] += 1

    def intervals(self, names: list[str], fields: list[str]) -> str:
        """Wrong when given with its 95% interval, per field (group "all") and extractor."""
        rows = ["| field | pages | " + " | ".join(f"{n} wrong when given [95%]" for n in names) + " |"]
        rows.append("|---|---:|" + "---:|" * len(names))
        for field in fields:
            cells = []
            for name in names:
                given = self.given[field, "all", name]
                wrong = given - self.right[field, "all", name]
                low, high = wilson(wrong, given)
                cells.append(f"{wrong}/{given} = {wrong / given:.3f} [{low:.3f}, {high:.3f}]" if given else "(none)")
            rows.append(f"| {field} | {self.pages[field, 'all']} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def table(self, names: list[str], split: bool = False) -> str:
        """Right per extractor; with `split`, right / wrong when given / missing."""
        head = " | ".join(f"{name} right / wrong when given / missing" if split else name for name in names)
        rows = [f"| field | pages | dataset | {head} |", "|---|---:|---|" + "---:|" * len(names)]
        for (field, group), n in sorted(self.pages.items(), key=lambda kv: (kv[0][0], kv[0][1] != "all", kv[0][1])):
            rights = [self.right[field, group, name] / n for name in names]
            cells = []
            for name, r in zip(names, rights):
                cell = f"**{r:.3f}**" if r == max(rights) else f"{r:.3f}"
                if split:
                    given = self.given[field, group, name]
                    wrong = (given - self.right[field, group, name]) / given if given else 0.0
                    cell += f" / {wrong:.3f} / {(n - given) / n:.3f}"
                cells.append(cell)
            rows.append(f"| {field} | {n} | {group} | " + " | ".join(cells) + " |")
        return "\n".join(rows)


def pipeline_parts(extractor, html: str, url: str | None):
    """What Extractor._extract computes before the article: snapshot, blocks, scores, main, structured data."""
    from native_host.pipeline.blocks import blocks_from_snapshot
    from native_host.pipeline.decisions import main_blocks
    from native_host.pipeline.metadata import read_structured, stated_page_type
    from native_host.pipeline.snapshot import snapshot_from_html

    snapshot = snapshot_from_html(html, url=url)
    blocks = blocks_from_snapshot(snapshot)
    scores = extractor.model.scores(extractor.featurize(snapshot, blocks))
    structured = read_structured(snapshot)
    main = main_blocks(snapshot, blocks, scores, extractor.threshold, stated_page_type(structured))
    return snapshot, blocks, scores, main, structured


def run(
    split: str,
    limit: int | None,
    model_dir: str | None,
    sources: bool,
    date_libraries: bool,
    misses: str | None = None,
    live: str | None = None,
) -> str:
    from native_host import Extractor
    from native_host.pipeline import metadata

    extractor = Extractor(model_dir=model_dir)
    traf, traf_version = _trafilatura()
    checked = checked_fields() if split == "dev" else {}
    records = [
        r
        for r in iter_records(split=split, limit=limit)
        if r.get("title") or r.get("author") or r.get("date") or r.get("lang") or r["id"] in checked
    ]
    recorded = corpus_index(Path(live)) if live else {}
    if live:
        left_out = sum(r["id"] not in recorded for r in records)
        records = [r for r in records if r["id"] in recorded]
    names = ["pith", "pith live", "trafilatura"] if live else ["pith", "trafilatura"]
    policy = policy_titles() if split == "dev" else {}
    tally = Tally()
    said: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # (field, source) -> pages, says, right
    dates = Tally()
    policies = Counter()  # title policies, right per page (--sources): how far the golds' conventions reach
    clocks: dict[str, float] = defaultdict(float)
    page_types = Counter()
    libraries = _date_libraries() if date_libraries else {}
    wrong_titles = open(misses, "w", encoding="utf-8") if misses else None
    for record in progress(records, total=len(records), desc=f"{split} pages"):
        html, url = record["html"], record.get("url")
        groups = ["all", record["dataset"]]
        t0 = time.perf_counter()
        result = extractor.extract_html(html, url=url, views=())
        clocks["pith"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        said_by = {"pith": answers(result), "trafilatura": traf(html, url)}
        clocks["trafilatura"] += time.perf_counter() - t0
        if live:
            snapshot = as_browsed(load_at(Path(live), recorded[record["id"]])["snapshot"], url)
            t0 = time.perf_counter()
            said_by["pith live"] = answers(extractor.extract_snapshot(snapshot, views=()))
            clocks["pith live"] += time.perf_counter() - t0
        golds = [(gold_name, their_name, record.get(gold_name)) for gold_name, _, their_name in FIELDS]
        golds += [
            ("title (policy)", "title", policy.get(record["id"])),
            ("lang", "lang", record.get("lang")),
            ("site_name", "site_name", site_key(record)),
        ]
        golds += [(f"{field} (checked)", field, gold) for field, gold in checked.get(record["id"], {}).items()]
        for gold_name, field, gold in golds:
            if gold is None or gold == "":
                continue
            where = groups[:1] if gold_name.endswith("(checked)") else groups  # 100 pages: no split by dataset
            tally.count(gold_name, where)
            for name in names:
                answer = said_by[name].get(field)
                tally.add(gold_name, where, name, right(gold_name, answer, gold), bool(answer))
        if record["dataset"] == "wcxb" and record.get("page_type"):
            page_types["pages"] += 1
            page_types["stated"] += result.page_type is not None
            page_types["right"] += result.page_type == record["page_type"]
        title_wrong = bool(record.get("title")) and not right("title", result.title, record["title"])
        if sources or libraries or (wrong_titles and title_wrong):
            snapshot, blocks, scores, main, structured = pipeline_parts(extractor, html, url)
            found, _ = metadata.read_sources(
                snapshot, blocks, main, scores, extractor.model.labels, structured, result.page_type
            )
            if wrong_titles and title_wrong:
                wrong_titles.write(json.dumps(_title_miss(record, result, snapshot, found), ensure_ascii=False) + "\n")
            if sources and record.get("title"):
                policies.update(_title_policies(record, result.title, snapshot, found))
            for gold_name, ours, _ in FIELDS:
                gold = record.get(gold_name)
                if not gold:
                    continue
                for source, fields in found.items():
                    said[gold_name, source][0] += 1
                    value = fields.get(ours)
                    if value:
                        said[gold_name, source][1] += 1
                        said[gold_name, source][2] += right(gold_name, value, gold)
            if record.get("date") and libraries:
                dates.count("date", groups)
                for name, (find, _) in libraries.items():
                    t0 = time.perf_counter()
                    when = find(record, snapshot, blocks, scores, main, structured, extractor.model.labels)
                    clocks[name] += time.perf_counter() - t0
                    dates.add("date", groups, name, right("date", when, record["date"]))
    if wrong_titles:
        wrong_titles.close()
    out = [
        f"# Article metadata on the {split} split\n",
        f"- command: `python -m bench.metadata {shlex.join(sys.argv[1:])}`",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"- machine: {machine()}",
        f"- pith: {extractor.info['version']} {extractor.info['model_id']}; trafilatura {traf_version}",
        f"- rules: title word-F1 >= {TITLE_F1}, author word-F1 of the names >= {AUTHOR_F1}, date the same day",
        "",
        tally.table(names, split=True),
        "",
        "Seconds per page (whole extraction for Pith, metadata only for trafilatura): "
        + ", ".join(f"{name} {clocks[name] / max(1, len(records)):.3f}" for name in names)
        + ".",
    ]
    if live:
        out.insert(6, f"- live: {live}; {len(records)} pages recorded there scored, {left_out} not recorded left out")
    fields = [f"{field} (checked)" for field in CHECKED if tally.pages[f"{field} (checked)", "all"]]
    fields += [f for f in ("title (policy)", "author", "date") if tally.pages[f, "all"]]
    out += ["\n## Wrong when given, with its interval\n", tally.intervals(names, fields)]
    if page_types["pages"]:
        out.append(
            f"\nPage type stated by the page's structured data on {page_types['pages']} WCXB pages: "
            f"{page_types['stated']} say one, {page_types['right']} of them right."
        )
    if sources:
        out += [
            "\n## Each source alone\n",
            "| field | source | pages | says something | right when it does | right of all |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for (field, source), (pages, says, ok) in sorted(said.items()):
            if says:
                out.append(
                    f"| {field} | {source} | {pages} | {says / pages:.3f} | {ok / says:.3f} | {ok / pages:.3f} |"
                )
    if policies["pages"]:
        out += ["\n## Title policies\n", "| policy | right |", "|---|---:|"]
        out += [f"| {name} | {policies[name] / policies['pages']:.3f} |" for name in TITLE_POLICIES]
        out += ["", "| the title's sources where `choose_title`'s rules act | pages | right |", "|---|---:|---:|"]
        for name, what in (
            ("h1 backed", "h1 backed"),
            ("h1 backed", "h1 backed, the vote"),
            ("h1 alone", "h1 alone"),
            ("model's guess", "model's guess"),
        ):
            out.append(f"| {what} | {policies[name]} | {policies[what + ', right'] / max(1, policies[name]):.3f} |")
    if libraries:
        out += [
            "\n## Date parsers\n",
            dates.table(list(libraries)),
            "",
            "| parser | seconds on these pages | import (ms) | installed (MB, with its requirements) |",
            "|---|---:|---:|---:|",
        ]
        for name, (_, module) in libraries.items():
            imp, size = _import_ms(module), _installed_mb(module)
            out.append(f"| {name} | {clocks[name]:.2f} | {imp} | {size} |")
    return "\n".join(out)


TITLE_POLICIES = (
    "the whole <title>, site name and all",
    "Pith's choice",
    f"Pith's choice, the whole <title> on {', '.join(WHOLE_TITLE_GOLDS)}",
    "Pith's choice or the whole <title>, whichever is right",
    "some source's title right, site name cut",
)


def _title_policies(record: dict, ours: str | None, snapshot: dict, found: dict) -> dict[str, int]:
    """Which title policies are right on one page: the single policies a reader view could follow, the one that
    chases the whole-<title> golds' convention, and the ceilings of choosing between policies or sources."""
    gold = record["title"]
    whole, pith = right("title", snapshot.get("title"), gold), right("title", ours, gold)
    any_source = any(right("title", fields.get("title"), gold) for fields in found.values() if fields.get("title"))
    chased = whole if record["dataset"] in WHOLE_TITLE_GOLDS else pith
    found_policies = dict(zip(("pages",) + TITLE_POLICIES, (1, whole, pith, chased, pith or whole, any_source)))
    return found_policies | _title_rule_evidence(gold, {s: f["title"] for s, f in found.items() if f.get("title")})


def _title_rule_evidence(gold: str, titles: dict[str, str]) -> dict[str, int]:
    """The evidence for `choose_title`'s rules on one page: how often the page's <h1> is right where another
    source backs it (and the vote among all sources there), where it shares no word with any, and how often
    the model's guess at a heading is right."""
    from native_host.pipeline.metadata import H1_AGREES, ORDER, _overlap, _title_words, agreed

    bag = {s: Counter(_title_words(t)) for s, t in titles.items()}
    found: dict[str, int] = {}
    if "h1" in titles and len(titles) > 1:
        best = max(_overlap(bag["h1"], bag[s]) for s in titles if s != "h1")
        kind = "backed" if best >= H1_AGREES else "alone" if best == 0 else None
        if kind:
            found[f"h1 {kind}"], found[f"h1 {kind}, right"] = 1, right("title", titles["h1"], gold)
        if kind == "backed":
            found["h1 backed, the vote, right"] = right("title", agreed(titles, ORDER["title"])[1], gold)
    if "dom" in titles:
        found["model's guess"], found["model's guess, right"] = 1, right("title", titles["dom"], gold)
    return found


def _title_miss(record: dict, result, snapshot: dict, found: dict) -> dict:
    """One wrong title, for reading the misses: the gold, Pith's answer and its source, every source's title
    (site names cut) and the page's whole <title>."""
    from native_host.pipeline.metadata import ORDER, choose_title

    titles = {s: found[s]["title"] for s in ORDER["title"] if found.get(s, {}).get("title")}
    chosen = choose_title(titles)
    return {
        "dataset": record["dataset"],
        "url": record.get("url"),
        "gold": record["title"],
        "pith": result.title,
        "source": chosen[0] if chosen else None,
        "titles": titles,
        "title_tag": snapshot.get("title"),
    }


def _date_libraries() -> dict[str, tuple[Callable, str | None]]:
    """Pith's date with its own parser, with dateparser in its place, and htmldate over the page's HTML."""
    from native_host.pipeline import metadata

    def ours(record, snapshot, blocks, scores, main, structured, labels):
        return metadata.read_metadata(snapshot, blocks, main, scores, labels, structured=structured).date

    found: dict[str, tuple[Callable, str | None]] = {"pith's parser": (ours, None)}
    try:
        import dateparser
        from dateparser.search import search_dates
    except ImportError:
        dateparser = None
    if dateparser is not None:

        def dateparser_in_pith(search: bool) -> Callable:
            def parse(text, lang=None):
                if not isinstance(text, str) or not text.strip():
                    return None
                when = dateparser.parse(text[:256], settings={"RETURN_AS_TIMEZONE_AWARE": False})
                if when is None and search:  # a date inside a longer line ("Posted by Ann on 3 May")
                    hits = search_dates(text[:256]) or []
                    when = hits[0][1] if hits else None
                return when.isoformat() if when else None

            def read(record, snapshot, blocks, scores, main, structured, labels):
                saved = metadata.parse_date
                metadata.parse_date = parse  # every source of the metadata reads dates through this one name
                try:
                    return metadata.read_metadata(snapshot, blocks, main, scores, labels).date
                finally:
                    metadata.parse_date = saved

            return read

        found["dateparser.parse in pith"] = (dateparser_in_pith(False), "dateparser")
        found["dateparser.parse + search_dates in pith"] = (dateparser_in_pith(True), "dateparser")
    try:
        from htmldate import find_date
    except ImportError:
        find_date = None
    if find_date is not None:

        def with_htmldate(record, *rest):
            return find_date(record["html"], url=record.get("url"), original_date=True)

        found["htmldate alone"] = (with_htmldate, "htmldate")
    return found


def _import_ms(module: str | None) -> str:
    """The module's own import time with everything it pulls in (`python -X importtime`, cumulative), the
    median of five fresh interpreters: in-process timing, so less noisy than timing whole interpreters."""
    code = f"import {module}" if module else "import native_host.pipeline; import native_host.pipeline.dates"
    module = module or "native_host.pipeline.dates"  # (its package is the engine's anyway: not counted)
    found = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
        ).stderr
        for line in out.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3 and parts[2] == module:
                found.append(int(parts[1]) / 1000)
    return f"{statistics.median(found):.0f}" if found else "?"


def _installed_mb(module: str | None) -> str:
    """Bytes on disk of the distribution and everything it requires, recursively."""
    if module is None:
        return "0 (part of pith)"
    seen: set[str] = set()
    todo = [module]
    total = 0
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = dist_metadata.distribution(name)
        except dist_metadata.PackageNotFoundError:
            continue
        total += sum(f.size or 0 for f in dist.files or ())
        for req in dist.requires or ():
            if "extra ==" not in req:
                todo.append(re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0])
    return f"{total / 1e6:.1f} ({', '.join(sorted(seen))})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.metadata", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--split", default="dev", choices=["dev", "train"])
    ap.add_argument("--limit", type=int, default=None, help="at most N pages per dataset")
    ap.add_argument("--model-dir", default=None, help="score the model in this folder instead of the shipped one")
    ap.add_argument("--sources", action="store_true", help="also score each metadata source alone")
    ap.add_argument("--date-libraries", action="store_true", help="also score dateparser and htmldate for dates")
    ap.add_argument(
        "--misses",
        metavar="FILE",
        default=None,
        help="write each page whose title Pith gets wrong to FILE (JSON lines), with every source's title",
    )
    ap.add_argument(
        "--live",
        metavar="FILE",
        default=None,
        help="also score Pith on the live snapshots recorded in FILE (docs/recording.md), on those pages only",
    )
    args = ap.parse_args(argv)
    if args.live and not Path(args.live).is_file():
        print(f"bench: no recorded snapshots at {args.live}; record them with python -m export.record", file=sys.stderr)
        return 1
    try:
        print(run(args.split, args.limit, args.model_dir, args.sources, args.date_libraries, args.misses, args.live))
    except PithError as exc:
        print(f"bench: {exc.message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
