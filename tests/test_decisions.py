"""Page-level rules on the model's decisions: a table, a list or a figure is main as a whole; an article page
keeps its own article and not the teasers after it; a forum thread keeps every post."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from host_support import write_standin_model

from native_host import Extractor, snapshot_from_html
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.decisions import (
    ANSWER_MAX_BLOCKS,
    BARE_CHARS,
    DESCRIPTION_TYPES,
    FAQ_TYPES,
    IMAGE_URLS_MIN,
    POPUP_SHARE,
    PRODUCT_ASIDE_SHARE,
    PRODUCT_REGION_SHARE,
    RUNNING_TEXT_CHARS,
    SIGNATURE_LEVELS,
    TEASER_HEADING_SCORE,
    TEASER_SCORE,
    TEASER_TITLES,
    TEASER_WORDS,
    main_blocks,
    one_article,
    units,
    whole_units,
)
from native_host.pipeline.extractor import result_from_scores
from native_host.pipeline.metadata import read_stated, read_structured, stated_page_type
from native_host.result import LABELS, PAGE_TYPES


@pytest.fixture(scope="module")
def extractor(tmp_path_factory):
    """The stand-in model: main = blocks of about 55 characters or more."""
    return Extractor(write_standin_model(tmp_path_factory.mktemp("standin")))


def page_blocks(html: str, url: str | None = None):
    snapshot = snapshot_from_html(html, url=url)
    return snapshot, blocks_from_snapshot(snapshot)


def test_a_table_is_main_or_not_as_a_whole(page):
    snapshot, blocks = page_blocks(page("article"))
    cells = [b.index for b in blocks if b.tag_path[-1] in ("td", "th")]
    assert len(cells) == 6 and cells in units(snapshot, blocks)
    main = [b.tag_path[-1] in ("p", "h2", "li") for b in blocks]
    mostly = list(main)
    for i in cells[1:]:  # five of six cells: the header row's first cell left out by the block decisions
        mostly[i] = True
    assert all(whole_units(snapshot, blocks, mostly)[i] for i in cells)
    barely = list(main)
    barely[cells[0]] = True  # one short cell of six
    assert not any(whole_units(snapshot, blocks, barely)[i] for i in cells)


def test_a_list_nested_in_a_list_is_one_unit_and_a_page_laid_out_in_a_table_is_none():
    snapshot, blocks = page_blocks(
        "<ul><li>one</li><li>two<ul><li>two a</li><li>two b</li></ul></li></ul>"
        "<table><tr><td><p>A whole article laid out in a cell.</p><div>menu</div></td></tr>"
        "</table>"
    )
    assert units(snapshot, blocks) == [[0, 1, 2, 3]]


def test_teasers_after_the_article_are_not_main(extractor, page):
    r = extractor.extract_html(page("metadata/second-article"))
    assert "Three tide mills" in r.text and "sluice gate" in r.text
    for teaser in ("ferryman", "Hamish Bell", "footbridge", "a short teaser"):
        assert teaser not in r.text, teaser
    # the same runs on a list page are items, and stay
    snapshot, blocks = page_blocks(page("metadata/second-article"))
    scores = np.array([[1.0 if len(b.text) >= 55 else 0.0] for b in blocks])
    listed = main_blocks(snapshot, blocks, scores, 0.5, "listing")
    assert any(listed[i] and "ferryman" in blocks[i].text for i in range(len(blocks)))
    assert one_article(blocks, listed) == main_blocks(snapshot, blocks, scores, 0.5, "article")


def test_a_section_the_model_was_sure_of_is_no_teaser():
    """A tutorial's later section, cut off from the body by steps the model was unsure of, opens with a heading
    and holds few words, as a teaser does; the model's confidence in its heading tells them apart."""
    steps = "".join(f"<li><p>Step {n}: click the tool and drag.</p></li>" for n in range(6))
    snapshot, blocks = page_blocks(
        "<h1>Model a pair of headphones</h1>"
        "<p>This tutorial builds a speaker shell, a padding ring and a headband from a few profile curves, one "
        "surface at a time, and it ends with the bracket that joins them all together into a single piece.</p>"
        f"<ol>{steps}</ol><h2>Create the headband</h2><p>The headband is a series of ellipses swept along "
        "a path.</p><p>Other people read</p>"
    )
    head = next(b.index for b in blocks if b.text == "Create the headband")
    section = [head, head + 1]
    assert sum(len(blocks[i].text.split()) for i in section) < TEASER_WORDS

    def decide(heading: float) -> list[bool]:
        scores = np.array([[0.1 if "li" in b.tag_path else 0.95] for b in blocks], dtype=np.float32)
        scores[head, 0] = heading
        scores[-1, 0] = 0.0
        return main_blocks(snapshot, blocks, scores, 0.5, "article")

    assert all(decide(min(1.0, TEASER_HEADING_SCORE + 0.05))[i] for i in section)
    assert not any(decide(TEASER_HEADING_SCORE - 0.3)[i] for i in section)  # a teaser's headline half believed


def test_the_excerpts_of_cards_under_an_article_are_teasers_without_a_heading():
    """Under a travel article, "Trending stories" cards show one line of excerpt each and no headline the model
    kept: a run after the article that the model kept, unsure (under TEASER_SCORE throughout), while it was
    sure of the article, is a teaser, however long (a legal notice). A run it was sure of stays, and so does one of
    the article's own shape (its last paragraphs after an advert); on a page whose own run it was unsure of (a
    fallback threshold's) no run is told by its scores."""
    body = "".join(
        f"<p>The rental desk at the airport closed for good this spring, paragraph {n} of the story.</p>"
        for n in range(5)
    )
    gap = "".join(f"<div>Popular post {n}</div>" for n in range(5))
    cards = (
        "<div class='card'><p>The cheapest places to fly this winter include three coastal towns.</p></div>"
        "<div class='card'><p>A lodge in the hills.</p></div>"
    )
    snapshot, blocks = page_blocks(f"<main><h1>Car rental</h1>{body}{gap}{cards}</main>")
    story = [b.index for b in blocks if b.text.startswith("The rental")]
    excerpts = [b.index for b in blocks if b.text.startswith(("The cheapest", "A lodge"))]
    assert len(story) == 5 and len(excerpts) == 2
    assert sum(len(blocks[i].text.split()) for i in excerpts) < TEASER_WORDS

    def decide(article: float, card: float) -> list[bool]:
        scores = np.array([[0.0 if b.text.startswith("Popular") else article] for b in blocks], dtype=np.float32)
        scores[excerpts, 0] = card
        return main_blocks(snapshot, blocks, scores, 0.3, "article")

    main = decide(0.95, TEASER_SCORE - 0.2)
    assert all(main[i] for i in story) and not any(main[i] for i in excerpts)
    assert all(decide(0.95, TEASER_SCORE + 0.1)[i] for i in excerpts)
    assert all(decide(TEASER_SCORE - 0.1, TEASER_SCORE - 0.2)[i] for i in story + excerpts)
    # however long: a site's legal notice under the article, which the model half believed
    clause = "No part of this site may be copied, sold or stored without the publisher's leave. " * 2
    notice = "".join(f"<div class='legal'><p>{clause}Part {n}.</p></div>" for n in range(2))
    snapshot, blocks = page_blocks(f"<main><h1>Car rental</h1>{body}{gap}{notice}</main>")
    legal = [b.index for b in blocks if b.text.startswith("No part")]
    assert len(legal) == 2 and sum(len(blocks[i].text.split()) for i in legal) >= TEASER_WORDS
    scores = np.array([[0.0 if b.text.startswith("Popular") else 0.95] for b in blocks], dtype=np.float32)
    scores[legal, 0] = TEASER_SCORE - 0.2
    assert not any(main_blocks(snapshot, blocks, scores, 0.3, "article")[i] for i in legal)
    # the article's own last paragraphs, after an advert, are no teaser
    snapshot, blocks = page_blocks(
        f"<main><h1>Car rental</h1>{body}{gap}<p>The cheapest car is booked a week ahead.</p><p>The end.</p></main>"
    )
    last = [b.index for b in blocks if b.text.startswith(("The cheapest", "The end"))]
    assert len(last) == 2
    scores = np.array([[0.0 if b.text.startswith("Popular") else 0.95] for b in blocks], dtype=np.float32)
    scores[last, 0] = TEASER_SCORE - 0.2
    assert all(main_blocks(snapshot, blocks, scores, 0.3, "article")[i] for i in last)


def test_cards_under_linked_headlines_are_teasers_however_long():
    """Under a blog post, "Recent posts" cards each show a linked headline the model dropped, then an excerpt, an
    author and a date it kept, sure enough (TEASER_SCORE or more) and too many words (TEASER_WORDS or more) for
    the other teaser tests: the linked headlines (TEASER_TITLES) tell the run for teasers. A listicle's items,
    under linked headings of the article's own shape, stay; so does the end of an article after share buttons,
    whose linked headings ("Email", "Print") are under TITLE_WORDS words."""
    body = "".join(
        f"<p>The workshop moved to the old station this spring, and paragraph {n} of the post says why.</p>"
        for n in range(10)
    )
    cards = "".join(
        f"<div class='card'><a href='/post-{n}'><h4>How to choose a frame for print number {n}</h4></a>"
        f"<div class='excerpt'><p>A long excerpt of the linked post, card {n}, telling the reader what they would"
        " learn about frames, mounts, glass and hanging them in a damp room.</p></div>"
        f"<div class='author'>Author {n}</div><div class='date'>May {n + 1}, 2025</div></div>"
        for n in range(4)
    )
    footer = "<div class='tags'>#frames</div><div class='cta'>Try the studio free</div><h3>Recent posts</h3>"
    snapshot, blocks = page_blocks(f"<main><h1>The workshop</h1>{body}</main>{footer}{cards}")
    story = [b.index for b in blocks if b.text.startswith("The workshop moved")]
    heads = [b.index for b in blocks if b.text.startswith("How to choose")]
    card = [b.index for b in blocks if b.text.startswith(("A long excerpt", "Author", "May "))]
    assert len(story) == 10 and len(heads) == 4 and len(card) == 12
    assert sum(len(blocks[i].text.split()) for i in card) >= TEASER_WORDS and len(heads) >= TEASER_TITLES
    scores = np.array([[0.95] for _ in blocks], dtype=np.float32)
    scores[heads, 0] = 0.1
    scores[card, 0] = TEASER_SCORE + 0.1
    scores[[b.index for b in blocks if b.index > story[-1] and b.index < heads[0]], 0] = 0.0
    main = main_blocks(snapshot, blocks, scores, 0.3, "article")
    assert all(main[i] for i in story) and not any(main[i] for i in card)

    # a listicle: each item a linked name over paragraphs of the article's own shape
    items = "".join(
        f"<h3><a href='/shop-{n}'>Number {n} on the list</a></h3><p>Why the shop earns its place on the list,"
        f" item {n}, with a long line about its prices.</p><p>What to buy there, item {n}.</p>"
        for n in range(4)
    )
    adverts = "".join(f"<div>Advert {n}</div>" for n in range(4))
    snapshot, blocks = page_blocks(f"<main><h1>Best shops</h1>{body}{adverts}{items}</main>")
    item = [b.index for b in blocks if "item" in b.text]
    scores = np.array([[0.0 if b.text.startswith("Advert") else 0.95] for b in blocks], dtype=np.float32)
    scores[[b.index for b in blocks if b.text.startswith("Number")], 0] = 0.1
    main = main_blocks(snapshot, blocks, scores, 0.3, "article")
    assert len(item) == 8 and all(main[i] for i in item)

    # share buttons as linked headings before the article's last paragraphs: no headline
    share = (
        "<div class='share'><h3>Save this post</h3>"
        + "".join(f"<div><h2><a href='/share/{w}'>{w}</a></h2></div>" for w in ("Email", "Print"))
        + "<div>Share</div></div>"
    )
    tail = "".join(
        f"<div class='tail'>The last words of the post, line {n}, after the share box.</div>" for n in range(4)
    )
    snapshot, blocks = page_blocks(f"<main><h1>The workshop</h1>{body}{share}{tail}</main>")
    last = [b.index for b in blocks if b.text.startswith("The last words")]
    scores = np.array([[0.0 if "share" in "".join(b.class_path) else 0.95] for b in blocks], dtype=np.float32)
    scores[last, 0] = 0.8
    main = main_blocks(snapshot, blocks, scores, 0.3, "article")
    assert len(last) == 4 and all(main[i] for i in last)


