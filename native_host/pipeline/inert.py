"""Page text made inert: no terminal control reaches a screen, no Markdown syntax comes from the page.

A page's text is the attacker's (docs/security.md). Two places read it as more than text:

- a terminal, which obeys ESC, CSI, OSC (OSC 52 writes the clipboard), BEL, BS and CR in what is printed.
  `strip_controls` removes every C0 control but tab and newline, DEL and every C1 control from the article's
  text, HTML and Markdown, so `pith extract` prints none in any format and a saved file holds none;
- a Markdown renderer, which turns `<img onerror=...>`, `[x](javascript:...)` or a line-leading `#` of plain
  text into markup. The article's Markdown (article.py's `to_markdown`) escapes every text run with
  `escape_text` and each line's start with `escape_line_starts`; link and image targets go through
  `destination` (http(s), mailto and relative targets only, encoded so that no character of theirs ends
  the target); code spans and fences are longer than any backtick run they hold. Emphasis is written only
  where CommonMark will read it as emphasis (`resolve_emphasis`), so no delimiter is left over as text.
  Footnotes (`[^1]`, `[^1]: text`) are written only where the note's first word names no scheme but
  http(s) and mailto: read without footnote support, a definition makes its reference a link to that word.

Escaping is kept to what CommonMark and GFM read as syntax where it stands: `#`, `>`, `+`, `-`, `=`, `:` and
`1.` only at a line's start, `_` only where it could open or close emphasis, `&` only before what would
read as an entity; `\\ ` `` ` `` `* [ ] < | ~` everywhere.
"""

from __future__ import annotations

import re
import unicodedata

# C0 but tab and newline, DEL, C1. What a terminal obeys; no page shows them as text.
TERMINAL_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """`text` without terminal controls (TERMINAL_CONTROLS). Printable text holds none: returned as is."""
    return text if text.isprintable() else TERMINAL_CONTROLS.sub("", text)


# Emphasis is built with these marks, noncharacters that never stand for text (Unicode reserves them for a
# program's own use), then `resolve_emphasis` writes each pair as Markdown or drops it. Page text loses them
# with the controls (`clean`).
OPEN = {"strong": "\ufdd0", "em": "\ufdd1", "s": "\ufdd2"}
CLOSE = {"strong": "\ufdd3", "em": "\ufdd4", "s": "\ufdd5"}
_DELIMITER = {"\ufdd0": "**", "\ufdd1": "*", "\ufdd2": "~~", "\ufdd3": "**", "\ufdd4": "*", "\ufdd5": "~~"}
_MARKS = re.compile("[\ufdd0-\ufdd5]")
_UNSAFE = re.compile(TERMINAL_CONTROLS.pattern[:-1] + "\ufdd0-\ufdef]")


def clean(text: str) -> str:
    """Page text for Markdown: no terminal control, no noncharacter of the U+FDD0 block (the marks above;
    neither kind is printable, so printable text is returned as is)."""
    return text if text.isprintable() else _UNSAFE.sub("", text)


_ENTITY = r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)"  # an & that starts an entity
_ESCAPE = re.compile(r"[\\`*\[\]<|~]|(?<![^\W_])_|_(?![^\W_])|" + _ENTITY)
_NEEDS_ESCAPE = re.compile(r"[\\`*\[\]<|~_&]")


def escape_text(text: str) -> str:
    """A text run, written so that CommonMark and GFM read each of its characters as text, wherever in a
    line it stands (a line's start is `escape_line_starts`'s): `\\`, backticks, `*`, `[`, `]`, `<`, `|`, `~`
    always; `_` unless it sits between two letters or digits (where it can neither open nor close emphasis);
    `&` where it would start an entity. `text` is clean (`clean`)."""
    if not _NEEDS_ESCAPE.search(text):
        return text
    return _ESCAPE.sub(r"\\\g<0>", text)


# What a line may start with that makes it a block: an ATX heading, a block quote, a bullet or an ordered
# list item, a thematic break, a setext underline or a table's delimiter row (a line of - = : | and blanks).
# `*`, `_`, `` ` ``, `~`, `<`, `[` and `|` are escaped wherever they stand.
_LINE_START = re.compile(
    r"([ \t]*)(#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|[-=:](?=[-=:|\\ \t]*$)"
    r"|\d{1,9}(?=[.)](?:[ \t]|$)))"
)
_BLOCK_START_CHARS = frozenset("#>-+=:0123456789 \t")


