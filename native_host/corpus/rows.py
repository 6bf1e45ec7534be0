"""The extraction step of a corpus job: a page in, a row out, whatever happens to the page.

Every engine (the local one's workers, a Ray actor, a user's own `map_batches`) holds one `PageRows`: the model
loaded once, one inference thread (the engine runs one of these per core), and only the reader views the
chosen columns need, so a text-only job never builds html or markdown.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, NotHtmlError, PithError
from ..limits import PAGE_TIME_LIMIT_S
from ..pipeline.article import READER_VIEWS
from ..pipeline.binary import binary_reason
from ..render.columns import DEFAULT_FIELDS, row
from .deadline import within
from .pages import Page

LOGGED_FAILURES = 10  # failed pages a job names on stderr; every one is in its row's error column


class PageRows:
    """Page -> row with the columns `fields`. A page that cannot be read, fails or runs past
    `time_limit_s` becomes a row with its `error`; nothing here raises for one page."""

    def __init__(
        self,
        fields: tuple[str, ...] = DEFAULT_FIELDS,
        model_dir: str | Path | None = None,
        threads: int = 1,
        time_limit_s: float = PAGE_TIME_LIMIT_S,
    ):
        from ..pipeline.extractor import Extractor

        self.fields = fields
        self.views = tuple(v for v in sorted(READER_VIEWS) if v in fields)
        self.extractor = Extractor(model_dir, threads=threads)
        self.time_limit_s = time_limit_s

    def __call__(self, page: Page) -> dict:
        if page.problem is not None or page.html is None:
            return row(self.fields, page, None, {"code": InputError.code, "message": page.problem or "no page"})
        binary = binary_reason(page.html, page.charset)
        if binary is not None:
            return row(self.fields, page, None, {"code": NotHtmlError.code, "message": f"not an HTML page: {binary}"})
        try:
            result = within(
                self.time_limit_s, self.extractor.extract_html, page.html, page.url, self.views, page.charset
            )
        except PithError as exc:
            return row(self.fields, page, None, {"code": exc.code, "message": exc.message})
        except Exception as exc:  # one bad page must not cost the others their rows
            return row(self.fields, page, None, {"code": "internal", "message": f"{type(exc).__name__}: {exc}"})
        return row(self.fields, page, result)


@dataclass
class Tally:
    """What a job did: pages written, failed pages by error code, inputs skipped because their shard exists."""

    pages: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    skipped_inputs: int = 0
    cpu_s: float = 0.0  # CPU seconds the extraction took, all workers together (model loading left out)

    def add(self, row: dict) -> None:
        self.pages += 1
        if row.get("error"):
            code = row["error"]["code"]
            self.failed[code] = self.failed.get(code, 0) + 1
            if sum(self.failed.values()) <= LOGGED_FAILURES:
                where = " ".join(str(row[k]) for k in ("path", "url") if row.get(k))
                more = " (later ones only in the error column)" if sum(self.failed.values()) == LOGGED_FAILURES else ""
                print(f"pith: {where}: {code}: {row['error']['message']}{more}", file=sys.stderr)

    def merge(self, other: Tally) -> None:
        self.pages += other.pages
        for code, n in other.failed.items():
            self.failed[code] = self.failed.get(code, 0) + n

    def summary(self) -> str:
        failed = sum(self.failed.values())
        why = f" ({', '.join(f'{code} {n}' for code, n in sorted(self.failed.items()))})" if failed else ""
        skipped = f", {self.skipped_inputs} inputs skipped (their shard exists)" if self.skipped_inputs else ""
        rate = f", {self.pages / self.cpu_s:.1f} pages per CPU-second" if self.cpu_s > 0 else ""
        return f"{self.pages - failed} pages extracted, {failed} failed{why}{skipped}{rate}"
