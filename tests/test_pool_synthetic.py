"""``bayesnb.pool_synthetic``: the combining rules for synthetic tables (Raab, Nowok & Dibben 2016),
by hand, on bad input, and by the coverage of their intervals on tables bayesnb draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayesnb import NaiveBayes, pool_synthetic
from bayesnb._utils import DataError
from bayesnb.families import Gaussian


def test_the_three_variances_by_hand():
    q, u = [1.0, 1.2, 0.8], [0.04, 0.05, 0.03]  # Qbar 1, Ubar 0.04, B 0.04
    # k / n = 2: to the real rows' estimate 0.04 * 2; simple 0.04 * (2 + 1/3); proper 0.04 * (2 + 3/3)
    for kw, t in (({"population_inference": False}, 0.08), ({}, 0.04 * (2 + 1 / 3)), ({"method": "proper"}, 0.12)):
        r = pool_synthetic(q, u, n_original=200, n_synthetic=400, **kw).iloc[0]
        assert r["estimate"] == pytest.approx(1.0) and r["ubar"] == pytest.approx(0.04)
        assert r["b"] == pytest.approx(0.04) and r["t"] == pytest.approx(t)
        z = stats.norm.ppf(0.975)
        assert (r["lower"], r["upper"]) == (pytest.approx(1 - z * np.sqrt(t)), pytest.approx(1 + z * np.sqrt(t)))
        assert r["p_value"] == pytest.approx(2 * stats.norm.sf(1 / np.sqrt(t)))
    one = pool_synthetic([[1.0, 2.0]], [[0.04, 0.09]], n_original=100, names=["a", "b"])  # one table, two parameters
    assert list(one.index) == ["a", "b"] and one["b"].isna().all()
    assert one["t"].tolist() == pytest.approx([0.08, 0.18])  # Ubar (1 + 1/1)


def test_frames_give_their_names():
    est = pd.DataFrame({"slope": [0.5, 0.7], "intercept": [1.0, 1.1]})
    out = pool_synthetic(est, est * 0 + 0.01, n_original=50)
    assert list(out.index) == ["slope", "intercept"] and out.index.name == "parameter"


@pytest.mark.parametrize("kw, match", [
    ({"estimates": [1.0, np.nan]}, "finite"),
    ({"variances": [0.1, -0.1]}, ">= 0"),
    ({"variances": [0.1]}, "same shape"),
    ({"n_original": 0}, "n_original must be a whole number >= 1"),
    ({"n_original": 10.5}, "n_original must be a whole number"),
    ({"n_synthetic": True}, "n_synthetic must be a whole number"),
    ({"method": "partial"}, r"method must be one of \('simple', 'proper'\)"),
    ({"conf_level": 1.0}, r"conf_level must be in \(0, 1\)"),
    ({"estimates": np.zeros((2, 2, 2)), "variances": np.zeros((2, 2, 2))}, r"shape \(m,\) or \(m, p\)"),
    ({"names": ["a", "b"]}, "2 names for 1 parameters"),
])
def test_bad_input_is_named(kw, match):
    args = {"estimates": [1.0, 1.1], "variances": [0.1, 0.1], "n_original": 100, **kw}
    with pytest.raises(DataError, match=match):
        pool_synthetic(args.pop("estimates"), args.pop("variances"), **args)


@pytest.mark.slow
def test_intervals_cover_the_population_mean_for_tables_bayesnb_draws():
    """Real rows from a known two-class Gaussian population; the mean of x estimated on m = 2
    synthetic tables of a NaiveBayes fitted to them, drawn from the plug-in ("simple") or with one
    posterior draw per table ("proper"): each rule's 95% interval covers the population mean at
    about its level, and treating the tables as real (standard error sqrt(Ubar)) under-covers both
    (the rules' T is 1.5 Ubar and 2 Ubar here)."""
    rng = np.random.default_rng(0)
    n, m, reps, mu = 200, 2, 1000, 0.5  # x | y ~ N(y, 1), y ~ Bernoulli(1/2): E x = 1/2
    hits = {(method, rule): 0 for method in ("simple", "proper") for rule in ("rule", "as real")}
    z = stats.norm.ppf(0.975)
    for _ in range(reps):
        y = rng.integers(0, 2, n)
        X = pd.DataFrame({"x": rng.normal(y, 1.0)})
        model = NaiveBayes(features={"x": Gaussian()}).fit(X, y)
        for method, pu in (("simple", False), ("proper", True)):
            draws = [model.sample(n, random_state=rng, parameter_uncertainty=pu)[0]["x"].to_numpy() for _ in range(m)]
            q, u = [d.mean() for d in draws], [d.var(ddof=1) / n for d in draws]
            r = pool_synthetic(q, u, n_original=n, method=method).iloc[0]
            hits[method, "rule"] += r["lower"] <= mu <= r["upper"]
            hits[method, "as real"] += abs(r["estimate"] - mu) <= z * np.sqrt(r["ubar"])
    cover = {k: v / reps for k, v in hits.items()}
    for method in ("simple", "proper"):
        assert 0.925 <= cover[method, "rule"] <= 0.975, cover
        assert cover[method, "as real"] < 0.91, cover
