"""The progress bar: items pass through untouched, and a log gets a few lines, not one per item."""

import io

from native_host.progress import BAR_WIDTH, progress, render


def test_render_bar_and_rate():
    assert render("pages", 6, 24, 2.0) == f"pages  6/24 [{'#' * (BAR_WIDTH // 4)}{' ' * (BAR_WIDTH * 3 // 4)}] 3.0 p/s"
    assert render("pages", 7, None, 2.0) == "pages  7 3.5 p/s"
    assert render("pages", 0, 10, 0.0).endswith("] 0.0 p/s")


def test_items_pass_through_and_a_log_gets_sparse_lines():
    log = io.StringIO()  # not a terminal
    assert list(progress(range(100), desc="x", stream=log)) == list(range(100))
    lines = log.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("x  10/100 [") and lines[-1].startswith("x  100/100 [")


def test_unknown_total_and_early_stop_still_end_with_the_count():
    log = io.StringIO()
    for i in progress(iter(range(5)), desc="y", stream=log):
        if i == 2:
            break
    assert log.getvalue().splitlines()[-1].startswith("y  2 ")


def test_terminal_redraws_one_line():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    list(progress(range(3), desc="z", stream=out))
    assert out.getvalue().startswith("\r") and out.getvalue().count("\n") == 1
