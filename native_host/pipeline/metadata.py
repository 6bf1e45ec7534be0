"""Snapshot + the model's blocks -> what a reader view's header and a clipper's front matter show.

Each field is read from several sources: the page's structured data (JSON-LD, OpenGraph and Twitter
cards, other `<meta>` tags, microdata), the page's own text near the main content (the headline, a byline,
a dateline; the model's byline and date heads when it has them), and `<title>` with the site's name cut.
For most fields the first source in `ORDER` with a usable value wins; the title is the page's <h1> when
another source backs it, else the value the sources agree on most (`choose_title`). The orders are what
the dev figures say to trust (docs/metadata.md, `python -m bench.metadata --sources`). Every source is read
defensively: a malformed JSON-LD block, an author given as a number, a date that is no date, each is
skipped, never raised.

Besides the fields, the reader returns where the headline, byline and dateline sit among the blocks, so the
article's body can leave them out (they are the header now, not the body).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from typing import Any, TypeVar, cast

from ..result import LABELS, PAGE_TYPES, Image
from .blocks import Blanks, Block
from .dates import MONTHS, parse_date
from .decisions import READERS_COMMENT, RECORD_TYPES, Stated
from .page_values import join_url, url_host, url_path, url_query, url_scheme

log = logging.getLogger(__name__)

# Which source is asked first, per field (measured on dev: docs/metadata.md). Sources: "json_ld", "opengraph"
# (og:, article:, twitter:), "meta" (other <meta> names), "microdata" (itemprop), "h1" (the page's <h1> at the
# top of the main content), "dom" (the page's text near the main content, the model's cues included),
# "title_tag" (<title>, site name cut), "html" (<link rel=canonical>, <html lang dir>).
ORDER: dict[str, tuple[str, ...]] = {
    "title": ("json_ld", "opengraph", "meta", "microdata", "h1", "title_tag", "dom"),  # `choose_title`, ties so
    "byline": ("json_ld", "meta", "opengraph", "microdata", "dom"),
    "date": ("json_ld", "opengraph", "meta", "microdata", "dom"),
    "modified": ("json_ld", "opengraph", "meta", "microdata", "dom"),
    "site_name": ("opengraph", "json_ld", "meta", "title_tag"),
    "description": ("opengraph", "json_ld", "meta", "microdata"),
    "image": ("opengraph", "json_ld", "microdata", "dom"),
    "canonical_url": ("html", "opengraph", "json_ld"),
    "page_type": ("json_ld", "opengraph", "microdata"),
    "lang": ("html", "opengraph", "json_ld"),
    "tags": ("opengraph", "json_ld", "dom", "meta"),  # article:tag, keywords, rel=tag links, <meta keywords>
}

STRUCTURED = ("json_ld", "opengraph", "meta", "microdata")
MAX_FIELD_CHARS = 2048  # of any one metadata value: a page's 60 KB "description" is not a description
MAX_JSON_LD_OBJECTS = 2000  # typed objects read from a page's JSON-LD, all scripts together
MAX_JSON_LD_DEPTH = 12
MAX_AUTHORS = 3  # more distinct microdata authors than this are a thread's posters, not bylines
MAX_NAME_WORDS = 8  # an "author" longer than this is a sentence, not a name
NAME_CHARS = 50  # and one name longer than this (a CJK sentence has no spaces to count)
TITLE_CHARS = 300
MAX_TAGS = 10  # keywords kept as tags: the article's own few, not a page's SEO list of 60
MAX_FAQ = 100  # a FAQ's questions read from JSON-LD (`Stated`): a page's own questions, not a whole help centre
TAG_CHARS = 40  # a longer "keyword" is a phrase or a sentence: left out, not cut

# schema.org types, lower-case, without the "schema:" or URL prefix.
ARTICLE_TYPES = frozenset(
    """article newsarticle blogposting posting socialmediaposting liveblogposting
reportagenewsarticle analysisnewsarticle opinionnewsarticle reviewnewsarticle backgroundnewsarticle
askpublicnewsarticle satiricalarticle scholarlyarticle medicalscholarlyarticle techarticle apireference report
review recipe howto creativework""".split()
)
FORUM_TYPES = frozenset({"discussionforumposting", "qapage", "question"})
PRODUCT_TYPES = frozenset({"product", "productgroup", "individualproduct", "productmodel", "car", "vehicle"})
COLLECTION_TYPES = frozenset({"collectionpage", "itemlist", "searchresultspage", "offercatalog"})
PAGE_OBJECT_TYPES = frozenset(
    """webpage itempage aboutpage collectionpage profilepage qapage faqpage
searchresultspage contactpage checkoutpage medicalwebpage realestatelisting""".split()
)
SITE_TYPES = frozenset({"website"})
# Other works a page may be about, whose "name" is the page's headline (an album's page: its <h1> is the
# album, its og:title often the artist); they say nothing about the page's type.
WORK_TYPES = frozenset(
    """musicalbum musicrecording musicplaylist movie book tvseries tvseason tvepisode episode
