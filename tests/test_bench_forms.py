"""bench.forms: the reader's forms' parts as the reader shows them, and what changed between two runs."""

import json

from host_support import write_standin_model

from bench import forms
from native_host import Extractor

THREAD = (
    '<html><head><script type="application/ld+json">{"@context": "https://schema.org", "@type": '
    '"DiscussionForumPosting"}</script></head><body>'
    + "".join(
        f"<div class='post'><a class='username' href='/u/{n}'>{n}</a> <time datetime='2026-01-0{d}'>Jan {d}</time>"
        f"<div class='content'><p>{n} writes a reply long enough to be main content on day {d} of it.</p></div></div>"
        for n, d in (("ana", 1), ("ben", 2), ("cy", 3))
    )
    + "</body></html>"
)


def test_a_threads_posters_and_dates_are_read_from_the_readers_html(tmp_path):
    result = Extractor(write_standin_model(tmp_path)).extract_html(THREAD, url="https://e.example/t/1")
    assert result.shape == "forum"
    found = forms.parts(result.html)
    assert found["posts"] == [
        ["ana", "2026-01-01", "Jan 1"],
        ["ben", "2026-01-02", "Jan 2"],
        ["cy", "2026-01-03", "Jan 3"],
    ]
    assert found["entries"] == [] and found["price"] == []


def test_the_comparison_names_each_changed_part_and_counts_the_pages(tmp_path):
    row = {
        "id": "x/1",
        "shape": "forum",
        "f1": 0.5,
        "posts": [["a b 12", "", ""], ["c", "", ""]],
        "entries": [],
        "price": [],
    }
    same = {**row, "id": "x/2"}
    before, after = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    before.write_text(json.dumps(row) + "\n" + json.dumps(same) + "\n")
    after.write_text(
        json.dumps({**row, "f1": 0.6, "posts": [["a", "", ""], ["c", "", ""]]}) + "\n" + json.dumps(same) + "\n"
    )
    lines = list(forms.compare(before, after, None))
    assert lines == [
        "x/1 [forum -> forum] F1 0.500 -> 0.600",
        "    posts: ['a b 12', '', ''] -> ['a', '', '']",
        "1 of 2 pages changed",
    ]
    assert list(forms.compare(before, after, "listing")) == ["0 of 2 pages changed"]
