"""The extractors the harness can score, by name, each loaded only when a run asks for it.

Loading is lazy and may fail without stopping the run: Pith needs its model files and the oracle needs the
gold-label code, and the peers need their packages. A loader that fails makes its extractor *unavailable*
with the reason, which the report prints, so a run of the peers works before the model exists.

A name may carry an argument after a colon, handed to the loader: ``pith:runs/model`` scores the model in
``runs/model`` instead of the shipped one, so two models can be compared side by side in one run.

Peers run with their default settings: the point is how they do out of the box, as a user would meet them.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# An extraction function: (html, url) -> main text, or for gold-using extractors (the oracle): record -> text.
ExtractFn = Callable[..., "str | None"]
# A loader: the argument after the colon (or None) -> (extraction function, version string).
Loader = Callable[[str | None], "tuple[ExtractFn, str]"]


class Unavailable(Exception):
    """An extractor that cannot run here; the message says why and what would make it run."""


@dataclass(frozen=True)
class Spec:
    name: str
    load: Loader
    uses_gold: bool = False  # called with the whole record (gold included) instead of (html, url)
    about: str = ""


@dataclass(frozen=True)
class Loaded:
    """An extractor ready to call."""

    name: str  # as asked for, argument included ("pith:runs/model")
    fn: ExtractFn
    version: str
    uses_gold: bool


@dataclass(frozen=True)
class Outcome:
    """One extractor on one page: the text (empty on error), the seconds the call took, and the error if any."""

    text: str
    seconds: float
    error: str | None = None


PAGE_TIMEOUT_S = 30.0  # one extractor on one page; past it the page counts as empty and an error
REGISTRY: dict[str, Spec] = {}


def register(name: str, load: Loader, *, uses_gold: bool = False, about: str = "") -> None:
    """Make `name` available to `--extractors`; a later registration of the same name replaces the earlier."""
    REGISTRY[name] = Spec(name, load, uses_gold, about)


def load(name: str) -> Loaded:
    """Load the extractor `name` (``base`` or ``base:argument``); Unavailable if it cannot run here."""
    base, _, arg = name.partition(":")
    spec = REGISTRY.get(base)
    if spec is None:
        raise Unavailable(f"unknown extractor {base!r}; known: {', '.join(REGISTRY)}")
    try:
        fn, version = spec.load(arg or None)
    except Unavailable:
        raise
    except Exception as exc:  # an import or model-loading failure: report it, keep the run going
        raise Unavailable(f"{type(exc).__name__}: {exc}") from exc
    return Loaded(name, fn, version, spec.uses_gold)


class _PageTimeout(BaseException):
    """Raised inside the extractor by the alarm; a BaseException so `except Exception` in a library cannot
    swallow it."""


def _on_alarm(signum, frame):
    raise _PageTimeout()


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def call(extractor: Loaded, record: dict, timeout_s: float = PAGE_TIMEOUT_S) -> Outcome:
    """Run one extractor on one record, never raising: an exception or the timeout gives empty text and an
    error. The clock runs around the extractor call only.

    The timeout is a SIGALRM timer, so it works in the main thread of a POSIX process (elsewhere the call
    runs untimed), and it interrupts code stuck in a C extension only once that code returns to Python."""
    args: tuple[Any, ...] = (record,) if extractor.uses_gold else (record["html"], record.get("url"))
    alarm = timeout_s > 0 and _can_alarm()
    previous = signal.signal(signal.SIGALRM, _on_alarm) if alarm else None
    error = None
    text: Any = ""
    start = time.perf_counter()
    try:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            text = extractor.fn(*args)
        finally:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except _PageTimeout:
        error = f"timeout after {timeout_s:g} s"
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        seconds = time.perf_counter() - start
        if alarm:
            signal.signal(signal.SIGALRM, previous)
    if error is None and text is not None and not isinstance(text, str):
        error, text = f"returned {type(text).__name__}, not text", ""
    return Outcome(text or "", seconds, error)


# --- the peers --------------------------------------------------------------------------------------------


def _no_argument(name: str, arg: str | None) -> None:
    if arg is not None:
        raise Unavailable(f"{name} takes no argument (got {name}:{arg})")


def _load_trafilatura(arg: str | None):
    _no_argument("trafilatura", arg)
    import trafilatura

    return (lambda html, url: trafilatura.extract(html, url=url)), trafilatura.__version__


# Elements after which readability's HTML breaks a line of text; cells are separated by a space instead.
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 "
    "h3 h4 h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr ul".split()
)
_CELL_TAGS = frozenset(("td", "th"))


def html_to_text(html: str) -> str:
    """Plain text of an HTML fragment, one line per block element, so words of adjacent blocks never fuse
    (``<p>end</p><p>Start</p>`` gives two words, not "endStart") and inline markup never splits a word.
    The tree is only read, never changed: lxml refuses to set text holding control characters that real
    pages carry."""
    import lxml.etree
    import lxml.html

    if not html or not html.strip():
        return ""
    root = lxml.html.fromstring(html)
    parts: list[str] = []
    for event, el in lxml.etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        if event in ("comment", "pi"):
            parts.append(el.tail or "")  # the comment's own text is not page text; what follows it is
        elif event == "start":
            if tag in _BLOCK_TAGS:
                parts.append("\n")
            if el.text:
                parts.append(el.text)
        else:
            parts.append("\n" if tag in _BLOCK_TAGS else " " if tag in _CELL_TAGS else "")
            if el.tail and el is not root:
                parts.append(el.tail)
    lines = (" ".join(line.split()) for line in "".join(parts).splitlines())
    return "\n".join(line for line in lines if line)


def _load_readability(arg: str | None):
    _no_argument("readability-lxml", arg)
    from importlib.metadata import version

    from readability import Document

    return (lambda html, url: html_to_text(Document(html).summary())), version("readability-lxml")


def _load_resiliparse(arg: str | None):
    _no_argument("resiliparse", arg)
    from importlib.metadata import version

    from resiliparse.extract.html2text import extract_plain_text

    return (lambda html, url: extract_plain_text(html, main_content=True)), version("resiliparse")


# --- Pith and the oracle (the lead's code; loaded only when asked for) --------------------------------------


def _load_pith(model_dir: str | None):
    from native_host import Extractor

    extractor = Extractor(model_dir=model_dir)
    info = extractor.info
    # Text only, as every peer gives: the reader views (html, markdown) are built only when asked for.
    return (
        lambda html, url: extractor.extract_html(html, url=url, views=()).text
    ), f"{info['version']} {info['model_id']}"


def _load_pith_with_header(model_dir: str | None):
    """Pith's headline and byline before its body: what the golds that count the header (L3S-GN1, MSV,
    Dragnet, DANIEL, ...) compare with, so a body that leaves them out can be told from one that lost text."""
    from native_host import Extractor

    extractor = Extractor(model_dir=model_dir)

    def read(html, url):
        result = extractor.extract_html(html, url=url, views=())
        return "\n\n".join(part for part in (result.title, result.byline, result.text) if part)

    info = extractor.info
    return read, f"{info['version']} {info['model_id']}"


def _gold_reader(name: str, function: str):
    """The loader of extractor `name`: export.labels' `function`, a ceiling that reads the record's gold."""

    def load(arg: str | None):
        _no_argument(name, arg)
        try:
            from export import labels
        except ImportError as exc:
            raise Unavailable(f"export.labels not importable ({exc})") from exc
        from native_host import __version__

        return getattr(labels, function), __version__

    return load


register("trafilatura", _load_trafilatura, about="trafilatura.extract(html, url=url), default settings")
register(
    "readability-lxml", _load_readability, about="readability.Document(html).summary(), as text with one line per block"
)
register("resiliparse", _load_resiliparse, about="extract_plain_text(html, main_content=True)")
register(
    "pith",
    _load_pith,
    about="native_host.Extractor().extract_html(html, url, views=()).text; pith:DIR for a model folder",
)
register(
    "pith-with-header",
    _load_pith_with_header,
    about="pith's title and byline, then its text (the body); pith-with-header:DIR for a model folder",
)
register(
    "oracle",
    _gold_reader("oracle", "oracle_text"),
    uses_gold=True,
    about="the blocks the gold alignment labels main (an upper bound for Pith's block classifier)",
)
register(
    "shape-oracle",
    _gold_reader("shape-oracle", "shape_oracle_text"),
    uses_gold=True,
    about="every record shape whose words the gold alignment labels main for half or more, kept whole",
)