videogame podcastseries podcastepisode course event softwareapplication""".split()
)
ORGANIZATION_TYPES = frozenset({"organization", "newsmediaorganization", "corporation", "localbusiness"})
# Objects whose parts are its items, not the page's own entity: a FAQ's questions are no forum posts (read as
# posts, they make the page state a forum, which the trees skip), nor is the first of them its headline.
LIST_TYPES = frozenset({"itemlist", "listitem", "breadcrumblist", "faqpage"})
OG_PAGE_TYPES = {
    "article": "article",
    "product": "product",
    "og:product": "product",
    "product.item": "product",
    "blog": "article",
    "video.other": None,
    "website": None,
}

# <meta> names per field (lower-case), best first. og:/article:/twitter: are "opengraph"; the rest "meta".
META_KEYS: dict[str, tuple[str, ...]] = {
    "title": ("og:title", "twitter:title", "citation_title", "dc.title", "parsely-title", "sailthru.title", "title"),
    "byline": (
        "author",
        "article:author",
        "citation_author",
        "dc.creator",
        "dcterms.creator",
        "parsely-author",
        "sailthru.author",
        "byl",
        "article.author",
    ),
    "date": (
        "article:published_time",
        "og:published_time",
        "article:published",
        "datepublished",
        "citation_publication_date",
        "citation_date",
        "citation_online_date",
        "dc.date.issued",
        "dc.date",
        "dcterms.issued",
        "dcterms.created",
        "dcterms.date",
        "parsely-pub-date",
        "sailthru.date",
        "article.published",
        "article_date_original",
        "original-publish-date",
        "publish-date",
        "publish_date",
        "publishdate",
        "pubdate",
        "date",
        "cxenseparse:recs:publishtime",
        "article.created",
        "created",
    ),
    "modified": (
        "article:modified_time",
        "og:updated_time",
        "article:modified",
        "datemodified",
        "dcterms.modified",
        "last-modified",
        "lastmod",
        "article.updated",
        "modified",
    ),
    "site_name": ("og:site_name", "application-name", "apple-mobile-web-app-title", "dc.publisher", "publisher"),
    "description": ("og:description", "twitter:description", "description", "dc.description"),
    "image": ("og:image:secure_url", "og:image:url", "og:image", "twitter:image", "twitter:image:src"),
    "image_alt": ("og:image:alt", "twitter:image:alt"),
    "canonical_url": ("og:url",),
    "page_type": ("og:type",),
    "lang": ("og:locale",),
    "tags": ("article:tag", "keywords", "news_keywords"),
}
_OG_PREFIXES = ("og:", "article:", "twitter:")

_SPACE = re.compile(r"\s+")
_URLISH = re.compile(r"^(?:https?:)?//|^www\.|\.(?:com|org|net|html?)(?:/|$)|^@", re.I)
_BY = re.compile(
    r"^(?:(?:written|posted|published|reported|text|words|story)\s+)?(?:by|von|par|por|door|"
    r"av|af|przez|autor(?:e|in|a)?:|author:|texto:|text:|tekst:)\s*[:\-]?\s+|^(?:著者|作者|记者|撰文)\s*[:：]\s*|"
    r"^(?:(?:written|posted)\s+)?(?-i:[Bb]y|[Vv]on)(?-i:(?=[A-ZÀ-Þ][A-Za-zß-ÿ]))",
    re.I,
)  # the last: "ByTravis Haney", "Written byAAA Travel", two elements glued; never "Byron", "Vonda"
_ROLE_TAIL = re.compile(r"\s*[|•·⋅–—/»]\s.*$|\s*[|•·⋅/»]\s*$|\s+for\s+\S.*$", re.I)
_EMAIL = re.compile(r"\S+@\S+\.\w+")
_HANDLE = re.compile(r"\s*@\w[\w.]*.*$")  # "Julia Horowitz @juliakhorowitz", "Tom DiChristopher@tdichristopher"
_PARENS = re.compile(r"\s*\([^)]*\)|\s*\([^)]*$")  # "(Bruxelles)" and the unclosed "Ducourtieux(Bruxelles"
# Job titles that follow a name, spaced or glued to it by adjacent elements ("Howard BlumeStaff Writer",
# "Gina TrapaniCEO"): cut with what follows them.
_ROLES = (
    "staff writer|staff reporter|staff|senior|chief|ceo|cto|cfo|coo|founder|co-founder|editor|"
    "reporter|writer|correspondent|contributor|contributing|columnist|producer|director|manager|"
    "associate|assistant|deputy|managing|executive|review editor|photographer|journalist|analyst|"
    "freelance|special to|guest|head of|professor|president|vice|lead|principal|partner|intern|"
    "redakteur|redakteurin|korrespondent|korrespondentin|journaliste|rédacteur|rédactrice|"
    "redacción|periodista|expert|specialist|consultant|officer|strategist"
)
_GLUED_ROLE = re.compile(
    r"(?<=[a-zß-ÿ])(?:"
    + _ROLES.title().replace("Ceo", "CEO").replace("Cto", "CTO").replace("Cfo", "CFO").replace("Coo", "COO")
    + r")\b.*$"
)
_GLUED_WORDS = re.compile(r"[a-zß-ÿ][A-ZÀ-Þ]\w*[a-zß-ÿ][A-ZÀ-Þ]")  # "OfficeOrganizingPapers": links run together
_ROLE_WORD = re.compile(r"\b(?:" + _ROLES + r")\b", re.I)
_SPACED_ROLE = re.compile(r"(?<=\S)\s+(?:" + _ROLES + r")\b(?:\s+\w+){0,3}$", re.I)
_AND = re.compile(r"\s*(?:,|;|&|\band\b|\bund\b|\bet\b|\bog\b|、)\s*", re.I)
_TITLE_SEPARATORS = re.compile(r"\s+(?:\||-|–|—|::|·|•|»|«|/)\s+|\s*[|｜：]\s*|:\s+")
SITE_WORDS = 5  # a part of a title taken for the site's name is at most this many words
TITLE_AGREES = 0.8  # word-bag F1 at which two titles say the same
H1_AGREES = 0.4  # word-bag F1 with another source's title at which the page's <h1> is its headline
SHORT_PART_WORDS = 3  # a part of <title> this short, at an end, is cut even when the site is unknown
_AUTHOR_CLASS = re.compile(r"author|byline|by-line|writer|posted-?by|contributor|creator|reporter|autor", re.I)
_META_CLASS = re.compile(r"(?:^|[-_.])meta(?:$|[-_.])", re.I)
# "By Ann Lee", "Written by Ann Lee" anywhere in a short line; "作者：赵婕", "记者 尹娟", "来源: 尹娟" (zh).
_BY_INSIDE = re.compile(
    r"(?:^|[\s(])(?:(?:written|posted|published|reported|words|text)\s+)?"
    r"(?:by|von|par|por|door|av|af|przez)\s+(\S.{0,80})|"
    r"(?:作者|记者|撰文|来源)\s*[:：/／\s]\s*([^\s|,，：:]{1,20})|文\s*[:：/／]\s*([^\s|,，：:]{1,20})",
    re.I,
)
_WRITTEN_BY = re.compile(
    r"\b(?:written|words|text|story|article)\s+by\b|\bby\s+the\s+author\b|(?:作者|记者|撰文|来源|文)\s*[:：/／\s]", re.I
)  # the labels that say a line at the content's end names its writer
_LONE_BY = re.compile(r"^\s*(?:by|von|par|por|door|av|af|przez)\s*:?\s*$", re.I)
_PARTS = re.compile(r"\s*[|•·]\s*|\s{2,}|\s+[-–—]\s+")
NAME_PART_WORDS = 5
END_BLOCKS = 3  # main blocks at the end of the content where "Written by" may sit
_TODAY = re.compile(r"today|current-?date|clock", re.I)
_DATE_CLASS = re.compile(r"date|time|publish|posted|dateline|timestamp|datum|fecha|data", re.I)
_RTL_LANGS = frozenset({"ar", "he", "iw", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb"})


@dataclass
class Metadata:
    """The header of an article. Every field may be None: the page did not say, or said nothing usable."""

    title: str | None = None
    byline: str | None = None
    date: str | None = None
    modified: str | None = None
    site_name: str | None = None
    description: str | None = None
    image: Image | None = None
    canonical_url: str | None = None
    page_type: str | None = None
    lang: str | None = None
    dir: str | None = None
    tags: list[str] = field(default_factory=list)  # the page's keywords (`clean_tags`)
    # Where the header sits among the blocks (indexes), so that the body can leave it out.
    headline_block: int | None = None
    byline_blocks: list[int] = field(default_factory=list)
    date_blocks: list[int] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # field -> the source its value came from

    @property
    def authors(self) -> list[str]:
        """The byline's names, one each: `byline` joins them with ", ", and a name keeps no comma (a part after
        one is a role or another name: `split_byline`)."""
        return self.byline.split(", ") if self.byline else []

    def header_blocks(self) -> set[int]:
        """The blocks that hold the headline, byline and dateline: the header, not the body."""
        found = set(self.byline_blocks) | set(self.date_blocks)
        if self.headline_block is not None:
            found.add(self.headline_block)
        return found


# --- small cleaners ---------------------------------------------------------------------------------------


# Soft hyphens, zero-width spaces and byte-order marks: invisible in the page, noise in a header or a file name
# (a live page's "Paläs&shy;ti&shy;nen&shy;ser" headline). Joiners stay: Persian and emoji need them.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))


def clean_text(value: Any, limit: int = MAX_FIELD_CHARS) -> str | None:
    """A string value with whitespace folded, or None for anything else or nothing."""
    if not isinstance(value, str):
        return None
    value = _SPACE.sub(" ", value.translate(_INVISIBLE)).strip()
    if "&" in value and ";" in value:  # JSON-LD often carries HTML entities
        import html

        value = html.unescape(value)
    return value[:limit] or None


_TAG_SPLIT = re.compile(r"[,;，、；]")


def clean_tags(values: Iterable[Any]) -> list[str]:
    """The page's keywords as tags: each value split at commas and semicolons, whitespace folded; an empty
    one, one over TAG_CHARS, an address or a repeat (case aside) left out; at most MAX_TAGS."""
    tags: dict[str, str] = {}
    for value in values:
        for part in _TAG_SPLIT.split(clean_text(value) or ""):
            tag = part.strip(" #\"'")
            if tag and len(tag) <= TAG_CHARS and not _URLISH.search(tag) and tag.casefold() not in tags:
                tags[tag.casefold()] = tag
                if len(tags) == MAX_TAGS:
                    return list(tags.values())
    return list(tags.values())


def clean_name(value: str | None) -> str | None:
    """One person's (or organisation's) name from a byline fragment: "By Jane Doe | Staff" -> "Jane Doe"."""
    text = clean_text(value, 300)
    if not text:
        return None
    if _CREDIT.search(text):
        return None  # a picture's credit ("Getty Images", "POLITICO / AP Photo"), not a writer
    text = _EMAIL.sub("", text)
    text = _HANDLE.sub("", text)
    text = _PARENS.sub("", text)
    text = _BY.sub("", text).strip(" ,;:-–—|⋅")
    text = _cut_date(text)
    text = _ROLE_TAIL.sub("", text).strip(" ,;:-–—|⋅")
    if "," in text:  # "Doe, Jane" is Jane Doe; "Ann Lee, science desk" is Ann Lee: a name keeps no comma
        first, rest = (p.strip() for p in text.split(",", 1))
        text = f"{rest} {first}" if len(first.split()) == 1 and re.fullmatch(r"[^\W\d_][\w'.-]*", rest) else first
    text = _GLUED_ROLE.sub("", text)
    if len(text.split()) > 2:  # "Ann Lee Staff Writer"; a two-word name keeps its words ("Ann Editor")
        text = _SPACED_ROLE.sub("", text)
    text = _EDGE_SYMBOLS.sub("", text.strip(" ,;:-–—|⋅"))
    if (
        not text
        or _URLISH.search(text)
        or _LABEL.search(text)  # a label, not a name: "content: MarketingSherpa"
        or _DANGLING.search(text)  # a phrase cut before its object: "Insights from"
        or len(text.split()) > MAX_NAME_WORDS
        or not any(c.isalpha() for c in text)
        or len(text) > NAME_CHARS
        or "。" in text
        or is_interface(text)
        or _GLUED_WORDS.search(text)
        or _NOT_A_NAME.search(text)
        or _CJK_OUTLET.search(text)
        or all(map(_is_date_word, text.split()))
        or all(w.lower() in FUNCTION_WORDS for w in text.split())
    ):
        return None
    return text


_LABEL = re.compile(r"[^\W\d_]\s*:(?!\d)")
_EDGE_SYMBOLS = re.compile(r"^[^\w(]+|[^\w).'’]+$")  # "Meaghan Weeden ●", "眉间尺 〓": a list's bullet, a mark
_DANGLING = re.compile(r"\s(?:from|of|by|for|with|to|about|on|in|at)$")  # lower-case: "Audiophile On" is a name
# Words that are never the whole of a name: a sentence's fragment in a byline's place ("sind die").
FUNCTION_WORDS = frozenset(
    """the a an of and or is are was were to for with this that these it its
sind ist war die der das des dem den und oder ein eine einen nicht
les est et ou un une du au aux
los las es son o una
il lo gli sono""".split()
)
WEEKDAYS = frozenset(
    """mon monday tue tues tuesday wed wednesday thu thur thurs thursday fri friday sat saturday
sun sunday mo di mi do fr sa so montag dienstag mittwoch donnerstag freitag samstag sonntag lundi mardi mercredi
jeudi vendredi samedi dimanche lunes martes miércoles jueves viernes sábado domingo""".split()
)
# Markup or a template's placeholder where a name should be ('size="20"', "page.head.extra.author").
_NOT_A_NAME = re.compile(r"[=<>{}\"]|^(?:[a-z_]+\.)+(?:author|byline|name|user)\w*$")
# A Chinese or Japanese publication's name (a newspaper, a news site, an app, a publisher), not a writer's: the
# "来源：新华网" line that sits where a byline would.
_CJK_OUTLET = re.compile(
    r"[\u3400-\u9fff](?:日报|日報|晚报|晚報|时报|時報|新闻|新聞|新闻网|报道|報道|网|網|网络|網絡|客户端|"
    r"出版社|期刊|杂志|雜誌|电视台|電視台|通讯社|通訊社)$"
)
_TRAILING_DATE = re.compile(r"\s+\S*\d.*$")


def _is_date_word(word: str) -> bool:
    word = word.strip(".,»").lower()
    return not word or word in MONTHS or word in WEEKDAYS


def _cut_date(text: str) -> str:
    """A name with the date glued after it cut: "Andrew Gerrand 4 August 2010", "Dakota Hebert July 3",
    "FlowGuard EMEA on 04-ago-2021". Only from the first word with a digit on, and the month, weekday or "on"
    before it: a name's own words ("Ann May") stay."""
    cut = _TRAILING_DATE.sub("", text)
    if cut == text:
        return text
    words = cut.split()
    while len(words) > 1 and (_is_date_word(words[-1]) or words[-1].lower() in ("on", "at", "am", "le", "el")):
        words.pop()
    return " ".join(words)


# Words of a page's interface, never a writer's name (nor part of one): what a byline's place holds on pages
# that have none, and what the cues near a headline also mark (a "Login" link, a "Category" label).
INTERFACE_WORDS = frozenset(
    """by login log sign signing subscribe subscriber register email e-mail mail share
shares follow following buy shop cart search menu home bio design site new results result category categories
type material comments comment reply replies print save read more also like might you your our us we about
contact privacy cookies sponsored sponsor advertisement advertising anzeige tags tag topics topic related
posted published updated views view loading error download watch listen newsletter account profile settings
images photo photos foto fotos getty shutterstock istock imago pictures picture credit credits
author authors writer writers subject corresponding via veröffentlicht geschrieben
fehler melden
著者 作者 记者 撰文 来源 投稿者 转载 转载文章""".split()
)
_CREDIT = re.compile(
    r"\b(?:getty|shutterstock|istock(?:photo)?|imago|dpa-?bildfunk|picture[- ]alliance|"
    r"ap photo|afp photo|reuters/|/reuters|images?)\b|(?:photo|foto|bild|image|credit)\s*[:©]|©",
    re.I,
)


def is_interface(name: str) -> bool:
    """Whether a would-be name is a page's interface words ("See full bio", "New Results", "作者：")."""
    words = re.findall(r"[^\W\d_][\w'-]*|[\u3040-\u30ff\u3400-\u9fff]+", name.lower())
    return bool(words) and any(w in INTERFACE_WORDS or w.strip("：:") in INTERFACE_WORDS for w in words)


def join_names(names: Iterable[str | None]) -> str | None:
    """Names, each once, joined with ", " (the way the golds and most clippers write several authors)."""
    seen: list[str] = []
    for name in names:
        name = clean_name(name)
        if name and name.lower() not in (s.lower() for s in seen):
            seen.append(name)
    return ", ".join(seen) or None


def split_byline(text: str | None) -> str | None:
    """A byline as written ("By Ann Lee and Bo Chan") -> the names, joined with ", "."""
    text = clean_text(text, 300)
    if not text or _URLISH.search(text):
        return None
    text = _BY.sub("", text)
    if _LABEL.search(text):  # "content: MarketingSherpa, MECLABS": a label's value, not a byline
        return None
    parts = [p for p in _AND.split(text) if p and p.strip()]
    if len(parts) < 2:
        return join_names([text])
    # "Ann Lee, science desk": a part after the first that reads as no name is a role or a desk
    return join_names(parts[:1] + [p for p in parts[1:] if _looks_like_name(p.strip()) and not _ROLE_WORD.search(p)])


def _squash(text: str | None) -> str:
    return re.sub(r"\W+", "", (text or "").lower())


def site_of(url: str | None) -> str | None:
    """The host without "www.", e.g. "news.example.co.uk"."""
    return re.sub(r"^www\d*\.", "", url_host(url) or "") or None


