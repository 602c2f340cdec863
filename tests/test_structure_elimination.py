"""Variable elimination (bayesnb/structure/elimination.py): k-DB rows with many missing cells.

The enumeration of a row's missing cells costs the product of their state counts, and was
refused beyond 2**18 joint states (a mushroom row with 8 missing cells). Beyond
``ENUMERATE_UP_TO`` joint states the missing cells are now summed out one at a time. Checked
here: it equals the enumeration (scores, class posteriors, imputations), its draws follow the
exact conditional, it answers rows the enumeration could not, and it is refused, with a message
that says why, only when an intermediate factor would exceed ``MAX_FACTOR``.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb
from bayesnb.structure import elimination as VE
from bayesnb.structure import engine as MX

ENUMERATE = 2**18  # ENUMERATE_UP_TO at which every pattern below is enumerated (the reference)


def _table(seed=0, n=400, d=10, V=4, numeric=0, missing=0.0):
    """A chain-dependent categorical table (each column copies the previous with probability 0.6), with
    ``numeric`` numeric columns driven by the first two, and cells missing at random."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    cols = [np.where(rng.random(n) < 0.7, y * 2 + rng.integers(0, 2, n), rng.integers(0, V, n))]
    for _ in range(d - 1):
        cols.append(np.where(rng.random(n) < 0.6, cols[-1], rng.integers(0, V, n)))
    X = pd.DataFrame({f"c{j}": pd.Series(np.array(list("abcdefgh"))[c], dtype=object) for j, c in enumerate(cols)})
    for j in range(numeric):
        X[f"x{j}"] = cols[j] * 1.5 + cols[j + 1] + rng.normal(0, 0.7, n)
    if missing:
        X = X.mask(rng.random(X.shape) < missing)
    return X, y


def _rows(X, seed, share):
    return X.mask(np.random.default_rng(seed).random(X.shape) < share)


@pytest.mark.parametrize("k, numeric", [(2, 0), (3, 0), (2, 2)])
def test_elimination_equals_enumeration(monkeypatch, k, numeric):
    X, y = _table(k, numeric=numeric, missing=0.05)
    m = bayesnb.NaiveBayes(structure="kdb", k=k).fit(X, y)
    assert max(len(p) for p in m.structure_.values()) >= 2  # not a forest: enumeration or elimination
    Xt = _rows(X.iloc[:80], 1, 0.5)
    Xt.iloc[:5, 0] = "zz"  # an unseen category: scored with its prior mass, its state summed out
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", ENUMERATE)
    ref = (m.predict_proba(Xt), m.score_samples(Xt), m.impute(Xt.iloc[5:]))
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)  # every pattern with a missing cell: elimination
    got = (m.predict_proba(Xt), m.score_samples(Xt), m.impute(Xt.iloc[5:]))
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-10)
    pd.testing.assert_frame_equal(got[2], ref[2], check_exact=False, rtol=1e-9)


def test_rows_beyond_the_old_enumeration_limit_are_answered_and_consistent():
    """12 missing cells of 6 states (2.2 billion joint states): refused before, now exact. The score of the
    row is the sum over one missing cell's values of the scores with that cell filled in."""
    X, y = _table(3, n=600, d=16, V=6)
    m = bayesnb.NaiveBayes(structure="kdb", k=3).fit(X, y)
    row = X.iloc[[0]].copy()
    hidden = list(X.columns[2:14])
    row[hidden] = None
    p = m.predict_proba(row)
    assert np.all(np.isfinite(p)) and np.isclose(p.sum(), 1.0)
    base = m.score_samples(row)[0]
    cell = hidden[3]
    filled = [m.score_samples(row.assign(**{cell: v}))[0] for v in sorted(X[cell].unique())]
    np.testing.assert_allclose(np.logaddexp.reduce(filled), base, rtol=1e-10)
    filled_row = m.impute(row)
    assert filled_row.notna().all().all() and set(filled_row[hidden].iloc[0]) <= set(X[hidden].stack())


