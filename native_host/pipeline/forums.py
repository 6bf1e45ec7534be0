"""Forum rules after the model: what a thread repeats around each post, and what the board says above it,
is not the thread's content.

A thread's posts are records: each holds the post's body, its author's name and date (which the thread's
text keeps) and the same furniture around them: the author's rank and badges ("Major Contributor"), join
date, post count and location, set out between the posts. The model reads the blocks one by one and keeps
some of that furniture with the posts. `post_furniture` drops it by structure: a block inside an element
whose class names a post's furniture, where elements of that tag and those classes repeat on the page (one
per post). The signature, furniture too, has its own rule in decisions.py. `board_notices` drops the
board's notices above the thread (scripts off, an old browser, a closed thread, an announcement), which the
model keeps as the page's first paragraphs. Figures: docs/model.md, "Rules after the model".
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from .blocks import Block
from .shape import _WORDS as CLASS_WORDS

# Words of a post's furniture's class names, as forum engines name it (vBulletin's "usertitle" and "rank",
# XenForo's "message-userTitle" and "message-userExtras", phpBB's "profile-joined"...), a word of the name or
# two of them joined ("userExtras": user, extras, userextras). Words, not parts: "rankings" is no rank. Not
# the author box as a whole ("user", "author", "poster"): WCXB's golds keep a post's author name and date,
# and dropping those boxes cost forum pages .009 of recall (5-fold CV). XenForo's "Click to expand..." under
# a quote is its "expandLink"; the quote itself ("expandContent") is often in the golds and stays.
FURNITURE = frozenset(
    """usertitle userextras userextra userstats userinfoextra postcount postcounter joindate joined rank
    ranks badge badges flair reputation karma award awards expandlink""".split()
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


# Words of the class names of a board's notices, set above the thread: "JavaScript is disabled", "You are using
# an out of date browser" (XenForo's "blockMessage--warning", "js-browserWarning"), the thread's status ("Not
# open for further replies.": "blockStatus")...
NOTICES = frozenset("warning jswarning browserwarning blockstatus".split())
# ...and the board's announcements: a class name that starts with one of these words ("notice-content"; not
# "DRM_notice", a store page's line about its game that the type head called a forum).
NOTICE_HEADS = frozenset({"notice", "notices"})


def board_notices(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks inside an element whose class names a notice of the board."""
    nodes = snapshot["nodes"]
    out = list(main)
    for b in blocks:
        if main[b.index]:
            i = b.owner
            for _ in range(FURNITURE_LEVELS):
                if i < 0:
                    break
                if any(_is_notice(name) for name in nodes[i].get("classes", ())):
                    out[b.index] = False
                    break
                i = nodes[i]["parent"]
    return out


def _is_notice(name: str) -> bool:
    words = _words(name)
    return bool(words) and (words[0] in NOTICE_HEADS or not NOTICES.isdisjoint(words))
