"""Forum rules after the model (native_host/pipeline/forums.py, and the board's notices in decisions.py): a
post's furniture, repeated between the posts, is not the thread's content; the post's author name stays."""

from __future__ import annotations

import numpy as np

from native_host import snapshot_from_html
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.decisions import main_blocks
from native_host.pipeline.forums import post_furniture


def test_a_posts_rank_badges_post_count_join_date_and_reputation_are_not_content(page):
    """Every block of the thread scored main: the author pane's rank ("Advanced Member"), badge, post count,
    join date and reputation (classes outside any poster's card that decisions.py knows) are dropped on a
    forum page; the posts, their authors' names and dates stay. On an article page the rule does not run (a
    counter goes on every page: decisions.WIDGETS)."""
    snapshot = snapshot_from_html(page("forum-badges"))
    blocks = blocks_from_snapshot(snapshot)
    furniture = [
        b.index for b in blocks if b.text.startswith(("Advanced Member", "Moderator", "Top Poster", "Helpful"))
    ]
    furniture += [b.index for b in blocks if b.text.endswith(" posts") or b.text.startswith(("Joined", "Reputation"))]
    names = [b.index for b in blocks if b.text in ("mizzen", "bosun_kate")]
    dates = [b.index for b in blocks if b.text.startswith("January 1")]
    posts = [b.index for b in blocks if len(b.text) >= 100]
    assert len(furniture) == 15 and len(names) == len(dates) == len(posts) == 3
    scores = np.ones((len(blocks), 1), dtype=np.float32)
    main = main_blocks(snapshot, blocks, scores, 0.5, "forum")
    assert not any(main[i] for i in furniture)
    assert all(main[i] for i in names + dates + posts)
    # on an article page the rule does not run: the furniture stays, but for the post count, a counter that
    # decisions.WIDGETS name on every page
    counted = [i for i in furniture if any("count" in entry for entry in blocks[i].class_path)]
    assert len(counted) == 3
    article = main_blocks(snapshot, blocks, scores, 0.5, "article")
    assert all(article[i] != (i in counted) for i in furniture)


def test_furniture_seen_once_is_not_dropped():
    """A badge-like class that the page shows once is no post's furniture: nothing repeats it."""
    html = (
        "<main><div class='post'><div class='rank'>Moderator</div><p>" + "The one post of the page. " * 5 + "</p>"
        "</div></main>"
    )
    snapshot = snapshot_from_html(html)
    blocks = blocks_from_snapshot(snapshot)
    assert post_furniture(snapshot, blocks, [True] * len(blocks)) == [True] * len(blocks)
    twice = html.replace("</main>", "<div class='post'><div class='rank'>Member</div><p>Agreed.</p></div></main>")
    snapshot = snapshot_from_html(twice)
    blocks = blocks_from_snapshot(snapshot)
    kept = post_furniture(snapshot, blocks, [True] * len(blocks))
    assert [b.text for b, m in zip(blocks, kept) if not m] == ["Moderator", "Member"]


def test_a_boards_notices_and_a_quotes_expand_link_are_not_content(page):
    """Every block scored main: on a forum page the board's notices above the thread (an announcement,
    "JavaScript is disabled", "You are using an out of date browser", the thread's status: decisions.py's
    BOARD_NOTICES) and the "Click to expand..." under each quote are dropped; the posts and the quoted words
    stay. On an article page they stay, but for "JavaScript is disabled", which sits in a <noscript> and goes
    from every page (decisions.NOSCRIPT_NOTICE)."""
    snapshot = snapshot_from_html(page("forum-notices"))
    blocks = blocks_from_snapshot(snapshot)
    starts = ("Join the spring rally", "JavaScript is disabled", "You are using an out", "Status", "Not open for")
    notices = [b.index for b in blocks if b.text.startswith(starts)]
    expand = [b.index for b in blocks if b.text == "Click to expand..."]
    kept = [b.index for b in blocks if b.text.startswith(("Our anchor", "Both, in", "Seconded", "setting it", "Is a"))]
    assert len(notices) == 5 and len(expand) == 2 and len(kept) == 5
    scores = np.ones((len(blocks), 1), dtype=np.float32)
    main = main_blocks(snapshot, blocks, scores, 0.5, "forum")
    assert not any(main[i] for i in notices + expand)
    assert all(main[i] for i in kept)
    article = main_blocks(snapshot, blocks, scores, 0.5, "article")
    unscripted = [i for i in notices if blocks[i].text.startswith("JavaScript is disabled")]
    assert all(article[i] for i in notices + expand if i not in unscripted) and not article[unscripted[0]]


def test_a_forum_app_rendered_in_the_browser_reads_as_its_posts(page):
    """A Discourse topic as the browser renders it (its app's markup, which no recording holds: offline the
    app does not load). The shipped model is unsure of its type, forum or listing, so the posts it finds
    make it a thread (limits.SHAPE_FORUM_SHARE): each post under its author and date; the suggested topics,
    the timeline and the buttons are not read."""
    from native_host import Extractor

    r = Extractor().extract_html(page("discourse-topic"), url="https://forum.example/t/restic-backups/4471")
    assert r.shape == "forum", (r.page_type, r.shape)
    md = r.markdown
    assert [line[4:] for line in md.splitlines() if line.startswith("### ")] == ["marta_k", "devon", "marta_k", "lee.p"]
    for said in ("two hours each night", "metadata cache is warm", "eleven minutes", "sixty-four megabytes"):
        assert said in md, said
    for furniture in ("Suggested Topics", "Which NAS", "1 / 4", "Reply", "Powered by Discourse"):
        assert furniture not in r.text, furniture


def test_a_post_body_the_engine_marks_is_content_whatever_the_model_made_of_its_blockquote():
    """XenForo 1 sets each post's text in a <blockquote class="messageText">, its signature in another one classed
    "signature messageText": the model reads the blockquote as a quote and scores the posts low. The posts are
    main on a thread, and on a thread the head calls an article; the signature is not, nor is a plain quote."""
    post = (
        "<li class='message'><div class='messageInfo'><div class='messageContent'><article>"
        "<blockquote class='messageText SelectQuoteContainer ugc baseHtml'>{text}</blockquote></article></div>"
        "<blockquote class='signature messageText ugc baseHtml'><p>Sailing since 1998, mostly dinghies</p>"
        "</blockquote></div></li>"
    )
    texts = [
        "We keep dragging the anchor in the north bay whenever the wind turns west overnight.",
        "A spade anchor sets faster in that mud; let out five times the depth in chain before you sleep.",
    ]
    html = (
        "<h1>Dragging anchor in the north bay</h1><ol class='messageList'>"
        + "".join(post.format(text=t) for t in texts)
        + "</ol><blockquote><p>Quoted on the harbour's noticeboard, from an old almanac of the north bay</p>"
        "</blockquote>"
    )
    snapshot = snapshot_from_html(html)
    blocks = blocks_from_snapshot(snapshot)
    posts = [b.index for b in blocks if b.text in texts]
    signatures = [b.index for b in blocks if b.text.startswith("Sailing since")]
    quote = [b.index for b in blocks if b.text.startswith("Quoted on")]
    assert len(posts) == len(signatures) == 2 and len(quote) == 1
    scores = np.array([[0.9 if b.tag_path[-1] == "h1" else 0.1] for b in blocks], dtype=np.float32)
    for kind in ("forum", "article", None):
        main = main_blocks(snapshot, blocks, scores, 0.5, kind)
        assert all(main[i] for i in posts) and not any(main[i] for i in signatures + quote), kind
