"""The saved document: an article's properties on top of its body, shaped by a template (docs/extension.md, Save).

A template is a small JSON object: the file's name and its properties, each a string or a list of strings with
`{{variable|filter:arg}}` in them:

    {"name": "{{published|date:YYYY-MM-DD}} {{title}}",
     "properties": {"title": "{{title}}", "author": ["{{author}}"], "tags": ["clippings", "{{site|slug}}"]}}

The rule for both documents: the properties, then a blank line, then the body. A `.md` file writes them as YAML
front matter; a `.txt` file as the title underlined, then "key: value" lines. A property whose value comes out
empty is left out. A string that is a date (2026-03-01, 2026-03-01T09:30:00+02:00) and a lone number variable
({{words}}) are written bare, so note apps read them as a date or a number; every other string is one
double-quoted line, so a title holding ": " or a quote cannot break the YAML; a list is a YAML list.

Also here: the rules for images saved beside the Markdown (which links, which types, their names, the
relinking). A saved selection's body is the article stage run on the selected blocks (pipeline/article.py's
`selection_body`).

extension/template.js is this module's twin: tests/template_cases.json holds cases both run (tests/test_document.py
and tests/test_extension_units.py), so the CLI's `--template FILE` and the extension's options give the same file.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from datetime import datetime

from ..errors import InputError
from ..limits import MAX_TEMPLATE_BYTES, MAX_TEMPLATE_PROPERTIES

DEFAULT_TEMPLATE: dict = {
    "name": "{{title}}",
    "properties": {
        "title": "{{title}}",
        "source": "{{url}}",
        "author": ["{{author}}"],
        "published": "{{published|date:YYYY-MM-DD}}",
        "created": "{{created|date:YYYY-MM-DD}}",
        "site": "{{site}}",
        "description": "{{description}}",
        "tags": ["clippings"],
    },
}
VARIABLES = (
    "title",
    "author",
    "published",
    "modified",
    "created",
    "site",
    "url",
    "description",
    "tags",
    "page_type",
    "words",
    "reading_time",
    "lang",
    "image",
    "selection",
)
FILTERS = ("date", "slug", "lower", "upper", "join", "default")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

_KEY = re.compile(r"[A-Za-z_](?:[A-Za-z0-9 _-]*[A-Za-z0-9_-])?")
_EXPRESSION = re.compile(r"\{\{((?:(?!\}\}).)*)\}\}", re.S)
_VARIABLE = re.compile(r"\s*([a-z_]+)\s*")
_FILTER = re.compile(r"\|\s*([a-z_]+)\s*(?::\s*(\"[^\"]*\"|'[^']*'|[^|\"']*))?\s*")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?")
_DATE_TOKENS = re.compile(r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|HH|H|mm|ss")
# Not printable in YAML (C0 but tab and newline, DEL, C1 but NEL, surrogates, U+FFFE/F) and the line
# separators YAML tools split on: each becomes a blank.
_YAML_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x84\x86-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
# Blanks, named one by one: Python's \s and JavaScript's differ (U+0085, U+FEFF).
_BLANKS = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]+")


class TemplateError(InputError):
    """A template that cannot be used; `errors` lists every problem, one line each."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


# --- reading a template ------------------------------------------------------------------------------------


def _expression(text: str) -> tuple[str, list[tuple[str, str | None]]] | str:
    """The variable and filters of one `{{ }}`'s inside, or the problem with it."""
    found = _VARIABLE.match(text)
    if not found:
        return f'cannot read "{{{{{text}}}}}": it should start with a variable, such as {{{{title}}}}'
    variable, at, filters = found.group(1), found.end(), []
    if variable not in VARIABLES:
        return f'unknown variable "{variable}" (known: {", ".join(VARIABLES)})'
    while at < len(text):
        step = _FILTER.match(text, at)
        if not step or step.end() == at:
            return f'cannot read "{{{{{text}}}}}": filters go as |name or |name:argument'
        name, arg = step.group(1), step.group(2)
        if name not in FILTERS:
            return f'unknown filter "{name}" (known: {", ".join(FILTERS)})'
        if arg is not None:
            arg = arg[1:-1] if arg[:1] in "\"'" and len(arg) > 1 else arg.strip()
        filters.append((name, arg))
        at = step.end()
    return variable, filters


def _string_errors(where: str, text: str) -> list[str]:
    errors = []
    for found in _EXPRESSION.finditer(text):
        parsed = _expression(found.group(1))
        if isinstance(parsed, str):
            errors.append(f"{where}: {parsed}")
    if "{{" in _EXPRESSION.sub("", text):
        errors.append(f'{where}: "{{{{" without its "}}}}"')
    return errors


