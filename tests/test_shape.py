"""The reader shaped by the page type (native_host/pipeline/shape.py): a thread as posts, a listing as items,
a product as price, pictures, specifications and questions, documentation with its code's languages; the
article form where the type is unsure. The HTML and the saved Markdown carry the same structure.

The pages are tests/pages/extension/reader/ (the browser tests open them too). The stand-in model of
tests/host_support.py calls a block main from about 55 characters on and has no page-type head, so each
page's type is the one its structured data states, and nothing here depends on the shipped model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from host_support import write_standin_model
from test_article import unshown

from native_host import Extractor, snapshot_from_html
from native_host.limits import SHAPE_FORUM_SHARE, SHAPE_MAX_GAPS, SHAPE_MIN_CONFIDENCE
from native_host.pipeline.article import build_article
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.shape import SHAPES, plan_shape, reader_shape
from native_host.render.reply import METADATA_FIELDS

PAGES = Path(__file__).parent / "pages" / "extension" / "reader"
URL = "https://e.example/"


@pytest.fixture(scope="module")
def extractor(tmp_path_factory):
    return Extractor(write_standin_model(tmp_path_factory.mktemp("standin")))


def extract(extractor, name: str):
    return extractor.extract_html((PAGES / name).read_bytes(), url=URL + name)


def test_a_thread_reads_as_posts_with_authors_dates_and_quotes_without_signatures_or_badges(extractor):
    r = extract(extractor, "forum.html")
    assert r.page_type == "forum" and r.shape == "forum"
    posts = re.findall(r'<section class="pith-post">(.*?)</section>', r.html, re.S)
    authors = [re.match(r"<h3>(.*?)</h3>", p).group(1) for p in posts]
    assert authors == ["kelpie", "skerryman", "kelpie"]
    dates = [re.search(r'<time datetime="([^"]+)">([^<]+)</time>', p).groups() for p in posts]
    assert dates[1] == ("2026-02-03T09:40:00Z", "Tue Feb 03, 2026 9:40 am")
    # each post's body, and its quote of another set apart (a <blockquote>, or a div the forum calls a quote)
    assert "automatic bilge pump has run every ten minutes" in posts[0]
    assert re.search(r"<blockquote>.*kelpie wrote:.*The bilge is dry.*</blockquote>", posts[1], re.S)
    assert re.search(r"<blockquote>.*Fit a check valve.*</blockquote>", posts[2], re.S)
    assert "pump has been quiet for a whole day" in posts[2].split("</blockquote>")[-1]
    for gone in ("Winter Sailor", "Helpful Hand", "leaks from somewhere new", "never about varnish", "Deckhand"):
        assert gone not in r.html and gone not in r.markdown and gone not in r.text
    assert unshown(r) == {"html": [], "markdown": []}  # the text is what the reader shows, block for block
    md = r.markdown
    assert "### kelpie\n\nTue Feb 03, 2026 8:12 am\n\nSince the boat went back" in md
    assert "### skerryman\n\nTue Feb 03, 2026 9:40 am\n\n> kelpie wrote: The bilge is dry" in md
    assert md.count("### ") == 3


def test_a_posts_unix_time_reads_as_a_date_and_an_id_as_none(extractor):
    """NodeBB dates each post only by `data-timestamp`, a Unix time in milliseconds: the reader showed
    "1768264164807". It shows the date in UTC, and `<time>` carries it as ISO 8601; ten or thirteen digits
    that are no time of EPOCH_YEARS (an id) date no post."""
    post = '<li data-timestamp="{}"><a class="username" href="/user/{}">{}</a><div><p>{}</p></div></li>'
    words = "saved routes on the laptop that never show up on the tablet, whatever the account says"
    stamps = ("1768264164807", "1768291218", "9999999999999")
    names = ("luizjr4", "idefix37", "luizjr4")
    posts = "".join(post.format(t, n, n, f"Post {k}: {words}.") for k, (t, n) in enumerate(zip(stamps, names)))
    state = '{"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Routes"}'
    html = f'<html><head><script type="application/ld+json">{state}</script></head><body><ul>{posts}</ul></body></html>'
    r = extractor.extract_html(html, url=URL + "topic/1")
    assert r.shape == "forum"
    assert re.findall(r"<time[^>]*>[^<]*</time>", r.html) == [
        '<time datetime="2026-01-13T00:29:24+00:00">2026-01-13 00:29 UTC</time>',
        '<time datetime="2026-01-13T08:00:18+00:00">2026-01-13 08:00 UTC</time>',
    ]
    assert "### luizjr4\n\n2026-01-13 00:29 UTC\n\nPost 0" in r.markdown and "9999999999999" not in r.markdown


def test_a_posts_author_is_its_name_without_the_handle_again_or_its_rank(extractor):
    """Discourse writes a poster as "Laubrani (Laubrani)", the name property and the handle; a forum as "Barbara
    Brooklyn, NY", name and place: the post's header shows the name alone. A full name
    in brackets says more and stays; a one-letter avatar that carries the name property is no name."""
    creator = '<span itemprop="author" itemscope><a href="/u/{0}"><span itemprop="name">{1}</span></a> {2}</span>'
    post = "<li><div class='meta'>" + creator + " <span>Jan {3}, 2026</span></div><p>{4}</p></li>"
    said = (
        "I have many routes saved on my laptop and would love to see them in the app on my tablet.",
        "Save them as favourites on the laptop, and the tablet shows them under the same account.",
        "Oddly the ones I saved on the laptop never appear in the app's list of favourites at all.",
        "Mine show up after a restart of the app, though it takes a minute or two to sync them.",
    )
    who = (
        ("laubrani", "Laubrani", "(Laubrani)"),
        ("barbara", "Barbara", "Brooklyn, NY"),
        ("rimelek", "rimelek", "(Ákos Takács)"),
        ("kainx", "K", "KainX"),
    )
    posts = "".join(post.format(*w, k + 3, t) for k, (w, t) in enumerate(zip(who, said)))
    state = '{"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Routes"}'
    html = f'<html><head><script type="application/ld+json">{state}</script></head><body><ul>{posts}</ul></body></html>'
    r = extractor.extract_html(html, url=URL + "t/routes/1")
    assert r.shape == "forum"
    assert re.findall(r"^### (.*)$", r.markdown, re.M) == ["Laubrani", "Barbara", "rimelek (Ákos Takács)", "K KainX"]


def test_a_posts_author_is_its_profile_links_name_not_the_badges_counts_or_date_after_it(extractor):
    """Forums put the poster's reputation, badges, post count or date in the element that names the author:
    StackExchange's "Cleb 26.3k 23 gold badges" and a forum's "eljaycanuck 25,064 posts · Joined 2007" (the name
    property a `<meta>`), XenForo's "G Guest 6381 Legend" (an avatar's initial first), Invision's "Payam Montie 9
    Posted March 5, 2024", phpBB's "by Minoa » Tue Aug 27, 2019 5:58 am" (a date in no element of its own). The
    header shows the name its profile link or name property gives, and the date; a label before the link
    ("Profile: ana") is no avatar, and the whole element stays."""
    authors = (
        '<div class="user-details" itemprop="author" itemscope><a href="/users/7/cleb">Cleb</a>'
        '<meta itemprop="name" content="Cleb"><div class="-flair"><span class="reputation-score">26.3k</span>'
        '<span class="v-visible-sr">23 gold badges</span></div></div>',
        '<section itemprop="author" itemscope><a href="/members/guest.6381/" class="avatar"><span role="img">G</span>'
        '</a><h4><a href="/members/guest.6381/" class="username"><span itemprop="name">Guest 6381</span></a></h4>'
        '<h5 itemprop="jobTitle">Legend</h5></section>',
        '<div itemprop="author" itemscope><meta itemprop="name" content="eljaycanuck"><a class="card-name"'
        ' href="/members/eljaycanuck.1/">eljaycanuck</a> <span>25,064 posts</span> · <span>Joined 2007</span></div>',
        '<div class="authorPane"><a href="/profile/9-payam/" class="photo"><img src="/p.png" alt=""></a>'
        '<h3><a href="/profile/9-payam/">Payam Montie</a> <span class="rep">9</span></h3>'
        '<a href="#c4">Posted <time datetime="2024-03-05T07:02:39Z">March 5, 2024</time></a></div>',
        '<div class="author">Profile: <a href="/members/ana.5/">ana</a></div>',
        '<p class="author"><a href="./viewtopic.php?p=5#p5"><img src="/post.gif" alt="Post"></a>by <strong><a href='
        '"./memberlist.php?mode=viewprofile&amp;u=171">Minoa</a></strong> &raquo; Tue Aug 27, 2019 5:58 am</p>',
    )
    said = (
        "The new layout hides the notebook list behind a menu, and I cannot find the setting to bring it back.",
        "Same here on the desktop app: the sidebar is gone and the shortcut that toggled it does nothing now.",
        "It moved under View in the top bar, where you can pin the notebooks back to the left of the window.",
        "Thanks, pinning them works, though the list forgets its width each time the app starts up again.",
        "The width is kept if you close the app from its own menu rather than the window's close button.",
        "On the web version the sidebar can be dragged back out from the left edge of the notebook page.",
    )
    posts = "".join(
        f"<div class='post'>{a}<div class='post-text'><p>{t}</p></div></div>" for a, t in zip(authors, said)
    )
    state = '{"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Sidebar"}'
    html = f'<html><head><script type="application/ld+json">{state}</script></head><body>{posts}</body></html>'
    r = extractor.extract_html(html, url=URL + "t/sidebar/2")
    assert r.shape == "forum"
    headers = re.findall(r"^### (.*)$", r.markdown, re.M)
    assert headers == ["Cleb", "Guest 6381", "eljaycanuck", "Payam Montie", "Profile: ana", "Minoa"]
    assert '<time datetime="2024-03-05T07:02:39Z">March 5, 2024</time>' in r.html  # the date under its name
    assert '<time datetime="2019-08-27T05:58:00">Tue Aug 27, 2019 5:58 am</time>' in r.html  # phpBB's, read
    assert "26.3k" not in r.text and "Joined 2007" not in r.text and "Legend" not in r.text and "»" not in r.text


def test_a_replys_subject_that_repeats_the_threads_goes_and_a_subject_of_its_own_stays(extractor):
    """phpBB heads each post with a subject, "Re: Sidebar gone" under the thread "Sidebar gone": the title
    again, post after post. A subject that two posts share, a reply's "Re:" aside, is left out of the thread's
    form (and of its text); a post's own subject stays. (Subjects of 55 characters: the stand-in model's main.)"""
    post = (
        "<div class='post'><div class='postbody'><h3><a href='#p{0}'>{1}</a></h3>"
        "<p class='author'>by <a href='./memberlist.php?mode=viewprofile&amp;u={0}'>{2}</a> » Mon Mar 2, 2026</p>"
        "<div class='content'>{3}</div></div></div>"
    )
    title = "Sidebar gone after the update to version 10.4 of the app"
    own = "Found it: the notebooks moved under View in the top bar menu"
    posts = (
        (title, "ana", "The new layout hides the notebook list behind a menu, and I cannot find it again."),
        (f"Re: {title}", "ben", "Same here on the desktop app: the sidebar is gone and its shortcut does nothing."),
        (own, "cy", "It moved under View in the top bar, where you can pin the notebooks back."),
        (f"RE: {title}", "ana", "Thanks, pinning them works, though the list forgets its width at each start."),
    )
    state = '{"@context": "https://schema.org", "@type": "DiscussionForumPosting"}'
    body = "".join(post.format(k + 1, *p) for k, p in enumerate(posts))
    html = f'<html><head><script type="application/ld+json">{state}</script></head><body>{body}</body></html>'
    r = extractor.extract_html(html, url=URL + "viewtopic.php?t=3")
    assert r.shape == "forum"
    headers = re.findall(r"^### (.*)$", r.markdown, re.M)
    assert headers == ["ana", "ben", "cy", f"[{own}]({URL}viewtopic.php?t=3#p3)", "ana"]
    assert title not in r.text and own in r.text


def test_a_listing_reads_as_items_with_title_link_snippet_and_picture(extractor):
    r = extract(extractor, "listing.html")
    assert r.page_type == "collection" and r.shape == "listing"
    items = re.findall(r"<li>(.*?)</li>", r.html, re.S)
    assert len(items) == 4 and '<section class="pith-items"><ul>' in r.html
    first = items[0]
    assert '<img src="https://e.example/images/north-cliff.svg" alt="The north cliff path above the bay">' in first
    assert '<a href="https://e.example/walks/north-cliff"><strong>The north cliff path</strong></a>' in first
    assert "puffins on the ledges from May to July." in first
    assert r.html.index("Every walk below starts") < r.html.index("pith-items")  # the intro stays first
    lines = [line for line in r.markdown.splitlines() if line.startswith("- ")]
    assert len(lines) == 4
    assert lines[1] == (
        "- ![Boardwalk across the saltmarsh](https://e.example/images/saltmarsh.svg)"
        " [**Across the saltmarsh**](https://e.example/walks/saltmarsh)\\"
    )
    assert "\n  An easy level loop on boardwalks" in r.markdown  # the item's second line, under its text


def test_a_listing_items_snippet_leaves_out_the_title_its_block_shares():
    """A book list's row holds the title's link and "by" in one block: the snippet under the linked title is
    the rest ("by Herman Melville"), not the title again. The shipped model, whose head calls it a listing."""
    page = Path(__file__).parent / "pages" / "book-list" / "source.html"
    r = Extractor().extract_html(page.read_bytes(), url="https://pages.example/book-list.html")
    assert r.shape == "listing"
    lines = r.markdown.splitlines()
    title = lines.index(next(line for line in lines if "[**Moby-Dick; or, The Whale**]" in line))
    assert (
        lines[title + 1] == "  1 by Herman Melville 4.02 avg rating — 612,300 ratings score: 1000, and 17 people voted"
    )


def test_a_product_reads_as_price_pictures_description_specifications_and_questions(extractor):
    r = extract(extractor, "product.html")
    assert r.shape == "product"
    head = re.search(r'<section class="pith-product">(.*?)</section>', r.html, re.S).group(1)
    assert "<strong>£64.50</strong>" in head and "https://e.example/images/lantern-side.svg" in head
    assert "Price £64.50" not in r.html  # the body's line that only repeated the price
    assert "Add to basket" not in r.html + r.text  # a button's label
    assert "spun from solid brass" in r.html
    rows = re.findall(r"<tr><th>(.*?)</th>\s*<td>(.*?)</td>", r.html)
    assert rows[:2] == [
        ("Height", "28 cm with the handle folded down"),
        ("Weight", "1.1 kg empty, about 1.4 kg with a full tank"),
    ]
    assert len(rows) == 4
    faq = re.findall(r'<section class="pith-faq"><h3>(.*?)</h3>\s*<p>(.*?)</p>', r.html)
    assert [q for q, _ in faq] == [
        "Can it burn vegetable oil or diesel instead of lamp paraffin on a long passage?",
        "Is it safe to hang it lit inside the cabin overnight while the crew sleeps?",
    ]
    assert faq[0][1].startswith("No. The wick is made for lamp paraffin")
    md = r.markdown
    assert md.startswith(
        "**£64.50**\n\n![](https://e.example/images/lantern-front.svg)\n\n![](https://e.example/images/lantern-side.svg)"
    )
    assert "| Height | 28 cm with the handle folded down |\n|---|---|\n| Weight |" in md
    assert "### Can it burn vegetable oil or diesel instead of lamp paraffin on a long passage?\n\nNo. The wick" in md


def test_documentation_keeps_each_code_block_with_the_language_its_classes_name(extractor):
    r = extract(extractor, "docs-languages.html")
    assert '<code class="language-python">from seawall import TideTable' in r.html
    assert '<pre class="language-js">import { tideTable }' in r.html  # named by its wrapper
    assert '```python\nfrom seawall import TideTable\n\ntable = TideTable.open("stromness-2026.csv")' in r.markdown
    assert '```js\nimport { tideTable } from "seawall";' in r.markdown


def page(name: str):
    snapshot = snapshot_from_html((PAGES / name).read_bytes(), url=URL + name)
    blocks = blocks_from_snapshot(snapshot)
    return snapshot, blocks, [len(b.text) >= 55 for b in blocks]  # the stand-in model's main


def test_an_unsure_type_reads_as_an_article_unless_the_page_states_its_own():
    unsure = SHAPE_MIN_CONFIDENCE - 0.01
    assert reader_shape("forum", SHAPE_MIN_CONFIDENCE) == "forum"
    assert reader_shape("forum", unsure) == "article"
    assert reader_shape("forum", unsure, stated="product") == "product"
    assert reader_shape("collection", None) == reader_shape("listing", 1.0) == "listing"
    assert reader_shape("service", 1.0) == reader_shape(None, None) == "article"
    snapshot, blocks, main = page("forum.html")
    plan = plan_shape(snapshot, blocks, main, "forum", unsure)
    assert plan.shape == "article" and not plan.posts
    html = build_article(snapshot, blocks, main, build=plan.build).html
    assert "pith-post" not in html and html == build_article(snapshot, blocks, main).html


def test_an_unsure_page_the_head_gives_some_chance_of_a_forum_tries_the_thread_form():
    """A thread whose markup the model has not seen splits its vote (forum .36, listing .37 on the rendered
    Discourse topic of tests/pages/discourse-topic/): with the posts found, it reads as a thread; a page
    without posts, or one that states its own type, is not moved by the forum's share."""
    unsure = SHAPE_MIN_CONFIDENCE - 0.01
    snapshot, blocks, main = page("forum.html")
    assert plan_shape(snapshot, blocks, main, "listing", unsure, forum_share=SHAPE_FORUM_SHARE).shape == "forum"
    below = SHAPE_FORUM_SHARE - 0.01
    assert plan_shape(snapshot, blocks, main, "listing", unsure, forum_share=below).shape == "article"
    assert plan_shape(snapshot, blocks, main, "article", unsure, "article", SHAPE_FORUM_SHARE).shape == "article"
    assert plan_shape(snapshot, blocks, main, "listing", 1.0, forum_share=0.99).shape != "forum"  # a sure type
    news = page("news.html")
    assert plan_shape(*news, "article", unsure, forum_share=0.99).shape == "article"  # no posts: no thread


