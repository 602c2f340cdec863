"""The imputation's speed-ups keep its results: one shared normaliser in EM's E-step, one start per count
in impute_table's latent-class search, and repeated rows drawn from one set of factors under a structure."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import bayesnb.structure.exact_impute as structure_impute
from bayesnb import NaiveBayes
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.impute.table import latent_class_auto
from bayesnb.inference import em
from bayesnb.inference.nb_posterior import log_marginal, normalise


def _votes(seed=0, p=0.2):
    hv = load_house_votes()
    X = hv.drop(columns="party")
    return X.mask(np.random.default_rng(seed).random(X.shape) < p), hv["party"].to_numpy()


def test_e_step_equals_log_marginal_and_normalise():
    rng = np.random.default_rng(0)
    jll = rng.normal(size=(50, 6)) * 30
    jll[rng.random(jll.shape) < 0.3] = -np.inf  # states a row may not take
    jll[:, 0] = np.where(np.isinf(jll).all(axis=1), 0.0, jll[:, 0])
    ll, resp = em._e_step(jll)
    np.testing.assert_allclose(ll, log_marginal(jll), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(resp, np.exp(normalise(jll, None)))
    jll[3] = -np.inf  # an impossible row: -inf objective, uniform weights, as before
    ll, resp = em._e_step(jll)
    assert ll[3] == -np.inf and np.allclose(resp[3], 1 / 6)
    np.testing.assert_array_equal(resp, np.exp(normalise(jll, None)))


def _record_starts(monkeypatch, model):
    calls = []
    inner = model._latent_em

    def latent_em(encoded, class_part, y_codes, n_components, **opts):
        calls.append((n_components, opts["n_init"]))
        return inner(encoded, class_part, y_codes, n_components, **opts)

    monkeypatch.setattr(model, "_latent_em", latent_em)
    return calls


def test_search_n_init_sets_the_starts_of_the_search_only(monkeypatch):
    X, y = _votes()
    nb = NaiveBayes().fit(X, y)
    calls = _record_starts(monkeypatch, nb)
    fit = nb.fit_latent_class(X, y, n_components="auto", candidates=(1, 2, 3), search_n_init=1, random_state=0)
    searched, final = calls[:-1], calls[-1]
    assert [c for c, _ in searched] == list(fit.selection)
    assert all(k == 1 for _, k in searched) and final == (fit.n_components, 3)
    calls.clear()
    nb.fit_latent_class(X, y, n_components="auto", candidates=(1, 2), random_state=0)
    assert all(k == 3 for _, k in calls)  # default: every fit n_init


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "1"])
def test_search_n_init_refuses_a_bad_value(bad):
    X, y = _votes()
    with pytest.raises(ValueError, match="search_n_init"):
        NaiveBayes().fit(X, y).fit_latent_class(X, y, n_components="auto", search_n_init=bad)


@pytest.mark.parametrize("bad", [0, 1.5, True])
def test_search_n_init_is_checked_before_any_work_whatever_n_components(monkeypatch, bad):
    X, y = _votes()
    nb = NaiveBayes().fit(X, y)
    monkeypatch.setattr(nb, "_check_X", lambda *a, **k: pytest.fail("validated X before search_n_init"))
    for n_components in (2, "auto"):
        with pytest.raises(ValueError, match="search_n_init"):
            nb.fit_latent_class(X, y, n_components=n_components, search_n_init=bad)


def test_latent_class_auto_searches_with_one_start_per_count(monkeypatch):
    X, y = _votes()
    nb = NaiveBayes().fit(X, y)
    calls = _record_starts(monkeypatch, nb)
    fit = latent_class_auto(nb, X, y, random_state=0)
    assert all(k == 1 for _, k in calls[:-1]) and calls[-1] == (fit.n_components, 3)
    calls.clear()
    latent_class_auto(nb, X, y, random_state=0, search_n_init=None)
    assert all(k == 3 for _, k in calls)


@pytest.mark.parametrize("chunk", [None, 50])
def test_structure_draws_of_repeated_rows_equal_the_row_by_row_draws(monkeypatch, chunk):
    pg = load_penguins()
    X = pg.drop(columns="species").mask(np.random.default_rng(0).random((len(pg), pg.shape[1] - 1)) < 0.3)
    model = NaiveBayes(structure="tan").fit(X, pg["species"])
    tiled = X.iloc[np.tile(np.arange(40), 30)].reset_index(drop=True)  # 40 distinct rows, 1,200 draws
    if chunk is not None:  # more rows than a chunk: the distinct rows are drawn in one piece
        monkeypatch.setattr(structure_impute, "_CHUNK", chunk)
    found, distinct = [], structure_impute._distinct_rows

    def spy(data, logw):
        out = distinct(data, logw)
        found.append(None if out is None else (data[1].shape[0], out[0].size))
        return out

    monkeypatch.setattr(structure_impute, "_distinct_rows", spy)
    merged = model.impute(tiled, strategy="draw", random_state=3)
    pieces = [f for f in found if f[0] < 1200 or chunk is None]  # (with a chunk: the pieces drawn)
    assert sum(r for r, _ in pieces) == 1200 and sum(k for _, k in pieces) == 40  # factors of 40 rows, not 1,200
    monkeypatch.setattr(structure_impute, "_distinct_rows", lambda data, logw: None)
    by_row = model.impute(tiled, strategy="draw", random_state=3)
    if chunk is None:
        assert merged.equals(by_row)  # the same uniforms on the same probabilities
    else:  # drawn in another order across chunks: the same law, compared by each column's mean
        num = [c for c in X.columns if X[c].dtype.kind == "f"]
        np.testing.assert_allclose(merged[num].mean(), by_row[num].mean(), rtol=0.05)
    assert not merged.isna().any().any()


def test_structure_draws_merge_copies_beyond_a_chunk_of_distinct_rows(monkeypatch):
    """More distinct rows than a chunk, each repeated as median_draws repeats them (np.tile: copies a
    chunk apart): each piece holds whole copies, at most a chunk of distinct rows, drawn by the same law."""
    pg = load_penguins()
    X = pg.drop(columns="species").mask(np.random.default_rng(1).random((len(pg), pg.shape[1] - 1)) < 0.3)
    model = NaiveBayes(structure="tan").fit(X, pg["species"])
    tiled = X.iloc[np.tile(np.arange(60), 25)].reset_index(drop=True)  # 60 distinct rows, 1,500 draws
    monkeypatch.setattr(structure_impute, "_CHUNK", 16)
    found, distinct = [], structure_impute._distinct_rows

    def spy(data, logw):
        out = distinct(data, logw)
        found.append((data[1].shape[0], out[0].size))
        return out

    monkeypatch.setattr(structure_impute, "_distinct_rows", spy)
    merged = model.impute(tiled, strategy="draw", random_state=3)
    assert all(k <= 16 for _, k in found)  # bounded: no key or factors of all the rows at once
    assert sum(r for r, _ in found) == 1500 and sum(k for _, k in found) == 60  # each distinct row once
    monkeypatch.setattr(structure_impute, "_distinct_rows", lambda data, logw: None)
    by_row = model.impute(tiled, strategy="draw", random_state=3)
    num = [c for c in X.columns if X[c].dtype.kind == "f"]
    np.testing.assert_allclose(merged[num].mean(), by_row[num].mean(), rtol=0.05)
    for c in X.columns:  # the observed cells kept, every cell filled
        seen = tiled[c].notna()
        assert merged.loc[seen, c].equals(tiled.loc[seen, c]) and merged[c].notna().all()


def test_batch_positions_equal_isin_on_the_sorted_rows():
    rng = np.random.default_rng(0)
    for _ in range(50):
        src = np.sort(rng.integers(0, 30, size=rng.integers(0, 200)))
        r = np.unique(rng.integers(0, 35, size=rng.integers(1, 20)))
        pos, pick = structure_impute._batch_positions(src, r)
        np.testing.assert_array_equal(pos, np.flatnonzero(np.isin(src, r)))
        np.testing.assert_array_equal(r[pick], src[pos])


def _kdb_draws(monkeypatch, rows, copies, merge):
    """``copies`` draws of each of ``rows`` (votes with missing cells) under k-DB (k=2) at the plug-in
    parameters, merged per distinct row (``_draw_enumerate(rows=)``) or row by row."""
    X, y = _votes(seed=2, p=0.3)
    model = NaiveBayes(structure="kdb", k=2).fit(X, y)
    X = _shared_pattern(X, rows)
    tiled = X.iloc[np.tile(rows, copies)].reset_index(drop=True)
    calls, inner = [], structure_impute._draw_enumerate

    def spy(*args, **kw):
        calls.append(inspect.signature(inner).bind(*args, **kw).arguments.get("rows") is not None)
        return inner(*args, **kw)

    monkeypatch.setattr(structure_impute, "_draw_enumerate", spy)
    if not merge:
        monkeypatch.setattr(structure_impute, "_distinct_rows", lambda data, logw: None)
    out = model.impute(tiled, strategy="draw", parameter_uncertainty=False, random_state=5 if merge else 6)
    monkeypatch.undo()
    return X, out, calls


def _shared_pattern(X, rows):
    """``X`` with its first four columns also missing in the first four of ``rows`` (one missing pattern
    shared by several source rows: one enumeration batch holding several of them)."""
    X = X.copy()
    X.iloc[rows[:4], :4] = np.nan
    return X


def _joint_chi2_p(a, b, min_count=10):
    """Chi-squared p-value of two samples of a row's joint missing cells (rows of ``a``, ``b``) having one
    law; joint states seen fewer than ``min_count`` times together are pooled."""
    from scipy.stats import chi2_contingency
    ka, kb = ["|".join(map(str, r)) for r in a], ["|".join(map(str, r)) for r in b]
    cats, counts = np.unique(ka + kb, return_counts=True)
    big = set(cats[counts >= min_count])
    table = np.array([[sum(k == c for k in ks) for c in sorted(big)] + [sum(k not in big for k in ks)]
                      for ks in (ka, kb)])
    table = table[:, table.sum(axis=0) > 0]
    return chi2_contingency(table)[1] if table.shape[1] > 1 else 1.0


def test_kdb_merged_draws_follow_the_row_by_row_law_per_source_row(monkeypatch):
    X, _ = _votes(seed=2, p=0.3)
    rows = np.flatnonzero(X.iloc[:, 4:].isna().sum(axis=1) == 0)[:4]  # rows sharing one missing pattern
    rows = np.r_[rows, np.flatnonzero(X.isna().sum(axis=1) >= 3)[:4]]  # and rows with their own
    X = _shared_pattern(X, rows)
    copies = 400
    _, merged, calls = _kdb_draws(monkeypatch, rows, copies, merge=True)
    assert calls and all(calls)  # the merged enumeration (rows=) drew them
    _, by_row, calls = _kdb_draws(monkeypatch, rows, copies, merge=False)
    assert calls and not any(calls)
    src = np.tile(np.arange(rows.size), copies)
    shared = X.columns[:4]
    assert X.iloc[rows[:2]][shared].isna().all().all()  # (two source rows in one enumeration batch)
    for i, row in enumerate(rows):  # each source row's joint missing cells: one law
        cols = X.columns[X.iloc[row].isna().to_numpy()]
        p = _joint_chi2_p(merged.loc[src == i, cols].to_numpy(), by_row.loc[src == i, cols].to_numpy())
        assert p > 0.01, (row, p)
    # negative control: the same test tells apart two source rows of one missing pattern
    a, b = merged.loc[src == 0, shared].to_numpy(), by_row.loc[src == 1, shared].to_numpy()
    assert _joint_chi2_p(a, b) < 0.01
