"""Imputation speed (issue 27): the conditional medians are drawn only for the cells that are used, the
latent-class search's fits stop at a looser EM tolerance than the final fit, and the structure draws'
log-sum-exp, inverse-cdf draw and distinct-row grouping equal the slower forms they replace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import bayesnb.generative.values as values
import bayesnb.impute.imputer as imputer_mod
import bayesnb.structure._logdraw as logdraw
from bayesnb import Imputer, NaiveBayes
from bayesnb.datasets import load_house_votes
from bayesnb.impute.table import latent_class_auto
from bayesnb.families.numeric import draw_categories


def _zero_inflated(n=300, seed=0):
    """A table with a point-mass column (``gain``: mostly 0, else spread) that depends on the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    gain = np.where(rng.random(n) < np.where(y == 1, 0.4, 0.9), 0.0, rng.gamma(2.0, 500.0, n).round())
    X = pd.DataFrame({"gain": gain, "age": rng.normal(40 + 5 * y, 8).round(),
                      "kind": np.where(rng.random(n) < 0.3 + 0.4 * y, "a", "b")})
    return X.mask(rng.random(X.shape) < 0.25), y


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_medians_are_drawn_only_for_the_wanted_cells(monkeypatch, structure):
    X, y = _zero_inflated()
    model = NaiveBayes(structure=structure).fit(X, y)
    miss = X.isna().to_numpy()
    asked = []
    inner = values.median_draws

    def median_draws(*a, **k):
        draws = inner(*a, **k)

        def recorded(rows, S):
            asked.append(np.asarray(rows).copy())
            return draws(rows, S)
        return recorded

    for mod in ("bayesnb.generative.methods", "bayesnb.estimators._structure_common"):
        monkeypatch.setattr(f"{mod}.median_draws", median_draws)
    opts = {"strategy": "auto", "n_imputations": 1, "random_state": 0, "parameter_uncertainty": True, "y": None,
            "n_components": 1, "latent": None}
    full = model._impute(X, **opts)
    assert asked and set(asked[-1]) == set(np.flatnonzero(miss[:, 0]))  # every missing gain cell's row
    wanted = miss & (np.arange(len(X)) % 3 == 0)[:, None]
    part = model._impute(X, **opts, median_cells=wanted)
    assert set(asked[-1]) == set(np.flatnonzero(wanted[:, 0]))  # only the wanted cells' rows are drawn
    rest = miss[:, 0] & ~wanted[:, 0]
    # the other missing cells of the point-mass column: the mean moved onto the column's values (as a
    # numeric column without a point mass), not a median
    mean = model._impute(X, **{**opts, "strategy": "mean"})["gain"].to_numpy()[rest]
    support = model.value_support_[0]
    np.testing.assert_array_equal(part["gain"].to_numpy()[rest], values.project(mean, support))
    assert not np.array_equal(full["gain"].to_numpy()[rest], part["gain"].to_numpy()[rest])
    nothing = model._impute(X, **opts, median_cells=np.zeros_like(miss))
    assert set(asked[-1]) == set(np.flatnonzero(wanted[:, 0]))  # no new draw asked for
    np.testing.assert_array_equal(nothing["age"].to_numpy(), full["age"].to_numpy())  # other columns alike
    assert list(nothing["kind"]) == list(full["kind"])


def test_imputer_asks_for_the_hidden_cells_then_each_configurations_columns(monkeypatch):
    X, y = _zero_inflated(seed=1)
    calls = []
    inner = imputer_mod.fill_config

    def fill_config(cfg, member, table, given, rng, strategy="auto", n_imputations=1, cells=None):
        calls.append((cfg, table.isna().to_numpy(), None if cells is None else cells.copy()))
        return inner(cfg, member, table, given, rng, strategy, n_imputations, cells=cells)

    monkeypatch.setattr(imputer_mod, "fill_config", fill_config)
    imp = Imputer(configurations=("naive", "tan"), random_state=0).fit(X, y)
    miss = X.isna().to_numpy()
    for _, seen, cells in calls:  # the selection: the hidden cells, missing there but observed in X
        assert cells is not None and cells.any() and not (cells & miss).any() and np.array_equal(seen, miss | cells)
    calls.clear()
    imp.impute(X)
    assert {cfg for cfg, _, _ in calls} == set(imp.chosen_.values())
    for cfg, _, cells in calls:
        cols = [j for j, c in enumerate(X.columns) if imp.chosen_.get(c) == cfg]
        expect = np.zeros_like(miss)
        expect[:, cols] = miss[:, cols]
        np.testing.assert_array_equal(cells, expect)


def test_lse_equals_scipy_logsumexp():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(40, 3, 5)) * 50
    a[rng.random(a.shape) < 0.3] = -np.inf
    a[0] = -np.inf  # a slice with every term -inf
    for axis in (0, 1, 2, (1, 2)):
        for keep in (False, True):
            np.testing.assert_allclose(logdraw.lse(a, axis, keep), logsumexp(a, axis=axis, keepdims=keep),
                                       rtol=1e-13, atol=0)
    assert np.all(logdraw.lse(np.zeros((4, 0)), 1) == -np.inf)  # an empty axis, as scipy
    assert np.isnan(logdraw.lse(np.array([[0.0, np.nan]]), 1)[0])


