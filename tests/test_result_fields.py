"""A result's fields are stated once, on `Result` (native_host/result.py); whoever else carries them derives
its list from there or is checked against it here and in test_extension_files.py."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from native_host.pipeline.metadata import Metadata
from native_host.render.columns import BY_NAME, COLUMNS
from native_host.render.document import variables
from native_host.render.reply import METADATA_FIELDS
from native_host.result import FROM_METADATA, REPLY_FIELDS, Result

ROOT = Path(__file__).resolve().parent.parent


def test_every_field_copied_from_the_metadata_is_read_there():
    header = Metadata(byline="A. Keeper, B. Keeper", tags=["tide"], headline_block=3)
    for name in FROM_METADATA:
        assert hasattr(header, name), name  # a field, or a property such as `authors`
    assert header.authors == ["A. Keeper", "B. Keeper"]


def test_the_reply_and_the_corpus_columns_follow_the_result():
    assert METADATA_FIELDS == REPLY_FIELDS and "title" in REPLY_FIELDS and "text" not in REPLY_FIELDS
    marked = [f.name for f in fields(Result) if f.metadata["column"]]
    result_columns = [c.name for c in COLUMNS if not c.of_page and c.get is not None]
    assert result_columns == marked and {"tags", "authors", "blocks"} <= set(marked)
    assert "url" in BY_NAME and BY_NAME["url"].of_page  # the page's, filled where the extraction failed


class _Reads(dict):
    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, key, default=None):
        self.asked.add(key)
        return default


def test_a_save_templates_variables_read_only_what_every_reply_carries():
    """The extension fills the variables (template.js) from the reply's article, the host (document.py) from
    the Result: each may read only a field that every reply carries."""
    article = _Reads()
    variables(article, "2026-01-01T00:00:00+00:00")
    assert article.asked and article.asked <= set(REPLY_FIELDS), article.asked - set(REPLY_FIELDS)
    text = (ROOT / "extension" / "template.js").read_text()
    body = re.search(r"function variables\(fields[^)]*\) \{(.*?)\n  \}", text, re.S)
    read = set(re.findall(r"\bfields\.(\w+)", body.group(1))) if body else set()
    assert read == article.asked


def test_the_docs_describe_every_field_a_reply_always_carries():
    """docs/protocol.md says what the reply's article carries and links metadata.md's table of the fields;
    every field a reply carries is described in one of the two."""
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    article = protocol[protocol.index("The article's metadata is always there") :]
    article = article[: article.index("`html`, `markdown` and `text` hold the article's body")]
    assert "metadata.md#the-fields" in article
    fields = (ROOT / "docs" / "metadata.md").read_text(encoding="utf-8")
    table = fields[fields.index("## The fields") :]
    table = table[: table.index("\n## ", 3)]
    assert {name for name in REPLY_FIELDS if f"`{name}`" not in table and f"`{name}`" not in article} == set()
