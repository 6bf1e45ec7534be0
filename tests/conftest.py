"""Shared test helpers: the small pages in tests/pages/, the browser markers, and the training pages.

Tests say what they need and are skipped, with the reason and the way to get it, where the machine lacks
it: the browsers (tests/browser.py `require`), Node (tests/test_files.py) and the training pages (the
`real_data` fixture; scripts/test.sh installs the rest, the data is never fetched).
"""

from pathlib import Path

import pytest

PAGES = Path(__file__).parent / "pages"


@pytest.fixture
def page():
    def read(name: str) -> bytes:
        """The HTML of the page `name` ("article", "metadata/json-ld"): tests/pages/<name>/source.html. A name
        written as the page's old file ("article.html") finds it too, after `bench.golden pin` folded it."""
        return (PAGES / name.removesuffix(".html") / "source.html").read_bytes()

    return read


def pytest_collection_modifyitems(items):
    """A scenario run in both browsers gets its browser's marker from the kind it was parametrized with
    (tests/browser.py): marks on fixture parameters alone do not reach `-m`."""
    from browser import MARKERS, Kind

    for item in items:
        for value in getattr(getattr(item, "callspec", None), "params", {}).values():
            if isinstance(value, Kind):
                item.add_marker(MARKERS[value])


@pytest.fixture(scope="session")
def real_data():
    """The training pages' folder ($PITH_DATA, else ../shared/data); the test is skipped, saying what is
    missing, when it or any dataset file is not there."""
    from export.data import FILES, SIDECARS, DataError, data_dir

    try:
        folder = data_dir()
    except DataError as exc:
        pytest.skip(f"needs the training pages: {exc.message}")
    missing = [name for name in (*FILES.values(), *SIDECARS.values()) if not (folder / name).is_file()]
    if missing:
        pytest.skip(f"needs the training pages: {', '.join(missing)} not in {folder}; set PITH_DATA")
    return folder
