"""Synthetic pages for the benchmarks: as large as asked, no two blocks alike, built here (no data read).

* `section(i)`: about ten blocks of mixed kinds (headings, paragraphs, a link menu, a table, a quote, an ad);
  bench.content_script builds its article pages from these.
* `live_snapshot(nodes)`: a blog page (posts with headings, bylines, paragraphs with inline links and
  emphasis, tag lists; a menu and a sidebar; about eight nodes a block, as on real pages) snapshotted, with
  the live-render fields the content script adds (visible, box, font size and weight, display), so the host
  validates what it gets from a browser. bench.host_speed and bench.schema_speed send these.
"""

from __future__ import annotations

from native_host import snapshot_from_html
from native_host.pipeline.blocks import blocks_from_snapshot

WORDS = (
    "river stone bridge valley mill summer town builder hill water road market council winter harvest "
    "school station garden library festival"
).split()


def sentence(i: int, n: int = 14) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n)).capitalize() + "."


def section(i: int) -> str:
    """About ten blocks of mixed kinds; class names vary so neighbouring blocks do not merge into one."""
    menu = "".join(f"<li><a href='/s{i}/{k}'>{WORDS[(i + k) % len(WORDS)]}</a></li>" for k in range(4))
    rows = "".join(f"<tr><td>{WORDS[k % len(WORDS)]}</td><td>{i * k}</td></tr>" for k in range(3))
    return (
        f"<section class='s{i % 7}'><h2>Section {i}: {sentence(i, 5)}</h2>"
        f"<p class='lead'>{sentence(i)} {sentence(i + 1)}</p><div class='note'>{sentence(i + 2, 9)}</div>"
        f"<p class='body'>{sentence(i + 3)} {sentence(i + 4)} {sentence(i + 5)}</p>"
        f"<ul class='m{i % 5}'>{menu}</ul><table class='t'>{rows}</table>"
        f"<blockquote>{sentence(i + 6, 10)}</blockquote><aside class='ad'>Advertisement {i}</aside></section>"
    )


def _post(i: int) -> str:
    """One blog post: about five blocks and forty nodes, whitespace between elements as real markup has. The
    post's number is in each of its texts, so no two posts repeat a block (which would flatter the host)."""
    w = WORDS
    tags = "\n".join(f"  <li><a href='/tag/{w[(i + k) % len(w)]}'>{w[(i + k) % len(w)]}</a></li>" for k in range(3))
    return (
        f"<article class='post p{i % 5}'>\n <div class='post-body'>\n"
        f"  <h2 class='title'><a href='/post/{i}'>{i}. {sentence(i, 6)}</a></h2>\n"
        f"  <div class='byline'><span class='author'>{w[i % len(w)].title()} Writer {i}</span> · "
        f"<time>2024-0{1 + i % 9}-1{i % 10}</time></div>\n"
        f"  <p>{sentence(i)} In {1900 + i}, <a href='/ref/{i}'>{sentence(i + 1, 4)}</a> {sentence(i + 2)} "
        f"<em>{w[(i + 3) % len(w)]}</em> {sentence(i + 3, 9)}</p>\n"
        f"  <p>{sentence(i + 4)} <span class='note'>Note {i}: {sentence(i + 5, 5)}</span> {sentence(i + 6)}</p>\n"
        f" </div>\n <ul class='tags'>\n{tags}\n </ul>\n</article>\n"
    )


def _blog(posts: int) -> str:
    menu = "".join(f"<li><a href='/m/{k}'>{WORDS[k % len(WORDS)]}</a></li>" for k in range(12))
    side = "".join(f"<li><a href='/popular/{k}'>{sentence(k, 5)}</a></li>" for k in range(10))
    return (
        f"<!doctype html><html lang='en'><head><title>Synthetic blog</title></head><body>\n"
        f"<header><nav class='menu'><ul>{menu}</ul></nav></header>\n<div class='layout'>\n<main>\n"
        + "".join(_post(i) for i in range(posts))
        + f"</main>\n<aside class='sidebar'><h3>Popular</h3><ul>{side}</ul></aside>\n</div>\n"
        "<footer><p>© Synthetic</p></footer></body></html>"
    )


def add_live_fields(snapshot: dict) -> dict:
    """The fields only a browser fills, with plausible values: every element visible, stacked boxes."""
    y = 0
    for node in snapshot["nodes"]:
        if node["tag"] == "#text":
            continue
        y += 18
        node.update(
            visible=True,
            box=[8 + 4 * (node["depth"] % 10), y, 1200 - 8 * (node["depth"] % 10), 18],
            font_size=16.0,
            font_weight=700.0 if node["tag"] in ("h2", "h3") else 400.0,
            display="inline" if node["tag"] in ("a", "em", "span", "time") else "block",
        )
    snapshot["source"] = "live"
    snapshot["viewport"] = {"width": 1280, "height": 800, "scroll_height": y}
    return snapshot


def live_snapshot(target_nodes: int) -> tuple[dict, int]:
    """A live snapshot of about `target_nodes` nodes, and its block count."""
    twenty, forty = (len(snapshot_from_html(_blog(k))["nodes"]) for k in (20, 40))
    per_post = (forty - twenty) / 20
    posts = max(1, round((target_nodes - (twenty - 20 * per_post)) / per_post))
    snapshot = add_live_fields(snapshot_from_html(_blog(posts), url="https://bench.example/blog"))
    return snapshot, len(blocks_from_snapshot(snapshot))