def test_a_posts_dateline_is_read_once_in_its_header():
    """A post whose date sits in its body, outside any author box, is headed by that date: the body does
    not say it again."""
    html = (
        "<ul>"
        + "".join(
            f'<li class="post"><a class="username" href="/u/{n}">{n}</a><div class="content"><p class="postdate">Jan {d}, 2026</p>'
            f"<p>{n} writes a reply long enough to be main content on day {d} of the thread.</p></div></li>"
            for n, d in (("ana", 3), ("ben", 4))
        )
        + "</ul>"
    )
    snapshot, blocks, _ = inline(html)
    main = [True] * len(blocks)
    plan = plan_shape(snapshot, blocks, main, "forum", 1.0)
    assert [p.date for p in plan.posts] == ["Jan 3, 2026", "Jan 4, 2026"]
    md = build_article(snapshot, blocks, main, build=plan.build).markdown
    assert md.count("Jan 3, 2026") == 1 and md.count("Jan 4, 2026") == 1, md


def test_a_page_without_the_structure_of_its_type_reads_as_an_article():
    snapshot, blocks, main = page("news.html")
    for page_type in ("forum", "listing"):
        assert plan_shape(snapshot, blocks, main, page_type, 1.0).shape == "article"


def test_the_reply_carries_the_form_beside_the_metadata(extractor):
    """The reader styles the body by `shape`: a field of every reply's article (browser/protocol.py)."""
    assert "shape" in METADATA_FIELDS
    assert [extract(extractor, n).shape for n in ("news.html", "forum.html")] == ["article", "forum"]
    assert set(SHAPES) >= {"article", "forum", "listing", "product", "documentation"}