def _is_site(part: str, site_name: str | None, host: str | None) -> bool:
    """Whether a part of a title names the site: the site name the page gives, or its host ("The Atlantic"
    on theatlantic.com, "n-tv.de", "BBC Sport" on bbc.co.uk)."""
    squashed = _squash(part)
    if not squashed or len(part.split()) > SITE_WORDS:
        return False
    if site_name and squashed == _squash(site_name):
        return True
    if _DOMAIN.fullmatch(part.strip()):  # "Forbes.com: Story", "Story | Express.co.uk"
        return True
    if host:
        name = _registered_name(host)
        if squashed in _squash(host) or (name and _squash(name) in squashed):
            return True
    return False


_DOMAIN = re.compile(
    r"(?:www\.)?[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|info|biz|io|co|tv|me|us|uk|de|fr|es|"
    r"it|nl|ch|at|au|ca|in|jp|ru|br|pl|se|no|dk|fi|be|ie|nz|za)",
    re.I,
)
_GENERIC_LABELS = frozenset(
    {"www", "com", "org", "net", "edu", "gov", "blog", "blogs", "news", "web", "online", "m", "amp", "de", "co", "uk"}
)


def cut_site_name(
    title: str | None, site_name: str | None = None, host: str | None = None, structured: bool = False
) -> tuple[str | None, str | None]:
    """A title -> (the page's own title, the site's name it carried): "Story | Site" -> ("Story", "Site").
    A part naming the site (`_is_site`) is cut at either end, several times ("BBC NEWS | Science | Story").
    A `<title>` (not `structured`) also loses a short last part when the page names no site ("Story -
    Site"), and a short first part before a longer rest ("Section | Story")."""
    title = clean_text(title, TITLE_CHARS)
    if not title:
        return None, None
    site = None
    for _ in range(4):
        seps = list(_TITLE_SEPARATORS.finditer(title))
        if not seps:
            break
        head, after_head = title[: seps[0].start()].strip(), title[seps[0].end() :].strip()
        tail, before_tail = title[seps[-1].end() :].strip(), title[: seps[-1].start()].strip()
        if before_tail and _is_site(tail, site_name, host):
            title, site = before_tail, site or tail
            continue
        if after_head and _is_site(head, site_name, host):
            title, site = after_head, site or head
            continue
        if structured:
            break
        soft = [m for m in seps if m.group().strip() != ":"]
        if not soft:
            break
        if (
            not site_name
            and soft[-1] is seps[-1]
            and len(tail.split()) <= SHORT_PART_WORDS
            and len(tail) < len(before_tail)
        ):
            title, site = before_tail, site or tail
            continue
        if (
            soft[0] is seps[0]
            and len(head.split()) <= SHORT_PART_WORDS
            and len(after_head.split()) >= 2 * len(head.split())
        ):
            title = after_head
            continue
        break
    return title, site


def _absolute(url: str | None, base: str | None) -> str | None:
    """An http(s) URL from a page's value (against the page's address), or None where none can be made."""
    url = clean_text(url)
    url = join_url(base, url) if url else None
    return url if url and url_scheme(url) in ("http", "https") else None


def _lang(value: str | None) -> str | None:
    """ "en_US" (og:locale) -> "en-US"; anything that is no language tag -> None."""
    text = clean_text(value, 64)
    if not text:
        return None
    text = text.replace("_", "-")
    return text if re.fullmatch(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*", text) else None


# --- JSON-LD ------------------------------------------------------------------------------------------------

_JSON_COMMENT = re.compile(
    r"^\s*(?:<!--|//\s*<!\[CDATA\[|/\*\s*<!\[CDATA\[\s*\*/)"
    r"|(?:-->|//\s*\]\]>|/\*\s*\]\]>\s*\*/)\s*$"
)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def load_json_ld(text: str) -> Any:
    """One JSON-LD script's data, or None when it does not parse (wrapped in comments or CDATA, trailing
    commas and raw control characters are forgiven: pages carry all three)."""
    text = _JSON_COMMENT.sub("", text.strip()).strip()
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(attempt, strict=False)
        except (ValueError, RecursionError):
            continue
    return None


def schema_types(obj: dict) -> set[str]:
    """An object's @type(s), lower-case, prefixes dropped: "http://schema.org/NewsArticle" -> "newsarticle"."""
    kind = obj.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {k.rsplit("/", 1)[-1].rsplit(":", 1)[-1].strip().lower() for k in kinds if isinstance(k, str)}


@dataclass
class _Found:
    obj: dict
    types: set[str]
    in_list: bool  # inside an ItemList, or a part of another object: a teaser, not the page's own entity
    top: bool  # at the top level of a script, or of its @graph


def json_ld_objects(scripts: Sequence[str]) -> tuple[list[_Found], dict[str, dict]]:
    """Every typed object of the page's JSON-LD, in document order, and an index by @id."""
    found: list[_Found] = []
    by_id: dict[str, dict] = {}
    for text in scripts:
        data = load_json_ld(text) if isinstance(text, str) else None
        if data is None:
            continue
        # (value, depth, inside a list type, at the top)
        stack: list[tuple[Any, int, bool, bool]] = [(data, 0, False, True)]
        while stack and len(found) < MAX_JSON_LD_OBJECTS:
            value, depth, in_list, top = stack.pop()
            if depth > MAX_JSON_LD_DEPTH:
                continue
            if isinstance(value, list):
                stack.extend((v, depth + 1, in_list, top) for v in reversed(value))
                continue
            if not isinstance(value, dict):
                continue
            types = schema_types(value)
            if types:
                found.append(_Found(value, types, in_list, top))
                ident = value.get("@id")
                if isinstance(ident, str) and (ident not in by_id or len(value) > len(by_id[ident])):
                    by_id[ident] = value
            listed = in_list or bool(types & LIST_TYPES)
            children = []
            for key, child in value.items():
                if key == "@graph":
                    children.append((child, depth + 1, in_list, True))
                elif isinstance(child, (dict, list)) and key not in ("@context",):
                    part = key in (
                        "hasPart",
                        "isPartOf",
                        "relatedLink",
                        "citation",
                        "mentions",
                        "about",
                        "review",
                        "comment",
                        "subjectOf",
                        "workExample",
                        "exampleOfWork",
                        "isBasedOn",
                    )
                    children.append((child, depth + 1, listed or part, False))
            stack.extend(reversed(children))
    return found, by_id


def _resolve(value: Any, by_id: dict[str, dict]) -> Any:
    if isinstance(value, dict) and "@id" in value and len(value) <= 2 and isinstance(value.get("@id"), str):
        return by_id.get(value["@id"], value)
    return value


def _names(value: Any, by_id: dict[str, dict], depth: int = 0) -> list[str]:
    """Author names from a JSON-LD author value: a string, a Person or Organization, an @id, or a list."""
    if depth > 3:
        return []
    value = _resolve(value, by_id)
    if isinstance(value, list):
        return [n for v in value[:20] for n in _names(v, by_id, depth + 1)]
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, (list, dict)):
            return _names(name, by_id, depth + 1)
        if isinstance(name, str) and name.strip():
            return [name]
        given, family = value.get("givenName"), value.get("familyName")
        if isinstance(given, str) and isinstance(family, str):
            return [f"{given} {family}"]
        if isinstance(value.get("@value"), str):
            return [value["@value"]]
    return []


_NAMES_JOINED = re.compile(r"\s+(?:and|und|et|og|y|&)\s+", re.I)


def _persons(name: str) -> list[str]:
    """One JSON-LD name that joins several people ("Samya Kullab and Vasilisa Stepanenko") as their names; an
    organisation's name with an "and" in it ("Center for Drug Evaluation and Research") stays whole."""
    parts = _NAMES_JOINED.split(name.strip())
    return parts if len(parts) > 1 and all(_looks_like_name(p) and len(p.split()) > 1 for p in parts) else [name]


def _organizations_only(value: Any, by_id: dict[str, dict]) -> bool:
    """Whether an author value names organisations only (a newsroom, not a person)."""
    values = value if isinstance(value, list) else [value]
    found = [_resolve(v, by_id) for v in values[:20]]
    return bool(found) and all(isinstance(v, dict) and schema_types(v) & ORGANIZATION_TYPES for v in found)


def _first_text(value: Any, by_id: dict[str, dict]) -> str | None:
    value = _resolve(value, by_id)
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value")
    return clean_text(value)


def _image(value: Any, by_id: dict[str, dict], depth: int = 0) -> Image | None:
    value = _resolve(value, by_id)
    if isinstance(value, list):
        return _image(value[0], by_id, depth + 1) if value and depth < 3 else None
    if isinstance(value, str):
        return Image(value.strip()) if value.strip() else None
    if isinstance(value, dict):
        url = value.get("url") or value.get("contentUrl")
        if isinstance(url, list):
            url = url[0] if url else None
        if isinstance(url, str) and url.strip():
            return Image(url.strip(), clean_text(value.get("caption") or value.get("description"), 500))
    return None


_MARKUP = re.compile(r"<[^>]*>")


def _faq(found: Sequence[_Found]) -> tuple[str, ...]:
    """Each question of the page's JSON-LD and the text of its accepted answer (markup dropped), in order."""
    texts: list[str] = []
    for f in found:
        if "question" not in f.types or len(texts) >= 2 * MAX_FAQ:
            continue
        answer = f.obj.get("acceptedAnswer")
        answer = answer[0] if isinstance(answer, list) and answer else answer
        said = answer.get("text") if isinstance(answer, dict) else None
        for text in (f.obj.get("name"), _MARKUP.sub(" ", said) if isinstance(said, str) else None):
            if (text := clean_text(text)) is not None:
                texts.append(text)
    return tuple(texts)


def _page_type_of(types: set[str]) -> str | None:
    if types & FORUM_TYPES:
        return "forum"
    if types & PRODUCT_TYPES:
        return "product"
    if types & ARTICLE_TYPES:
        return "article"
    if types & COLLECTION_TYPES:
        return "collection"
    return None


def _same_page(a: Any, b: str | None) -> bool:
    if not isinstance(a, str) or not b:
        return False
    key = lambda u: re.sub(r"^https?://(www\.)?|[?#].*$|/+$", "", u.strip().lower())  # noqa: E731
    return key(a) == key(b)


