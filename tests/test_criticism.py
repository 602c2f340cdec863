"""Posterior predictive checks (bayesnb.criticism): statistics by brute force, calibration, power, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from bench_criticism import simulate
from scipy.stats import spearmanr
from sklearn.exceptions import NotFittedError

from bayesnb import (
    CategoricalNB,
    GaussianNB,
    NaiveBayes,
    check_independence,
    check_marginals,
)
from bayesnb.criticism.checks import PAIR_COLUMNS, mutual_information
from bayesnb.datasets import load_house_votes, load_penguins


@pytest.fixture(scope="module")
def votes():
    df = load_house_votes()
    X, y = df.drop(columns="party").iloc[:, :8], df["party"].to_numpy()
    return X, y, CategoricalNB().fit(X, y)


# ------------------------------------------------------------------ statistics
def test_mutual_information_matches_direct_formula():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, size=(4, 30))
    b = (a + rng.integers(0, 2, size=(4, 30))) % 4
    a[1, :5] = -1  # missing cells are left out
    got = mutual_information(a, b)
    for r in range(4):
        keep = a[r] >= 0
        u, v = a[r][keep], b[r][keep]
        n = u.size
        want = 0.0
        for x, z in itertools.product(np.unique(u), np.unique(v)):
            pxz = np.sum((u == x) & (v == z)) / n
            if pxz > 0:
                want += pxz * np.log(pxz / (np.mean(u == x) * np.mean(v == z)))
        assert got[r] == pytest.approx(want, abs=1e-12)
    assert mutual_information(np.zeros((1, 5), int), np.arange(5)[None])[0] == 0.0


def test_statistics_on_the_data_match_scipy_and_sklearn():
    from sklearn.metrics import mutual_info_score

    df = load_penguins()
    X, y = df.drop(columns="species"), df["species"]
    m = NaiveBayes().fit(X, y)
    t = m.check_independence(X, y, n_replicates=5, random_state=0)
    assert list(t.columns) == PAIR_COLUMNS
    d = X.shape[1]
    assert len(t) == 3 * d * (d - 1) // 2
    row = t[(t["class"] == "Gentoo") & (t.feature_a == "bill_length_mm") & (t.feature_b == "bill_depth_mm")].iloc[0]
    sub = X[y == "Gentoo"][["bill_length_mm", "bill_depth_mm"]].dropna()
    assert row.kind == "abs_spearman" and row.n == len(sub)
    assert row.statistic == pytest.approx(abs(spearmanr(sub.iloc[:, 0], sub.iloc[:, 1])[0]), abs=1e-12)
    row = t[(t["class"] == "Adelie") & (t.feature_a == "island") & (t.feature_b == "sex")].iloc[0]
    sub = X[y == "Adelie"][["island", "sex"]].dropna()
    assert row.kind == "mutual_information" and row.n == len(sub)
    assert row.statistic == pytest.approx(mutual_info_score(sub.island, sub.sex), abs=1e-12)
    assert set(t.kind) == {"abs_spearman", "mutual_information", "mutual_information_binned"}
    assert np.isfinite(t[["statistic", "p_value", "effect"]].to_numpy(float)).all()
    # sorted by severity
    assert np.all(np.diff(t.p_value.to_numpy()) >= 0)


def test_replicates_keep_the_missing_cells_and_input_is_untouched(votes):
    X, y, m = votes
    before = X.copy()
    t = m.check_independence(X, y, n_replicates=3, random_state=1)
    pd.testing.assert_frame_equal(X, before)
    a, b = X.columns[0], X.columns[1]
    r = t[(t["class"] == "democrat") & (t.feature_a == a) & (t.feature_b == b)].iloc[0]
    assert r.n == int((X[y == "democrat"][[a, b]].notna().all(axis=1)).sum())
    # same seed, same table; numpy input gives the same numbers
    pd.testing.assert_frame_equal(t, m.check_independence(X, y, n_replicates=3, random_state=1))


# ------------------------------------------------------------- calibration, power
def test_false_alarm_rate_under_the_model(votes):
    X, y, model = votes
    rng = np.random.default_rng(7)
    ps = []
    for _ in range(6):
        Xs = simulate(model, X, y, rng)
        ps.append(CategoricalNB().fit(Xs, y).check_independence(Xs, y, n_replicates=50, random_state=rng).p_value)
    ps = np.concatenate(ps)
    rate, se = np.mean(ps <= 0.05), np.sqrt(0.05 * 0.95 / ps.size)
    # posterior predictive p-values are conservative: at most the nominal rate, up to MC error
    assert rate <= 0.05 + 3 * se, (rate, ps.size)
    assert 0.35 < ps.mean() < 0.65  # and not degenerate (all 1 or all small)


def test_injected_dependence_is_detected(votes):
    X, y, _ = votes
    X4 = X.iloc[:, :4]
    m4 = CategoricalNB().fit(X4, y)
    rng = np.random.default_rng(3)
    a, b = X4.columns[0], X4.columns[1]
    hits = []
    for _ in range(10):
        Xs = simulate(m4, X4, y, rng, pairs=[(0, 1)], copy=0.5)
        t = CategoricalNB().fit(Xs, y).check_independence(Xs, y, n_replicates=40, random_state=rng)
        hits += list(t[(t.feature_a == a) & (t.feature_b == b)].p_value < 0.05)
    assert len(hits) == 20 and np.mean(hits) >= 0.9


# -------------------------------------------------------------------- marginals
def test_marginal_check_flags_a_gaussian_on_zero_inflated_data():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    zero_inflated = np.where(rng.random(n) < 0.4, 0.0, rng.exponential(2.0 + y, n))
    normal = rng.normal(y, 1.0, n)
    X = np.column_stack([zero_inflated, normal])
    m = GaussianNB().fit(X, y)
    t = m.check_marginals(X, y, n_replicates=60, random_state=0)
    assert len(t) == 2 * 2 * 5
    flagged = t[t.p_value < 0.05]
    bad = flagged[flagged.feature == "0"]
    for k in (0, 1):
        assert {"zero_fraction", "min"} <= set(bad[bad["class"] == k].check)
    # the Gaussian column is fine on the checks a continuous family can match
    good = t[(t.feature == "1") & t.check.isin(["skewness", "zero_fraction", "min", "max"])]
    assert (good.p_value > 0.01).all()
    # the free function is the method
    pd.testing.assert_frame_equal(t, check_marginals(m, X, y, n_replicates=60, random_state=0))


def test_marginals_empty_for_an_all_discrete_model(votes):
    X, y, m = votes
    t = m.check_marginals(X, y, n_replicates=2, random_state=0)
    assert t.empty and "p_value" in t.columns


# ----------------------------------------------------------------------- errors
def test_bad_input(votes):
    X, y, m = votes
    with pytest.raises(NotFittedError):
        CategoricalNB().check_independence(X, y)
    with pytest.raises(ValueError, match="one label per row"):
        m.check_independence(X, y[:-1])
    with pytest.raises(ValueError, match="independent|unknown|not in|classes"):
        m.check_independence(X, np.where(y == "democrat", "whig", y))
    with pytest.raises(ValueError, match="n_replicates"):
        m.check_independence(X, y, n_replicates=0)
    with pytest.raises(ValueError, match="missing labels"):
        m.check_independence(X, np.where(np.arange(len(y)) == 0, None, y).astype(object))
    with pytest.raises(ValueError, match="feature"):
        check_independence(m, X.iloc[:, :3], y)


def test_plot_independence(votes):
    pytest.importorskip("matplotlib")
    from bayesnb.plot import plot_independence

    X, y, m = votes
    t = m.check_independence(X, y, n_replicates=5, random_state=0)
    fig = plot_independence(t)
    images = [ax.images[0].get_array() for ax in fig.axes if ax.images]
    assert len(images) == 2  # one panel per class
    M = np.asarray(images[0])
    r = t[(t["class"] == "democrat")].iloc[0]
    names = [tick.get_text() for tick in fig.axes[0].get_xticklabels()]
    assert sorted(names) == sorted(X.columns)
    assert M[names.index(r.feature_a), names.index(r.feature_b)] == pytest.approx(-np.log10(r.p_value))
    assert plot_independence(t, value="effect").axes
    with pytest.raises(ValueError, match="value"):
        plot_independence(t, value="q")


def test_cli_check(tmp_path, capsys):
    from bayesnb.cli import main

    df = load_house_votes().iloc[:, :6]
    data = tmp_path / "votes.csv"
    df.to_csv(data, index=False)
    model = tmp_path / "m.bnb"
    assert main(["fit", str(data), "--target", "party", "-o", str(model)]) == 0
    capsys.readouterr()
    out = tmp_path / "check.csv"
    assert main(["check", str(model), str(data), "--target", "party", "--replicates", "20", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "20 replicates" in text
    table = pd.read_csv(out)
    assert len(table) == 2 * 10 and set(PAIR_COLUMNS) <= set(table.columns)
    assert main(["check", str(model), str(data), "--target", "party", "--replicates", "20", "--json"]) == 0
    import json

    assert len(json.loads(capsys.readouterr().out)) == 20
    assert main(["check", str(model), str(data), "--target", "nope"]) == 2
    assert main(["check", str(model), str(data), "--target", "party", "--replicates", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "replicates" in err