def inline(html: str):
    snapshot = snapshot_from_html(html, url=URL)
    blocks = blocks_from_snapshot(snapshot)
    return snapshot, blocks, [len(b.text) >= 55 for b in blocks]


POST = (
    '<li class="{cls}"><a class="username" href="/u/{name}">{name}</a> <time datetime="2026-01-0{day}">Jan {day}</time>'
    "<div class='content'><p>{name} writes a reply long enough to be main content on day {day} of the thread.</p></div>"
    "</li>"
)


def test_posts_are_siblings_of_one_tag_whatever_classes_mark_the_first_or_the_owners_posts():
    posts = [("topic-owner-post", "ana", 1), ("", "ben", 2), ("topic-owner-post", "ana", 3), ("", "cy", 4)]
    html = "<ul class='posts'>" + "".join(POST.format(cls=c, name=n, day=d) for c, n, d in posts) + "</ul>"
    plan = plan_shape(*inline(html), "forum", 1.0)
    assert [(p.author, p.datetime) for p in plan.posts] == [(n, f"2026-01-0{d}") for _, n, d in posts]


def test_a_price_of_zero_is_no_price():
    offer = '{"@type": "Product", "name": "Kit", "offers": {"price": "%s", "priceCurrency": "EUR"}}'
    body = "<p>A kit of every part a small boat's rigging needs, from shackles to the last splice.</p>"
    for amount, shown in (("0", None), ("0.00", None), ("12.50", "€12.50"), ("1,299.00", "€1,299.00")):
        html = f'<script type="application/ld+json">{offer % amount}</script>{body}'
        assert plan_shape(*inline(html), "product", 1.0).product.price == shown


