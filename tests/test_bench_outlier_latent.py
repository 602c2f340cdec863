"""benchmarks/bench_outlier_latent.py: the latent-class candidates are densities of the training rows
(one component is the naive model), the cross-fitted rule sees the training rows only, the
one-standard-error rule prefers fewer components, and a small run prints the comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd

import bench_outlier_latent as bench
from bayesnb import NaiveBayes
from bayesnb._utils import one_class_on_purpose


def _two_clusters(seed=0, n=120):
    rng = np.random.default_rng(seed)
    z = rng.integers(2, size=n)
    return pd.DataFrame({"a": rng.normal(4.0 * z, 1.0), "b": rng.normal(-4.0 * z, 1.0),
                         "c": np.where(z == 1, "x", "y")})


def test_one_component_is_the_naive_model_and_two_fit_two_clusters_better():
    train = _two_clusters()
    model, fit = bench.latent_fit(train, 1)
    assert fit is None
    with one_class_on_purpose():
        naive = NaiveBayes().fit(train, np.zeros(len(train), dtype=int))
    np.testing.assert_allclose(bench.latent_density(model, fit, train), naive.score_samples(train))
    two = bench.latent_density(*bench.latent_fit(train, 2), train)
    assert two.mean() > naive.score_samples(train).mean() + 1  # the mixture explains the dependence
    odd = pd.DataFrame({"a": [4.0], "b": [0.0], "c": ["y"]})  # each value typical, the row of neither cluster
    assert bench.latent_density(*bench.latent_fit(train, 2), odd)[0] < naive.score_samples(odd)[0]


def test_crossfit_uses_the_training_rows_only_and_is_deterministic():
    train = _two_clusters(1)
    dens = lambda a, b: bench.latent_density(*bench.latent_fit(a, 2), b)  # noqa: E731
    first = bench.crossfit(train, dens)
    assert first.shape == (len(train),) and np.isfinite(first).all()
    np.testing.assert_array_equal(first, bench.crossfit(train, dens))
    moved = train.copy()
    moved.loc[0, ["a", "b"]] = [40.0, 40.0]  # a changed training row: its own held-out score drops
    assert bench.crossfit(moved, dens)[0] < first[0] - 10


def test_one_se_prefers_fewer_components_within_one_standard_error():
    rng = np.random.default_rng(2)
    base = rng.normal(size=300)
    noise = rng.normal(0, 0.5, 300)
    close = {1: base - 1.0, 2: base + noise - noise.mean(), 4: base + 0.01}
    assert bench.one_se(close) == 2  # 1 is a nat a row worse; 2 is within noise of 4
    apart = {1: base - 1.0, 2: base - 0.5, 4: base}
    assert bench.one_se(apart) == 4


def test_small_run_prints_aucs_counts_and_times(capsys):
    res = bench.main(["--tables", "penguins", "--tasks", "novelty", "--seeds", "1", "--counts", "2", "--max-sets", "1"])
    assert len(res) == 1  # one novelty set (of penguins' three): the first species as the normal class
    assert set(res["C"]) <= {1, 2} and set(res["C_1se"]) <= {1, 2}
    aucs = res.filter(like="auc_")
    assert {"auc_auto", "auc_naive", "auc_lc2", "auc_lc-cv", "auc_lc-1se", "auc_pick-cv", "auc_IForest"} <= set(aucs)
    assert aucs.stack().between(0, 1).all()
    out = capsys.readouterr().out
    assert "novelty: AUC" in out and "components chosen by lc-cv" in out and "load before:" in out
