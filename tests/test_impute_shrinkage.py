"""The selection's shrinkage of categorical columns' losses (bayesnb.impute.configs.shrunk_losses)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import edit_meta

from bayesnb import Imputer, impute_table
from bayesnb.impute.configs import SHRINK_MIN_COLUMNS, _random_effects, shrunk_losses


def _cells(rng, rates, n):
    """Column -> {configuration: 0/1 cell errors}, each configuration wrong on a cell with its rate, independently."""
    return {f"c{j}": {k: (rng.random(n) < r).astype(float) for k, r in col.items()} for j, col in enumerate(rates)}


def test_random_effects_match_dersimonian_laird_by_hand():
    d, s2 = np.array([0.1, -0.05, 0.3, 0.0]), np.array([0.01, 0.02, 0.015, 0.01])
    w = 1 / s2
    fixed = (w * d).sum() / w.sum()  # 0.06
    q = (w * (d - fixed) ** 2).sum()
    tau2 = (q - 3) / (w.sum() - (w ** 2).sum() / w.sum())
    assert tau2 > 0
    ws = 1 / (s2 + tau2)
    assert _random_effects(d, s2) == pytest.approx(((ws * d).sum() / ws.sum(), tau2))
    # estimates that agree within their own noise: no spread between columns, the fixed-effect mean
    mu, t2 = _random_effects(np.array([0.01, 0.012, 0.011]), np.array([0.01, 0.01, 0.01]))
    assert t2 == 0.0 and mu == pytest.approx(0.011)


def test_columns_that_agree_take_the_tables_choice_where_their_own_lowest_is_noise():
    rng = np.random.default_rng(0)
    # "b" is truly better by 0.03 in every column; 60 hidden cells a column: the raw lowest is often "a"
    raw_right = shrunk_right = 0
    for _ in range(20):
        cells = _cells(rng, [{"a": 0.25, "b": 0.22}] * 16, 60)
        kinds = dict.fromkeys(cells, "error")
        shrunk = shrunk_losses(cells, kinds, ("a", "b"))
        raw_right += sum(cells[c]["b"].mean() < cells[c]["a"].mean() for c in cells)
        shrunk_right += sum(shrunk[c]["b"] < shrunk[c]["a"] for c in cells)
    # the lowest raw error rate is right in about 57% of the columns, the lowest shrunk one in about 85%
    assert shrunk_right > 0.8 * 320 and shrunk_right > raw_right + 0.2 * 320, (raw_right, shrunk_right)


def test_a_column_with_clear_evidence_keeps_its_own_choice():
    rng = np.random.default_rng(1)
    rates = [{"a": 0.3, "b": 0.25}] * 8 + [{"a": 0.05, "b": 0.6}]  # the last column: "a" by far
    cells = _cells(rng, rates, 80)
    shrunk = shrunk_losses(cells, dict.fromkeys(cells, "error"), ("a", "b"))
    assert cells["c8"]["a"].mean() < cells["c8"]["b"].mean() and shrunk["c8"]["a"] < shrunk["c8"]["b"]


def test_the_reference_keeps_its_own_loss_and_others_move_toward_it_by_their_noise():
    rng = np.random.default_rng(2)
    cells = _cells(rng, [{"a": 0.3, "b": 0.2}] * 6, 50)
    shrunk = shrunk_losses(cells, dict.fromkeys(cells, "error"), ("a", "b"))
    for c, v in cells.items():
        assert shrunk[c]["b"] == v["b"].mean()  # "b" has the fewest errors over the columns: the reference
        d_raw = v["a"].mean() - v["b"].mean()
        d_shrunk = shrunk[c]["a"] - shrunk[c]["b"]
        mean = np.mean([w["a"].mean() - w["b"].mean() for w in cells.values()])
        assert abs(d_shrunk - mean) <= abs(d_raw - mean) + 1e-12  # pulled toward the pooled difference


def test_numeric_columns_and_tables_with_few_categorical_columns_keep_their_losses():
    rng = np.random.default_rng(3)
    cells = _cells(rng, [{"a": 0.3, "b": 0.2}] * (SHRINK_MIN_COLUMNS - 1), 40)
    cells["x"] = {"a": rng.random(40), "b": rng.random(40)}
    kinds = {**dict.fromkeys(cells, "error"), "x": "squared"}
    same = shrunk_losses(cells, kinds, ("a", "b"))
    assert same == {c: {k: float(v[k].mean()) for k in v} for c, v in cells.items()}
    more = _cells(rng, [{"a": 0.3, "b": 0.2}] * 4, 40)
    out = shrunk_losses({**more, "x": cells["x"]}, {**dict.fromkeys(more, "error"), "x": "squared"}, ("a", "b"))
    assert out["x"] == same["x"] and any(out[c]["a"] != more[c]["a"].mean() for c in more)


def test_identical_fills_in_a_column_do_not_break_the_estimate():
    rng = np.random.default_rng(4)
    cells = _cells(rng, [{"a": 0.3, "b": 0.25}] * 5, 50)
    cells["c0"]["a"] = cells["c0"]["b"].copy()  # the two agree on every hidden cell of c0
    out = shrunk_losses(cells, dict.fromkeys(cells, "error"), ("a", "b"))
    assert all(np.isfinite(v).all() for col in out.values() for v in col.values())


def _votes_like(n=400, d=10, seed=0):
    """Columns that copy a latent two-valued trait with noise: every configuration that links them imputes alike."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    z = np.where(rng.random(n) < 0.8, y, 1 - y)
    X = pd.DataFrame({f"v{j}": np.where(rng.random(n) < 0.8, z, 1 - z).astype(str) for j in range(d)})
    Xm = X.mask(rng.random(X.shape) < 0.3)
    return X, Xm, y.astype(str)


def test_imputer_chooses_by_the_shrunk_loss_and_reports_it():
    _, Xm, y = _votes_like()
    res = impute_table(Xm, y, configurations=("naive", "latent", "tan"), random_state=0, missingness="mar")
    sc = res.scores
    assert list(sc.columns) == ["column", "configuration", "loss", "shrunk_loss", "n_hidden", "chosen"]
    best = sc.loc[sc.groupby("column")["shrunk_loss"].idxmin(), ["column", "configuration"]]
    assert dict(zip(best["column"], best["configuration"], strict=True)) == res.chosen
    assert (sc["shrunk_loss"] != sc["loss"]).any()  # ten categorical columns: pooled


def test_a_file_written_before_the_shrunk_loss_loads_with_its_losses(tmp_path):
    _, Xm, y = _votes_like(n=200, d=4, seed=1)
    imp = Imputer(configurations=("naive", "tan"), random_state=0, missingness="mar").fit(Xm, y)
    path, old = tmp_path / "imputer.bnb", tmp_path / "old.bnb"
    imp.save(path)

    def without_shrunk(meta):  # the scores table as files before it held it (a plain dict of lists)
        scores = meta["fitted"]["scores"]
        assert "shrunk_loss" in json.dumps(scores)
        scores["__dict__"] = [pair for pair in scores["__dict__"] if pair[0] != "shrunk_loss"]
        assert "shrunk_loss" not in json.dumps(scores)

    edit_meta(path, old, without_shrunk)
    again = Imputer.load(old)
    pd.testing.assert_series_equal(again.scores_["shrunk_loss"], again.scores_["loss"], check_names=False)
    pd.testing.assert_frame_equal(again.impute(Xm, y), imp.impute(Xm, y))