def test_a_listing_items_title_is_its_heading_of_the_highest_rank():
    """A job board's card heads its company in an h5 and the job in an h3: the job is the entry's title and
    link. Of headings of one rank, the first ("Benefits" comes after the job's)."""
    card = (
        "<li><h5><a href='/company/{0}'>{0}</a></h5><h3><a href='/job/{1}'>{2}</a></h3>"
        "<p>{2} at {0}: a four-day week at full pay, remote within the country, posted {3} days ago.</p>"
        "<h3>Benefits</h3></li>"
    )
    jobs = (("Dimonoff", "devsecops", "DevSecOps Designer", 1), ("Awin", "full-stack", "Full-Stack Engineer", 3))
    jobs += (("Supabase", "observability", "Elixir Observability Engineer", 4),)
    html = "<ul>" + "".join(card.format(*j) for j in jobs) + "</ul>"
    items = plan_shape(*inline(html), "listing", 1.0).items
    assert [(i.title, i.href) for i in items] == [(t, f"{URL}job/{slug}") for _, slug, t, _ in jobs]


def test_a_listing_entry_is_a_card_not_a_heading_over_a_list_of_links():
    """A wiki's list page heads each letter's list ("A", its "edit" link beside it) and a category page each
    letter's column of links: sections of an article, not entries titled "A" linked to the edit page or to
    the first item. A card that one link wraps (picture, a hidden "Image" label, title, description) is titled
    by the element its class calls the title, not by all of its text. A card whose links are its tags links
    its title to the card's own link, not to the first tag."""
    name = "a language whose name is long enough to be read as main content here"
    wiki = "".join(
        f'<div class="mw-heading"><h2 id="{c}">{c}</h2><span class="mw-editsection">[<a href="/w/index.php?'
        f'title=List&action=edit&section={k}">edit</a>]</span></div><div class="div-col"><ul>'
        + "".join(f'<li><a href="/wiki/{c}{n}">{c}{n}, {name}</a></li>' for n in range(3))
        + "</ul></div>"
        for k, c in enumerate("ABCD", 1)
    )
    category = "".join(
        f'<div class="mw-category-group"><h3>{c}</h3><ul>'
        + "".join(f'<li><a href="/wiki/Category:{c}{n}">{c}{n}, {name}</a></li>' for n in range(3))
        + "</ul></div>"
        for c in "ABCD"
    )
    for html in (wiki, category):
        assert plan_shape(*inline(f"<div>{html}</div>"), "listing", 1.0).items == []
    card = (
        '<div class="item"><a href="/course/{0}"><div class="field__label">Image</div><img src="/{0}.jpg" alt="">'
        '<div class="field--name-field-list-heading">Certificate: {1}</div><div><p>Become an effective {1} in '
        "twelve months of evening sessions, online and on campus, with a project of your own.</p></div></a></div>"
    )
    roles = (("cdo", "Chief Digital Officer"), ("cpo", "Chief Product Officer"), ("cto", "Chief Technology Officer"))
    items = entries(card, roles, "<div>{}</div>")
    assert [(i.title, i.href) for i in items] == [(f"Certificate: {t}", f"{URL}course/{s}") for s, t in roles]
    assert items[0].snippet.startswith("Become an effective Chief Digital Officer")
    job = (
        "<li><h3>{1}</h3><ul class='tags'><li><a href='/tag/remote'>remote</a></li><li><a href='/tag/{0}'>{0}</a>"
        "</li></ul><p>{1}: a four-day week at full pay, remote within the country, posted this week.</p>"
        "<a href='/job/{0}'>Apply</a></li>"
    )
    jobs = (("elixir", "Elixir Engineer"), ("rust", "Rust Engineer"), ("go", "Go Engineer"))
    assert [(i.title, i.href) for i in entries(job, jobs, "<ul>{}</ul>")] == [(t, f"{URL}job/{s}") for s, t in jobs]