def from_json_ld(scripts: Sequence[str], url: str | None) -> dict[str, Any]:
    found, by_id = json_ld_objects(scripts)
    if not found:
        return {}
    out: dict[str, Any] = {}

    def pick(kinds: frozenset[str]) -> dict | None:
        hits = [f for f in found if f.types & kinds and not f.in_list]
        if not hits:
            return None
        for f in hits:  # the entity that says it is this page
            page = _resolve(f.obj.get("mainEntityOfPage"), by_id)
            page_url = page.get("@id") or page.get("url") if isinstance(page, dict) else page
            if _same_page(f.obj.get("url"), url) or _same_page(page_url, url):
                return f.obj
        return max(hits, key=lambda f: (sum(k in f.obj for k in ("headline", "author", "datePublished")), f.top)).obj

    def put(name: str, value: Any) -> None:
        if value and not out.get(name):
            out[name] = value

    main = pick(ARTICLE_TYPES | FORUM_TYPES | PRODUCT_TYPES) or pick(WORK_TYPES)
    webpage = pick(PAGE_OBJECT_TYPES)
    site = pick(SITE_TYPES)
    for obj in (main, webpage):
        if obj is None:
            continue
        title = clean_text(obj.get("headline"), TITLE_CHARS) or clean_text(obj.get("name"), TITLE_CHARS)
        if obj is main or main is None:
            put("title", title)
        author = obj.get("author") or obj.get("creator") or obj.get("byArtist")  # byArtist: an album, a song
        if not out.get("byline") and author:
            put("byline", join_names(part for name in _names(author, by_id) for part in _persons(name)))
            out["byline_is_organization"] = _organizations_only(author, by_id)
        put(
            "date",
            parse_date(str(obj.get("datePublished") or obj.get("dateCreated") or obj.get("uploadDate") or "")) or None,
        )
        put("modified", parse_date(str(obj.get("dateModified") or "")))
        put("description", clean_text(obj.get("description")))
        put("image", _image(obj.get("image") or obj.get("thumbnailUrl"), by_id))
        if obj is main:
            page = _resolve(obj.get("mainEntityOfPage"), by_id)
            page = page.get("@id") or page.get("url") if isinstance(page, dict) else page
            put("canonical_url", _first_text(obj.get("url"), by_id) or clean_text(page))
        publisher = _resolve(obj.get("publisher"), by_id)
        put("site_name", _first_text(publisher, by_id) if isinstance(publisher, dict) else None)
        put("lang", _lang(obj.get("inLanguage") if isinstance(obj.get("inLanguage"), str) else None))
        keywords = obj.get("keywords")
        put("tags", clean_tags(islice(keywords, MAX_TAGS * 4) if isinstance(keywords, list) else [keywords]))
    if site is not None:
        put("site_name", clean_text(site.get("name")))
    out["faq"] = _faq(found)
    types = set().union(*(f.types for f in found if not f.in_list))
    out["page_type"] = _page_type_of(types)
    return {k: v for k, v in out.items() if v}


# --- meta tags: OpenGraph, Twitter, Dublin Core, citation_, parsely-, ... -----------------------------------


def meta_index(snapshot: dict) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """name or property (lower-case) -> contents, and itemprop -> contents, in document order."""
    named: dict[str, list[str]] = {}
    props: dict[str, list[str]] = {}
    for entry in snapshot.get("meta") or ():
        content = entry.get("content")
        if not isinstance(content, str):
            continue
        for key in ("property", "name"):
            if isinstance(entry.get(key), str):
                for k in entry[key].lower().split():
                    named.setdefault(k, []).append(content)
        if isinstance(entry.get("itemprop"), str):
            for k in entry["itemprop"].split():
                props.setdefault(k, []).append(content)
    return named, props


_PUBLISHED_NAME = re.compile(r"publish|pubdate|issued|(?:^|[-_.:])created|release", re.I)
_MODIFIED_NAME = re.compile(r"modif|updated|lastmod|last-mod", re.I)
_UPDATED_TEXT = re.compile(r"updated|modified|aktualisiert|mis à jour|actualizado|aggiornato|bijgewerkt|更新", re.I)
_PUBLISHED_TEXT = re.compile(r"publi|posted|veröffentlicht|erschienen|发布|發布", re.I)


def from_meta(named: dict[str, list[str]], og: bool, url: str | None) -> dict[str, Any]:
    """The fields the meta tags give: OpenGraph, article: and twitter: names when `og`, the others when not."""
    out: dict[str, Any] = {}
    for fieldname, keys in META_KEYS.items():
        for key in keys:
            if key.startswith(_OG_PREFIXES) != og or key not in named:
                continue
            values = named[key]
            value: Any = None
            if fieldname == "byline":
                value = join_names(v for v in values if not _URLISH.search(v.strip()))
                if value and len(values) == 1:
                    value = split_byline(values[0])
            elif fieldname in ("date", "modified"):
                value = next((d for d in (parse_date(v) for v in values) if d), None)
            elif fieldname == "image":
                value = _absolute(values[0], url)
                value = Image(value) if value else None
            elif fieldname == "canonical_url":
                value = _absolute(values[0], url)
            elif fieldname == "page_type":
                kind = values[0].strip().lower()
                value = OG_PAGE_TYPES.get(kind, "article" if kind.startswith("article") else None)
            elif fieldname == "lang":
                value = _lang(values[0])
            elif fieldname == "tags":
                value = clean_tags(values)
            else:
                value = clean_text(values[0], TITLE_CHARS if fieldname == "title" else MAX_FIELD_CHARS)
            if value:
                out[fieldname] = value
                break
    if not og:  # site-made names: "published-date", "article_publish_time", "last-modified-date"...
        for key, values in sorted(named.items(), key=lambda kv: "date" not in kv[0]):  # a day over a time stamp
            if key.startswith(_OG_PREFIXES):
                continue
            date_field = "modified" if _MODIFIED_NAME.search(key) else "date" if _PUBLISHED_NAME.search(key) else None
            if date_field and not out.get(date_field):
                out[date_field] = next((d for d in map(parse_date, values) if d), None)
    alt = out.pop("image_alt", None)
    if alt and out.get("image"):
        out["image"].alt = alt
    return out


# --- microdata, links, the page's own text ---------------------------------------------------------------

SUBTREE_NODES = 2000  # nodes read under one element for its text: a byline is never deeper than that
ITEMPROP_READS = 20  # elements read per itemprop (author, date, headline), per byline block's names, per link
# to the front page: enough to tell a byline from a thread, bounded on a hostile page


def subtree_text(nodes: list[dict], i: int, limit: int = 400) -> str:
    """The text under node i (nodes are in pre-order: its subtree is the run after it that sits deeper), its
    words apart where the blocks' text has them apart (`blocks.parts_words`), at most `limit` characters and
    SUBTREE_NODES nodes (a page of 100,000 nested authors costs no more)."""
    depth = nodes[i]["depth"]
    parts: list[str] = []
    size = 0
    blanks = Blanks(nodes)
    for k in range(i + 1, min(i + 1 + SUBTREE_NODES, len(nodes))):
        node = nodes[k]
        if node["depth"] <= depth or size > limit:
            break
        text = node.get("text")
        if text:
            if parts and node["tag"] == "#text" and blanks.before(k):  # words apart, as the blocks have them
                parts.append(" ")
            parts.append(text)
            size += len(text)
    return _SPACE.sub(" ", "".join(parts)).strip()[:limit]


def from_microdata(snapshot: dict, props: dict[str, list[str]]) -> dict[str, Any]:
    """itemprop: <meta itemprop content> first, then the elements' own text and datetime."""
    nodes = snapshot["nodes"]
    out: dict[str, Any] = {}
    for fieldname, key in (("date", "datePublished"), ("modified", "dateModified")):
        out[fieldname] = next((d for d in map(parse_date, props.get(key, ())) if d), None)
    if props.get("headline"):
        out["title"] = clean_text(props["headline"][0], TITLE_CHARS)
    if props.get("description"):
        out["description"] = clean_text(props["description"][0])
    if props.get("image"):
        image = _absolute(props["image"][0], snapshot.get("url"))
        out["image"] = Image(image) if image else None
    if props.get("author"):
        out["byline"] = split_byline(props["author"][0])
    authors: list[str] = []
    items: list[tuple[int, str | None]] = []  # the item around each author: (its node, its type)
    thread = False
    reads: Counter[str] = Counter()  # elements read per property: a page of 100,000 nested itemprops costs no more
    # The nodes with an itemprop, found by C-level iteration (map, compress): a loop over every node in Python
    # was most of this source's time, and most pages have a few itemprops or none.
    props_of = list(map(dict.get, nodes, repeat("itemprop")))
    for i in compress(range(len(nodes)), props_of):
        node, names = nodes[i], cast(str, props_of[i]).split()  # compress kept the i whose itemprop is non-empty
        if ("author" in names or "creator" in names) and reads["author"] < ITEMPROP_READS:
            reads["author"] += 1
            inner = next(
                (
                    j
                    for j in range(i + 1, min(len(nodes), i + 40))
                    if nodes[j]["depth"] > node["depth"] and "name" in (nodes[j].get("itemprop") or "").split()
                ),
                None,
            )
            item = _item(nodes, node["parent"])
            if item[1] in THREAD_ITEMS:
                thread = True  # a question's, an answer's or a comment's poster: the first is the starter's
            text = subtree_text(nodes, inner if inner is not None else i, 200)
            if text:
                authors.append(text)
                items.append(item)
        elif "datePublished" in names and not out.get("date") and reads["date"] < ITEMPROP_READS:
            reads["date"] += 1
            out["date"] = parse_date(node.get("datetime")) or parse_date(subtree_text(nodes, i, 100))
        elif "headline" in names and not out.get("title") and reads["title"] < ITEMPROP_READS:
            reads["title"] += 1
            out["title"] = clean_text(subtree_text(nodes, i, TITLE_CHARS), TITLE_CHARS)
        if node.get("itemtype") and "page_type" not in out:
            out["page_type"] = _page_type_of(_item_kinds(node["itemtype"]))
    if not out.get("page_type"):  # a thread's own item, which no itemprop names: NodeBB's DiscussionForumPosting
        types_of = list(map(dict.get, nodes, repeat("itemtype")))
        for i in compress(range(len(nodes)), types_of):
            if _item_kind(cast(str, types_of[i])) in THREAD_PAGES:
                out["page_type"] = "forum"
                break
    if authors and not out.get("byline"):
        bylines = [split_byline(a) for a in authors]
        many = len(set(bylines)) > MAX_AUTHORS
        if many and not thread and _listed(nodes, items):
            bylines = []  # the writers of a list's books or products: none is the page's
        # Many authors on one page, or the posters of a thread's items, are a thread's or a comment section's:
        # the first is the page's own, never joined with the others.
        out["byline"] = join_names(bylines[:1] if thread or many else bylines)
    return {k: v for k, v in out.items() if v}


def from_html(snapshot: dict) -> dict[str, Any]:
    """<link rel=canonical>, <html lang> and dir."""
    out: dict[str, Any] = {}
    for link in snapshot.get("links") or ():
        rels = str(link.get("rel", "")).lower().split()
        if "canonical" in rels and "canonical_url" not in out:
            out["canonical_url"] = _absolute(link.get("href"), snapshot.get("url"))
    out["lang"] = _lang(snapshot.get("lang"))
    return {k: v for k, v in out.items() if v}


# --- the page's own text near the main content --------------------------------------------------------------

HEADLINE_MIN = 0.5  # title + heading score a main block needs to be taken as the page's headline
HEADLINE_BEFORE = 3  # blocks before the first main block where the page's <h1> may sit
NEAR_BEFORE = 12  # blocks before the first main block where a byline or dateline may sit
NEAR_AFTER = 8  # and after it
BYLINE_CHARS = 160  # a block longer than this is not a byline
DATELINE_CHARS = 120
CUE_MIN = 0.5  # a learned byline or date score that marks the block
LEARNED_ALONE = 5  # rank of a block only the model marks as a byline: after every markup cue
CARD_REPEATS = 3  # a block shape (tags and classes) seen this often is one of a list's cards
MARKED = 3  # ranks up to this mark a byline as the page's own (a rel=author link, "By", author classes)


