"""The sweep of bench/sweep.py: its damage, and a fixed sample of it (the first page of every dataset and its
three damaged copies, then `pith extract DIR` over them) on the stand-in model. The full sweep is one
command in docs/security.md."""

from __future__ import annotations

import random

import pytest
from host_support import standin_model

from bench.sweep import DAMAGES, REPEATS, damaged, main, variants

HTML = b"<html><body><p class='a'>caf\xc3\xa9 one</p><a href='/x'>two</a></body></html>"


def test_each_damage_is_what_it_says_and_the_same_for_the_same_seed():
    cut = damaged(HTML, "cut", random.Random(1))
    assert HTML.startswith(cut)
    flipped = damaged(HTML, "flip", random.Random(1))
    assert len(flipped) == len(HTML) and flipped != HTML
    repeated = damaged(HTML, "repeat", random.Random(1))
    tag = next(t for t in (b"<html>", b"<body>", b"<p class='a'>", b"<a href='/x'>") if repeated.count(t) == REPEATS)
    assert repeated.replace(tag * REPEATS, tag) == HTML
    assert damaged(b"no tags", "repeat", random.Random(1)).count(b"<div>") == REPEATS
    assert damaged(b"", "flip", random.Random(1)) == b""
    page = {"id": "x/1", "html": HTML.decode()}
    assert list(variants(page, 7)) == list(variants(page, 7))
    assert [kind for kind, _ in variants(page, 7)] == ["page", *DAMAGES]


@pytest.mark.slow
def test_a_fixed_sample_sweeps_without_an_exception(real_data, tmp_path, capsys):
    assert main(["--limit", "1", "--model-dir", standin_model(tmp_path)]) == 0
    out = capsys.readouterr().out
    pages = int(out.split("pages: ", 1)[1].split()[0])
    assert pages >= 13 and "exceptions: 0" in out
    assert f"damaged pages: {3 * pages} " in out
    assert f"pith extract DIR: {4 * pages} files, {4 * pages} rows, 0 failed" in out