def test_a_chinese_article_outweighs_a_slogan_of_spaced_phrases():
    """Chinese puts no spaces between words: split on spaces, each paragraph of the article was one word and the
    site's slogan of six spaced phrases six, so the slogan was the article and the article a teaser after it."""
    slogan = "内蒙古日报 传媒集团 主管主办 新闻首页 最具影响力 网络媒体"
    para = "会议指出各地要发挥工资保障金和应急周转金的保障作用对已缴纳工资保障金的建筑企业拖欠的工资要及时支付。"
    snapshot, blocks = page_blocks(
        f"<div class='top'><p>{slogan}</p></div><div class='nav'>"
        + "".join(f"<p>栏目{n}</p>" for n in range(5))
        + f"</div><div class='story'><h3>九部门确保工资无拖欠</h3>{''.join(f'<p>{para}{n}</p>' for n in range(3))}</div>"
    )
    assert len(slogan.split()) > 3  # each paragraph below is one "word" to a split
    scores = np.array([[0.01 if b.text.startswith("栏目") else 0.95] for b in blocks], dtype=np.float32)
    scores[[b.index for b in blocks if b.tag_path[-1] == "h3"], 0] = 0.6  # a headline the model half believed
    main = main_blocks(snapshot, blocks, scores, 0.5, "article")
    assert all(main[b.index] for b in blocks if b.text.startswith("会议"))


def test_every_post_of_a_forum_thread_stays(extractor, page):
    r = extractor.extract_html(page("metadata/forum-thread"))
    assert r.page_type == "forum" and r.byline == "gearwright" and r.title == "Winding a turret clock by hand"
    for post in ("Our village church", "About ten minutes", "Seconding the cable", "Thank you both"):
        assert post in r.text, post


def test_a_page_whose_scores_are_low_all_over_still_has_its_text():
    html = (
        "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav><h1>Winter ferry timetable</h1>"
        "<p class='by'>By A. Writer</p>"
        + "".join(
            f"<p>Paragraph {i} of the story, long enough to be running text that a reader reads.</p>" for i in range(4)
        )
        + "<footer><p>Copyright and the terms of use of this website, which nobody reads.</p></footer>"
    )
    snapshot, blocks = page_blocks(html)
    story = [b.index for b in blocks if b.text.startswith("Paragraph")]
    footer = [b.index for b in blocks if b.text.startswith("Copyright")]
    scores = np.zeros((len(blocks), 1), dtype=np.float32)
    for b in blocks:
        scores[b.index, 0] = 0.8 if b.tag_path[-1] == "h1" else 0.15 if b.index in story else 0.02
    main = main_blocks(snapshot, blocks, scores, 0.3, "article")
    assert [i for i, m in enumerate(main) if m and i not in story] == [
        b.index for b in blocks if b.tag_path[-1] == "h1"
    ]
    assert all(main[i] for i in story) and not any(main[i] for i in footer)
    # a confident page is left as the model decided it, and a page of low scores everywhere keeps nothing
    scores[story, 0] = 0.9
    assert [i for i, m in enumerate(main_blocks(snapshot, blocks, scores, 0.3, "article")) if m] == sorted(
        story + [b.index for b in blocks if b.tag_path[-1] == "h1"]
    )
    assert not any(main_blocks(snapshot, blocks, np.zeros_like(scores), 0.3, "article"))


def test_a_long_headline_does_not_set_the_safety_nets_threshold_alone():
    """A headline of running length scored .5 set the lowered threshold at .25, above the whole body (.08-.14),
    and the page showed its headline alone; the net then lowers again from the blocks still left out."""
    headline = "Scientists expect a powerful preventive drug against the virus to reach trials soon"
    body = "".join(
        f"<p>Paragraph {i} of the report, long enough to be running text for a reader.</p>" for i in range(3)
    )
    snapshot, blocks = page_blocks(f"<nav><a href='/'>Home</a></nav><h1>{headline}</h1>{body}<p>Share this</p>")
    assert len(headline) >= RUNNING_TEXT_CHARS
    story = [b.index for b in blocks if b.text.startswith("Paragraph")]
    scores = np.full((len(blocks), 1), 0.01, dtype=np.float32)
    scores[[b.index for b in blocks if b.tag_path[-1] == "h1"], 0] = 0.5
    scores[story, 0] = [0.14, 0.1, 0.08]
    main = main_blocks(snapshot, blocks, scores, 0.3, "article")
    assert all(main[i] for i in story) and not any(main[b.index] for b in blocks if b.text in ("Home", "Share this"))


def test_text_inside_navigation_or_a_footer_is_not_content_unless_it_is_all_there_is():
    para = "A paragraph of the story, long enough to be running text that a reader reads through."
    more = "Another paragraph of the story, as long, so that the main element holds two of them."
    snapshot, blocks = page_blocks(
        f"<header><nav><ul><li><a href='/x'>{para} menu</a></li></ul></nav></header>"
        f"<main><p>{para}</p><p>{more}</p></main><footer><p>{para} footer</p></footer>"
    )
    everything = np.ones((len(blocks), 1), dtype=np.float32)
    main = main_blocks(snapshot, blocks, everything, 0.3, "article")
    assert [b.text.endswith(("menu", "footer")) for b in blocks] == [not m for m in main]
    only = page_blocks(f"<nav><h1>Field notes</h1></nav><footer><p>{para}</p><p>{more}</p></footer>")
    assert all(main_blocks(*only, np.ones((len(only[1]), 1), dtype=np.float32), 0.3, "article"))


def test_units_skip_only_blocks_no_unit_holds():
    """`_units` passes over a block whose tag path holds no unit tag without climbing its ancestors: the same
    units as climbing from every block, on every repository page and on pages nested past the tag path's
    reach, with a table at each side of that edge."""
    from pathlib import Path

    from native_host.pipeline.blocks import PATH_DEPTH
    from native_host.pipeline.decisions import UNIT_TAGS, _is_content_unit, _unit_of

    def climbing(snapshot, blocks):
        groups: dict[int, list[int]] = {}
        for b in blocks:
            unit = _unit_of(snapshot["nodes"], b.owner)
            if unit is not None:
                groups.setdefault(unit, []).append(b.index)
        return [
            ids
            for unit, ids in groups.items()
            if _is_content_unit(snapshot["nodes"], blocks, ids, snapshot["nodes"][unit]["tag"])
        ]

    pages = [p.read_text("utf-8", "replace") for p in sorted(Path(__file__).parent.glob("pages/**/*.html"))]
    for depth in (PATH_DEPTH - 4, PATH_DEPTH - 3, PATH_DEPTH - 2, PATH_DEPTH + 2):
        nest = "<div>" * depth
        pages.append(f"<table><tr><td>{nest}<p>deep cell</p>{'</div>' * depth}</td><td>near</td></tr></table>")
    checked = 0
    for html in pages:
        snapshot, blocks = page_blocks(html)
        assert units(snapshot, blocks) == climbing(snapshot, blocks)
        checked += any(not UNIT_TAGS.isdisjoint(b.tag_path) for b in blocks)
    assert checked >= 5


def test_a_wide_comparison_table_is_main_or_not_as_one_unit(page):
    """41 rows x 19 columns (779 cells): a data table, kept whole with its header row and label cells when
    the model keeps most of its values, even though it holds more blocks than a list may."""
    snapshot, blocks = page_blocks(page("comparison-table"))
    cells = [b.index for b in blocks if b.tag_path[-1] in ("td", "th")]
    assert len(cells) == 41 * 19 and cells in units(snapshot, blocks)
    # the values the model is sure of (numbers, a "yes"); label cells, header row and each "no" left out
    main = [b.tag_path[-1] in ("p", "h2") or (b.tag_path[-1] == "td" and b.text != "no") for b in blocks]
    share = sum(len(blocks[i].text) for i in cells if main[i]) / sum(len(blocks[i].text) for i in cells)
    assert 0.25 < share < 0.75 and not any(main[i] for i in cells if blocks[i].tag_path[-1] == "th")
    whole = whole_units(snapshot, blocks, main)
    assert all(whole[i] for i in cells)


def test_links_that_end_the_article_are_not_main(extractor, page):
    """After the body: "Related: ..." and the heading of a list of links are the end of the article."""
    snapshot, blocks = page_blocks(page("news-link-lists"))
    body = [i for i, b in enumerate(blocks) if b.text.startswith(("Every Thursday", "The council wants"))]
    related = next(i for i, b in enumerate(blocks) if b.text.startswith("Related:"))
    more = next(i for i, b in enumerate(blocks) if b.text == "More Great Travel Stories")
    kept = [body[0] <= i <= more for i in range(len(blocks))]  # what the shipped model keeps of this page
    out = one_article(blocks, kept)
    assert out == [body[0] <= i <= body[1] for i in range(len(blocks))] and related == body[1] + 1
    # a list page's last items are content (its class aside: a box of related pages goes on every page)
    snapshot, blocks = page_blocks(page("news-link-lists").replace(b"related-inline", b"inline"))
    scores = np.array([[1.0 if k else 0.0] for k in kept], dtype=np.float32)
    assert main_blocks(snapshot, blocks, scores, 0.5, "listing")[related]


