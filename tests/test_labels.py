"""Gold labels: an ordered alignment, not a bag of words, decides which blocks are main content."""

from export.labels import aligned_counts, label_blocks, oracle_text, shape_oracle_text
from native_host import snapshot_from_html
from native_host.pipeline.blocks import blocks_from_snapshot


def blocks(html):
    return blocks_from_snapshot(snapshot_from_html(html), combine=False)


def test_alignment_is_ordered_not_a_bag():
    # The menu says "the news" too, but only once, before the article: an ordered alignment gives those
    # words to the article, where the gold text has them; a bag of words would also count the menu.
    bl = blocks("<nav><p>the news</p></nav><article><p>the news of the day is good</p></article>")
    counts = aligned_counts(bl, "the news of the day is good")
    assert counts == [(0, 2), (7, 7)]
    labels = label_blocks(bl, "the news of the day is good")
    assert [lab["main"] for lab in labels] == [0, 1]


def test_half_the_words_make_a_block_main():
    bl = blocks("<p>alpha beta gamma delta</p><p>epsilon zeta eta theta</p>")
    labels = label_blocks(bl, "alpha beta gamma zeta")
    assert [lab["main"] for lab in labels] == [1, 0]  # 3/4 aligned, then 1/4


def test_structural_labels_only_on_main_blocks():
    html = (
        "<h1>Storm hits coast</h1><p>Wind and rain battered the coast on Sunday night.</p>"
        "<ul><li>Roads closed</li></ul><table><tr><td>Gusts 120 km/h</td></tr></table>"
        "<h2>Related</h2><ul><li>Other story</li></ul>"
    )
    bl = blocks(html)
    gold = "Storm hits coast\nWind and rain battered the coast on Sunday night.\nRoads closed\nGusts 120 km/h"
    labels = label_blocks(bl, gold, page_title="Storm hits coast - Daily")
    by_text = {b.text: lab for b, lab in zip(bl, labels)}
    assert by_text["Storm hits coast"]["title"] == 1 and by_text["Storm hits coast"]["heading"] == 0
    assert by_text["Wind and rain battered the coast on Sunday night."]["paragraph"] == 1
    assert by_text["Roads closed"]["list"] == 1
    assert by_text["Gusts 120 km/h"]["table"] == 1 and by_text["Gusts 120 km/h"]["list"] == 0
    assert by_text["Related"] == {"main": 0, "title": 0, "heading": 0, "paragraph": 0, "list": 0, "table": 0}


def test_empty_gold_labels_nothing():
    bl = blocks("<p>a b c</p>")
    assert label_blocks(bl, "")[0]["main"] == 0


def test_oracle_text_on_a_record(page):
    html = page("article").decode()
    gold = (
        "How Tides Work\nTwice a day the sea rises and falls along most coasts. The cause is the "
        "gravitational pull of the Moon and, to a lesser degree, the Sun, acting on the oceans as the Earth "
        "turns beneath them."
    )
    text = oracle_text({"html": html, "main_text": gold, "title": "How Tides Work", "url": None})
    assert text.startswith("How Tides Work\n\nTwice a day")
    assert "Advertisement" not in text and "Sport" not in text


def test_the_shape_oracle_keeps_a_shape_whole_when_the_gold_keeps_half_its_words():
    """A gold that keeps the first three of five items of one list: the block oracle stops where the gold does,
    the shape oracle keeps the list whole; a shape the gold keeps under half of (the menu) goes whole."""
    items = "".join(
        f"<li class='item'><p>Item {n} of the list is a plain sentence about harbours.</p></li>" for n in "12345"
    )
    menu = "<ul class='menu'><li><a href='/a'>Home</a></li><li><a href='/b'>About us here</a></li></ul>"
    html = f"<body>{menu}<main><h1>Harbours</h1><ul class='list'>{items}</ul></main></body>"
    gold = "Harbours\n" + "\n".join(f"Item {n} of the list is a plain sentence about harbours." for n in "123")
    record = {"html": html, "main_text": gold, "title": "Harbours", "url": None}
    assert "Item 4" not in oracle_text(record) and "Item 3" in oracle_text(record)
    whole = shape_oracle_text(record)
    assert all(f"Item {n}" in whole for n in "12345") and "Harbours" in whole and "Home" not in whole
    assert "Item" not in shape_oracle_text({**record, "main_text": "Harbours\nItem 1 of the list is a plain"})