def _escape_start(line: str) -> str:
    if not line or line[0] not in _BLOCK_START_CHARS:
        return line
    m = _LINE_START.match(line)
    if not m:
        return line
    lead, token = m.group(1), m.group(2)
    if token[0].isdigit():  # "1." and "1)": the delimiter is escaped, after the number
        return f"{lead}{token}\\{line[m.end() :]}"
    return f"{lead}\\{line[m.end(1) :]}"


def escape_line_starts(text: str) -> str:
    """`text` (escaped inline Markdown, its lines joined by newlines) with each line's start escaped where it
    would begin a block rather than a paragraph's text."""
    if "\n" not in text:
        return _escape_start(text)
    return "\n".join(_escape_start(line) for line in text.split("\n"))


_CLOSING_HASHES = re.compile(r"(^|[ \t])(#+[ \t]*)$")


def heading_text(text: str) -> str:
    """An ATX heading's text, with a closing run of `#` kept as text."""
    return _CLOSING_HASHES.sub(r"\1\\\2", text)


_URL_SPACE = re.compile(r"[\s<>\\|\"`\x00-\x1f\x7f-\x9f\ufdd0-\ufdef]")
_ENTITY_AMP = re.compile(_ENTITY)
MAX_PAREN_DEPTH = 8  # renderers differ past a few levels of nested parentheses in a link target


def _percent(m: re.Match) -> str:
    return "".join(f"%{b:02X}" for b in m.group(0).encode("utf-8", "surrogatepass"))


def destination(url: str | None) -> str | None:
    """A link or image target as CommonMark's bare destination, or None for none. `url` is already checked
    safe (article.py's `safe_url`: http(s), mailto or relative). Blanks, controls, `<`, `>`, `\\`, `|`, `"`
    and backticks are percent-encoded, parentheses too unless balanced, and `&` before what would read as an
    entity is backslash-escaped (percent-encoding it would change a query)."""
    if not url:
        return None
    url = _URL_SPACE.sub(_percent, url)
    depth = top = 0
    for c in url if "(" in url or ")" in url else "":  # most targets hold no parenthesis
        if c == "(":
            depth += 1
            top = max(top, depth)
        elif c == ")":
            depth -= 1
            if depth < 0:
                break
    if depth or top > MAX_PAREN_DEPTH:
        url = url.replace("(", "%28").replace(")", "%29")
    return _ENTITY_AMP.sub(r"\\&", url) if "&" in url else url


def code_span(code: str, in_table: bool = False) -> str:
    """Inline code, its text as written: fenced by a backtick run longer than any inside, padded where its
    text starts or ends with a backtick or with a space at both ends (CommonMark strips one of each). In a
    GFM table cell, `|` is written `\\|` (cells are split before code is read)."""
    if not code.strip():
        return ""
    if in_table:
        code = code.replace("|", "\\|")
    tick = "`" * (1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    pad = " " if code[0] == "`" or code[-1] == "`" or (code[0] == " " and code[-1] == " ") else ""
    return f"{tick}{pad}{code}{pad}{tick}"


def fence(body: str) -> str:
    """A code block's fence: three backticks, or one more than the longest run in the body."""
    return "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", body)), default=0))


def tex(source: str, in_table: bool = False) -> str:
    """TeX for between `$` signs: the same formula, with nothing a Markdown renderer reads as HTML or a link
    (`<` as `\\lt`, `](` as `]{}(`: an empty TeX group), and `|` escaped in a table cell."""
    source = source.replace("<", "\\lt ").replace("](", "]{}(")
    return source.replace("|", "\\|") if in_table else source


def _punct(c: str) -> bool:
    return unicodedata.category(c)[0] in "PS"


def _flanking(before: str, after: str) -> tuple[bool, bool]:
    """(left-flanking, right-flanking) of a delimiter run between `before` and `after` ("" is a line's edge,
    read as a blank), as CommonMark defines them."""
    b_space, a_space = not before or before.isspace(), not after or after.isspace()
    b_punct, a_punct = not b_space and _punct(before), not a_space and _punct(after)
    left = not a_space and (not a_punct or b_space or b_punct)
    right = not b_space and (not b_punct or a_space or a_punct)
    return left, right