def template_errors(template) -> list[str]:
    """Every problem with a parsed template, one line each; [] when it can be used."""
    if not isinstance(template, dict):
        return ['the template is not a JSON object: give {"name": "...", "properties": {...}}']
    errors = [
        f'the template has an unknown key "{key}": it holds "name" and "properties"'
        for key in template
        if key not in ("name", "properties")
    ]
    name = template.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append('"name" must be a non-empty string, such as "{{title}}"')
    else:
        errors += _string_errors("name", name)
    properties = template.get("properties")
    if not isinstance(properties, dict):
        errors.append('"properties" must be an object of property names and values')
        return errors
    if len(properties) > MAX_TEMPLATE_PROPERTIES:
        errors.append(f"the template has {len(properties)} properties; at most {MAX_TEMPLATE_PROPERTIES}")
    for key, value in properties.items():
        if not _KEY.fullmatch(key) or len(key) > 64:
            errors.append(f'property name "{key}": letters, digits, spaces, "_" and "-" only, at most 64')
        if isinstance(value, str):
            errors += _string_errors(f"properties.{key}", value)
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            for item in value:
                errors += _string_errors(f"properties.{key}", item)
        else:
            errors.append(f"properties.{key} must be a string or a list of strings")
    return errors


def parse_template(text: str) -> dict:
    """A template from its JSON text; TemplateError says what is wrong with it."""
    if len(text.encode("utf-8", "replace")) > MAX_TEMPLATE_BYTES:
        raise TemplateError([f"the template is larger than {MAX_TEMPLATE_BYTES} bytes"])
    try:
        template = json.loads(text)
    except ValueError as exc:
        raise TemplateError([f"the template is not JSON ({exc})"]) from None
    errors = template_errors(template)
    if errors:
        raise TemplateError(errors)
    return template


# --- the variables and filters -------------------------------------------------------------------------------


def now_iso() -> str:
    """This moment on the local clock, with its offset: what `created` holds."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def variables(fields: dict, created: str, selection: str = "") -> dict:
    """The template's variables from an article (`Result.to_dict()` or the host's reply `article`)."""
    image = fields.get("image")
    tags = fields.get("tags")
    return {
        "title": fields.get("title") or "",
        "author": fields.get("byline") or "",
        "published": fields.get("date") or "",
        "modified": fields.get("modified") or "",
        "created": created,
        "site": fields.get("site_name") or "",
        "url": fields.get("canonical_url") or fields.get("url") or "",
        "description": fields.get("description") or "",
        "tags": [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
        "page_type": fields.get("page_type") or "",
        "words": int(fields.get("word_count") or 0),
        "reading_time": int(fields.get("reading_minutes") or 0),
        "lang": fields.get("lang") or "",
        "image": (image.get("url") if isinstance(image, dict) else None) or "",
        "selection": selection or "",
    }


def format_date(value: str, pattern: str) -> str:
    """An ISO date in `pattern` (YYYY YY MMMM MMM MM M DD D HH H mm ss, [literal]), on the date's own clock;
    "" for what is not a date."""
    found = _DATE.match(value)
    if not found:
        return ""
    y, mo, d = found.group(1), int(found.group(2)), found.group(3)
    h, mi, s = found.group(4) or "00", found.group(5) or "00", found.group(6) or "00"
    if not 1 <= mo <= 12:
        return ""
    parts = {
        "YYYY": y,
        "YY": y[2:],
        "MMMM": MONTHS[mo - 1],
        "MMM": MONTHS[mo - 1][:3],
        "MM": f"{mo:02d}",
        "M": str(mo),
        "DD": d,
        "D": str(int(d)),
        "HH": h,
        "H": str(int(h)),
        "mm": mi,
        "ss": s,
    }
    return _DATE_TOKENS.sub(lambda t: t.group(0)[1:-1] if t.group(0)[0] == "[" else parts[t.group(0)], pattern)


def slug(text: str) -> str:
    """Lower case ASCII-folded words joined by "-": "Café Ünïcode!" -> "cafe-unicode"."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if unicodedata.category(c)[0] != "M")
    words = "".join(c if unicodedata.category(c)[0] in "LN" else " " for c in folded).split(" ")
    return "-".join(w for w in words if w)


def _each(value, apply):
    return [apply(item) for item in value] if isinstance(value, list) else apply(_text(value))


def _apply(value, name: str, arg: str | None):
    if name == "date":
        return _each(value, lambda v: format_date(v, arg or "YYYY-MM-DD"))
    if name == "slug":
        return _each(value, slug)
    if name == "lower":
        return _each(value, str.lower)
    if name == "upper":
        return _each(value, str.upper)
    if name == "join":
        return (", " if arg is None else arg).join(value) if isinstance(value, list) else value
    if name == "default":
        return (arg or "") if value in ("", None, []) else value
    raise AssertionError(name)


def _text(value) -> str:
    if isinstance(value, list):
        return ", ".join(value)
    return "" if value is None else str(value)


def render_string(text: str, values: dict):
    """A template string with its expressions filled in: a lone expression keeps its value's kind (a list,
    a number), anything else is text."""

    def evaluate(inside: str):
        parsed = _expression(inside)
        if isinstance(parsed, str):  # a template `template_errors` refuses; callers check it first
            raise ValueError(parsed)
        variable, filters = parsed
        value = values[variable]
        for name, arg in filters:
            value = _apply(value, name, arg)
        return value

    whole = _EXPRESSION.fullmatch(text)
    if whole:
        return evaluate(whole.group(1))
    return _EXPRESSION.sub(lambda found: _text(evaluate(found.group(1))), text)


