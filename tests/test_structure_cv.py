"""The CV guard of structure="auto" from per-fold statistics (bayesnb.structure.cv) decides as refitted clones do."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from test_structure_select import _hub_table

import bayesnb
import bench_structure_scale as bench
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.structure import select as SEL


def _hub_mixed():
    """The hub table (the evidence wants u -> z edges that do not generalise) with two numeric columns."""
    X, y = _hub_table(300, 0)
    rng = np.random.default_rng(5)
    X["r"] = rng.normal(y * 1.0, 1.0)
    X["c"] = rng.poisson(1 + y).astype(float)
    X.loc[rng.random(len(y)) < 0.05, "r"] = np.nan
    return X, y, "naive"


def _votes():
    d = load_house_votes()
    return d.drop(columns="party"), d["party"].to_numpy(), "kdb"


def _penguins():
    d = load_penguins()
    return d.drop(columns="species"), d["species"].to_numpy(), "tan"


def _bench():
    X, y = bench.table(2000, seed=7, missing=0.05)
    return X, y, "tan"


@functools.cache
def _bench_auto():
    """``NaiveBayes(structure="auto")`` fitted on :func:`_bench`'s table (unweighted), fitted once for the
    tests that read it (none modifies it)."""
    X, y, _ = _bench()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bayesnb.NaiveBayes(structure="auto").fit(X, y)


@pytest.mark.parametrize("make", [_hub_mixed, _votes, _penguins, _bench])
@pytest.mark.parametrize("weighted", [False, True])
def test_fold_statistics_guard_decides_as_refitted_clones(make, weighted):
    """The fit's guard (per-fold statistics) against cv_check without them (clones refitted on each fold's
    rows, categories, families and bins re-learned there): the same decision, nearly the same losses."""
    X, y, kept = make()
    w = np.where(np.arange(len(y)) % 4 == 0, 2.0, 1.0) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = (_bench_auto() if make is _bench and w is None
             else bayesnb.NaiveBayes(structure="auto").fit(X, y, sample_weight=w))
        sc = m.structure_scores_
        best = sc["log_evidence"].idxmax()
        cand = next(c for c in SEL.candidates("auto", m.k, True) if c.label == sc["structure"][best])
        refit = SEL.cv_check(m, X, y, w, cand)
    assert m.structure_kind_ == kept and cand.kind != "naive"
    assert refit.worse == (kept == "naive")
    np.testing.assert_allclose(sc["cv_log_loss"][0], refit.naive_log_loss, atol=0.01)
    np.testing.assert_allclose(sc["cv_log_loss"][best], refit.candidate_log_loss, atol=0.01)
    np.testing.assert_allclose(sc["cv_diff_se"][best], refit.diff_se, rtol=0.1)


def test_all_categorical_folds_that_see_every_category_equal_the_refits():
    """House votes: every fold's training rows hold every category, so the per-fold statistics are
    exactly the refitted clones' statistics: the same losses to rounding."""
    X, y, _ = _votes()
    m = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    sc = m.structure_scores_
    best = sc["log_evidence"].idxmax()
    cand = next(c for c in SEL.candidates("auto", m.k, True) if c.label == sc["structure"][best])
    refit = SEL.cv_check(m, X, y, None, cand)
    np.testing.assert_allclose([sc["cv_log_loss"][0], sc["cv_log_loss"][best], sc["cv_diff_se"][best]],
                               [refit.naive_log_loss, refit.candidate_log_loss, refit.diff_se], rtol=1e-10)


def test_held_out_rows_scored_in_chunks_with_shared_tables_give_the_same_figures(monkeypatch):
    from bayesnb.structure import cv as CV
    from bayesnb.structure import infer as SI
    from bayesnb.structure import engine as MX

    X, y, _ = _bench()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = _bench_auto().structure_scores_
        monkeypatch.setattr(CV, "SCORE_ROWS", 7)
        chunked = bayesnb.NaiveBayes(structure="auto").fit(X, y)
    np.testing.assert_array_equal(chunked.structure_scores_["cv_log_loss"], whole["cv_log_loss"])
    np.testing.assert_array_equal(chunked.structure_scores_["cv_diff_se"], whole["cv_diff_se"])
    model = chunked._mixed  # a TAN model; rows with missing cells (message passing) and complete ones
    data = MX.node_data(model.nodes, chunked._encoded(X))
    np.testing.assert_array_equal(SI.log_likelihood(model, data, tables=SI.state_tables(model)),
                                  SI.log_likelihood(model, data))


def test_the_fit_reuses_the_checks_fold_statistics_merged_over_the_folds():
    """With missing cells the chosen structure is counted on all rows; where the CV check counted its parent
    sets per fold, the fit merges those (cv.whole_stats): the one-pass statistics, model and predictions."""
    from bayesnb.structure import cv as CV
    from bayesnb.structure import engine as MX

    X, y, _ = _bench()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = _bench_auto()
        plain = bayesnb.NaiveBayes(structure="auto", auto_cv=False).fit(X, y)
    assert m.structure_ == plain.structure_ and m.structure_kind_ == "tan"
    nodes, parents = m._mixed.nodes, m._mixed.parents
    data = MX.node_data(nodes, m._encoded(X))
    yc, K = np.searchsorted(m.classes_, y), len(m.classes_)
    one = MX.node_stats(nodes, data, yc, np.ones(len(y)), K, parents)
    fold = np.random.default_rng(0).integers(0, 5, len(y))
    kept = {"stats": {(j, pa): MX.node_stats(nodes, data, fold * K + yc, np.ones(len(y)), 5 * K, parents)[j]
                      for j, pa in enumerate(parents) if j % 2}, "folds": 5}
    merged = CV.whole_stats(nodes, data, yc, np.ones(len(y)), K, parents, kept)  # odd nodes merged, even counted
    for j, (a, b) in enumerate(zip(merged, one)):
        for fa, fb in zip(a, b):
            for u, v in zip(fa if isinstance(fa, tuple) else (fa,), fb if isinstance(fb, tuple) else (fb,)):
                if j % 2:
                    np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)
                else:
                    np.testing.assert_array_equal(u, v)
    np.testing.assert_allclose(m._mixed.log_evidence, plain._mixed.log_evidence, rtol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X), plain.predict_proba(X), rtol=1e-10, atol=1e-14)
