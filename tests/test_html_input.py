"""What HTML passes before the parser: a `<title>` whose end tag was lost must not swallow the page."""

from native_host import Extractor
from native_host.pipeline.html_input import close_open_title


def test_a_title_left_open_ends_before_the_first_tag_after_it():
    assert close_open_title("<title>Ferries\n<script>x</script><p>Body") == (
        "<title>Ferries\n</title><script>x</script><p>Body"
    )


def test_an_end_tag_mangled_into_another_name_does_not_close_the_title():
    """A template engine wrote `</titlevalue="true" -->`: no end tag for the tokenizer, so the page was one
    long title until the title is closed before it."""
    html = '<title id="t">Oil prices</titlevalue="true" -->\n</head><body><p>The story.</p>'
    assert close_open_title(html) == html.replace("</titlevalue", "</title></titlevalue")
    assert "The story." in Extractor().extract_html(html).text
    assert close_open_title("<title>Oil</title\n><p>x") == "<title>Oil</title\n><p>x"


def test_a_closed_title_or_one_with_no_tag_after_it_is_left_as_it_is():
    closed = "<TITLE>Ferries</Title><p>a <title> in the text</p>"
    assert close_open_title(closed) == closed
    assert close_open_title("<title>Ferries and nothing else") == "<title>Ferries and nothing else"
    assert close_open_title("<p>no title at all</p>") == "<p>no title at all</p>"


def test_a_page_whose_title_was_never_closed_still_gives_its_article(page):
    """The crawl lost the `</title>`: before, the whole page was title text and the article empty."""
    r = Extractor().extract_html(page("open-title"), url="https://harbourtimes.example/news/ferries")
    assert "ending a gap of eleven years" in r.text
    assert "closer to the mainland" in r.text
    assert r.title == "Night ferries return to the strait after eleven years"
