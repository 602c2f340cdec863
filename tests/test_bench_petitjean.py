"""benchmarks/bench_petitjean.py: ``kdb hier`` is hierarchical k-DB with the all-classes top level (the
estimators' own ``alpha="hierarchical"``, no swap), ``naive hier`` the same hierarchy without parents."""

from __future__ import annotations

import numpy as np
import pandas as pd

import bayesnb
import bench_petitjean as bench
from bayesnb.structure.hierarchical import hierarchical_prior


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    b = (a + y + (rng.random(n) < 0.2)) % 3
    c = (b + (rng.random(n) < 0.3)) % 3
    X = pd.DataFrame({k: np.char.add(k, v.astype(str)).astype(object) for k, v in zip("abc", (a, b, c))})
    return X, y


def _check_priors(est, X):
    model, cats = est._mixed, {c: sorted(X[c].unique()) for c in X.columns}
    for j, pa in enumerate(model.parents):
        shape = (2, *(len(cats[X.columns[p]]) for p in pa), len(cats[X.columns[j]]))
        counts = np.round(model.posteriors[j].concentration[0] - model.priors[j].concentration[0])  # rows: integers
        want = hierarchical_prior(counts.reshape(shape), root="all").alpha.reshape(counts.shape)
        np.testing.assert_allclose(model.priors[j].concentration[0], want, rtol=1e-12)


def test_kdb_hier_has_the_all_classes_top_level():
    X, y = _table()
    est = bench.MODELS["kdb hier"](0).fit(X, y)
    _check_priors(est, X)
    flat = bench.MODELS["kdb flat"](0).fit(X, y)
    assert est.structure_ == flat.structure_ and any(est.structure_.values())
    assert not np.allclose(est.predict_proba(X), flat.predict_proba(X))
    naive = bench.MODELS["naive hier"](0).fit(X, y)
    assert naive.structure_kind_ == "naive" and isinstance(naive, bayesnb.NaiveBayes)
    assert not np.allclose(naive.predict_proba(X), bench.MODELS["naive"](0).fit(X, y).predict_proba(X))
    assert not hasattr(bench, "all_classes_root") and "kdb all" not in bench.MODELS


def test_edge_score_flag_adds_rows_fitted_under_that_score(monkeypatch):
    import contextlib

    used = []

    @contextlib.contextmanager
    def record(kind):
        used.append(kind)
        yield

    monkeypatch.setattr(bench, "swap_edge_score", record)
    X, y = _table(120)
    out = bench.run_table(X, y, 1, "hierarchical")
    assert {"kdb hier hierarchical", "tan hier hierarchical"} <= set(out)
    # 2 folds x (5 bayesnb models under bdeu + the 2 hierarchical rows); RF is not swapped
    assert used.count("hierarchical") == 4 and used.count("bdeu") == 10