def headline(
    blocks: Sequence[Block], scores, main: Sequence[bool], labels: Sequence[str] = LABELS
) -> tuple[str | None, int | None]:
    """The page's own headline and its block. An <h1> in the main content or just above it comes first: most
    gold texts leave the headline out, so the model often scores it as not main, and its title head is weakly
    trained (docs/model.md). Failing that, the main block most likely to be the title, if it reads as a title
    or heading at all."""
    first = next((i for i, m in enumerate(main) if m), None)
    if first is None:
        return None, None
    for i in range(max(0, first - HEADLINE_BEFORE), len(blocks)):
        b = blocks[i]
        if (main[i] or i < first) and b.tag_path[-1:] == ["h1"] and 0 < len(b.text) <= TITLE_CHARS:
            return clean_text(b.text, TITLE_CHARS), i
    t, h = labels.index("title"), labels.index("heading")
    best = None
    for b, s, m in zip(blocks, scores, main):
        if (
            m
            and len(b.text) <= TITLE_CHARS
            and s[t] + s[h] >= HEADLINE_MIN
            and (best is None or s[t] > best[0])
            and (b.flags.get("heading") or s[t] >= HEADLINE_MIN)
        ):
            best = (s[t], b)
    return (clean_text(best[1].text, TITLE_CHARS), best[1].index) if best else (None, None)


def _near(main: Sequence[bool], n: int, start: int | None = None) -> range:
    first = next((i for i, m in enumerate(main) if m), None)
    if first is None:
        return range(0)
    top = first if start is None else min(first, start)
    return range(max(0, top - NEAR_BEFORE), min(n, first + NEAR_AFTER))


def _cue(scores, labels: Sequence[str], name: str) -> Callable[[int], float] | None:
    """The model's learned score for `name` ("byline", "date") per block, when the model has that head."""
    if name not in labels or scores is None or len(scores) == 0:
        return None
    k = list(labels).index(name)
    return lambda i: float(scores[i][k])


def _is_author_link(node: dict) -> bool:
    return bool(node.get("rel")) and "author" in node["rel"].lower().split()


def _name_in(text: str, strict: bool = True) -> str | None:
    """The name in a byline-ish line: "By Ann Lee and Bo Chan" -> "Ann Lee, Bo Chan"; "27. Januar 2026 •
    Gregor Meier • 3 Minuten" -> "Gregor Meier"; "作者： 赵婕 出自..." -> "赵婕". None if no part reads as one."""
    said = _BY_INSIDE.search(text)
    if said and (not _byline_by(text, said.start()) or _GERUND.match(said.group(1) or "")):
        return None  # (and "By continuing, you agree", "By clicking Continue": a sentence, not a byline)
    if said:
        name = split_byline(_strip_date(said.group(1) or said.group(2) or said.group(3)))
        strict = strict and said.start() > 0  # a line that opens with "By" says it is a byline
        return name if name and (not strict or all(map(_looks_like_name, name.split(", ")))) else None
    for part in _PARTS.split(text):
        part = _strip_date(part)
        if len(part.split()) > NAME_PART_WORDS:  # "Ann Lee, Senior Reporter at the Daily Planet"
            part = part.split(",")[0]
        if part and not any(c.isdigit() for c in part) and len(part.split()) <= NAME_PART_WORDS:
            name = split_byline(part)
            if name and (not strict or all(map(_looks_like_name, name.split(", ")))):
                return name
    return None


# The word before a "by" that makes it no byline: a sentence's verb ("led by", "recommended by"), a sponsor's
# or a picture's credit ("Sponsored by State Farm", "Powered by GitBook", "Photo by ...").
_NOT_BYLINE_BEFORE = re.compile(
    r"(?:sponsor\w*|present\w*|paid|brought to you|powered|supported|partnership|"
    r"underwritten|photo\w*|image|foto\w*|picture|illustrat\w*|video|graphic\w*|"
    r"credit\w*|inspired|adapted|hosted|founded|owned|operated|designed|made)(?:\s+\w+){0,2}\s*$",
    re.I,
)
_GERUND = re.compile(r"[a-z]+ing\b")
_LOWER_WORD_BEFORE = re.compile(r"(?<!\w)[a-zß-ÿ][\w'-]*\s*$")
_BYLINE_VERBS = re.compile(r"(?:written|posted|published|reported|words|text|story|compiled|edited|and)\s*$", re.I)


def _byline_by(text: str, start: int) -> bool:
    """Whether the "by" of a line that says "... by X" begins a byline: at the line's start, after a
    separator or a capitalised word ("Story by"), or after "written", "posted" and kin; not after other
    lower-case words (a sentence's "led by Accelerate"), a sponsor's or a picture's credit."""
    before = text[:start].rstrip()
    verb = _BYLINE_VERBS.search(before)
    if verb:  # "Posted by": what comes before the verb decides
        before = before[: verb.start()].rstrip()
    if before.endswith(("“", '"', "'", "‘", "„", "«")):  # quoted: 'my posts say “Posted by Cloud Campaign”'
        return False
    return not before or not ((not verb and _NOT_BYLINE_BEFORE.search(before)) or _LOWER_WORD_BEFORE.search(before))


_PARTICLES = frozenset("van von der den de da di du la le bin al el dos das del ter ten zu y e".split())


def _looks_like_name(name: str) -> bool:
    """A name found in the page's text, not a phrase: one token ("josh_wilmot90"), or words that are each
    capitalised, a particle ("van", "de") or of a script without capitals (CJK)."""
    words = name.split()

    def caseless(w: str) -> bool:
        return w[0].lower() == w[0].upper()

    if len(words) == 1:  # a user name has a digit or an underscore, or a capital; a lone word has neither
        word = words[0]
        return word[0].isupper() or caseless(word) or any(c.isdigit() or c == "_" for c in word)
    return all(w[0].isupper() or caseless(w) or w.lower() in _PARTICLES for w in words) and any(
        w[0].isupper() or caseless(w) for w in words
    )


def dom_byline(
    snapshot: dict,
    blocks: Sequence[Block],
    main: Sequence[bool],
    scores,
    labels: Sequence[str],
    head: int | None,
    is_site: Callable[[str], bool] = lambda name: False,
    cards: bool = False,
) -> tuple[str | None, list[int], bool]:
    """A byline near the start of the main content (or a "Written by" at its end): a block holding a
    rel=author link, one that says "By ..." or "作者：", or one whose classes say author, byline or meta; among
    them first those the model marks as a byline too (when it has that head), and a block only the model
    marks last. A lone "By" takes the block after it. A name that `is_site` ("By Team Tiger Data") gives way
    to one as well marked that is not (a "Written by" right under the content); else it is the byline. On a
    page of `cards` (a listing), a line whose shape repeats (a meta line, a book's writer) is an item's, not
    the page's."""
    nodes = snapshot["nodes"]
    learned = _cue(scores, labels, "byline")
    window = list(_near(main, len(blocks), head))
    mains = [i for i, m in enumerate(main) if m]
    at_end = [i for i in mains[-END_BLOCKS:] if i not in window]
    if mains and mains[-1] + 1 < len(blocks) and _WRITTEN_BY.search(blocks[mains[-1] + 1].text):
        at_end.append(mains[-1] + 1)  # "Written by" right under the content
    window += at_end
    ranked: list[tuple[int, int]] = []  # (rank, block)
    shapes = Counter((tuple(b.tag_path), tuple(b.class_path)) for b in blocks) if cards else Counter()
    for i in window:
        b = blocks[i]
        if (
            not b.text
            or len(b.text) > BYLINE_CHARS
            or i == head
            or "nav" in b.tag_path
            or "。" in b.text
            or any(map(_OTHERS_WORDS.search, b.class_path))
            or shapes[(tuple(b.tag_path), tuple(b.class_path))] >= CARD_REPEATS
        ):
            continue  # (a menu's words, sentences, a comment's or a review's author, an item's are no byline)
        if _LONE_BY.match(b.text) and i + 1 >= len(blocks):  # "By" and then nothing: no name to take
            continue
        rank = None
        if any(_is_author_link(nodes[j]) for j in b.node_ids):
            rank = 1
        elif (_BY_INSIDE.search(b.text) or (_LONE_BY.match(b.text) and i + 1 < len(blocks))) and (
            i not in at_end or _WRITTEN_BY.search(b.text)
        ):
            rank = 2  # (at the content's end only "Written by": a bare "by" there heads a reply or a teaser)
        elif any(_AUTHOR_CLASS.search(c) for c in b.class_path[-2:]):
            rank = 3
        elif any(_META_CLASS.search(c) for c in b.class_path[-2:]) and i not in mains[-END_BLOCKS:]:
            rank = 4
        # The model's byline score confirms a markup cue (first of all) or, alone, is the last resort: on its
        # own it also marks short lines of capitalised words near the headline, such as a menu.
        if learned is not None and learned(i) >= CUE_MIN:
            rank = LEARNED_ALONE if rank is None else 0
        if rank is not None:
            ranked.append((rank, i))
    site: tuple[str | None, list[int], bool] = (None, [], False)  # the site's name where a byline goes
    for rank, i in sorted(ranked):
        if site[0] and rank > MARKED:
            break  # past the site's name, only a byline as well marked names the writer instead
        b = blocks[i]
        if rank == 1:
            found = join_names(subtree_text(nodes, j, 100) for j in b.node_ids if _is_author_link(nodes[j]))
        elif _LONE_BY.match(b.text) and i + 1 < len(blocks):  # a page may end (or be cut) right after it
            found = _name_in(blocks[i + 1].text) if len(blocks[i + 1].text) <= BYLINE_CHARS else None
            if not found or not is_site(found):
                return (found, [i, i + 1], True) if found else site
            if not site[0]:
                site = (found, [i, i + 1], True)
            continue
        else:
            # The name is usually a link to the writer's page; the block's text may run it into a role
            # ("Howard BlumeStaff Writer": adjacent elements with no space between them).
            linked = [
                j
                for j in b.node_ids
                if (nodes[j]["tag"] == "a" and _AUTHOR_HREF.search(nodes[j].get("href") or ""))
                or any(map(_NAME_CLASS.search, nodes[j].get("classes") or ()))
            ]
            # The link or the element classed a name, where there is one, beside the box and the role around it
            # ("author__info" holding "author__name" and "author__position").
            linked = [
                j
                for j in linked
                if nodes[j]["tag"] == "a" or any("name" in c.lower() for c in nodes[j].get("classes") or ())
            ] or linked
            found = join_names(subtree_text(nodes, j, 100) for j in linked[:ITEMPROP_READS]) if linked else None
            found = found or _name_in(b.text, strict=rank != 3)
            found = found and _without_sections(found, nodes, b.node_ids)
        if found and is_site(found):
            if not site[0]:
                site = (found, [i], rank <= MARKED)
        elif found:
            return found, [i], rank <= MARKED
    return site


def _without_sections(found: str, nodes: list[dict], ids: Sequence[int]) -> str | None:
    """A byline's names less those that are the text of a link to a category, tag or section ("DIY",
    "Personal finance", "In Local News" in a post's meta line): a section, not a writer."""
    sections = {
        clean_text(subtree_text(nodes, j, 100))
        for j in ids[:SUBTREE_NODES]
        if nodes[j]["tag"] == "a" and _SECTION_HREF.search(nodes[j].get("href") or "")
    }
    if not sections:
        return found
    return join_names(n for n in found.split(", ") if n not in sections and n.removeprefix("In ") not in sections)


_SECTION_HREF = re.compile(
    r"/(?:category|categories|tags?|topics?|sections?|rubriken?|themen?|kategorien?|"
    r"categorie|categoria|categoría|rubrique)/",
    re.I,
)
_NAME_CLASS = re.compile(r"^(?:.*[-_])?(?:author|user-?name|poster|writer|byline-?name)(?:[-_].*)?$", re.I)
_OTHERS_WORDS = re.compile(READERS_COMMENT.pattern + r"|review|testimonial|reply|replies|related|recommend", re.I)
_AUTHOR_HREF = re.compile(
    r"/(?:authors?|people|person|profiles?|staff|writers?|contributors?|journalists?|autor(?:en)?|"
    r"auteurs?|redaktion|columnists?|reporters?)/[^/?#]+",
    re.I,
)
_DATE_WORDS = re.compile(
    r"\b(?:on|updated|published|posted|last updated|am|le|el|il|den|am|vom)\b.*$|"
    r"\s+\S*\d.*$",
    re.I,
)


