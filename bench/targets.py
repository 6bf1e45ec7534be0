"""The speed targets the benchmarks report against, in one place (docs/performance.md, "Targets", gives each
with its current figure and command).

Ratios are Pith's figure over a peer's, measured side by side in one run: absolute times move by ±30% on a
shared machine, ratios far less. Absolute limits are for what has no peer (the browser, start, memory, size).
"""

from __future__ import annotations

PER_PAGE_MEDIAN = 0.5  # extract_html's median time ÷ trafilatura's median, same pages: at most
PER_PAGE_P95 = 0.35  # ... and p95 ÷ trafilatura's p95: at most
BATCH_PAGES_PER_S = 2.0  # `pith extract DIR -j 2` pages/s ÷ trafilatura's on the same pages (2 workers): at least
BROWSER_5K_MS = 250  # click to reader view painted, or to highlight drawn, 5,000 elements: at most
BROWSER_1_5K_MS = 120  # ... a typical article of 1,500 elements: at most
COLD_START_S = 0.5  # host process start to the first extract answered: at most
HOST_RSS_MB = 200  # host peak RSS after 20k-node requests: at most
MODEL_MB = 10  # the shipped model's files: at most


def verdict(measured: float, target: float, at_most: bool = True) -> str:
    """'met' or 'not met', for a figure that must stay at most (or at least) its target."""
    return "met" if (measured <= target if at_most else measured >= target) else "not met"
