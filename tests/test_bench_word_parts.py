"""bench.word_parts reads the edges where two texts of one line meet, and says which the segmenter parts."""

from bench.word_parts import edges
from native_host.pipeline.snapshot import snapshot_from_html


def test_each_edge_of_a_line_is_read_with_what_the_rule_does_there():
    html = (
        "<table><tr><td><table><tr><td>Shopping</td></tr></table><a href=/b>Books</a></td></tr></table>"
        "<p><b>Industry</b>Our <span>S</span>amurai <code>get<span>Value</span></code> to<em>day</em>"
        " the LUX<i>Columbia</i> <b>PvP</b>Co<br>Next</p>"
    )
    got = list(edges(snapshot_from_html(html)["nodes"]))
    assert got == [
        ("lower>upper", "Industry", "Our", True),
        ("upper>lower", "S", "amurai", False),
        ("lower>upper", "get", "Value", False),  # code: one identifier
        ("lower>lower", "to", "day", False),
        ("upper>upper", "LUX", "Columbia", True),
        ("upper>upper", "PvP", "Co", False),  # a capital after a lower-case letter
    ]  # "Shopping" and "Books" are two cells' text, "Columbia" and "Next" two lines: no edge
