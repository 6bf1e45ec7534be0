"""The outputs of `pith extract -f`: a Result as text, Markdown, HTML, JSON or the blocks table.

Text and Markdown on their own are the article's body; saved, or Markdown at all, they are the document
(document.py: the properties, a blank line, the body). HTML is the reader's clean HTML of the body, JSON the
whole Result. Page text holds no terminal control in any of them: a page cannot move the cursor, retitle the
window or write the clipboard (OSC 52) of the terminal that shows it.
"""

from __future__ import annotations

import json
import re

from ..pipeline.inert import strip_controls
from .document import document

FORMATS = ("text", "markdown", "html", "json", "blocks")
SAVE_EXTENSIONS = {"text": "txt", "markdown": "md", "html": "html", "json": "json", "blocks": "txt"}

_JSON_CONTROLS = re.compile(r"[\x7f-\x9f]")


def json_text(value) -> str:
    """JSON for a terminal: non-ASCII text as itself, and every control as an escape (json.dumps escapes
    C0 alone; DEL and C1 controls, CSI U+009B among them, would reach the terminal)."""
    text = json.dumps(value, ensure_ascii=False)
    return _JSON_CONTROLS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text) if not text.isascii() else text


def render(result, fmt: str, template: dict | None = None, saved: bool = False) -> tuple[str, str]:
    """(the file name's stem as the page or the template gives it, the output in `fmt`). The controls go from
    the text, HTML and Markdown in article.py, from the document here; JSON escapes them."""
    if fmt in ("markdown", "text") and (fmt == "markdown" or saved):
        name, output = document(result.to_dict(), fmt, template)
        return name, strip_controls(output)
    if fmt == "blocks":
        return result.title, blocks_table(result)
    if fmt == "json":
        return result.title, json_text(result.to_dict())
    return result.title, result.html if fmt == "html" else result.text


def blocks_table(result) -> str:
    """The labelled blocks, one line each: what the model saw and what it decided."""
    lines = [f"{'#':>4} {'main':>5}  {'label':9} text"]
    for b in result.blocks:
        label = max(("title", "heading", "paragraph", "list", "table"), key=lambda k: b.scores[k])
        label = label if b.main and b.scores[label] >= 0.5 else ("main" if b.main else "-")
        text = " ".join(strip_controls(b.text).split())
        lines.append(f"{b.index:>4} {b.scores['main']:5.2f}  {label:9} {text[:90]}")
    return "\n".join(lines)
