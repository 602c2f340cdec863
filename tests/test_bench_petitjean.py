"""benchmarks/bench_petitjean.py: ``kdb all`` is hierarchical k-DB with the all-classes top level, and only it."""

from __future__ import annotations

import numpy as np
import pandas as pd

import bayesnb
import bench_petitjean as bench
from bayesnb.families import _categorical_encoding as enc
from bayesnb.structure.hierarchical import hierarchical_prior


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    b = (a + y + (rng.random(n) < 0.2)) % 3
    c = (b + (rng.random(n) < 0.3)) % 3
    X = pd.DataFrame({k: np.char.add(k, v.astype(str)).astype(object) for k, v in zip("abc", (a, b, c))})
    return X, y


def test_all_classes_root_swaps_the_top_level_in_and_out():
    X, y = _table()
    with bench.all_classes_root():
        est = bench.MODELS["kdb all"](0).fit(X, y)
    assert enc.hierarchical_prior is hierarchical_prior  # restored
    default = bench.MODELS["kdb hier"](0).fit(X, y)
    assert est.structure_ == default.structure_
    model, cats = est._mixed, {c: sorted(X[c].unique()) for c in X.columns}
    for j, pa in enumerate(model.parents):
        shape = (2, *(len(cats[X.columns[p]]) for p in pa), len(cats[X.columns[j]]))
        counts = np.round(model.posteriors[j].concentration[0] - model.priors[j].concentration[0])  # rows: integers
        want = hierarchical_prior(counts.reshape(shape), root="all").alpha.reshape(counts.shape)
        np.testing.assert_allclose(model.priors[j].concentration[0], want, rtol=1e-12)
    assert not np.allclose(est.predict_proba(X), default.predict_proba(X))
    assert bench.ALL_ROOT == {"kdb all"} and isinstance(default, bayesnb.NaiveBayes)