_LEAD_SPACE = re.compile("([\ufdd0-\ufdd2]+)([ \t]+)")
_TRAIL_SPACE = re.compile("([ \t]+)([\ufdd3-\ufdd5]+)")
_BLANK_IN_MARKS = re.compile("[\ufdd0-\ufdd2][ \t]|[ \t][\ufdd3-\ufdd5]")
_MARKS_AND_BLANKS = "".join(_DELIMITER) + " \t\n"
MAX_EMPHASIS_ROUNDS = 4  # rounds of dropping pairs that would not read as emphasis, then all are dropped


def resolve_emphasis(line: str) -> str:
    """A line built with OPEN/CLOSE marks, written as Markdown: each pair becomes its delimiters where
    CommonMark and GFM will read it as that emphasis, and disappears where they would not (the delimiter
    would show as text, `** x**`, `a**"b"**`, or pair with another mark, as inside a word). Blanks are
    moved out of the marks first, as a browser renders `<b> x</b>` like ` <b>x</b>`, and `</b><b>` is one
    emphasis. Work is per mark, never per character."""
    if not _MARKS.search(line):
        return line
    for kind in OPEN:
        line = line.replace(CLOSE[kind] + OPEN[kind], "")
    while _BLANK_IN_MARKS.search(line):  # nested marks: one level of blanks a round
        line = _TRAIL_SPACE.sub(r"\2\1", _LEAD_SPACE.sub(r"\2\1", line))
    marks = [(m.start(), m.group()) for m in _MARKS.finditer(line)]
    pairs: list[tuple[int, int]] = []  # (opener, closer) as indices into marks
    stack: list[int] = []
    for k, (_, c) in enumerate(marks):
        if c in _CLOSERS:
            pairs.append((stack.pop(), k))
        else:
            stack.append(k)
    kept = {(o, c) for o, c in pairs if line[marks[o][0] + 1 : marks[c][0]].strip(_MARKS_AND_BLANKS)}
    for _ in range(MAX_EMPHASIS_ROUNDS):
        failed = _failing(line, marks, kept)
        if not failed:
            break
        kept -= failed
    else:
        kept = set()
    on = {k for pair in kept for k in pair}
    parts, last = [], 0
    for k, (p, c) in enumerate(marks):
        parts.append(line[last:p])
        if k in on:
            parts.append(_DELIMITER[c])
        last = p + 1
    parts.append(line[last:])
    return "".join(parts)


_CLOSERS = frozenset(CLOSE.values())


def _failing(line: str, marks: list[tuple[int, str]], kept: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The pairs of `kept` that, written out, would not be read as their emphasis. Kept marks side by side
    (dropped ones between them vanish) make one delimiter run when they write the same character."""
    on = [False] * len(marks)
    for opener, closer in kept:
        on[opener] = on[closer] = True
    runs: list[list] = []  # [first mark, last mark, length in characters, character]
    run_of: dict[int, int] = {}
    previous = -1
    for k, (p, mark) in enumerate(marks):
        if not on[k]:
            continue
        delimiter = _DELIMITER[mark]
        if (
            previous >= 0
            and k - previous == p - marks[previous][0]  # only marks between: adjacent
            and runs[-1][3] == delimiter[0]
        ):
            runs[-1][1] = k
            runs[-1][2] += len(delimiter)
        else:
            runs.append([k, k, len(delimiter), delimiter[0]])
        run_of[k] = len(runs) - 1
        previous = k

    def neighbour(k: int, step: int) -> str:
        """The character written next to mark k on the side of `step`, past the marks dropped there."""
        j = k + step
        while 0 <= j < len(marks) and marks[j][0] == marks[j - step][0] + step:
            if on[j]:
                return _DELIMITER[marks[j][1]][0]
            j += step
        p = marks[j - step][0] + step
        return line[p] if 0 <= p < len(line) else ""

    flanks = [_flanking(neighbour(r[0], -1), neighbour(r[1], 1)) for r in runs]
    failed = set()
    for o, c in kept:
        ro, rc = run_of[o], run_of[c]
        (o_left, o_right), (c_left, c_right) = flanks[ro], flanks[rc]
        lo, lc = runs[ro][2], runs[rc][2]
        # An opener that could also close, or a closer that could also open (inside a word, between two
        # punctuation marks), may pair with another mark than its own: such pairs are dropped. Then no
        # kept run can do both, and CommonMark's rule of three never applies.
        if not o_left or o_right or not c_right or c_left or (runs[ro][3] == "~" and (lo != 2 or lc != 2)):
            failed.add((o, c))
    return failed
