"""Forum rules after the model: what a thread repeats around each post is not the thread's content.

A thread's posts are records: each holds the post's body, its author's name and date (which the thread's
text keeps) and the same furniture around them: the author's rank and badges ("Major Contributor"), join
date, post count and location, set out between the posts. The model reads the blocks one by one and keeps
some of that furniture with the posts. `post_furniture` drops it by structure: a block inside an element
whose class names a post's furniture, where elements of that tag and those classes repeat on the page (one
per post). It builds on decisions.py's rules, which it does not repeat: the signature (forum pages), the
poster's card (`POSTER_CARDS`: XenForo's userTitle and userExtras, phpBB's postprofile, vBulletin's userinfo,
on every page) and the board's notices (`BOARD_NOTICES`); these words are the furniture that sits outside
such a card (Invision's, Discourse's, phpBB's ranks and badges in the author pane). Figures: docs/model.md,
"Rules after the model".
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from .blocks import Block
from .shape import CLASS_WORDS

# Words of a post's furniture's class names ("rank-title", "member-badges", "post-count", "joined"), a word of
# the name or two of them joined ("postCount": post, count, postcount). Words, not parts: "rankings" is no
# rank. Not the author box as a whole ("user", "author", "poster"): WCXB's golds keep a post's author name and
# date, and dropping those boxes cost forum pages .009 of recall (5-fold CV). XenForo's "Click to expand..."
# under a quote is its "expandLink"; the quote itself ("expandContent") is often in the golds and stays.
FURNITURE = frozenset(
    """userstats postcount postcounter joindate joined rank ranks badge badges flair reputation karma award
    awards expandlink""".split()
)
# How many elements above a block's owner (itself the first) a furniture element may sit: a badge's text in a
# span in an item of the user box's list.
FURNITURE_LEVELS = 4
# Elements of one tag and class list, at least this many: the furniture of more than one post.
FURNITURE_MIN_REPEATS = 2


def post_furniture(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks inside a repeated element whose class names a post's furniture."""
    nodes = snapshot["nodes"]
    found: dict[int, int] = {}  # block index -> its furniture element
    repeats: dict[tuple, set[int]] = {}  # an element's tag and classes -> the furniture elements of that shape
    for b in blocks:
        if not main[b.index]:
            continue
        element = _furniture_of(nodes, b.owner)
        if element is not None:
            found[b.index] = element
            repeats.setdefault(_shape(nodes[element]), set()).add(element)
    out = list(main)
    for index, element in found.items():
        if len(repeats[_shape(nodes[element])]) >= FURNITURE_MIN_REPEATS:
            out[index] = False
    return out


def _shape(node: dict) -> tuple:
    return (node["tag"], *node.get("classes", ()))


def _furniture_of(nodes: list[dict], owner: int) -> int | None:
    """The nearest element at most FURNITURE_LEVELS up from `owner` whose class names a post's furniture."""
    i = owner
    for _ in range(FURNITURE_LEVELS):
        if i < 0:
            return None
        if any(FURNITURE.intersection(_words(name)) for name in nodes[i].get("classes", ())):
            return i
        i = nodes[i]["parent"]
    return None


def _words(name: str) -> list[str]:
    """A class name's words, lower-cased, and each two neighbours joined: "userTitle" -> user, title, usertitle."""
    words = [w.lower() for w in CLASS_WORDS.findall(name)]
    return words + [a + b for a, b in pairwise(words)]