def _clean(text: str) -> str:
    return _BLANKS.sub(" ", _YAML_UNSAFE.sub(" ", text)).strip(" ")


def properties(template: dict, values: dict) -> list[tuple[str, str | int | list[str]]]:
    """The template's properties as (key, value), in its order, those that come out empty left out: a value is
    a one-line string, a number, or a list of one-line strings."""
    out = []
    for key, spec in template["properties"].items():
        if isinstance(spec, list):
            items = []
            for item in spec:
                value = render_string(item, values)
                items += [_clean(_text(v)) for v in value] if isinstance(value, list) else [_clean(_text(value))]
            value = [item for item in items if item]
        else:
            value = render_string(spec, values)
            value = [_clean(_text(v)) for v in value if _clean(_text(v))] if isinstance(value, list) else value
            value = value if isinstance(value, (int, list)) else _clean(value)
        if value not in ("", []):
            out.append((key, value))
    return out


def _yaml_scalar(value: str | int) -> str:
    if isinstance(value, int) or _ISO_DATE.fullmatch(value):
        return str(value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def front_matter(props: list[tuple[str, str | int | list[str]]]) -> str:
    """`---`-fenced YAML of `props`; "" when there are none."""
    lines = []
    for key, value in props:
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  - {_yaml_scalar(item)}" for item in value]
        else:
            lines.append(f"{key}: {_yaml_scalar(value)}")
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" if lines else ""


def text_head(props: list[tuple[str, str | int | list[str]]], title: str) -> str:
    """A text file's head: the title underlined, then "key: value" lines (lists joined with ", ")."""
    title = _clean(title) or "Untitled"
    lines = [title, "=" * min(len(title), 80)]
    rest = [
        f"{key}: {', '.join(value) if isinstance(value, list) else value}" for key, value in props if key != "title"
    ]
    return "\n".join(lines + ([""] + rest if rest else [])) + "\n"


def document(
    fields: dict, fmt: str, template: dict | None = None, created: str | None = None, selection: str = ""
) -> tuple[str, str]:
    """(file name stem as the template gives it, not yet made safe; the document's text) for `fmt` "markdown"
    or "text": the head, a blank line, the body."""
    template = template or DEFAULT_TEMPLATE
    values = variables(fields, created or now_iso(), selection)
    props = properties(template, values)
    name = _clean(_text(render_string(template["name"], values)))
    body = (fields.get("markdown") if fmt == "markdown" else fields.get("text")) or ""
    body = body.strip("\n")
    if fmt == "markdown":
        head = front_matter(props)
    else:
        title = next((v for k, v in props if k == "title" and isinstance(v, str)), values["title"])
        head = text_head(props, title)
    return name, (head + "\n" if head else "") + (body + "\n" if body else "")


def default_front_matter(fields: dict) -> str:
    """The front matter of DEFAULT_TEMPLATE for an article, created now: what the host sends a client that
    saves with no template of its own."""
    return front_matter(properties(DEFAULT_TEMPLATE, variables(fields, now_iso())))


# --- images saved beside the Markdown ------------------------------------------------------------------------
# A Markdown image and its address: ![alt](url) or ![alt](<url>), backslash escapes allowed in both.
_IMAGE = re.compile(r"!\[((?:[^\]\\\n]|\\.)*)\]\((<[^>\n]*>|(?:[^()\s\\]|\\.)+)\)")
# What a saved image may be, known by its first bytes (not by the name or type its server gives): SVG is left
# out, as a saved SVG opened on its own runs its scripts.
IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"BM", "bmp"),
)


def _address(written: str) -> str:
    """The address a Markdown link holds: without its angle brackets and backslash escapes."""
    return re.sub(r"\\(.)", r"\1", written[1:-1] if written.startswith("<") else written)


def image_links(markdown: str) -> list[str]:
    """The addresses of the Markdown's images, each once, in order."""
    seen = []
    for found in _IMAGE.finditer(markdown):
        url = _address(found.group(2))
        if url and url not in seen:
            seen.append(url)
    return seen


def image_type(data: bytes) -> str | None:
    """The file extension of an image from its first bytes; None for what is not a PNG, JPEG, GIF, WebP, AVIF
    or BMP."""
    for magic, ext in IMAGE_MAGIC:
        if data.startswith(magic):
            return ext
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:12] in (b"ftypavif", b"ftypavis"):
        return "avif"
    return None


def image_name(data: bytes, ext: str) -> str:
    """Where an image goes, beside the Markdown: named by its content, so saving it again (from this page or
    another) names the same file, and two images never take each other's name."""
    return f"images/{hashlib.sha256(data).hexdigest()[:16]}.{ext}"


def with_local_images(markdown: str, local: dict[str, str]) -> str:
    """The Markdown with each image whose address is in `local` pointing at its saved file instead."""

    def swap(found):
        url = _address(found.group(2))
        return f"![{found.group(1)}]({local[url]})" if url in local else found.group(0)

    return _IMAGE.sub(swap, markdown)