def test_the_shipped_model_ends_the_article_at_its_last_paragraph(page):
    r = Extractor().extract_html(page("news-link-lists"), url="https://nip.example/travel/chip-fat-ferry")
    assert r.text.endswith("after a winter of trials on the Shapinsay run.")
    assert "chip shops of Kirkwall" in r.text


def test_a_product_page_keeps_its_questions_and_no_empty_heading(page):
    """An FAQ answer keeps its question (the <summary> of its <details>); "You may also like" over products
    left out heads nothing."""
    snapshot, blocks = page_blocks(page("product"))
    questions = [b.index for b in blocks if b.text.endswith("?") and "summary" in b.tag_path]
    answers = [b.index for b in blocks if b.text.startswith(("Less than most", "Only on a wool", "Two to four"))]
    also = next(b.index for b in blocks if b.text == "You may also like")
    assert len(questions) == len(answers) == 3
    kept = [
        (b.tag_path[-1] in ("p", "h2") or "details" in b.tag_path) and b.index not in questions for b in blocks
    ]  # a decision that keeps the answers and not their questions, nor the products listed
    scores = np.array([[float(k)] for k in kept], dtype=np.float32)
    for kind in ("product", "article"):
        main = main_blocks(snapshot, blocks, scores, 0.5, kind)
        assert all(main[i] for i in questions + answers) and not main[also]


def test_a_spec_label_the_model_kept_gets_its_value():
    """A shop's spec lines are a <dt> label and a <dd> value, in a <dl> or in bare <div>s: the model keeps the
    label ("Collar:") and leaves its short value out; a label alone tells the reader nothing. A comment list
    (the commenter, then a long comment) keeps what the model kept."""
    pairs = [("Collar:", "Turn-down collar"), ("Fastening:", "Zip"), ("Lining:", "100% polyester")]
    specs = "".join(f"<div class='row'><dt>{t}</dt> <dd>{d}</dd></div>" for t, d in pairs[:2])
    comment = "The lining tore at the seam after a month, and the shop sent a new jacket within the week."
    snapshot, blocks = page_blocks(
        "<main><h1>Faux leather jacket</h1><p>A short jacket of faux leather with a zip and a chest pocket.</p>"
        f"<div class='details'>{specs}</div><dl><dt>{pairs[2][0]}</dt><dd>{pairs[2][1]}</dd></dl>"
        f"<dl class='comments'><dt>Ann, 3 March</dt><dd><p>{comment} {comment}</p></dd></dl></main>"
    )
    by_text = {b.text: b.index for b in blocks}
    labels = [by_text[t] for t, _ in pairs] + [by_text["Ann, 3 March"]]
    scores = np.array([[0.35 if b.index in labels or b.tag_path[-1] == "h1" else 0.1] for b in blocks])
    scores[by_text["A short jacket of faux leather with a zip and a chest pocket."], 0] = 0.9
    values = [by_text[d] for _, d in pairs]
    main = main_blocks(snapshot, blocks, scores.astype(np.float32), 0.3, "product")
    assert all(main[i] for i in labels + values) and not main[by_text[f"{comment} {comment}"]]


def test_the_shipped_model_reads_the_product_page(page):
    r = Extractor().extract_html(page("product"), url="https://skerry.example/products/harbour-wool-blanket")
    assert "You may also like" not in r.markdown
    for kept in (
        "£89.00",
        "| Weight | 1.4 kg |",  # the product form's specifications table (pipeline/shape.py)
        "## Warranty",
        "five-year warranty",
        "### Does it itch?",
        "Less than most wool",
    ):
        assert kept in r.markdown, kept
    # The description sits in a desktop panel and again in a hidden mobile one: the reader shows it once.
    assert r.markdown.count("North Ronaldsay sheep live on the shore") == 1


def test_a_paragraph_written_twice_is_read_once():
    """A main block of running text that repeats an earlier one, spaces and case aside, is dropped; short lines
    repeat on purpose and stay."""
    from native_host.pipeline.decisions import REPEAT_MIN_CHARS, read_once

    long = "A description long enough to be running text, written once for desktop and once for mobile."
    assert len(long) >= REPEAT_MIN_CHARS
    texts = [long, "Reply", "  " + long.upper() + " ", "Reply", long[:-1], long]
    blocks = [SimpleNamespace(index=i, text=t) for i, t in enumerate(texts)]
    assert read_once(blocks, [True] * 6) == [True, True, False, True, True, False]
    assert read_once(blocks, [False, True, True, True, True, True]) == [False, True, True, True, True, False]