def test_draw_log_equals_draw_categories_at_the_normalised_probabilities():
    rng = np.random.default_rng(1)
    lp = rng.normal(size=(5000, 7)) * 20
    lp[rng.random(lp.shape) < 0.4] = -np.inf
    lp[:, 3] = np.where(np.isinf(lp).all(axis=1), 0.0, lp[:, 3])
    u = rng.random(5000)
    got = logdraw.draw_log(lp, u)
    want = draw_categories(np.exp(lp - logsumexp(lp, axis=1, keepdims=True)), u)
    assert np.mean(got == want) > 0.999 and np.all(np.isfinite(lp[np.arange(5000), got]))


def _same_partition(first, inverse, key):
    ref_first, ref_inv = np.unique(key + 0.0, axis=0, return_index=True, return_inverse=True)[1:]
    assert first.size == ref_first.size
    np.testing.assert_array_equal(key[first[inverse]] + 0.0, key + 0.0)  # each row equal to its group's first
    pairs = set(zip(inverse.tolist(), np.asarray(ref_inv).reshape(-1).tolist()))
    assert len(pairs) == first.size  # one-to-one with np.unique's groups


def test_distinct_rows_groups_as_np_unique(monkeypatch):
    rng = np.random.default_rng(2)
    base = rng.integers(0, 3, size=(30, 4)).astype(float)
    key = base[rng.integers(0, 30, 500)]
    key[::7, 1] *= -1.0  # -0.0 where the value was 0: the same row
    first, inverse = logdraw.distinct_rows(key)
    _same_partition(first, inverse, key)
    monkeypatch.setattr(logdraw, "_row_hash", lambda bits: np.zeros(bits.shape[0], dtype=np.uint64))
    first, inverse = logdraw.distinct_rows(key)  # every row collides: grouped exactly by np.unique
    _same_partition(first, inverse, key)


def _record_tols(monkeypatch, model):
    calls = []
    inner = model._latent_em

    def latent_em(encoded, class_part, y_codes, n_components, **opts):
        calls.append((n_components, opts["n_init"], opts["tol"]))
        return inner(encoded, class_part, y_codes, n_components, **opts)

    monkeypatch.setattr(model, "_latent_em", latent_em)
    return calls


def test_search_tol_sets_the_tolerance_of_the_search_only(monkeypatch):
    hv = load_house_votes()
    X = hv.drop(columns="party").mask(np.random.default_rng(0).random((len(hv), hv.shape[1] - 1)) < 0.2)
    y = hv["party"].to_numpy()
    nb = NaiveBayes().fit(X, y)
    calls = _record_tols(monkeypatch, nb)
    fit = nb.fit_latent_class(X, y, n_components="auto", candidates=(1, 2, 3), search_tol=1e-3, random_state=0)
    assert [c for c, _, _ in calls[:-1]] == list(fit.selection)
    assert all(t == 1e-3 for _, _, t in calls[:-1]) and calls[-1] == (fit.n_components, 3, 1e-6)
    calls.clear()
    fit = latent_class_auto(nb, X, y, random_state=0)  # impute_table's search: one start, 1e-5, then 3 at 1e-6
    assert all((k, t) == (1, 1e-5) for _, k, t in calls[:-1]) and calls[-1] == (fit.n_components, 3, 1e-6)
    calls.clear()
    nb.fit_latent_class(X, y, n_components="auto", candidates=(1, 2), tol=1e-4, random_state=0)
    assert all(t == 1e-4 for _, _, t in calls)  # default: the search at tol
    calls.clear()
    again = latent_class_auto(nb, X, y, random_state=0)  # deterministic given the seed
    assert again.selection == fit.selection and again.n_components == fit.n_components


@pytest.mark.parametrize("bad", [0, 1, -1e-5, True, "1e-5"])
def test_search_tol_refuses_a_bad_value(bad):
    hv = load_house_votes()
    with pytest.raises(ValueError, match="search_tol"):
        NaiveBayes().fit(hv.drop(columns="party"), hv["party"]).fit_latent_class(
            hv.drop(columns="party"), n_components="auto", search_tol=bad)


def test_mvn_fill_draws_no_median_for_the_columns_it_covers(monkeypatch):
    from bayesnb.impute.mvn import fill_mvn, fit_mvn

    X, y = _zero_inflated(seed=3)
    fit = fit_mvn(X, y)
    assert 0 in fit.columns  # the point-mass column is one the multivariate normal fills
    asked = []
    inner = values.median_draws

    def median_draws(*a, **k):
        draws = inner(*a, **k)
        return lambda rows, S: asked.append(rows) or draws(rows, S)

    monkeypatch.setattr("bayesnb.generative.methods.median_draws", median_draws)
    got = fill_mvn(fit, X, y, label_given=True)
    assert not asked  # before: a median for every missing gain cell, then written over
    plain = type(fit.model)._impute

    def every_median(self, X, **kw):  # the base fill with every median, as model.impute computes it
        return plain(self, X, **{**kw, "median_cells": None})

    monkeypatch.setattr(type(fit.model), "_impute", every_median)
    pd.testing.assert_frame_equal(got, fill_mvn(fit, X, y, label_given=True))
    assert asked
