"""Shared test helpers: the small pages in tests/pages/."""

from pathlib import Path

import pytest

PAGES = Path(__file__).parent / "pages"


@pytest.fixture
def page():
    def read(name: str) -> bytes:
        return (PAGES / name).read_bytes()

    return read
