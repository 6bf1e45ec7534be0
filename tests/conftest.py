"""Shared test helpers: the small pages in tests/pages/, and the browser markers."""

from pathlib import Path

import pytest

PAGES = Path(__file__).parent / "pages"


@pytest.fixture
def page():
    def read(name: str) -> bytes:
        return (PAGES / name).read_bytes()

    return read


def pytest_collection_modifyitems(items):
    """A scenario run in both browsers gets its browser's marker from the kind it was parametrized with
    (tests/browser.py): marks on fixture parameters alone do not reach `-m`."""
    from browser import MARKERS, Kind

    for item in items:
        for value in getattr(getattr(item, "callspec", None), "params", {}).values():
            if isinstance(value, Kind):
                item.add_marker(MARKERS[value])