# Items of a thread: their authors are posters, one each, not a list of co-writers.
# The items that are a thread as a whole, read from any item (a thread's own has no itemprop), where a property's
# item states no type: read from every item, an `Article` or a FAQ's `Question` made a service page an article or a
# forum (two CPU folds: a CRM's page .93 -> .26); these two, 19 pages of all 7,342, each a forum by its gold.
THREAD_PAGES = frozenset({"discussionforumposting", "qapage"})
THREAD_ITEMS = frozenset({"question", "answer", "comment", "discussionforumposting", "usercomments"})


def _item(nodes: list[dict], i: int, depth: int = 64) -> tuple[int, str | None]:
    """The nearest item around node i, itself included: its node (-1 where none) and its schema.org type
    (lower-case, no prefix)."""
    while i >= 0 and depth > 0:
        kind = nodes[i].get("itemtype")
        if kind:
            return i, _item_kind(kind)
        i, depth = nodes[i]["parent"], depth - 1
    return -1, None


def _item_kind(itemtype: str) -> str:
    """An itemtype's first schema.org type, lower-case, no prefix: "http://schema.org/Book" -> "book"."""
    return itemtype.split()[0].rsplit("/", 1)[-1].lower()


def _item_kinds(itemtype: str) -> set[str]:
    """Every type an itemtype names (it may name several: "https://schema.org/Product
    https://schema.org/IndividualProduct"), lower-case, no prefix."""
    return {kind.rsplit("/", 1)[-1].lower() for kind in itemtype.split()}


def _listed(nodes: list[dict], items: list[tuple[int, str | None]]) -> bool:
    """Whether the first author's item is one of a list: a sibling item of its type has an author too (the rows
    of a list of books, each with its writer). A story's item holds its own writers, however many; the comments
    under it are items of another type, and the cards of related stories sit elsewhere on the page."""
    node, kind = items[0]
    return node >= 0 and any(
        other != node and other_kind == kind and nodes[other]["parent"] == nodes[node]["parent"]
        for other, other_kind in items[1:]
    )


def _strip_date(text: str) -> str:
    """A byline with its date cut: "Pepper Pot  Jun 7, 2017 at 8:28 pm" -> "Pepper Pot"."""
    text = _DATE_WORDS.sub("", text).strip()
    words = text.split()
    if words and words[-1].strip(".,").lower() in MONTHS:  # "Pepper Pot Jun" once the digits are gone
        text = " ".join(words[:-1])
    return text.strip(" ,;:-–—|•·")


def dom_date(
    snapshot: dict,
    blocks: Sequence[Block],
    main: Sequence[bool],
    scores,
    labels: Sequence[str],
    head: int | None,
    lang: str | None,
) -> tuple[str | None, list[int], str | None]:
    """A dateline near the start of the main content: a block the model marks as a date (when it has that
    head), else a `<time datetime>`, else a short block whose classes say date or whose text is a date; its
    blocks; and the date of a line that says only "Updated" (the page's last change, not its publication)."""
    nodes = snapshot["nodes"]
    learned = _cue(scores, labels, "date")
    ranked: list[tuple[int, int, str]] = []
    updated: list[tuple[int, int, str]] = []
    for i in _near(main, len(blocks), head):
        b = blocks[i]
        if not b.text or len(b.text) > DATELINE_CHARS or i == head or any(map(_TODAY.search, b.class_path[-2:])):
            continue  # (a "today's date" widget is no dateline)
        when = next((parse_date(nodes[j]["datetime"], lang) for j in b.node_ids if nodes[j].get("datetime")), None)
        rank = 1 if when else 3
        when = when or parse_date(b.text, lang)
        if not when:
            continue
        if learned is not None and learned(i) >= CUE_MIN:
            rank = 0
        elif any(_DATE_CLASS.search(c) for c in b.class_path[-2:]):
            rank = min(rank, 2)
        if _UPDATED_TEXT.search(b.text) and not _PUBLISHED_TEXT.search(b.text):
            updated.append((rank, i, when))
            continue  # "Updated March 3" is no publication date (it is the page's `modified`, below)
        ranked.append((rank, i, when))
    last = min(updated)[2] if updated else None
    if not ranked:
        when = attribute_date(nodes, blocks, _near(main, len(blocks), head), lang)
        if when:
            return when, [], last
        return (*labelled_date(snapshot, blocks, lang), last)
    rank, i, when = min(ranked)
    return when, [i], last


def attribute_date(nodes: list[dict], blocks: Sequence[Block], near: range, lang: str | None) -> str | None:
    """The first date held in an element's date attribute (the snapshot's `datetime`: `<lit-timestamp
    publishdate=...>`, `<span data-published=...>`) among the nodes from the first block near the content's
    start to the last: a component that draws its date itself has no text of its own, so no block holds it. One
    whose tag or classes say "updated" is the page's last change, not its date."""
    if not near:
        return None
    first, last = blocks[near.start].node_ids[0], blocks[near.stop - 1].node_ids[-1]
    for node in nodes[first : last + 1]:
        when = node.get("datetime")
        if when and not _UPDATED_TEXT.search(" ".join([node["tag"], *node.get("classes", ())])):
            when = parse_date(when, lang)
            if when:
                return when
    return None


_PUBLISHED_LABEL = re.compile(
    r"^\s*(?:published|posted|date published|publish date|veröffentlicht|publié|"
    r"publicado|pubblicato|gepubliceerd|发布|發布|公開日|投稿日)\s*:?\s*$",
    re.I,
)


def labelled_date(snapshot: dict, blocks: Sequence[Block], lang: str | None) -> tuple[str | None, list[int]]:
    """Anywhere on the page, a date under a label that says it is the publication's ("Published" in one
    element, "Feb 2, 2023" or a `<time datetime>` in the next): a sidebar's or a footer's dateline, when
    none sits near the content."""
    nodes = snapshot["nodes"]
    for i in range(len(blocks) - 1):
        if not _PUBLISHED_LABEL.match(blocks[i].text or ""):
            continue
        for k in (i + 1, i + 2)[: len(blocks) - i - 1]:
            b = blocks[k]
            if not b.text or len(b.text) > DATELINE_CHARS:
                continue
            when = next(
                (parse_date(nodes[j]["datetime"], lang) for j in b.node_ids if nodes[j].get("datetime")), None
            ) or parse_date(b.text, lang)
            if when:
                return when, [i, k]
    return None, []


def dom_tags(snapshot: dict, blocks: Sequence[Block], main: Sequence[bool], head: int | None) -> list[str]:
    """The text of the `rel=tag` links in the article's header (the blocks before the content's start, and its
    first block): the post's own tags, where a sidebar's tag cloud lies further away."""
    near = _near(main, len(blocks), head)
    if not near:
        return []
    nodes = snapshot["nodes"]
    start = next(i for i, m in enumerate(main) if m)
    first, last = blocks[near.start].node_ids[0], blocks[start].node_ids[-1]
    links = (i for i in range(first, last + 1) if "tag" in (nodes[i].get("rel") or "").lower().split())
    return clean_tags(subtree_text(nodes, i, TAG_CHARS + 1) for i in islice(links, MAX_TAGS * 2))


def dom_image(snapshot: dict, blocks: Sequence[Block], main: Sequence[bool], url: str | None) -> Image | None:
    """The first image inside the main content that is a picture, not a pixel, an icon, an ad or a logo."""
    ids = [i for b, m in zip(blocks, main) if m for i in b.node_ids]
    if not ids:
        return None
    nodes = snapshot["nodes"]
    for node in nodes[min(ids) : max(ids) + 1]:
        if node["tag"] == "img" and node.get("src"):
            src = _absolute(node["src"], url)
            box = node.get("box")
            if (
                src
                and not _NOT_CONTENT_IMAGE.search(_path(src))
                and not (_NOT_LEAD.search(_path(src)))
                and not (box and (box[2] < LEAD_MIN_BOX[0] or box[3] < LEAD_MIN_BOX[1]))
            ):
                return Image(src, clean_text(node.get("alt"), 500))
    return None


# --- all together -----------------------------------------------------------------------------------------

T = TypeVar("T")
F = TypeVar("F")


def _guarded(name: str, read: Callable[[], T], failed: F) -> T | F:
    """What `read` gives, or `failed` if it raises: a source or field that fails costs only itself (one bad
    value never fails a page). Logged with its traceback, as a bug to mend, not a page's fault."""
    try:
        return read()
    except Exception:  # noqa: BLE001 - a page's data is hostile; log and read the other sources
        log.warning("metadata %s failed on this page", name, exc_info=True)
        return failed


def read_structured(snapshot: dict) -> dict[str, dict[str, Any]]:
    """What the page's structured data says (source -> field -> value): JSON-LD, OpenGraph and Twitter
    cards, other <meta> names, microdata, <link rel=canonical> and <html lang>. Needs no model."""
    url = snapshot.get("url")
    named, props = meta_index(snapshot)
    return {
        "json_ld": _guarded("source json_ld", lambda: from_json_ld(snapshot.get("json_ld") or [], url), {}),
        "opengraph": _guarded("source opengraph", lambda: from_meta(named, True, url), {}),
        "meta": _guarded("source meta", lambda: from_meta(named, False, url), {}),
        "microdata": _guarded("source microdata", lambda: from_microdata(snapshot, props), {}),
        "html": _guarded("source html", lambda: from_html(snapshot), {}),
    }


def read_stated(structured: dict[str, dict[str, Any]]) -> Stated:
    """The text the page's structured data states as its own, for `decisions.stated_text`: its description
    (JSON-LD's, else microdata's) and its FAQ's questions and answers."""
    description = structured["json_ld"].get("description") or structured["microdata"].get("description")
    return Stated(description, structured["json_ld"].get("faq", ()))


def stated_page_type(structured: dict[str, dict[str, Any]]) -> str | None:
    """The page type the page's structured data states (schema.org @type, og:type), if any."""
    return _stated_type(structured)[0]


def _stated_type(structured: dict[str, dict[str, Any]]) -> tuple[str | None, str | None]:
    """The stated page type and its source, in ORDER; a thread its microdata states beats og:type's "article",
    which forum engines give every page (NodeBB)."""
    if structured.get("microdata", {}).get("page_type") == "forum" and not structured.get("json_ld", {}).get(
        "page_type"
    ):
        return "forum", "microdata"
    return next(
        ((structured[s]["page_type"], s) for s in ORDER["page_type"] if structured.get(s, {}).get("page_type")),
        (None, None),
    )


# A section's front page: an address of one word of letters, at most this long (/news, /blog, /jobs, /newest). The
# type head called such pages articles on new sites (the BBC's /news at .51, Hacker News' /newest), and the article
# rules then cut their lists. Two CPU folds, all thirteen datasets out of fold: +.0003 (+.0000 to +.0006), 9 pages
# up, 1 down; WCXB listings .764 -> .780 (docs/model.md). Not a site's home page, which on small sites is often its
# one article: read as not an article too, +.0000, 10 pages up, 10 down.
SECTION_CHARS = 12