def test_draws_by_elimination_follow_the_exact_conditional(monkeypatch):
    """Rows drawn given a row's observed cells (its other cells missing, every draw by elimination),
    against the exact joint conditional of two missing cells, ``p(a, b | x_obs) = exp(score(row with
    a, b) - score(row))`` (the plug-in predictive: ``parameter_uncertainty=False``)."""
    X, y = _table(5, n=500, d=8, V=3)
    m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    row = X.iloc[[1]].copy()
    row[["c2", "c3", "c4", "c6"]] = None
    given = {c: row[c].iloc[0] for c in ("c0", "c1", "c5", "c7")}
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)
    n = 3000
    draws, _ = m.sample(n, given=given, parameter_uncertainty=False, random_state=0)
    keys = [(a, b) for a in sorted(X["c3"].unique()) for b in sorted(X["c6"].unique())]
    want = np.exp([m.score_samples(row.assign(c3=a, c6=b))[0] for a, b in keys] - m.score_samples(row)[0])
    assert np.isclose(want.sum(), 1.0)
    obs = np.array([np.sum((draws["c3"] == a) & (draws["c6"] == b)) for a, b in keys])
    rare = want * n < 5  # pooled into one cell
    res = stats.chisquare(np.append(obs[~rare], obs[rare].sum()), n * np.append(want[~rare], want[rare].sum()))
    assert res.pvalue > 1e-4, (obs, n * want)
    # imputation draws (at one posterior draw of the parameters): the same by elimination as by enumeration
    rows = pd.concat([row] * n, ignore_index=True)
    counts = []
    for limit in (1, ENUMERATE):
        monkeypatch.setattr(VE, "ENUMERATE_UP_TO", limit)
        d = m.impute(rows, strategy="draw", random_state=0)  # one parameter draw for the table: the same in both
        counts.append([np.sum((d["c3"] == a) & (d["c6"] == b)) for a, b in keys])
    counts = np.array(counts)
    counts = counts[:, counts.sum(axis=0) >= 10]
    assert stats.chi2_contingency(counts).pvalue > 1e-4, counts
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)
    many = m.impute(row, strategy="draw", n_imputations=3, random_state=1)
    assert len(many) == 3 and all(t.notna().all().all() for t in many)


def test_sample_given_a_leaf_draws_its_ancestors_by_elimination(monkeypatch):
    X, y = _table(7, n=400, d=8, V=3)
    m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    leaf = max(m.structure_, key=lambda c: (len(m.structure_[c]), c))
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)
    Xs, ys = m.sample(2000, given={leaf: "b"}, parameter_uncertainty=False, random_state=0)
    assert (Xs[leaf] == "b").all() and Xs.notna().all().all()
    row = pd.DataFrame({c: [None] for c in X.columns}, dtype=object).assign(**{leaf: "b"})
    p1 = m.predict_proba(row)[0, 1]
    assert abs(np.mean(ys == m.classes_[1]) - p1) < 4 * np.sqrt(p1 * (1 - p1) / 2000)


def test_beyond_the_factor_limit_rows_are_enumerated_within_its_limit_else_refused(monkeypatch):
    """A factor counts the classes too (32 under predict_proba_draws), so a pattern elimination refuses may
    still be enumerable: then it is enumerated, as before elimination existed; beyond both limits, refused."""
    X, y = _table(2, n=300, d=8, V=4)
    m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    row = X.iloc[[0]].copy()
    row[list(X.columns[:6])] = None
    calls = (m.predict_proba, m.impute, lambda r: m.impute(r, strategy="draw", random_state=0),
             lambda r: m.predict_proba_draws(r, n_draws=20, random_state=0))
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", ENUMERATE)
    want = [call(row) for call in calls]
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)
    monkeypatch.setattr(VE, "MAX_FACTOR", 3)
    got = [call(row) for call in calls]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    pd.testing.assert_frame_equal(got[1], want[1])
    assert got[2].notna().all().all()
    np.testing.assert_allclose(got[3], want[3], rtol=1e-12)
    monkeypatch.setattr(MX, "MAX_ENUMERATION", 3)
    for call in calls:
        with pytest.raises(ValueError, match="variable elimination.*structure='tan'"):
            call(row)