def test_a_hidden_copy_of_the_article_is_not_read_again():
    """A page that hides its post again as raw Markdown for machines (`<pre hidden>`) gives the reader the post
    once; a collapsed section (hidden, text of its own), a hidden copy of under COPY_MIN_WORDS words and a shown
    block that repeats the post's words stay."""
    from native_host.pipeline.decisions import COPY_MIN_WORDS

    paragraphs = [
        "Choosing a rowing boat starts with the water you row on, the weight you carry and the storage you have.",
        "A narrow shell is quick on flat water, but a wider hull forgives a novice and carries a picnic too.",
        "Wooden boats ask for varnish each spring; plastic ones ask for nothing but a rinse after salt water.",
    ]
    copy = "# Choosing a rowing boat\n\n" + "\n\n".join(paragraphs)
    assert len(copy.split()) >= COPY_MIN_WORDS
    html = (
        "<main><h1>Choosing a rowing boat</h1>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "<details><summary>Sizes</summary><div hidden><p>Shells run from seven to eight metres long and"
        " weigh fourteen kilograms; touring boats are shorter, heavier and hold two rowers.</p></div></details>"
        + f"<pre hidden class='rawMarkdown'>{copy}</pre><pre hidden>{paragraphs[0][:55]}</pre>"
        + f"<blockquote>{paragraphs[1]} {paragraphs[2]}</blockquote></main>"
    )
    snapshot, blocks = page_blocks(html)
    copies = [b.index for b in blocks if b.text.startswith("# Choosing")]
    # the headline, three paragraphs, the collapsed section, the short hidden copy and the quote
    kept = [b.index for b in blocks if b.text.startswith(("Choosing", "A narrow", "Wooden", "Shells"))]
    assert len(copies) == 1 and len(kept) == 7
    for page_type in ("article", "documentation", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert all(main[i] for i in kept) and not main[copies[0]], page_type


def test_the_sites_bar_is_not_the_page():
    """A <header> outside <main> and <article> with no heading in it is the site's bar (a search box, a version
    picker, menu buttons): its blocks go whatever their scores, and so do those of an element the page gives the
    landmark role of a bar, a menu or a footer. The article's own header (in a <main> or a role="main"), a page
    title banner with its heading, and a page whose only text sits in the bar keep theirs."""
    bar = (
        "<header class='site'><div><button>Version: Free, Pro and Team plans</button></div>"
        "<div>Search or ask the assistant</div><div>Select language: current language is English</div></header>"
    )
    roles = (
        "<div role='Banner'><span>Sign in to your account</span></div>"
        "<div role='navigation menu'><a href='/a'>Sections and topics</a></div>"
        "<div role='contentinfo'><p>Subscribe to the weekly letter</p></div>"
    )
    body = "".join(
        f"<p>Workflows run on events; step {n} names a job, its runner and its commands.</p>" for n in range(3)
    )
    html = (
        f"<body>{bar}{roles}<header class='banner'><h2>Write workflows</h2><p>How-tos for GitHub Actions users</p>"
        f"</header><main><article><header><p>Updated in March by the docs team</p></header>{body}</article></main>"
        "<div role='main'><header><p>Last reviewed by the docs team</p></header></div></body>"
    )
    snapshot, blocks = page_blocks(html)
    dropped = [
        b.index for b in blocks if b.text.startswith(("Version", "Search", "Select", "Sign", "Sections", "Subs"))
    ]
    kept = [b.index for b in blocks if b.text.startswith(("Write", "How-tos", "Updated", "Workflows", "Last"))]
    assert len(dropped) == 6 and len(kept) == 7
    sure = np.ones((len(blocks), 1), dtype=np.float32)  # a model that keeps every block, headers too
    for page_type in ("documentation", "article", "service", None):
        main = main_blocks(snapshot, blocks, sure, 0.5, page_type)
        assert all(main[i] for i in kept) and not any(main[i] for i in dropped), page_type
    snapshot, blocks = page_blocks(f"<body>{bar}<div><p>Short.</p></div></body>")
    assert all(main_blocks(snapshot, blocks, np.ones((len(blocks), 1), dtype=np.float32), 0.5, "documentation"))


def test_a_form_the_reader_fills_in_is_not_the_page():
    """A sign-up box, a poll and a shop's filters are forms with fields: their labels and choices go whatever
    their scores. A form whose fields are all hidden (a thread's comments, each in a form of its own), one that
    holds running text (a search's results), one that holds most of the page (ASP.NET wraps every page in one)
    and a page whose only text is a form (but for its button's label) keep theirs."""
    story = "".join(
        f"<p>The council met on Monday and voted on item {n} of the budget for the new year.</p>" for n in range(4)
    )
    signup = (
        "<form action='/subscribe'><h3>Get the morning letter</h3><label>Your email address "
        "<input type='email' name='email'></label><label><input type='checkbox' name='offers'> Send me offers too"
        "</label><button>Subscribe now</button></form>"
    )
    poll = (
        "<form action='/poll'><p>How do you rate the new budget?</p><label><input type='radio' name='r'> Very well"
        "</label><label><input type='radio' name='r'> Not at all</label></form>"
    )
    filters = (
        "<form action='/shop'><select name='sort'><option>Price</option></select><div>Brand names A to Z</div></form>"
    )
    comments = "".join(
        f"<form action='/vote'><input type='hidden' name='id' value='{n}'><div style='display:none'><textarea>"
        f"</textarea></div><div class='md'><p>Comment {n}: nice work.</p></div></form>"
        for n in range(3)
    )
    results = (
        "<form action='/search'><input type='search' name='q'><div><h3>Labradoodle puppies for sale</h3>"
        "<p>Two black boys and a cream girl, wormed and vaccinated, raised in our family home with children, "
        "ready to leave from the first week of March with a puppy pack.</p></div></form>"
    )
    html = f"<body><main><h1>Budget passed</h1>{story}{signup}{poll}{filters}{comments}{results}</main></body>"
    snapshot, blocks = page_blocks(html)
    dropped = [
        b.index
        for b in blocks
        if b.text.startswith(("Get the", "Your email", "Send me", "Subscribe", "How do", "Very", "Not at", "Brand"))
    ]
    kept = [
        b.index for b in blocks if b.text.startswith(("Budget", "The council", "Comment", "Labradoodle", "Two black"))
    ]
    assert len(dropped) == 8 and len(kept) == 10
    sure = np.ones((len(blocks), 1), dtype=np.float32)  # a model that keeps every block, the forms' too
    for page_type in ("article", "listing", "forum", None):
        main = main_blocks(snapshot, blocks, sure, 0.5, page_type)
        assert all(main[i] for i in kept) and not any(main[i] for i in dropped), page_type
    wrapped = f"<body><form action='/default.aspx'><input type='text' name='q'><main>{story}</main></form></body>"
    snapshot, blocks = page_blocks(wrapped)
    assert all(main_blocks(snapshot, blocks, np.ones((len(blocks), 1), dtype=np.float32), 0.5, "article"))
    snapshot, blocks = page_blocks(f"<body>{signup}</body>")  # the button's label goes as any button's does
    main = main_blocks(snapshot, blocks, np.ones((len(blocks), 1), dtype=np.float32), 0.5, "service")
    assert all(m for b, m in zip(blocks, main) if b.text != "Subscribe now")


def test_a_buttons_label_is_not_the_page():
    """A button's label is a control (load more, a shop's filter chips, add to cart): it goes whatever its
    score. A button that titles the panel under it (in a heading, or before kept text: an accordion, a tab), a
    question and a long label stay, and so does a page whose only text is buttons."""
    story = "".join(
        f"<p>The ferry ran late on day {n} of the strike, and the harbour board met twice.</p>" for n in range(4)
    )
    controls = (
        "<div class='filters'><button>Women</button><button>Unisex</button><button>Under $25</button></div>"
        "<button class='more'>Load more stories</button><div><button>Add to cart</button></div>"
    )
    titles = (
        "<h3><button aria-expanded='false'>Shipping and returns</button></h3><div><p>We ship within two days and take "
        "returns for a month.</p></div><button>Overview</button><div><p>The boat seats forty and runs on the hour.</p>"
        "</div><button>Is the ferry free?</button><button>Read the whole timetable for the winter months here</button>"
    )
    snapshot, blocks = page_blocks(f"<body><main><h1>Ferry strike</h1>{story}{titles}{controls}</main></body>")
    dropped = [
        b.index for b in blocks if b.text in ("Women", "Unisex", "Under $25", "Load more stories", "Add to cart")
    ]
    kept = [
        b.index
        for b in blocks
        if b.text.startswith(("Ferry", "The ferry", "Shipping", "We ship", "Overview", "The boat", "Is the", "Read"))
    ]
    assert len(dropped) == 5 and len(kept) == 11
    sure = np.ones((len(blocks), 1), dtype=np.float32)  # a model that keeps every block, the buttons' too
    for page_type in ("article", "collection", "service", None):
        main = main_blocks(snapshot, blocks, sure, 0.5, page_type)
        assert all(main[i] for i in kept) and not any(main[i] for i in dropped), page_type
    snapshot, blocks = page_blocks(f"<body>{controls * 3}</body>")  # over NEARLY_EMPTY_CHARS, all in buttons
    assert all(main_blocks(snapshot, blocks, np.ones((len(blocks), 1), dtype=np.float32), 0.5, "collection"))


def test_a_forum_post_keeps_its_text_and_not_its_signature(extractor, page):
    """Every post's text is main; the signature under a post (class "message-signature") is not."""
    snapshot, blocks = page_blocks(page("forum-thread"))
    posts = [b.index for b in blocks if len(b.text) >= 100]
    signatures = [b.index for b in blocks if b.text.startswith(("Fair winds", "Ask me about canvas"))]
    assert len(posts) == 4 and len(signatures) == 3
    scores = np.array([[1.0 if b.index in posts + signatures else 0.0] for b in blocks], dtype=np.float32)
    main = main_blocks(snapshot, blocks, scores, 0.5, "forum")
    assert all(main[i] for i in posts) and not any(main[i] for i in signatures)
    r = Extractor().extract_html(page("forum-thread"), url="https://sailing.example/threads/stove.412/")
    assert "Fair winds" not in r.text and "Ask me about canvas" not in r.text
    assert r.text.count("stove") >= 3


def test_a_listing_keeps_every_item_of_its_record_shape(page):
    """Six of the eight event titles kept (the two left out read as links): on a listing all eight are, and
    on an article page the rule does not run."""
    snapshot, blocks = page_blocks(page("event-listing"))
    titles = [b.index for b in blocks if b.class_path[-1:] == ["h3.event-title"]]
    summaries = [b.index for b in blocks if b.class_path[-1:] == ["p.event-summary"]]
    assert len(titles) == len(summaries) == 8
    kept = set(titles[:6] + summaries) | {b.index for b in blocks if b.tag_path[-1] == "h1"}
    scores = np.array([[1.0 if b.index in kept else 0.0] for b in blocks], dtype=np.float32)
    main = main_blocks(snapshot, blocks, scores, 0.5, "listing")
    assert all(main[i] for i in titles + summaries)
    assert not any(main[b.index] for b in blocks if "aside" in b.tag_path or "nav" in b.tag_path)
    assert not any(main_blocks(snapshot, blocks, scores, 0.5, "article")[i] for i in titles[6:])


def test_a_shape_of_fewer_words_than_a_title_is_not_a_record(page):
    """The forum index's columns of numbers repeat five times, but a strip of counts is no list of items."""
    snapshot, blocks = page_blocks(page("forum-index"))
    counts = [b.index for b in blocks if b.class_path[-1:] == ["dd.topics"] and b.text.isdigit()]
    assert len(counts) == 5
    scores = np.array([[1.0 if b.index in counts[:4] else 0.0] for b in blocks], dtype=np.float32)
    assert not main_blocks(snapshot, blocks, scores, 0.5, "listing")[counts[4]]


def _story_list(intro_lines: int) -> str:
    """A page of newest stories: a bar of links, a line of intro, twelve stories (a title and a line of points
    under it) and a footer of links."""
    intro = " ".join(["Stories the readers sent in during the last hour, newest first."] * intro_lines)
    stories = "".join(
        f"<tr class='athing'><td class='title'><a href='/s/{n}'>Story {n}: a harbour town rebuilds its sea"
        f" wall</a></td></tr><tr><td class='subtext'>{n} points by reader{n} | hide |"
        " discuss</td></tr>"
        for n in range(1, 13)
    )
    bar = "".join(f"<a href='/{w}'>{w}</a> | " for w in ("new", "past", "comments", "ask", "show", "jobs"))
    foot = "".join(f"<li class='link'><a href='/{w}'>{w}</a></li>" for w in ("Guidelines", "FAQ", "Legal", "Contact"))
    return (
        f"<body><header><nav class='top'>{bar}</nav></header><main><h1>New stories</h1>"
        f"<p class='intro'>{intro}</p><table class='itemlist'>{stories}</table></main>"
        f"<footer><ul class='links'>{foot}</ul></footer></body>"
    )


def test_a_bare_page_keeps_the_list_the_model_was_unsure_of():
    """A page whose kept text is next to nothing (a heading and a line of intro) but that holds a list of
    stories the model scored under the threshold yet not as navigation: the list is kept, whatever the type
    head called the page (it called two of such pages articles); the points under each story, scored as
    navigation, are not. Not where the kept text is already a body of its own, nor where the model was sure
    the list is not content."""

    def decide(html: str, title_score: float, page_type: str | None) -> tuple[list[int], list[int], list[bool]]:
        snapshot, blocks = page_blocks(html)
        titles = [b.index for b in blocks if b.text.startswith("Story ")]
        points = [b.index for b in blocks if b.class_path[-1:] == ["td.subtext"]]
        score = {"h1": 0.9, "p": 0.9}
        scores = np.array(
            [
                [title_score if b.index in titles else 0.05 if b.index in points else score.get(b.tag_path[-1], 0.01)]
                for b in blocks
            ],
            dtype=np.float32,
        )
        return titles, points, main_blocks(snapshot, blocks, scores, 0.3, page_type)

    for page_type in ("article", "listing", None):
        titles, points, main = decide(_story_list(2), 0.2, page_type)
        assert len(titles) == len(points) == 12
        assert all(main[i] for i in titles) and not any(main[i] for i in points), page_type
    titles, _, main = decide(_story_list(2), 0.05, "listing")  # the model was sure: not content
    assert not any(main[i] for i in titles)
    titles, _, main = decide(_story_list(BARE_CHARS // 60), 0.2, "listing")  # the page has a body of its own
    assert not any(main[i] for i in titles)


def _card_catalogue(descriptions: list[str]) -> str:
    """A catalogue of programmes: a heading and a line of intro, then a card per programme, the whole card one
    link (a picture's label, a title, a line or two of description), and a footer of links."""
    cards = "".join(
        f"<div class='card'><a href='/p/{n}'><div class='card-image'><span class='label'>Image</span></div>"
        f"<div class='card-body'><div class='card-title'>Programme {n} in applied coastal engineering</div>"
        f"<p class='card-text'>{text}</p></div></a></div>"
        for n, text in enumerate(descriptions, 1)
    )
    foot = "".join(f"<li class='link'><a href='/{w}'>{w}</a></li>" for w in ("Contact", "Legal", "Jobs"))
    return (
        "<body><main><h1>Our programmes</h1><p class='intro'>Twelve programmes for working engineers, each taught"
        f" on campus and online.</p><div class='cards'>{cards}</div></main>"
        f"<footer><ul class='links'>{foot}</ul></footer></body>"
    )


def test_a_bare_page_keeps_its_cards_with_their_titles():
    """A service page whose kept text is a heading and a line of intro, over twelve cards the model read as
    teasers (each card one link): on service, listing, documentation and forum pages the cards are the list,
    their titles with their descriptions. Not on an article (related stories under a short report), a product
    or a collection (a shop's carousel of similar items), nor where the cards repeat one text (a notice under
    each sponsored item)."""
    own = [
        f"Learn to design harbour wall number {n} against storms, tides and rising seas, with field work on"
        f" real sites and a project of your own in the last term of year {n}."
        for n in range(1, 13)
    ]

    def decide(html: str, page_type: str | None) -> tuple[list[int], list[bool]]:
        snapshot, blocks = page_blocks(html)
        cards = [b.index for b in blocks if b.class_path[-1:] in (["div.card-title"], ["p.card-text"])]
        score = {"h1": 0.9, "p.intro": 0.9, "div.card-title": 0.08, "p.card-text": 0.2}
        scores = np.array([[score.get((b.class_path or [""])[-1], score.get(b.tag_path[-1], 0.01))] for b in blocks])
        return cards, main_blocks(snapshot, blocks, scores.astype(np.float32), 0.3, page_type)

    for page_type in ("service", "listing"):
        cards, main = decide(_card_catalogue(own), page_type)
        assert len(cards) == 24 and all(main[i] for i in cards), page_type
    for page_type in ("article", "product", "collection"):
        cards, main = decide(_card_catalogue(own), page_type)
        assert not any(main[i] for i in cards), page_type
    cards, main = decide(_card_catalogue(own[:1] * 12), "service")  # one notice repeated: no list
    assert not any(main[i] for i in cards)


def test_a_forum_index_keeps_its_forums_and_not_its_statistics(page):
    """Who is online, birthdays and the board's statistics are side boxes of the board, not its forums."""
    snapshot, blocks = page_blocks(page("forum-index"))
    forums = [b.index for b in blocks if b.class_path[-1:] == ["div.list-inner"] and len(b.text) > 60]
    boxes = [b.index for b in blocks if any("stat-block" in c for c in b.class_path)]
    assert len(forums) == 5 and len(boxes) == 7
    scores = np.array([[1.0 if b.index in forums + boxes else 0.0] for b in blocks], dtype=np.float32)
    main = main_blocks(snapshot, blocks, scores, 0.5, "forum")
    assert all(main[i] for i in forums) and not any(main[i] for i in boxes)


def everything(blocks, but=()):
    """Scores that keep every block outside a header, nav or footer but the ones in `but`: a model that
    cannot tell boxes from content, so that only the rules can."""
    chrome = {"nav", "header", "footer"}
    return np.array([[0.0 if b.index in but or chrome & set(b.tag_path) else 1.0] for b in blocks], dtype=np.float32)


def test_a_product_page_keeps_its_description_and_not_its_reviews_or_pop_ups(page):
    """The buyers' reviews, a delivery popover and a size guide's modal are not the product: on a product page
    they go, the description, specifications and guarantee stay; on an article page the rule does not run."""
    snapshot, blocks = page_blocks(page("product-reviews"))
    reviews = [b.index for b in blocks if any("review" in c for c in b.class_path[-2:])]
    boxes = [b.index for b in blocks if b.text.startswith(("Orders over forty", "Not sure which size"))]
    product = [b.index for b in blocks if b.text.startswith(("A stovetop kettle", "Capacity:", "We guarantee"))]
    assert len(reviews) == 7 and len(boxes) == 2 and len(product) == 3
    main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "product")
    assert all(main[i] for i in product) and not any(main[i] for i in reviews + boxes)
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "article")[i] for i in reviews)
    # a page the type head calls a collection but gives a fifth or more of being a product gets the rule too;
    # under that, its reviews stay, and its pop-ups go as on every page (`not_small_boxes`)
    for share, dropped in ((0.1, False), (PRODUCT_ASIDE_SHARE, True), (0.45, True)):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "collection", share)
        assert all(main[i] for i in product) and all(main[i] != dropped for i in reviews), share
        assert not any(main[i] for i in boxes), share
    r = Extractor().extract_html(page("product-reviews"), url="https://noust.example/kettles/tidewater")
    assert r.page_type == "product" and "Customer reviews" not in r.text
    assert "Capacity: 1.6 litres" in r.text and "ten years against chipping" in r.text