def entries(card: str, rows, wrap: str):
    """The listing entries of a page of `card` filled with each row, the cards inside `wrap`."""
    return plan_shape(*inline(wrap.format("".join(card.format(*r) for r in rows))), "listing", 1.0).items


def test_a_price_reads_as_a_shop_writes_it_once_with_its_cents_and_one_symbol():
    """A JSON number 18.0 reads "$18.00" (a yen amount keeps no cents); an amount that shows its symbol gets no
    second ("$$168.00"); a price element that says it twice, for screen readers and in parts for the eye,
    reads once; one that shows zero is no price, and the next that shows one is; a button in a price's element
    ("Learn more"), a label before the amount and a footnote's mark after it are no part of the price."""
    offer = '{"@type": "Product", "name": "Kit", "offers": {"price": %s, "priceCurrency": "%s"}}'
    body = "<p>A kit of every part a small boat's rigging needs, from shackles to the last splice.</p>"
    for amount, currency, shown in (
        ("18.0", "USD", "$18.00"),
        ('"17.5"', "EUR", "€17.50"),
        ("1500.0", "JPY", "¥1500.0"),
        ('"$168.00"', "USD", "$168.00"),
        ('"27.23"', "AUD", "27.23 AUD"),
    ):
        html = f'<script type="application/ld+json">{offer % (amount, currency)}</script>{body}'
        assert plan_shape(*inline(html), "product", 1.0).product.price == shown
    twice = (
        '<span class="a-price"><span class="a-offscreen">EUR 21.86</span><span class="a-price-symbol">EUR</span>'
        '<span class="a-price-whole">21<span class="a-price-decimal">.</span></span>'
        '<span class="a-price-fraction">86</span></span>'
    )
    assert plan_shape(*inline(twice + body), "product", 1.0).product.price == "EUR 21.86"
    zero = '<div class="shipping-price">GBP 0.00<span class="clipped">GBP 0.00</span></div>'
    assert plan_shape(*inline(zero + body), "product", 1.0).product.price is None
    assert plan_shape(*inline(zero + '<p class="price">£4.50</p>' + body), "product", 1.0).product.price == "£4.50"
    button = '<div class="picker__price"><p>$60/box</p><button type="button">Learn more</button></div>'
    assert plan_shape(*inline(button + body), "product", 1.0).product.price == "$60/box"
    for shown, said in (("Your Price: 111,84€", "111,84€"), ("From $999 or $83.25/mo. *", "From $999 or $83.25/mo.")):
        assert plan_shape(*inline(f'<p class="price">{shown}</p>' + body), "product", 1.0).product.price == said