def test_many_rows_of_one_pattern_in_small_batches(monkeypatch):
    """Rows sharing one missing pattern, split into many batches: scores and fills equal the enumeration's,
    and draws given per-row values follow each row's own conditional."""
    X, y = _table(4, n=500, d=8, V=3)
    m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    rows = X.iloc[:90].copy()
    rows[["c1", "c2", "c3", "c4", "c5", "c6"]] = None  # one pattern: c0 and c7 observed
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", ENUMERATE)
    want = (m.predict_proba(rows), m.impute(rows))
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)
    monkeypatch.setattr(VE, "_BATCH_ENTRIES", 200)  # a few rows per batch
    np.testing.assert_allclose(m.predict_proba(rows), want[0], rtol=1e-12)
    pd.testing.assert_frame_equal(m.impute(rows), want[1])
    # rows drawn given eight different conditions, interleaved, a few data rows per batch: each follows its own
    monkeypatch.setattr(VE, "_BATCH_ENTRIES", 450)  # 3 of the 8 data rows per batch
    conditions = [(c0, c7) for c0 in "abcd" for c7 in "ac"]
    n = 300
    given = {"c0": [c[0] for c in conditions] * n, "c7": [c[1] for c in conditions] * n}
    draws, _ = m.sample(given=given, parameter_uncertainty=False, random_state=0)
    values = sorted(X["c3"].unique())
    for i, (c0, c7) in enumerate(conditions):
        row = pd.DataFrame({c: [None] for c in X.columns}, dtype=object).assign(c0=c0, c7=c7)
        want = np.exp([m.score_samples(row.assign(c3=v))[0] for v in values] - m.score_samples(row)[0])
        obs = np.array([np.sum(draws["c3"].iloc[i::len(conditions)] == v) for v in values])
        assert stats.chisquare(obs, n * want / want.sum()).pvalue > 1e-4, (c0, c7, obs, n * want)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_a_column_never_observed_in_training_is_left_missing_as_naive_leaves_it(structure, monkeypatch):
    """Such a column has no state; imputing under a structure crashed (k-DB: ZeroDivisionError) or refused every
    row (TAN). Now its cells stay missing, as the naive model leaves them, and the other cells are filled as
    without the column, by enumeration and by elimination alike."""
    X, y = _table(3, n=400, d=6, V=3)
    Xn = X.assign(never=pd.Series([None] * len(X), dtype=object))
    with_col = bayesnb.NaiveBayes(structure=structure, k=2).fit(Xn, y)
    without = bayesnb.NaiveBayes(structure=structure, k=2).fit(X, y)
    assert with_col.structure_["never"] == () and all("never" not in p for p in with_col.structure_.values())
    rows = _rows(Xn.iloc[:40], 2, 0.5)
    for limit in (ENUMERATE, 1):
        monkeypatch.setattr(VE, "ENUMERATE_UP_TO", limit)
        got = with_col.impute(rows)
        assert got["never"].isna().all()
        pd.testing.assert_frame_equal(got.drop(columns="never"), without.impute(rows.drop(columns="never")))
        drawn = with_col.impute(rows, strategy="draw", random_state=0)
        assert drawn["never"].isna().all() and drawn.drop(columns="never").notna().all().all()
        np.testing.assert_allclose(with_col.predict_proba(rows), without.predict_proba(rows.drop(columns="never")),
                                   rtol=1e-10)


def test_wide_factors_are_imputed_a_few_rows_at_a_time_with_the_same_fills(monkeypatch):
    """The rows imputed at a time shrink with the nodes' factor sizes (benchmarks/bench_kdb_elimination.py measures
    the memory); the fills are the same as with all rows at once, and draws fill every cell."""
    from bayesnb.structure import exact_impute as EI
    X, y = _table(6, n=300, d=8, V=4)
    m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    rows = _rows(X, 3, 0.4)
    want = m.impute(rows)
    assert EI._rows_per_chunk(m._mixed) == EI._CHUNK  # small factors: the usual chunk
    monkeypatch.setattr(EI, "_FACTOR_BUDGET", 2000)
    assert EI._rows_per_chunk(m._mixed) < 30  # a few rows a chunk
    pd.testing.assert_frame_equal(m.impute(rows), want)
    drawn = m.impute(rows, strategy="draw", random_state=0)
    assert drawn.notna().all().all() and (drawn[rows.notna()] == rows[rows.notna()]).sum().sum() == rows.notna().sum().sum()