def test_a_review_nested_under_classes_of_its_own_is_still_a_review():
    """A shop's review text sits a few classed levels below the box that names it ("review-list" > "a-section"
    > "a-row" > "a-text"): on a product page it goes too (PRODUCT_ASIDE_LEVELS), and so do the shop's other
    products (a "related" box, which goes on every page); the description stays."""
    review = "<div class='a-section'><div class='a-row'><span class='a-text'>{0}</span></div></div>"
    html = (
        "<main><h1>Tidewater kettle</h1><div class='desc'><p>A stovetop kettle of enamelled steel that holds 1.6"
        " litres and whistles when it boils, with a beech handle that stays cool on the hob.</p></div>"
        "<div class='review-list'><div class='cm-list'>"
        + review.format("Boils fast on our gas hob and the whistle is loud enough to hear from the garden.")
        + review.format("The enamel chipped after a month of daily use, which is a shame for the price.")
        + "</div></div><div class='related-products'><div class='grid'><div class='card'><p>The Harbour kettle,"
        " two litres of brushed steel for a family that drinks a pot of tea an hour.</p></div></div></div></main>"
    )
    snapshot, blocks = page_blocks(html)
    said = [b.index for b in blocks if b.text.startswith(("Boils fast", "The enamel", "The Harbour"))]
    desc = [b.index for b in blocks if b.text.startswith("A stovetop kettle")]
    assert len(said) == 3 and all(len(b.class_path) >= 3 for b in (blocks[i] for i in said))
    assert not any(
        w in e for i in said for e in blocks[i].class_path[-SIGNATURE_LEVELS:] for w in ("review", "related")
    )
    main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "product")
    assert all(main[i] for i in desc) and not any(main[i] for i in said)
    main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "article")
    assert all(main[i] for i in said[:2]) and not main[said[2]]


def test_links_to_related_pages_the_sidebar_and_the_authors_bio_are_not_the_article():
    """Under an article, a box of teasers for the site's related pages, a sidebar and the author's bio are the
    site's, not the article's: the related box and the sidebar go on every page type, the bio on articles (and
    pages of no type). A box so named that holds half the page's main text or more is the page: a listing of
    related stories, a biography site's "bio"; a class that only holds the word ("has-sidebar") names no box."""
    body = "".join(
        f"<p>The ferry to Eday runs on tidal power from this spring, paragraph {n} of the story.</p>" for n in range(6)
    )
    related = "".join(
        f"<li><a href='/s/{n}'>Another island's harbour wall rebuilt after the winter storms, part {n}</a></li>"
        for n in range(3)
    )
    html = (
        f"<main class='has-sidebar'><article><h1>Tidal ferry</h1><div class='entry-content'>{body}</div>"
        f"<div class='td-related-posts'><h4>Related</h4><ul>{related}</ul></div>"
        "<div class='author-bio'><p>Ann Example has written about the islands' ferries and harbours since 2009.</p>"
        "</div></article><div class='sidebar'><p>Subscribe to the island paper for a year and get the tide tables"
        " free.</p></div></main>"
    )
    snapshot, blocks = page_blocks(html)
    story = [b.index for b in blocks if b.text.startswith("The ferry")]
    teasers = [b.index for b in blocks if "harbour wall" in b.text]
    bio = [b.index for b in blocks if b.text.startswith("Ann Example")]
    rail = [b.index for b in blocks if b.text.startswith("Subscribe")]
    assert len(story) == 6 and teasers and len(bio) == 1 and len(rail) == 1  # the links of one list are one block
    for page_type in ("article", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert all(main[i] for i in story) and not any(main[i] for i in teasers + bio + rail), page_type
    main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "service")
    assert all(main[i] for i in story + bio) and not any(main[i] for i in teasers + rail)
    # the box that is the page, beside a line of its own
    line = (
        "<p>Stories from the islands this week, gathered by our readers and the paper's own reporters on every"
        " ferry route.</p>"
    )
    snapshot, blocks = page_blocks(
        f"<main><h1>Island stories</h1>{line}<div class='related-stories'><ul>{related}</ul></div></main>"
    )
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "listing"))
    snapshot, blocks = page_blocks(f"<main><div class='bio col-md-8'><h1>Ann Example</h1>{body}</div>{line}</main>")
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "article"))
    snapshot, blocks = page_blocks(f"<main><div class='sidebar'><h1>Island stories</h1>{body}</div>{line}</main>")
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "article"))


def test_a_kept_question_of_a_folded_faq_gets_its_answer():
    """An FAQ of its own elements (a question that ends in "?" and its answer panel, one element each, three or
    more of one shape) whose answer the model scored under its question: a kept question gets the rest of its
    element. A question left out stays out with its answer, and an element too long to be one answer (a box of
    teasers under a heading that ends in "?") or mostly links is not an answer."""
    questions = ("Does the ferry carry bicycles?", "Can I book a cabin?", "Is there a cafe on board?")
    items = "".join(
        f"<div class='faq-item'><div class='faq-q'>{q}</div><div class='faq-a'><p>Answer {n}: yes, on every"
        f" sailing from the pier, when booked a day ahead.</p><p>See the timetable {n}.</p></div></div>"
        for n, q in enumerate(questions)
    )
    html = f"<main><h1>Ferry questions</h1><p>{'Crossing times and fares for the island ferry. ' * 3}</p>{items}</main>"
    snapshot, blocks = page_blocks(html)
    asked = [b.index for b in blocks if b.text in questions]
    answers = [b.index for b in blocks if b.text.startswith(("Answer", "See the"))]
    assert len(asked) == 3 and len(answers) == 6
    main = main_blocks(snapshot, blocks, everything(blocks, but=answers + asked[2:]), 0.5, "service")
    assert all(main[i] for i in asked[:2] + answers[:4]) and not any(main[i] for i in asked[2:] + answers[4:])
    assert not any(main_blocks(snapshot, blocks, everything(blocks, but=answers), 0.5, "forum")[i] for i in answers)
    # a heading ending in "?" over a box of ANSWER_MAX_BLOCKS lines or more is no question with its answer
    long = "".join(
        f"<p>Line {n} of a long box of other stories from the islands this week.</p>"
        for n in range(ANSWER_MAX_BLOCKS + 1)
    )
    boxes = "".join(f"<div class='box'><h3>{q}</h3><div>{long}</div></div>" for q in questions)
    snapshot, blocks = page_blocks(f"<main><h1>Ferry</h1>{boxes}</main>")
    lines = [b.index for b in blocks if b.text.startswith("Line")]
    main = main_blocks(snapshot, blocks, everything(blocks, but=lines), 0.5, "article")
    assert not any(main[i] for i in lines)


