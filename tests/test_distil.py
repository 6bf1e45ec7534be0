"""Distillation in training: a teacher's scores mixed into the main target, and the errors that name the way
out when the teacher file does not fit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from test_train_select import page

from export import train as T


def test_the_teacher_s_score_is_mixed_into_the_main_target_of_the_pages_it_scored(monkeypatch):
    html = page("wcxb/a", "html", ["one", "two", "three"], "one two")
    html.labels[:2, 0] = 1.0
    live = page("wcxb/a", "live", ["one", "two", "three"], "one two")
    live.labels[:2, 0] = 1.0
    other = page("wcxb/b", "html", ["x", "y"], "x")
    other.labels[0, 0] = 1.0
    soft = np.array([0.2, 0.9, 0.6], dtype=np.float16)
    monkeypatch.setattr(T, "TEACHER", {"wcxb/a": soft, "wcxb/b": np.zeros(5, np.float16)})
    monkeypatch.setattr(T, "TEACHER_WEIGHT", 0.5)
    batch = T._collate([(html, 0, 3), (live, 0, 3), (other, 0, 2)])
    main = batch.labels[..., 0].numpy()
    assert np.allclose(main[0], 0.5 * soft.astype(np.float32) + 0.5 * np.array([1, 1, 0]))
    assert main[1].tolist() == [1, 1, 0]  # a live snapshot has other blocks than the teacher scored
    assert main[2, :2].tolist() == [1, 0]  # a teacher row of another length is another page's: gold alone
    # A crop takes the teacher's scores of its own blocks.
    crop = T._collate([(html, 1, 3)]).labels[0, :, 0].numpy()
    assert np.allclose(crop, 0.5 * soft[1:].astype(np.float32) + 0.5 * np.array([1, 0]))


def test_a_teacher_needs_a_fold_and_a_file_that_holds_it(tmp_path, capsys):
    with pytest.raises(SystemExit):
        T.main(["--teacher", str(tmp_path / "t.pkl")])
    assert "give --folds and --fold" in capsys.readouterr().err
    with open(tmp_path / "t.pkl", "wb") as f:
        pickle.dump({0: {}}, f)
    for path in (tmp_path / "t.pkl", tmp_path / "missing.pkl"):
        with pytest.raises(SystemExit):
            T.main(["--teacher", str(path), "--folds", "5", "--fold", "3"])
        err = capsys.readouterr().err
        assert "no teacher scores for fold 3" in err and "export.ensemble teacher" in err