def section_front(structured: dict[str, dict[str, Any]], url: str | None) -> bool:
    """Whether the page's address is a section's front page, one word of letters and no query (`?p=4916` names a
    post): a list of the section's items, not an article, whatever the type head says. The address is the page's
    `<link rel=canonical>` where it has one (the URL a recording or a proxy serves it from says nothing), else
    `url`; not og:url, which sites set to a section's address on every page of it."""
    address = structured.get("html", {}).get("canonical_url") or url
    parts = [part for part in (url_path(address) or "").split("/") if part]
    return len(parts) == 1 and len(parts[0]) <= SECTION_CHARS and parts[0].isalpha() and not url_query(address)


def read_sources(
    snapshot: dict,
    blocks: Sequence[Block],
    main: Sequence[bool],
    scores,
    labels: Sequence[str] = LABELS,
    structured: dict[str, dict[str, Any]] | None = None,
    page_type: str | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Every source's fields (source -> field -> value), and where the header sits among the blocks;
    `page_type` is the model's."""
    url = snapshot.get("url")
    sources = dict(structured if structured is not None else read_structured(snapshot))
    sources = {name: dict(fields) for name, fields in sources.items()}  # titles are cut below: copies
    lang = next((s["lang"] for s in sources.values() if s.get("lang")), None)
    places: dict[str, Any] = {"headline_block": None, "byline_blocks": [], "date_blocks": []}

    # Each field read from the blocks under its own guard: one that fails costs that field alone.
    dom: dict[str, Any] = {}
    dom["title"], head = _guarded("dom title", lambda: headline(blocks, scores, main, labels), (None, None))
    places["headline_block"] = head
    # The page's <h1> and the model's guess at a heading are trusted differently (`choose_title`).
    sources["h1"] = {"title": dom.pop("title")} if head is not None and blocks[head].tag_path[-1:] == ["h1"] else {}
    h1s = [b for b in blocks if b.tag_path[-1:] == ["h1"] and 0 < len(b.text) <= TITLE_CHARS]
    if not sources["h1"] and len(h1s) == 1:  # the page's one <h1>, away from where the model's content starts
        sources["h1"] = {"title": clean_text(h1s[0].text, TITLE_CHARS), "far": True}
    host = site_of(url)
    sites = [fields["site_name"] for fields in sources.values() if fields.get("site_name")]
    dom["byline"], places["byline_blocks"], dom["byline_marked"] = _guarded(
        "dom byline",
        lambda: dom_byline(
            snapshot,
            blocks,
            main,
            scores,
            labels,
            head,
            lambda name: _is_site_name(name, sites, host),
            page_type in RECORD_TYPES,
        ),
        (None, [], False),
    )
    dom["date"], places["date_blocks"], dom["modified"] = _guarded(
        "dom date", lambda: dom_date(snapshot, blocks, main, scores, labels, head, lang), (None, [], None)
    )
    dom["image"] = _guarded("dom image", lambda: dom_image(snapshot, blocks, main, url), None)
    dom["tags"] = _guarded("dom tags", lambda: dom_tags(snapshot, blocks, main, head), [])
    sources["dom"] = {k: v for k, v in dom.items() if v}
    site = next((sources[s]["site_name"] for s in ORDER["site_name"] if sources.get(s, {}).get("site_name")), None)
    for name in STRUCTURED:
        if sources[name].get("title"):
            sources[name]["title"] = cut_site_name(sources[name]["title"], site, host, structured=True)[0]
    title, site_in_title = cut_site_name(snapshot.get("title"), site, host)
    if (
        site_in_title
        and not _is_site(site_in_title, site, host)
        and not _PUBLICATION.search(site_in_title)
        and not _shown_as_site(site_in_title, snapshot)
    ):
        site_in_title = None  # a short end of <title> that nothing names as the site: a section, a tagline
    sources["title_tag"] = {k: v for k, v in (("title", title), ("site_name", site_in_title)) if v}
    return sources, places


def choose_title(
    titles: dict[str, str | None], order: Sequence[str] = ORDER["title"], lone_h1: bool = False
) -> tuple[str, str] | None:
    """The article's title among its sources' (source -> title, site names cut) and the source it came from.

    1. A heading from the page's text (its <h1>, the model's guess) that shares no word with any other source's
       title is a subheading or a teaser ("Examples", "3. Blu Mint", "Related stories"), not the title.
    2. The page's <h1> that says about the same as another source (word-bag F1 >= H1_AGREES) is the title: it
       is the headline the reader sees, where the others are often a search engine's or a social network's
       variant of it, or the headline plus a section, a site or keywords ("Promise - JavaScript | MDN").
    3. Otherwise the title most sources agree on (`agreed`); when that is "Story | Tagline" and the page's
       heading is one of its parts, that part (`_part_like`)."""
    given = {source: title for source in order if (title := titles.get(source))}
    bags = {source: Counter(_title_words(value)) for source, value in given.items()}

    def best_overlap(source: str) -> float:
        return max((_overlap(bags[source], bags[other]) for other in given if other != source), default=1.0)

    for source in ("h1", "dom"):
        if source in given and best_overlap(source) == 0:
            del given[source]
    if "h1" in given and (
        best_overlap("h1") >= H1_AGREES or _shortened(bags["h1"], bags, "h1") or (lone_h1 and best_overlap("h1") > 0)
    ):
        return "h1", given["h1"]
    found = agreed(given, order)
    if found is None:
        return None
    return found[0], _part_like(found[1], given.get("h1") or given.get("dom"))


def _shown(names: str, snapshot: dict, editors: bool = False) -> bool:
    """Whether any of a byline's names is written in the page's text, other than as its editor's ("Editor :
    Heryadi" under the writer's name); with `editors`, as an editor's too."""
    text = _squash("".join(n.get("text") or "" for n in snapshot["nodes"] if n["tag"] == "#text"))
    for name in names.split(", "):
        key = _squash(name)
        if key and any(
            editors or not _EDITOR_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
            for m in re.finditer(re.escape(key), text)
        ):
            return True
    return False


_EDITOR_BEFORE = re.compile(r"(?:editor|editedby|redaktur|redakteur|redaksi|penyunting|photo|foto)$")


# The last word of a site's name that says it is one ("Clockmakers Forum", "Coastline Gazette").
_PUBLICATION = re.compile(
    r"\S\s+(?:forum|forums|gazette|times|post|herald|tribune|journal|magazine|daily|weekly|"
    r"chronicle|observer|courier|press|wiki|zeitung|zeitschrift|nachrichten|journal|"
    r"revista|diario|gazzetta|krant)$",
    re.I,
)


def _shown_as_site(name: str, snapshot: dict) -> bool:
    """Whether the page shows `name` as its own: the text of a link to its front page (a logo's "Northern
    Crafts" -> "/"), or after a "©"."""
    nodes, key = snapshot["nodes"], _squash(name)
    if not key:
        return False
    reads = 0  # links to the front page read: a page of 100,000 nested ones costs no more
    for i, node in enumerate(nodes):
        if node["tag"] == "a" and re.fullmatch(r"(?:https?://[^/?#]+)?/?(?:index\.\w+)?", node.get("href") or "x"):
            reads += 1
            if reads > ITEMPROP_READS:
                return False
            if _squash(subtree_text(nodes, i, 200)) == key:
                return True
        elif node["tag"] == "#text" and "©" in (node.get("text") or "") and key in _squash(node["text"]):
            return True
    return False


def _title_is_site(title: str, sources: dict[str, dict[str, Any]], host: str | None) -> bool:
    """Whether a title is only the site's name (og:site_name, JSON-LD publisher, the name in its host): a site
    whose every page says "Kranichfreunde Nord" in <title>, og:title and a logo's <h1>."""
    sites = {_squash(v.get("site_name")) for v in sources.values() if v.get("site_name")}
    squashed = _squash(title)
    return bool(squashed) and (squashed in sites or (bool(host) and squashed == _squash(_registered_name(host or ""))))


def _home_page(url: str | None) -> bool:
    """Whether the address is a site's front page ("https://writingguru.net/"), whose title is the site's name."""
    return bool(url) and re.fullmatch(r"[a-z][a-z0-9+.-]*://[^/?#]+/?(?:index\.\w+)?", url or "", re.I) is not None


HEADING_AFTER_SITE = 3  # main blocks searched for the headline under a site's name


def heading_after_site(
    blocks: Sequence[Block], main: Sequence[bool], is_site: Callable[[str], bool]
) -> tuple[str | None, int | None]:
    """The article's headline where every title source says the site's name: the first <h1>-<h3> at the top of
    the main content (within HEADLINE_BEFORE blocks before it, HEADING_AFTER_SITE main blocks into it) that
    is not the site's name itself (the logo's <h1>)."""
    first = next((i for i, m in enumerate(main) if m), None)
    if first is None:
        return None, None
    mains = [i for i in range(first, len(blocks)) if main[i]][:HEADING_AFTER_SITE]
    for i in list(range(max(0, first - HEADLINE_BEFORE), first)) + mains:
        b = blocks[i]
        if b.tag_path[-1:] in (["h1"], ["h2"], ["h3"]) and 0 < len(b.text) <= TITLE_CHARS and not is_site(b.text):
            return clean_text(b.text, TITLE_CHARS), i
    return None, None


def _shortened(h1: Counter, bags: dict[str, Counter], own: str) -> bool:
    """Whether every word of the page's <h1> is in another source's title: the headline as the page shows it,
    where the others add keywords or a tagline ("Carry-On" for "Quality Carry-On Luggage & Suitcases")."""
    return any(not (h1 - bag) for source, bag in bags.items() if source != own and bag)


def _shown_headline(blocks: Sequence[Block], head: int | None, title: str | None, source: str | None) -> int | None:
    """The headline's block when the header shows what it says, else None: a section's heading passed over
    for another source's title ("Configuration" under "Survival Guide to SysV Init") stays in the body."""
    if head is None or source in ("h1", "dom"):
        return head
    shown = Counter(_title_words(title or ""))
    return head if _overlap(Counter(_title_words(blocks[head].text)), shown) >= H1_AGREES else None


def agreed(candidates: dict[str, str], order: Sequence[str]) -> tuple[str, str] | None:
    """The value most of the other sources agree with (summed word overlap), ties to the earlier source in
    `order`: a page's og:title, JSON-LD headline, <h1> and <title> mostly say the same, and the odd one out
    (a teaser's heading, a site-wide og:title, a social-media headline) is what is wrong."""
    found = [(source, candidates[source]) for source in order if candidates.get(source)]
    if not found:
        return None
    bags = {source: Counter(_title_words(value)) for source, value in found}

    def support(source: str) -> float:
        return sum(_overlap(bags[source], bags[other]) for other, _ in found if other != source)

    best = max(range(len(found)), key=lambda k: (support(found[k][0]), -k))
    return found[best]


def _part_like(title: str, headline: str | None) -> str:
    """ "Story | Tagline" -> "Story" when the page's own headline is that part: a title's "|" more often joins
    a headline to a tagline or a keyword list than to the headline's own second half."""
    parts = [p.strip() for p in re.split(r"\s+\|\s+", title) if p.strip()]
    if len(parts) < 2 or not headline:
        return title
    bag = Counter(_title_words(headline))
    if _overlap(Counter(_title_words(title)), bag) >= TITLE_AGREES:
        return title
    best = max(parts, key=lambda p: _overlap(Counter(_title_words(p)), bag))
    return best if _overlap(Counter(_title_words(best)), bag) >= TITLE_AGREES else title


_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af])")


def _title_words(text: str) -> list[str]:
    """Lower-case words, CJK characters one by one (their titles have no spaces)."""
    return re.findall(r"\w+", _CJK.sub(r" \1 ", text.lower()))


