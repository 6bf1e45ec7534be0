"""bench.rule_audit: each rule's removals and additions are counted in the gold's words and the others', on the
rule that made them, and the tracer is gone once the page is done."""

from __future__ import annotations

from host_support import write_standin_model

from bench.rule_audit import Audit, audit_page
from native_host import Extractor
from native_host.pipeline.decisions import RULE_TRACE

STORY = "The harbour master opened the new lock gates this morning after two years of repairs."


def test_a_rule_that_removes_the_footer_is_credited_with_other_words(tmp_path):
    """The stand-in model keeps every block of 55 characters or more: the footer's line too, which
    `outside_navigation` takes out. The gold holds the story alone, so the footer's words are the others'."""
    footer = "Copyright and the terms of use of this website, which nobody reads at all."
    html = f"<main><h1>Lock gates</h1><p>{STORY}</p><p>{STORY} Again.</p></main><footer><p>{footer}</p></footer>"
    record = {"id": "t/1", "dataset": "t", "page_type": None, "html": html, "main_text": f"{STORY}\n{STORY} Again."}
    audit = Audit()
    audit_page(Extractor(write_standin_model(tmp_path / "m")), record, audit)
    tally = audit.by_rule["outside_navigation"]["t"]
    assert tally.pages == 1 and tally.other_removed == len(footer.split()) and tally.gold_removed == 0
    assert "t/1" not in [page for *_, page in audit.worst["outside_navigation"]]
    assert RULE_TRACE.get() is None


def test_a_page_without_gold_words_is_not_audited(tmp_path):
    audit = Audit()
    record = {"id": "t/2", "dataset": "t", "page_type": None, "html": f"<p>{STORY}</p>", "main_text": " "}
    audit_page(Extractor(write_standin_model(tmp_path / "m")), record, audit)
    assert not audit.by_rule