def test_an_embedded_post_and_a_loading_placeholder_are_not_the_article():
    """A tweet embedded as its publisher's markup gives it (a blockquote the network's script swaps for a frame
    in the browser, whose text the reader never shows) and a "Loading..." line of a grid its script never filled
    are not the page's content; an ordinary quote stays, and a line that only starts with "Loading" is text."""
    body = "".join(f"<p>The harbour board met on Tuesday to agree the new tide tables, part {n}.</p>" for n in range(4))
    html = (
        f"<main><h1>Harbour board</h1>{body}<blockquote class='twitter-tweet'><p>Tide tables out now, read"
        " them at the harbour office today!</p>— Harbour (@harbour)</blockquote><blockquote><p>We agreed them"
        " unanimously after a long evening, said the chair.</p></blockquote><div class='grid'><h3>Loading...</h3>"
        "<h3>Loading…</h3></div><p>Loading the ferry takes an hour at low tide, the board heard.</p></main>"
    )
    snapshot, blocks = page_blocks(html)
    tweet = [b.index for b in blocks if b.text.startswith(("Tide tables", "— Harbour"))]
    quote = [b.index for b in blocks if b.text.startswith("We agreed")]
    loading = [b.index for b in blocks if b.text.startswith("Loading") and len(b.text) < 12]
    ferry = [b.index for b in blocks if b.text.startswith("Loading the ferry")]
    assert tweet and len(quote) == 1 and len(loading) == 2 and len(ferry) == 1
    for page_type in ("article", "collection", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert all(main[i] for i in quote + ferry) and not any(main[i] for i in tweet + loading), page_type


def test_a_noscript_notice_that_the_page_needs_javascript_is_not_the_thread():
    """NodeBB opens every thread with a <noscript> alert that the browser lacks JavaScript: a browser running
    scripts never shows it. Text in a <noscript> that does not say so stays (the HTML path reads it for the sites
    that put their content there), and so does a post that names JavaScript outside one."""
    post = "<p>The bilge pump runs every ten minutes since the mooring, post {}, and nobody knows why.</p>"
    posts = "".join(post.format(n) for n in range(4))
    html = (
        "<main><noscript><div class='alert'><p>Your browser does not seem to support JavaScript. As a result, your"
        " viewing experience will be diminished, and you have been placed in read-only mode.</p></div>"
        "<p>The harbour office opens at eight and closes at six every weekday.</p></noscript>"
        f"{posts}<p>Turn on JavaScript in the chart plotter's settings to see the tide tables there.</p></main>"
    )
    snapshot, blocks = page_blocks(html)
    notice = [b.index for b in blocks if b.text.startswith("Your browser")]
    kept = [b.index for b in blocks if b.text.startswith(("The harbour office", "Turn on JavaScript", "The bilge"))]
    assert len(notice) == 1 and len(kept) == 6
    for page_type in ("forum", "article", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert all(main[i] for i in kept) and not main[notice[0]], page_type


def test_a_paywalls_scrambled_copy_of_the_article_is_not_content():
    """The WAZ puts the rest of a paid article in the page with each letter moved one on, which the reader
    showed as gibberish: a block that reads so goes, on any page, and the heading over it that ends the article
    heads nothing; the teaser, text in other languages and alphabets, code and a short line stay."""

    def scramble(text: str) -> str:
        def moved(c: str) -> str:
            base = ord("a") if c.islower() else ord("A")
            return chr((ord(c) - base + 1) % 26 + base) if c.isascii() and c.isalpha() else c

        return "".join(map(moved, text))

    teaser = "Zum zweiten Mal sind die Food-Trucks nach Witten gekommen. Was gab es auf die Gabel?"
    rest = (
        "Die Besucher konnten sich über alle Kontinente schlemmen, lauschten der Livemusik und genossen das"
        " sommerliche Wetter, auch wenn die Hitze vielen den Appetit nahm."
    )
    stays = (
        teaser,
        "Strč prst skrz krk: the Czech tongue twister has no vowel at all, and it is still a sentence.",
        "Το φεστιβάλ φαγητού δρόμου επέστρεψε στο Βίτεν για δεύτερη φορά φέτος το καλοκαίρι.",
        "dtparam=pwr_led_trigger=default-on dtparam=act_led_activelow=off dtparam=eth_led0=4",
        scramble("Kurz und gut."),
    )
    html = (
        "<main>"
        + "".join(f"<p>{t}</p>" for t in stays)
        + f"<h3>Spezialitäten von allen Kontinenten</h3><p class='obfuscated'>{scramble(rest)}</p></main>"
    )
    snapshot, blocks = page_blocks(html)
    gone = [b.index for b in blocks if b.text.startswith(("Ejf", "Spezialitäten"))]  # the heading heads it only
    kept = [b.index for b in blocks if b.index not in gone]
    assert len(gone) == 2 and len(kept) == len(stays)
    for page_type in ("article", "forum", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert all(main[i] for i in kept) and not any(main[i] for i in gone), page_type


def test_printed_picture_addresses_are_not_the_product():
    """A shop's template that prints its custom fields shows each colour's thumbnail as an address: where a page
    prints IMAGE_URLS_MIN or more of them they go, the description stays; one example address in a table of a
    documentation page is its content."""
    colours = ("Bone", "Ecru", "Camel", "Pistachio")
    fields = "".join(
        f"<dt>cat_thumb_{c}:</dt><dd>https://cdn.example.com/images/160x160/5001/{c}.jpg?c=2</dd>" for c in colours
    )
    html = (
        "<main><h1>Staple tee</h1><p>A regular fit of mid weight combed cotton, side seamed, with taped shoulders"
        f" and double needle hems.</p><dl class='fields'>{fields}</dl></main>"
    )
    snapshot, blocks = page_blocks(html)
    printed = [b.index for b in blocks if b.text.startswith("https://")]
    tee = [b.index for b in blocks if b.text.startswith("A regular fit")]
    assert len(printed) == IMAGE_URLS_MIN + 1 and len(tee) == 1
    for page_type in ("product", "collection", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert main[tee[0]] and not any(main[i] for i in printed), page_type
    docs = (
        "<main><h1>Uploads</h1><p>The response names the stored file's address, which you may show at once.</p>"
        "<table><tr><th>Field</th><th>Example</th></tr><tr><td>url</td>"
        "<td>https://example.com/assets/product_images/3234.jpg</td></tr></table></main>"
    )
    snapshot, blocks = page_blocks(docs)
    example = [b.index for b in blocks if b.text.startswith("https://")]
    assert len(example) == 1 and main_blocks(snapshot, blocks, everything(blocks), 0.5, "documentation")[example[0]]


def test_a_marquee_is_not_the_page():
    """A scrolling banner repeats one phrase so that it loops without a seam ("Book now * Book now * ..."): on
    any page it goes; a line that says a word twice ("Tides rise, tides fall"), a short chant and code whose
    bytes repeat stay."""
    body = "".join(f"<p>We design the labels and boxes of small cosmetic brands, project {n}.</p>" for n in range(4))
    html = (
        f"<main><h1>Packaging design</h1>{body}<div class='marquee'>{'Book now * ' * 30}</div>"
        "<p>Tides rise, tides fall, and the harbour wall holds them both, said the engineer.</p>"
        "<p>Go team go team go!</p><pre>00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00</pre></main>"
    )
    snapshot, blocks = page_blocks(html)
    marquee = [b.index for b in blocks if b.text.startswith("Book now")]
    kept = [b.index for b in blocks if b.text.startswith(("We design", "Tides", "Go team", "00 00"))]
    assert len(marquee) == 1 and len(kept) == 7
    for page_type in ("service", "article", None):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type)
        assert all(main[i] for i in kept) and not main[marquee[0]], page_type


def test_a_product_page_keeps_the_region_of_its_headline():
    """A shop's other products and its legal small print sit away from the product's headline: on a product page
    (or one the type head gives a fifth of being one) the blocks outside the nearest ancestor of the <h1> that holds
    PRODUCT_REGION_SHARE of the main words go; the description and specifications stay. A page whose <h1> stands
    alone in a banner keeps everything (its region is the page), and so does an article."""
    words = "a stovetop kettle of enamelled steel that whistles when it boils on gas, electric or induction hobs"
    product = (
        "<main><div class='pdp'><div class='buy'><h1>Tidewater kettle</h1><p>Price: 64 pounds, in stock.</p></div>"
        f"<div class='about'><p>The Tidewater is {words}.</p><p>Its handle is beech, {words}.</p>"
        f"<p>Its lid is steel, {words}.</p><p>Its base is flat, {words}.</p>"
        f"<ul><li>Capacity: 1.6 litres, {words}</li><li>Weight: 1.1 kilograms, {words}</li></ul></div></div></main>"
    )
    others = (
        "<section class='more'><h2>Also in the shop</h2>"
        + "".join(
            f"<div class='card'><p>The {name} kettle, two litres of brushed steel.</p></div>"
            for name in ("Harbour", "Slipway", "Jetty")
        )
        + "</section><div class='legal'><p>Prices include VAT. Delivery times are estimates and may vary by"
        " region; see our terms of sale for returns.</p></div>"
    )
    snapshot, blocks = page_blocks(f"<body>{product}{others}</body>")
    own = [b.index for b in blocks if b.text.startswith(("The Tidewater", "Its ", "Capacity", "Weight"))]
    away = [b.index for b in blocks if b.text.startswith(("The Harbour", "The Slipway", "The Jetty", "Prices include"))]
    assert len(own) == 6 and len(away) == 4
    # the product's box holds more than PRODUCT_REGION_SHARE of the page's words, the rest less
    total = sum(len(b.text.split()) for b in blocks)
    assert total - sum(len(blocks[i].text.split()) for i in away) > PRODUCT_REGION_SHARE * total
    for page_type, share, dropped in (
        ("product", 0.0, True),
        ("collection", PRODUCT_ASIDE_SHARE, True),
        ("collection", 0.1, False),
        ("article", 0.0, False),
    ):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, page_type, share)
        assert all(main[i] for i in own) and all(main[i] != dropped for i in away), (page_type, share)
    # the headline in a banner of its own: no ancestor but the page holds the share, so nothing goes
    alone = product.replace("<h1>Tidewater kettle</h1>", "")
    snapshot, blocks = page_blocks(f"<body><div class='hero'><h1>Tidewater kettle</h1></div>{alone}{others}</body>")
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "product"))


