"""benchmarks/bench_outlier_choice.py: the held-out rule sees the training rows only and is
deterministic, the one-standard-error rule prefers the simpler structure, the multivariate-t
candidate is a density (missing cells marginalised, the log scale's Jacobian counted), and a small
run prints the comparison with IsolationForest."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_t

import bench_outlier_choice as bench


def test_heldout_uses_the_training_rows_only_and_is_deterministic():
    rng = np.random.default_rng(0)
    train = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
    first = bench.heldout("naive", train)
    assert first.shape == (60,) and np.isfinite(first).all()
    np.testing.assert_array_equal(first, bench.heldout("naive", train))  # the same folds, the same fits
    moved = train.copy()
    moved.iloc[0] = [50.0, -50.0, 50.0]  # one training row changed: its held-out score drops, it is in the data
    assert bench.heldout("naive", moved)[0] < first[0] - 10


def test_one_se_rule_prefers_the_simplest_structure_within_one_standard_error():
    rng = np.random.default_rng(1)
    base = rng.normal(size=200)
    noise = rng.normal(0, 0.5, 200)
    close = {"naive": base - 1.0, "tan": base + noise - noise.mean(), "kdb": base + 0.01}
    assert bench.one_se(close) == "tan"  # naive is 1 nat a row worse; tan within noise of kdb
    apart = {"naive": base - 1.0, "tan": base - 0.5, "kdb": base}
    assert bench.one_se(apart) == "kdb"  # a constant gap is many standard errors


def test_mvn_candidate_is_the_multivariate_t_density_with_missing_cells_marginalised():
    rng = np.random.default_rng(2)
    train = pd.DataFrame(rng.multivariate_normal([1.0, -2.0], [[1.0, 0.8], [0.8, 1.0]], size=300), columns=["u", "v"])
    det = bench.MVNDetector().fit(train)
    assert det.shift == [None, None]  # not skewed, not non-negative: the linear scale
    rows = pd.DataFrame({"u": [1.0, 1.0, 4.0], "v": [-2.0, np.nan, -5.0]})
    got = det.score_samples(rows)
    z = (rows.to_numpy() - det.mu) / det.sd
    full = multivariate_t(det.loc, det.shape, df=det.df)
    np.testing.assert_allclose(got[0], full.logpdf(z[0]) - np.log(det.sd).sum())
    marginal = multivariate_t(det.loc[:1], det.shape[:1, :1], df=det.df)  # a t's marginal is a t, same df
    np.testing.assert_allclose(got[1], marginal.logpdf(z[1, :1]) - np.log(det.sd[0]))
    assert got[2] < got[0] - 5  # against the correlation: far less likely


def test_mvn_candidate_counts_the_log_scale_jacobian():
    rng = np.random.default_rng(3)
    train = pd.DataFrame({"w": np.exp(rng.normal(0.0, 1.0, 400))})
    det = bench.MVNDetector().fit(train)
    assert det.shift == [0.0]  # right-skewed and positive: log(x)
    grid = np.linspace(1e-4, 60.0, 200_001)  # the density of x integrates to 1 on its own scale
    p = np.exp(det.score_samples(pd.DataFrame({"w": grid})))
    assert p.sum() * (grid[1] - grid[0]) == pytest.approx(1.0, abs=0.01)
    assert det.score_samples(pd.DataFrame({"w": [-1.0]}))[0] == -np.inf  # below the log scale's support


def test_small_run_prints_the_rules_against_isolation_forest(capsys):
    res = bench.main(["--tables", "penguins", "--tasks", "novelty", "--seeds", "1", "--candidates", "naive", "mvn"])
    assert set(res["chosen"]) <= {"auto", "naive", "mvn"} and res["auc_chosen"].between(0, 1).all()
    assert (res["slowdown"] > 1).all()
    out = capsys.readouterr().out
    assert "novelty, mean of 1: chosen" in out and "vs IForest" in out and "load before:" in out