def test_a_thread_broken_up_by_other_main_content_again_and_again_reads_as_an_article():
    """Each run of main content between posts is built from the whole page: their number is bounded."""
    aside = "<p>An advert long enough to be taken for main content sits between these two posts.</p>"

    def thread(gaps: int) -> str:
        posts = [POST.format(cls="", name=f"user{k}", day=k % 9 + 1) for k in range(SHAPE_MAX_GAPS + 2)]
        return (
            "<div>"
            + "".join(p.replace("li", "div") + (aside if k < gaps else "") for k, p in enumerate(posts))
            + "</div>"
        )

    assert plan_shape(*inline(thread(SHAPE_MAX_GAPS)), "forum", 1.0).shape == "forum"
    assert plan_shape(*inline(thread(SHAPE_MAX_GAPS + 1)), "forum", 1.0).shape == "article"


def test_a_specification_whose_value_was_not_kept_keeps_its_name_in_an_empty_row():
    """A definition list of specifications becomes a table; a name kept without its value (the model's score
    for "23'' H" a hair under the threshold) is a row with an empty value, not a name lost between rows."""
    from native_host.pipeline.article import Element
    from native_host.pipeline.shape import _spec_tables

    def cell(tag: str, text: str) -> Element:
        return Element(tag, children=[Element(None, text=text)])

    dl = Element(
        "dl",
        children=[
            cell("dt", "Seat"),
            cell("dd", "20'' H x 24'' W"),
            cell("dt", "Adjustable seat maximum"),  # its <dd> was not kept
            cell("dt", "Base"),
            cell("dd", "27'' W x 27'' D"),
            cell("dt", "Back height"),  # nor this one's, the list's last
        ],
    )
    root = Element("div", children=[dl])
    _spec_tables(root)
    rows = [[c.children[0].text if c.children else "" for c in tr.children] for tr in dl.children[0].children]
    assert dl.tag == "table" and rows == [
        ["Seat", "20'' H x 24'' W"],
        ["Adjustable seat maximum", ""],
        ["Base", "27'' W x 27'' D"],
        ["Back height", ""],
    ]