def test_a_consent_banner_is_not_content_on_any_page(page):
    """A cookie banner, its text and its table of cookies, and a consent manager's pane deep under its box,
    are the site's, not the page's: dropped whatever the page's type, unless they hold the page's only text (a
    site that puts its cookie policy in such a box). An id that is the word alone is a section's anchor."""
    snapshot, blocks = page_blocks(page("consent-banner"))
    banner = [b.index for b in blocks if any(w in c for c in b.class_path for w in ("cookie", "gdpr", "consent"))]
    article = [b.index for b in blocks if "entry-content" in "".join(b.class_path)]
    assert len(banner) >= 11 and len(article) == 3
    assert any(b.text.startswith("These cookies let us") for b in blocks if b.index in banner)
    for kind in (None, "article", "service", "product", "forum", "listing"):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, kind)
        assert all(main[i] for i in article) and not any(main[i] for i in banner), kind
    r = Extractor().extract_html(page("consent-banner"), url="https://slipway.example/drifter-engine")
    assert "We use cookies" not in r.text and "visitor_count" not in r.text
    assert r.text.count("engine") >= 1 and "fuel pump" in r.text
    policy = (
        "<div class='cookie-policy'><h1>Cookies</h1><p>"
        + "".join(f"We set cookie {n} to count visits. " for n in range(8))
        + "</p></div>"
    )
    snapshot, blocks = page_blocks(policy)
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "article"))
    # a consent manager named by its vendor alone (iubenda, Didomi, Usercentrics, Complianz, Quantcast)
    body = "<main><h1>Tide tables</h1>" + "<p>High water at the harbour mouth comes an hour late. </p>" * 6 + "</main>"
    for box in ("iubenda-cs-banner", "didomi-popup", "uc-banner-usercentrics", "cmplz-cookiebanner", "qc-cmp2-ui"):
        pane = f"<div class='{box}'><div class='inner'><p>{''.join(f'We and partner {n} store data. ' for n in range(6))}</p></div></div>"
        snapshot, blocks = page_blocks(body + pane)
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "article")
        assert main[0] and not main[-1], box
    section = "<section id='cookies'><h2>Cookies</h2><p>Read a request's cookies from its cookies attribute.</p>"
    snapshot, blocks = page_blocks(
        "<main><p>" + "".join(f"A web framework's guide, part {n}. " for n in range(8)) + "</p>" + section + "</main>"
    )
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "documentation"))


def test_an_open_consent_manager_is_not_read_in_place_of_the_list_under_it():
    """A recorded page with its consent manager open (a OneTrust pane of purposes and vendors, more text than the
    page's own list of recipes): the model, thrown by the pane, is sure of the pane and unsure of the list. The
    reader gets the list, not the pane. A page whose only text sits in a box a consent word names (a clinic's
    page on informed consent) still keeps it, as the box rules do."""
    cards = "".join(
        f"<article class='card'><h3 class='card-title'><a href='/r/{n}'>Slow tomato sauce number {n} with basil</a>"
        "</h3></article>"
        for n in range(1, 15)
    )
    purposes = "".join(
        f"<li class='ot-cat-item'><h3>Use profiles to select personalised content {n}</h3><p class='ot-desc'>"
        f"{'We and our partners store and access information on a device. ' * 3}</p></li>"
        for n in range(1, 9)
    )
    pane = (
        "<div id='onetrust-consent-sdk' class='show-banner'><div id='onetrust-pc-sdk' class='otPcTab'>"
        f"<ul class='ot-cat-grp'>{purposes}</ul></div></div>"
    )
    snapshot, blocks = page_blocks(
        f"<body><main><h1>Tomato sauces</h1><div class='cards'>{cards}</div></main>{pane}</body>"
    )
    titles = [b.index for b in blocks if b.text.startswith("Slow tomato")]
    boxed = [b.index for b in blocks if any("onetrust" in entry for entry in b.class_path)]
    assert len(titles) == 14 and len(boxed) == 16
    scores = np.array(
        [[0.2 if b.index in titles else 0.7 if b.index in boxed or b.tag_path[-1] == "h1" else 0.01] for b in blocks],
        dtype=np.float32,
    )
    for page_type in ("listing", "collection", None):
        main = main_blocks(snapshot, blocks, scores, 0.5, page_type)
        assert all(main[i] for i in titles) and not any(main[i] for i in boxed), page_type
    consent = (
        "<div class='informed-consent'><h1>Informed consent</h1><p>"
        + "".join(f"Ask what procedure {n} risks. " for n in range(8))
        + "</p></div>"
    )
    snapshot, blocks = page_blocks(consent)
    assert all(main_blocks(snapshot, blocks, everything(blocks), 0.5, "article"))


def test_a_pop_up_is_not_the_page_unless_the_page_is_in_it(page):
    """A booking form's pop-up (its agreement nested deep below the plugin's box: Popup Maker, Gravity Forms) and a
    newsletter's modal, hidden until a click in the page's own HTML, are not its content on any page type (a
    product's own boxes are read by PRODUCT_ASIDES; a page only maybe a product gets both); a box so named that holds the page's content (POPUP_SHARE of
    the main text or more: Drupal wraps every page in a "dialog-off-canvas-main-canvas") is the page's frame, and
    a pop-up inside it still goes."""
    html = page("service-popups").decode()
    drupal = html.replace("<body>", "<body><div class='dialog-off-canvas-main-canvas'>").replace(
        "</body>", "</div></body>"
    )
    for source in (html, drupal):
        snapshot, blocks = page_blocks(source)
        popup = [b.index for b in blocks if b.text.startswith(("Payment is", "Join our newsletter"))]
        body = [b.index for b in blocks if b.text.startswith(("Who is this for?", "We help families", "A two-hour"))]
        assert len(popup) == 4 and len(body) == 4
        assert len(blocks[popup[0]].class_path) - 1 > SIGNATURE_LEVELS + 4  # deeper than any box word is read
        for kind in (None, "article", "service", "listing", "collection", "documentation", "forum"):
            main = main_blocks(snapshot, blocks, everything(blocks), 0.5, kind)
            assert all(main[i] for i in body) and not any(main[i] for i in popup), kind
            if source is html:  # a page the head gives a fifth of being a product (its region rule reads the rest)
                maybe = main_blocks(snapshot, blocks, everything(blocks), 0.5, kind, PRODUCT_ASIDE_SHARE)
                assert not any(maybe[i] for i in popup), kind
    r = Extractor().extract_html(html, url="https://harbourside.example/admissions")
    assert "Who is this for? Families" in r.text and "Payment is" not in r.text and "newsletter" not in r.text
    # a page that puts its content in a box so named keeps it
    article = "<h1>Tide tables</h1>" + "<p>High water at the harbour mouth comes an hour late. </p>" * 6
    snapshot, blocks = page_blocks(f"<div class='modal-page'>{article}</div><div class='popup'><p>Subscribe.</p></div>")
    assert sum(len(b.text) for b in blocks[:-1]) >= POPUP_SHARE * sum(len(b.text) for b in blocks)
    assert main_blocks(snapshot, blocks, everything(blocks), 0.5, "article") == [True] * (len(blocks) - 1) + [False]


def test_what_the_page_marks_as_no_content_is_not_content():
    """A class "nocontent" (Google's search appliance) or "robots-nocontent" (Yahoo's crawler; WordPress's Jetpack
    puts it on its sharing buttons) is the page's own word that its box is not content, at any depth and on every
    page type; "no-content" (an empty state's style) is another word. A sign-up, a log-in and a counter are read
    the same way, and so is a send box (not a "sender")."""
    article = "<h1>Tide tables</h1>" + "<p>High water at the harbour mouth comes an hour late this week. </p>" * 6
    share = (
        "<div class='sharedaddy sd-block sd-social robots-nocontent'><div class='sd-content'><ul>"
        "<li><p>Share this on Facebook with your friends and family today</p></li>"
        "<li><p>Share this on Mastodon with your followers and the fediverse</p></li></ul></div></div>"
    )
    popular = "<div class='most-popular nocontent'><div><div><p>The most read story of the week in the harbour</p>"
    empty = "<div class='no-content'><p>Nothing was posted this week in the harbour forum, come back later.</p></div>"
    # a site's widgets, by a whole word of a class: a sign-up, a log-in, a counter; not an account nor a countdown
    widgets = (
        "<div class='newsletter-signup'><p>Sign up for the harbour letter, every Friday in your inbox</p></div>"
        "<form class='login_form'><p>Log in to comment on the tide tables and save your harbours</p></form>"
        "<span class='comment-count'><p>Forty-two comments on this week's tide tables so far</p></span>"
        "<div class='fb-send-to-messenger'><p>Send the tide tables to yourself on Messenger every morning</p></div>"
        "<div class='sender-info'><p>The harbour office sends the tables to every boat owner on Mondays</p></div>"
        "<div class='account-help'><p>Your harbour pass is also valid at the marina on weekdays</p></div>"
        "<div class='countdown'><p>Six days until the spring tide reaches the old quay again</p></div>"
    )
    snapshot, blocks = page_blocks(f"<main>{article}{share}{widgets}</main>{popular}</div></div></div>{empty}")
    marked = [
        b.index
        for b in blocks
        if b.text.startswith(("Share this", "The most read", "Sign up", "Log in", "Forty", "Send the"))
    ]
    assert len(marked) == 7
    for kind in (None, "article", "service", "forum", "listing", "documentation"):
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, kind)
        assert [not m for m in main] == [b.index in marked for b in blocks], kind
    assert not any(main_blocks(snapshot, blocks, everything(blocks), 0.5, "product")[i] for i in marked)


def test_a_forum_thread_keeps_its_posts_and_not_the_posters_cards_or_notices(page):
    """Each poster's card (rank, join date, location, post count) and the board's notice over the thread are
    not the thread: on a forum page both go, and the cards on a thread typed as an article too."""
    snapshot, blocks = page_blocks(page("forum-cards"))
    cards = [b.index for b in blocks if any("userinfo" in c or "usertitle" in c for c in b.class_path[-2:])]
    notice = [b.index for b in blocks if b.text.startswith("You are using an out of date browser")]
    posts = [b.index for b in blocks if b.text.startswith(("We keep dragging", "A spade sets"))]
    assert len(cards) >= 10 and len(notice) == 1 and len(posts) == 2
    main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "forum")
    assert all(main[i] for i in posts) and not any(main[i] for i in cards + notice)
    assert not any(main_blocks(snapshot, blocks, everything(blocks), 0.5, "article")[i] for i in cards)
    r = Extractor().extract_html(page("forum-cards"), url="https://cruising.example/threads/anchor.77/")
    assert r.page_type == "forum"
    assert not any(r.blocks[i].main for i in cards + notice) and all(r.blocks[i].main for i in posts)


