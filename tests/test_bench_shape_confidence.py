"""bench.shape_confidence's cross-validated reading: every WCXB page by the fold model that held its site out."""

import sys

import pytest

from bench import shape_confidence


def test_folds_must_hold_every_folds_model(tmp_path, monkeypatch, capsys):
    for k in range(shape_confidence.FOLDS - 1):  # fold-4 is missing
        (tmp_path / f"fold-{k}" / "assets").mkdir(parents=True)
    monkeypatch.setattr(sys, "argv", ["shape_confidence", "--folds", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        shape_confidence.main()
    assert stop.value.code == 2
    assert "lacks fold-0/assets ... fold-4/assets" in capsys.readouterr().err
