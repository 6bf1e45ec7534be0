"""The CommonMark renderer the Markdown tests read Pith's output back with: markdown-it in its commonmark
preset, with GFM's tables and strikethrough, as forges and note apps render it."""

from markdown_it import MarkdownIt


def commonmark_gfm() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])