def test_an_article_drops_its_readers_comments_but_not_a_commentary(page):
    """Readers' comments under an article (a WordPress comment list, its reply form) are not the article: on an
    article page they go, while an opinion piece classed a "commentary" stays whole; on a forum page, whose
    posts are the content, the rule does not run (the reply form's button goes there as any form's does)."""
    snapshot, blocks = page_blocks(page("news-comments"))
    comments = [b.index for b in blocks if any("comment" in c and "commentar" not in c for c in b.class_path[-2:])]
    article = [b.index for b in blocks if any("commentar" in c for c in b.class_path[-2:])]
    assert len(comments) >= 9 and len(article) >= 6
    main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "article")
    assert all(main[i] for i in article) and not any(main[i] for i in comments)
    on_forum = main_blocks(snapshot, blocks, everything(blocks), 0.5, "forum")
    assert all(on_forum[i] for i in comments if blocks[i].text != "Post comment")
    r = Extractor().extract_html(page("news-comments"), url="https://courier.example/opinion/night-ferry")
    assert r.page_type == "article" and "half past one boat" not in r.text and "Leave a comment" not in r.text
    assert "publish the numbers every month" in r.text


def test_a_class_that_states_an_articles_comment_status_is_no_comment():
    """Blog engines state on the article itself whether it has comments ("commented", "comments-open",
    "has-comments"): those classes name the article, which stays, while its readers' comments below go."""
    body = "".join(f"<p>Part {n}. The rocket landed on the barge at dawn, upright and whole.</p>" for n in range(4))
    replies = "".join(f"<li class='comment'><p>Reply {n}: what a sight that was.</p></li>" for n in range(3))
    for status in ("commented", "commentable", "comments-open", "has-comments", "no_comments"):
        snapshot, blocks = page_blocks(
            f"<article class='post {status}'><h1>Barge landing</h1><div class='entry'>{body}</div></article>"
            f"<ol class='commentlist'>{replies}</ol>"
        )
        main = main_blocks(snapshot, blocks, everything(blocks), 0.5, "article")
        assert all(main[b.index] for b in blocks if b.text.startswith(("Barge", "Part"))), status
        assert not any(main[b.index] for b in blocks if b.text.startswith("Reply")), status


def test_a_paragraph_the_model_left_out_inside_the_body_is_filled_in():
    """A hole in an article's body (a paragraph between two kept ones, of their element and shape) is filled;
    not a paragraph of links, not after the last kept one, and not in an element whose paragraphs the model
    mostly left out (readers' replies, two of six kept)."""
    text = "The tide turns twice a day along this coast, and the harbour empties at low water."
    links = "<p><a href='/a'>Tide tables for every harbour on the coast</a></p>"
    body = "".join(links if n == 5 else f"<p>Part {n}. {text}</p>" for n in range(1, 8))
    replies = "".join(f"<p>Reply {n}. {text}</p>" for n in range(1, 7))
    html = (
        f"<body><main><h1>Tides</h1><div class='story'>{body}</div><div class='replies'>{replies}</div></main></body>"
    )
    snapshot, blocks = page_blocks(html)
    high = ("Tides", "Part 1.", "Part 3.", "Part 4.", "Part 6.", "Reply 2.", "Reply 5.")
    scores = np.array([[0.9 if b.text.startswith(high) else 0.1] for b in blocks], dtype=np.float32)
    main = main_blocks(snapshot, blocks, scores, 0.5, "article")
    kept = [" ".join(b.text.split()[:2]) for b in blocks if main[b.index]]
    assert kept == ["Tides", "Part 1.", "Part 2.", "Part 3.", "Part 4.", "Part 6.", "Reply 2.", "Reply 5."]


def test_a_product_page_keeps_the_description_its_structured_data_states():
    """A shop states its product's description in JSON-LD; the block that is that text, or one the text holds,
    stays on a product page though the model left it out, unless the same text is kept already. A block that
    holds the description in much more text is not taken for it, nor is text the page does not state, and on
    other page types the description adds nothing."""
    said = "A stovetop kettle of enamelled steel that whistles when it boils, on gas, electric or induction hobs."
    ld = json.dumps({"@context": "https://schema.org", "@type": "Product", "name": "Tidewater", "description": said})
    page = (
        f"<head><script type='application/ld+json'>{ld}</script></head><body><main><h1>Tidewater kettle</h1>"
        "<p>Price: 64 pounds, in stock, dispatched within two working days of your order.</p>"
        f"<div class='lede'>{said.upper()}</div><p>Enamelled steel that whistles when it boils, on gas, electric or induction hobs.</p>"
        f"<p>{said} Ours since 1921, and {' '.join(['made by hand in a small workshop by the sea'] * 3)}.</p>"
        f"<p>Care: wipe it dry after use, never scour the enamel, descale it once a month.</p></main></body>"
    )
    snapshot, blocks = page_blocks(page)
    stated = read_stated(read_structured(snapshot))
    assert stated.description == said
    lede, part, longer, care = (
        next(b.index for b in blocks if b.text.startswith(start))
        for start in ("A STOVETOP", "Enamelled", f"{said} Ours", "Care")
    )
    scores = everything(blocks, but={lede, part, longer, care})
    assert "product" in DESCRIPTION_TYPES and "article" not in DESCRIPTION_TYPES
    main = main_blocks(snapshot, blocks, scores, 0.5, "product", stated=stated)
    assert main[lede] and main[part] and not main[longer] and not main[care]
    assert not any(main_blocks(snapshot, blocks, scores, 0.5, "article", stated=stated)[i] for i in (lede, part))
    # the same text kept already (a copy the model chose) is not added again
    snapshot, blocks = page_blocks(page.replace("<h1>", f"<p class='copy'>{said}</p><h1>"))
    lede, part = (next(b.index for b in blocks if b.text.startswith(start)) for start in ("A STOVETOP", "Enamelled"))
    main = main_blocks(snapshot, blocks, everything(blocks, but={lede, part}), 0.5, "product", stated=stated)
    assert not main[lede] and main[part] and main[lede - 2]


def test_a_faq_the_page_states_keeps_its_questions_and_answers():
    """Questions folded into buttons and their answers the model left out stay where the page's JSON-LD states
    them as its FAQ (on every page type but a forum's); a FAQ's questions are neither a forum thread nor the
    page's headline, while a Q&A page's question is."""
    faq = [
        ("How long does a move take?", "A flat of two rooms takes a crew of three about <b>five hours</b>."),
        ("Do you pack for us?", "Yes: our packers bring boxes, tape and blankets, and pack every room for you."),
    ]
    ld = json.dumps(
        {
            "@context": "https://schema.org",
            "@type": "FAQPage",
            "mainEntity": [
                {"@type": "Question", "name": q, "acceptedAnswer": {"@type": "Answer", "text": a}} for q, a in faq
            ],
        }
    )
    page = (
        f"<head><title>Movers in Harbourtown</title><script type='application/ld+json'>{ld}</script></head>"
        "<body><main><h1>Movers in Harbourtown</h1><p>Local and long-distance moves, packed and insured.</p>"
        + "".join(f"<div class='faq'><button>{q}</button><div class='panel'><p>{a}</p></div></div>" for q, a in faq)
        + "<p>Call us for a quote: our lines are open every day from eight in the morning.</p></main></body>"
    )
    snapshot, blocks = page_blocks(page)
    structured = read_structured(snapshot)
    stated = read_stated(structured)
    assert len(stated.faq) == 4 and stated.faq[2:] == faq[1] and "<b>" not in stated.faq[1]
    assert stated_page_type(structured) != "forum" and structured["json_ld"].get("title") is None
    folded = [b.index for b in blocks if "button" in b.tag_path or "panel" in " ".join(b.class_path)]
    call = next(b.index for b in blocks if b.text.startswith("Call us"))
    assert len(folded) == 4
    scores = everything(blocks, but={*folded, call})
    for page_type in FAQ_TYPES:
        main = main_blocks(snapshot, blocks, scores, 0.5, page_type, stated=stated)
        assert all(main[i] for i in folded) and not main[call], page_type
    assert "forum" not in FAQ_TYPES
    assert not any(main_blocks(snapshot, blocks, scores, 0.5, "forum", stated=stated)[i] for i in folded)
    qa = ld.replace('"FAQPage"', '"QAPage"')
    assert stated_page_type(read_structured(page_blocks(page.replace(ld, qa))[0])) == "forum"


def test_a_sections_front_page_is_no_article_whatever_the_type_head_says():
    """The BBC's /news, which the type head on new sites called an article (.51 against a listing's .39): as an
    article, the article rules kept one run of its headlines and cut the others as teasers (.43 against the
    gold). An address of one word of letters is a section's front page, read as the head's next type; not a
    story's address, nor a site's home page, nor a page whose structured data states an article."""
    sections = "".join(
        f"<section><h2>Section {s}</h2>"
        + "".join(f"<div class='ad'>Advert {s}.{n}</div>" for n in range(4))
        + "".join(
            f"<div class='item'><h3><a href='/news/{s}-{n}'>Ministers meet again over the harbour plan {s}.{n}</a>"
            f"</h3><p>What the plan says about the harbour and the ferries, story {s}.{n}.</p></div>"
            for n in range(5)
        )
        + "</section>"
        for s in range(3)
    )
    types = [0.0] * len(PAGE_TYPES)
    types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index("listing")] = 0.51, 0.39
    stated = '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "News"}</script>'

    def read(url: str, head: str = ""):
        snapshot, blocks = page_blocks(f"<html><head>{head}</head><body><h1>News</h1>{sections}</body></html>", url)
        scores = np.zeros((len(blocks), len(LABELS)), dtype=np.float32)
        scores[:, 0] = [0.0 if b.text.startswith(("Advert", "Section")) else 0.8 for b in blocks]
        result = result_from_scores(snapshot, blocks, scores, LABELS, 0.3, views=(), type_scores=types)
        stories = [b for b, r in zip(blocks, result.blocks) if r.main and b.text.startswith("What the plan")]
        return result.page_type, len(stories)

    assert read("https://news.example/news") == ("listing", 15)
    assert read("https://news.example/news/") == ("listing", 15)
    # a recording served from elsewhere: the page's canonical link is its address
    assert (
        read("http://127.0.0.1:8000/page/7", "<link rel='canonical' href='https://news.example/news'>")[0] == "listing"
    )
    for url in ("https://news.example/news/harbour-plan", "https://news.example/", "https://news.example/news-1"):
        kind, stories = read(url)
        assert kind == "article" and stories < 15, url
    assert read("https://news.example/news", stated)[0] == "article"