def _overlap(a: Counter, b: Counter) -> float:
    """Word-bag F1 of two titles."""
    common = sum((a & b).values())
    return 2 * common / (sum(a.values()) + sum(b.values())) if common else 0.0


def _people(byline: str) -> bool:
    """Whether each of a byline's names is written as a name ("Ann Lee", not "editorial policies")."""
    return all(map(_looks_like_name, byline.split(", ")))


def _names_site(source: str, value: str, sources: dict[str, dict[str, Any]], host: str | None = None) -> bool:
    """A byline that is the publisher's, not a person's: a JSON-LD author of type Organization, or the
    site's own name (og:site_name, the JSON-LD publisher, the name in its host: "WRAL" on wral.com)."""
    if source == "json_ld" and sources["json_ld"].get("byline_is_organization"):
        return True
    return _is_site_name(value, [v["site_name"] for v in sources.values() if v.get("site_name")], host)


# Words that make a site's name its staff's ("Team Tiger Data", "Automateed Team", "Redaktion hessenschau.de").
_STAFF_WORDS = re.compile(r"\b(?:the|team|staff|editors|editorial|redaktion|redaction|newsroom|desk|blog)\b", re.I)


def _is_site_name(value: str, sites: Iterable[str], host: str | None) -> bool:
    """Whether a byline is a site's name (one of `sites`, the name in its host), staff words aside."""
    key = _squash(_STAFF_WORDS.sub(" ", value))
    keys = {_squash(_STAFF_WORDS.sub(" ", site)) for site in sites} | {_squash(_registered_name(host or ""))}
    return bool(key) and key in keys


def choose_site_name(candidates: Sequence[tuple[str, Any]], host: str | None) -> tuple[str, str] | None:
    """(source, name) of the site's name among its sources' (in `ORDER`): a long one that is a name and a
    tagline ("Zillow Blog - Real Estate Market Stats, ...") keeps the part naming the host or said by another
    source, or else is no name
    ("Summit 24™ Smokeless Fire Pit Solo Stove", a product's); a name two other sources agree on beats the
    first source's odd one out (og:site_name "Minnesota Vikings" where JSON-LD and meta say "247Sports")."""
    registered = _squash(_registered_name(host)) if host else ""
    short = {_squash(n) for _, n in candidates if n and len(n.split()) <= SITE_WORDS}

    def names_site(part: str) -> bool:
        return bool(registered and registered in _squash(part)) or _squash(part) in short

    names: list[tuple[str, str]] = []
    for source, name in candidates:
        if not name:
            continue
        if len(name.split()) > SITE_WORDS:
            parts = [p for p in _TITLE_SEPARATORS.split(name) if names_site(p)]
            if not parts or len(parts[0].split()) > SITE_WORDS:
                continue
            name = parts[0].strip()
        names.append((source, name))
    if not names:
        return None
    votes = Counter(_squash(name) for _, name in names)
    best = max(votes.values())
    if votes[_squash(names[0][1])] == 1 and best >= 2:
        return next((s, n) for s, n in names if votes[_squash(n)] == best)
    return names[0]


DESCRIBES = 0.5  # of a description's words that the page's title and main text must hold
DESCRIBED_CHARS = 10_000  # of the title and main text searched: a summary is of the article's opening


def choose_description(
    candidates: Sequence[tuple[str, Any]],
    title: str | None,
    blocks: Sequence[Block],
    main: Sequence[bool],
    site: str | None = None,
) -> tuple[str, str] | None:
    """(source, text) of the first description that is about this page: at least `DESCRIBES` of its words are
    in the title or the main text, and one that names the site (`site`: its name, or the name in its host)
    shares at least two words with the title. A site's blurb on every page ("The Telegraph on the Web: Daily
    international ...", "NFL Blogs on NFL.com is the only official NFL blog destination"), a template's word
    ("displayarticle") or the publisher's name is not. A page whose body holds no text at all (a shell that
    script fills in) has nothing to compare with: its first description stands, as the only summary it gives."""
    page: str | None = None
    heading = {w for w in _title_words(title or "") if len(w) > 3 or not w.isascii()}
    for source, text in candidates:
        if not text:
            continue
        words = [w for w in _title_words(text) if len(w) > 2 or not w.isascii()]
        if page is None:  # the opening, searched word by word: a set of a long article's words cost 10 ms
            page = " ".join([title or ""] + [b.text for b, m in zip(blocks, main) if m])[:DESCRIBED_CHARS].lower()
        if blocks and (not words or sum(w in page for w in words) < DESCRIBES * len(words)):
            continue
        if site and site in _squash(text) and len(heading.intersection(words)) < min(2, len(heading)):
            continue
        return source, text
    return None


# A file name that is a site's, not the page's, picture: its logo, a default share card, a placeholder.
_NOT_LEAD = re.compile(r"logo|default|placeholder|fallback|blank|spacer|sprite", re.I)
# And in the content, the pictures that are no lead image: tracking pixels, ads, icons, buttons, avatars,
# ratings, banners (a GIF in an article is an icon, a rule or an animation far more often than its picture).
_NOT_CONTENT_IMAGE = re.compile(
    r"\.gif(?:$|\?)|pixel|1x1|doubleclick|/ads?/|adserver|banner|icon|button|avatar|gravatar|"
    r"/authors?/|headshot|badge|rating|stars|/feed|rss|share|facebook|twitter|^data:",
    re.I,
)
LEAD_MIN_BOX = (100, 60)  # width, height (CSS pixels) under which a live page's image is an icon, not a lead


def _path(url: str) -> str:
    """The address less its scheme and host: a CDN named "logos.example" says nothing of one picture."""
    return re.sub(r"^[a-z][a-z0-9+.-]*://[^/]*", "", url, flags=re.I)


def _registered_name(host: str) -> str:
    """The name a site registered, from its host: "wral" in www.wral.com, "mozilla" in developer.mozilla.org."""
    labels = host.split(".")
    while len(labels) > 1 and (labels[-1] in _GENERIC_LABELS or len(labels[-1]) <= 2):
        labels.pop()
    return labels[-1] if len(labels[-1]) > 2 and labels[-1] not in _GENERIC_LABELS else ""


def read_metadata(
    snapshot: dict,
    blocks: Sequence[Block],
    main: Sequence[bool],
    scores,
    labels: Sequence[str] = LABELS,
    page_type: str | None = None,
    structured: dict[str, dict[str, Any]] | None = None,
) -> Metadata:
    """The article's header. `labels` names the columns of `scores` (a model with byline and date heads
    adds those names); `page_type`, when the model predicts one, comes before the page's own word;
    `structured` is `read_structured(snapshot)` when the caller has it already."""
    sources, places = read_sources(snapshot, blocks, main, scores, labels, structured, page_type)
    meta = Metadata(**places)
    host = site_of(snapshot.get("url"))
    for fieldname, order in ORDER.items():
        if fieldname == "title":
            found = choose_title(
                {source: sources.get(source, {}).get("title") for source in order},
                order,
                sum(b.tag_path[-1:] == ["h1"] for b in blocks) == 1 and not sources["h1"].get("far"),
            )
            if found:
                meta.sources["title"], meta.title = found
            if meta.title and _title_is_site(meta.title, sources, host) and not _home_page(snapshot.get("url")):
                heading = _guarded(
                    "dom heading",
                    lambda: heading_after_site(blocks, main, lambda text: _title_is_site(text, sources, host)),
                    (None, None),
                )
                if heading[0]:
                    (meta.title, meta.headline_block), meta.sources["title"] = heading, "heading"
                    continue
            meta.headline_block = _shown_headline(blocks, meta.headline_block, meta.title, meta.sources.get("title"))
            continue
        if fieldname == "page_type":
            meta.page_type, source = _stated_type(sources)
            if source:
                meta.sources["page_type"] = source
            continue
        if fieldname in ("site_name", "description", "image"):
            candidates = [(s, sources.get(s, {}).get(fieldname)) for s in order]
            if fieldname == "site_name":
                found_value = choose_site_name(candidates, host)
            elif fieldname == "description":
                named = _squash(meta.site_name) or _squash(_registered_name(host or ""))
                found_value = choose_description(
                    candidates, meta.title, blocks, main, named if len(named) > 2 else None
                )
            else:
                found_value = next(((s, v) for s, v in candidates if v and not _NOT_LEAD.search(_path(v.url))), None)
            if found_value:
                meta.sources[fieldname] = found_value[0]
                setattr(meta, fieldname, found_value[1])
            continue
        for source in order:
            value = sources.get(source, {}).get(fieldname)
            if (
                fieldname == "byline"
                and value
                and source in STRUCTURED
                and sources["dom"].get("byline_marked")
                and not _shown(value, snapshot, _names_site("dom", sources["dom"]["byline"], sources, host))
            ):
                continue  # a name the page never shows (an account) under the byline it shows, the site's too
            if fieldname == "byline" and value and _names_site(source, value, sources, host):
                later = [(s, sources.get(s, {}).get("byline")) for s in order[order.index(source) + 1 :]]
                if any(v and not _names_site(s, v, sources, host) and _people(v) for s, v in later):
                    continue  # "By The Daily Planet" when the page names a person further down
            if value:
                setattr(meta, fieldname, value)
                meta.sources[fieldname] = source
                break
    if page_type in PAGE_TYPES:
        meta.page_type, meta.sources["page_type"] = page_type, "model"
    if meta.page_type not in PAGE_TYPES:
        meta.page_type = None
    meta.dir = snapshot.get("dir") or ("rtl" if (meta.lang or "").split("-")[0].lower() in _RTL_LANGS else None)
    if meta.image is not None:
        meta.image = Image(_absolute(meta.image.url, snapshot.get("url")) or meta.image.url, meta.image.alt)
        if not meta.image.url.startswith(("http://", "https://")):
            meta.image = None
    meta.canonical_url = _absolute(meta.canonical_url, snapshot.get("url"))
    return meta


# --- length -------------------------------------------------------------------------------------------------

WORDS_PER_MINUTE = 238  # silent reading of non-fiction in English, the mean of many studies
CJK_CHARS_PER_MINUTE = 500  # Chinese and Japanese are read by the character, several hundred a minute
_LATIN_WORD = re.compile(r"[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


# ASCII text's word characters (`\w`: letters, digits, "_") as "a", everything else as a space: a word is then
# a space followed by an "a", or an "a" at the start.
_ASCII_RUNS = bytes(0x61 if chr(c).isalnum() or c == 0x5F else 0x20 for c in range(128)) + b" " * 128


def _ascii_words(text: str) -> int:
    """`len(_LATIN_WORD.findall(text))` for ASCII text, without a string per word: ten times faster, and the
    count was a sixth of the time after the model at the median page (a test holds the two equal)."""
    runs = text.encode("ascii").translate(_ASCII_RUNS)
    return runs.count(b" a") + runs.startswith(b"a")


def length(text: str) -> tuple[int, int]:
    """The body's words (a Chinese or Japanese character counts as one: those scripts write no spaces) and
    the minutes a reader needs for it, rounded, at least 1 for any text. One pass of each pattern for both:
    over a long article the two counts were most of the metadata stage's regex time."""
    if text.isascii():
        latin, cjk = _ascii_words(text), 0
    else:
        latin, cjk = len(_LATIN_WORD.findall(text)), len(_CJK_CHAR.findall(text))
    minutes = latin / WORDS_PER_MINUTE + cjk / CJK_CHARS_PER_MINUTE
    return latin + cjk, (max(1, round(minutes)) if text.strip() else 0)
