"""bench.thread_golds: a thread's coverage by its gold, and the policies that keep its first K post bodies."""

from __future__ import annotations

from bench.thread_golds import Thread, policy_f1, read_thread, report

POSTS = [f"reply number {n} says something about anchors and chain" for n in range(1, 5)]


def cut_thread() -> Thread:
    """A title, four post bodies, a footer; the gold keeps the title and the first two posts only."""
    gold = "\n".join(["Anchors in mud", *POSTS[:2]])
    blocks = [("Anchors in mud", True, False)]
    blocks += [(p, n < 2, True) for n, p in enumerate(POSTS)]
    blocks += [("Terms of use", False, False)]
    return Thread("t/1", gold, blocks)


def test_coverage_is_the_share_of_post_bodies_the_gold_keeps():
    assert cut_thread().coverage == 0.5
    assert Thread("t/2", "x", [("x", True, False)]).coverage is None  # no post on the page


def test_keeping_the_first_posts_fits_a_cut_gold_and_every_post_does_not():
    t = cut_thread()
    assert policy_f1(t, 2) == 1.0
    assert policy_f1(t, None) < policy_f1(t, 2) and policy_f1(t, 1) < 1.0
    text = report([t, cut_thread()])
    assert (
        "| t/1 | 0.50 |" in text and "| every post body |" in text and "Oracle (the gold's own blocks): 1.000" in text
    )


def test_the_post_bodies_are_the_shape_that_holds_most_of_the_gold():
    html = (
        "<html><body><h1>Anchors in mud</h1><div class='thread'>"
        + "".join(f"<div class='post'><div class='body'><p>{p}</p></div></div>" for p in POSTS)
        + "</div><footer><p>Terms of use</p></footer></body></html>"
    )
    record = {"id": "t/3", "html": html, "main_text": "\n".join(["Anchors in mud", *POSTS[:2]]), "title": None}
    t = read_thread(record)
    assert [text for text, _, post in t.blocks if post] == POSTS and t.coverage == 0.5
