"""The native host as the browser meets it: round trips of live snapshots of 1k, 5k and 20k nodes through the
real framing, cold start, the host's peak memory, and the size of the model files it ships.

    python -m bench.host_speed [--nodes 1000 5000 20000] [--repeats 9] [--model-dir DIR]

Snapshots are built from a synthetic blog page (posts with headings, paragraphs with inline links and
emphasis, bylines, tag lists, a menu and a sidebar; about eight nodes a block, as on real pages) and given the
live-render fields the content script adds (visible, box, font size and weight, display), so validation sees
what it sees from a browser. Each size is sent `repeats` times to one running `pith host` after a first
request; the table gives medians. Peak RSS is the host's VmHWM after all requests (Linux).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from native_host import snapshot_from_html
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.inference import default_model_dir

from .host_roundtrip import WORDS, _sentence, _start, cold_start, sweep


def _post(i: int) -> str:
    """One blog post: about five blocks and forty nodes, whitespace between elements as real markup has. The
    post's number is in each of its texts, so no two posts repeat a block (which would flatter the host)."""
    w = WORDS
    tags = "\n".join(f"  <li><a href='/tag/{w[(i + k) % len(w)]}'>{w[(i + k) % len(w)]}</a></li>" for k in range(3))
    return (f"<article class='post p{i % 5}'>\n <div class='post-body'>\n"
            f"  <h2 class='title'><a href='/post/{i}'>{i}. {_sentence(i, 6)}</a></h2>\n"
            f"  <div class='byline'><span class='author'>{w[i % len(w)].title()} Writer {i}</span> · "
            f"<time>2024-0{1 + i % 9}-1{i % 10}</time></div>\n"
            f"  <p>{_sentence(i)} In {1900 + i}, <a href='/ref/{i}'>{_sentence(i + 1, 4)}</a> {_sentence(i + 2)} "
            f"<em>{w[(i + 3) % len(w)]}</em> {_sentence(i + 3, 9)}</p>\n"
            f"  <p>{_sentence(i + 4)} <span class='note'>Note {i}: {_sentence(i + 5, 5)}</span> {_sentence(i + 6)}</p>\n"
            f" </div>\n <ul class='tags'>\n{tags}\n </ul>\n</article>\n")


def _page(posts: int) -> str:
    menu = "".join(f"<li><a href='/m/{k}'>{WORDS[k % len(WORDS)]}</a></li>" for k in range(12))
    side = "".join(f"<li><a href='/popular/{k}'>{_sentence(k, 5)}</a></li>" for k in range(10))
    return (f"<!doctype html><html lang='en'><head><title>Synthetic blog</title></head><body>\n"
            f"<header><nav class='menu'><ul>{menu}</ul></nav></header>\n<div class='layout'>\n<main>\n"
            + "".join(_post(i) for i in range(posts))
            + f"</main>\n<aside class='sidebar'><h3>Popular</h3><ul>{side}</ul></aside>\n</div>\n"
              "<footer><p>© Synthetic</p></footer></body></html>")


def add_live_fields(snapshot: dict) -> dict:
    """The fields only a browser fills, with plausible values: every element visible, stacked boxes."""
    y = 0
    for node in snapshot["nodes"]:
        if node["tag"] == "#text":
            continue
        y += 18
        node.update(visible=True, box=[8 + 4 * (node["depth"] % 10), y, 1200 - 8 * (node["depth"] % 10), 18],
                    font_size=16.0, font_weight=700.0 if node["tag"] in ("h2", "h3") else 400.0,
                    display="inline" if node["tag"] in ("a", "em", "span", "time") else "block")
    snapshot["source"] = "live"
    snapshot["viewport"] = {"width": 1280, "height": 800, "scroll_height": y}
    return snapshot


def live_snapshot(target_nodes: int) -> tuple[dict, int]:
    """A live snapshot of about `target_nodes` nodes, and its block count."""
    twenty, forty = (len(snapshot_from_html(_page(k))["nodes"]) for k in (20, 40))
    per_post = (forty - twenty) / 20
    posts = max(1, round((target_nodes - (twenty - 20 * per_post)) / per_post))
    snapshot = add_live_fields(snapshot_from_html(_page(posts), url="https://bench.example/blog"))
    return snapshot, len(blocks_from_snapshot(snapshot))


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def model_files(model_dir: Path) -> list[tuple[str, float]]:
    return [(p.name, p.stat().st_size / 1e6) for p in sorted(model_dir.iterdir()) if p.is_file()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.host_speed", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, nargs="+", default=[1_000, 5_000, 20_000])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--model-dir", default=None, help="model directory (default: the shipped model)")
    args = ap.parse_args(argv)
    median = statistics.median
    snapshots = {n: live_snapshot(n) for n in args.nodes}
    print("### Host round trip, live snapshots through the real framing (medians)\n")
    print("| nodes | blocks | snapshot JSON | want | validate | blocks | features | inference | article | engine "
          "| host | round trip |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with _start(args.model_dir) as host:
        info = host.request({"v": 1, "id": 0, "type": "hello"})
        for r in sweep(host, snapshots, args.repeats):
            cells = " | ".join(f"{median(r.stages[s]):.1f}" for s in
                               ("validate", "blocks", "features", "inference", "article"))
            print(f"| {len(r.snapshot['nodes']):,} | {r.blocks:,} | {r.megabytes:.2f} MB | {'+'.join(r.want)} | "
                  f"{cells} | {median(r.engine_ms):.1f} | {median(r.host_ms):.1f} | {median(r.trip_ms):.1f} |")
        rss = peak_rss_mb(host.proc.pid)
    to_hello, to_extract = cold_start(args.model_dir, snapshots[min(snapshots)][0], max(3, args.repeats // 2))
    print("\n### Cold start, memory, size\n")
    print("| measure | value |\n|---|---:|")
    print(f"| process start → hello answered (model loaded), median | {median(to_hello):.0f} ms |")
    print(f"| process start → first extract answered (~{min(snapshots):,} nodes), median | {median(to_extract):.0f} ms |")
    print(f"| host peak RSS after all the requests above | "
          + (f"{rss:.0f} MB |" if rss is not None else "n/a (no /proc) |"))
    files = model_files(Path(args.model_dir) if args.model_dir else default_model_dir())
    for name, mb in files:
        print(f"| model file {name} | {mb:.2f} MB |")
    print(f"| model files, total | {sum(mb for _, mb in files):.2f} MB |")
    print(f"\nmodel {info.get('model_id')} on {', '.join(info.get('providers', []))}; {args.repeats} warm repeats")
    return 0


if __name__ == "__main__":
    sys.exit(main())
