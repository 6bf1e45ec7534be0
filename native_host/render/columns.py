"""The columns of a corpus job's output: one table, read by the JSON-lines and the Parquet writers alike.

Each column has a name, an Arrow type (a function of the pyarrow module, which is imported only when Parquet
is written) and how its value comes from the page read and the `Result` extracted. A page that failed has a
`Result` of None: its page columns (path, url, record id) are still filled, every other one is null, and
`error` says what happened. `error` is in every output: without it a failed page would pass for an empty one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, asdict, dataclass
from dataclasses import fields as dataclass_fields
from typing import Any, Protocol

from ..errors import InputError
from ..files import shown
from ..result import LABELS, Result


class Page(Protocol):
    """What the page columns read of a page (corpus.pages.Page): where it came from, not its content."""

    @property
    def path(self) -> str: ...
    @property
    def url(self) -> str | None: ...
    @property
    def record_id(self) -> str | None: ...
    @property
    def status(self) -> int | None: ...


@dataclass(frozen=True)
class Column:
    name: str
    arrow: Callable[[Any], Any]  # pyarrow module -> its DataType
    get: Callable[[Page, Result | None], Any] | None  # None: filled by `row` (the error)
    about: str
    of_page: bool = False  # read from the page: filled even when it failed


def _result(attr: str, convert: Callable[[Any], Any] = lambda v: v) -> Callable[[Page, Result | None], Any]:
    # `row` asks a result column only for a Result; None is answered as `row` fills a failed page's cell.
    return lambda page, result: None if result is None else convert(getattr(result, attr))


def _string(pa):
    return pa.string()


def _int(pa):
    return pa.int64()


def _error(pa):
    return pa.struct([("code", pa.string()), ("message", pa.string())])


def _image(pa):
    return pa.struct([("url", pa.string()), ("alt", pa.string())])


def _blocks(pa):
    return pa.list_(
        pa.struct(
            [
                ("index", pa.int64()),
                ("node_ids", pa.list_(pa.int64())),
                ("text", pa.string()),
                ("scores", pa.struct([(k, pa.float64()) for k in LABELS])),
                ("main", pa.bool_()),
            ]
        )
    )


# A Result field's column kind (result.Result: the field's `column`) -> its Arrow type and how a value is written.
KINDS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "string": (_string, lambda v: v),
    "int": (_int, lambda v: v),
    "bool": (lambda pa: pa.bool_(), lambda v: v),
    "int_list": (lambda pa: pa.list_(pa.int64()), lambda v: v),
    "string_list": (lambda pa: pa.list_(pa.string()), lambda v: v),
    "image": (_image, lambda v: asdict(v) if v is not None else None),
    "blocks": (_blocks, lambda v: [asdict(b) for b in v]),
}


def _result_column(f: Field) -> Column:
    arrow, convert = KINDS[f.metadata["column"]]
    return Column(f.name, arrow, _result(f.name, convert), f.metadata["about"])


COLUMNS: tuple[Column, ...] = (
    Column("path", _string, lambda page, result: page.path, "the input file the page came from", True),
    Column(
        "url",
        _string,
        lambda page, result: page.url if result is None else (result.url or page.url),
        "the page's URL: a WARC record's target URI, or --url",
        True,
    ),
    Column("record_id", _string, lambda page, result: page.record_id, "the WARC-Record-ID; null for HTML files", True),
    Column("status", _int, lambda page, result: page.status, "the HTTP status of a WARC response", True),
    *(_result_column(f) for f in dataclass_fields(Result) if f.metadata["column"]),
    Column("error", _error, None, "null, or {code, message} when the page could not be extracted"),
)
BY_NAME = {c.name: c for c in COLUMNS}
DEFAULT_FIELDS = (
    "path",
    "url",
    "record_id",
    "title",
    "byline",
    "date",
    "lang",
    "page_type",
    "text",
    "word_count",
    "error",
)


def parse_fields(spec: str | None) -> tuple[str, ...]:
    """--fields: "a,b,c" names the columns; "+a,+b" adds to the default. Output keeps the table's order, and
    always has `error`."""
    if not spec:
        return DEFAULT_FIELDS
    names = [n.strip() for n in spec.split(",") if n.strip()]
    chosen = set(DEFAULT_FIELDS) if names and all(n.startswith("+") for n in names) else set()
    for name in names:
        name = name.lstrip("+")
        if name not in BY_NAME:
            raise InputError(f"--fields: no column {name!r}; choose among {', '.join(BY_NAME)}")
        chosen.add(name)
    chosen.add("error")
    return tuple(c.name for c in COLUMNS if c.name in chosen)


def row(fields: tuple[str, ...], page: Page, result: Result | None, error: dict | None = None) -> dict:
    """One output row: the page's columns, from `result`, or nulls and `error` where it failed.

    The page's own columns (a file name, a WARC header) and the error message are written through `shown`:
    a file name that is not UTF-8 must not cost the row, nor the file it goes into."""
    out: dict[str, Any] = {}
    for name in fields:
        column = BY_NAME[name]
        if column.get is None:
            out[name] = error if error is None else {**error, "message": shown(error["message"])}
        elif column.of_page:
            value = column.get(page, result)
            out[name] = shown(value) if isinstance(value, str) else value
        else:
            out[name] = column.get(page, result) if result is not None else None
    return out


def arrow_schema(pa, fields: tuple[str, ...]):
    """The Arrow schema of `fields`, given the pyarrow module (the corpus extra, which the caller imports)."""
    return pa.schema([(name, BY_NAME[name].arrow(pa)) for name in fields])
