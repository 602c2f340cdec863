"""Imputed cells take only values their column takes (issue 27): codes, point masses, categories.

A property test over generated tables (a coded integer column, a column with a point mass, a
categorical column) for every imputation path, then the three symptoms of the issue on generated
tables, and the record's own rules (:mod:`bayesnb.generative.values`).
"""

from __future__ import annotations

import os
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayesnb
from bayesnb import Gaussian, NaiveBayes, impute_table
from bayesnb.generative.support_records import support_from_dict, support_to_dict
from bayesnb.generative.values import MAX_CODES, ColumnSupport, column_supports, merge_supports, project


def _table(rng, n, codes, mass, mass_share, missing):
    """Two classes; ``code`` among ``codes`` (depends on the class and on ``edu``), ``amount`` = ``mass``
    with probability ``mass_share`` else a log-normal amount above it, ``cat`` a category."""
    y = rng.integers(0, 2, n)
    edu = rng.integers(0, 4, n) + 2 * y
    codes = np.asarray(codes, dtype=float)
    code = codes[np.clip(edu + rng.integers(-1, 2, n), 0, codes.size - 1)]
    amount = np.where(rng.random(n) < mass_share, mass, mass + np.round(np.exp(rng.normal(3 + y, 1, n)), 2) + 0.01)
    cat = np.where(rng.random(n) < 0.7, np.array(["a", "b"])[y], rng.choice(["a", "b", "c"], n))
    X = pd.DataFrame({"edu": edu.astype(float), "code": code, "amount": amount, "cat": cat,
                      "g": rng.normal(y * 2.0, 1.0, n)})
    M = rng.random(X.shape) < missing
    out = X.copy()
    for j, c in enumerate(X.columns):
        out.loc[M[:, j], c] = None if c == "cat" else np.nan
    return out, y


def _takes(X, T, column):
    """Whether every imputed cell of ``column`` in ``T`` is a value the column takes in ``X``."""
    miss = X[column].isna().to_numpy()
    obs = X[column].dropna()
    vals = T[column].to_numpy()[miss]
    if column == "cat":
        return set(vals) <= set(obs)
    s = column_supports(X[[column]])[0]
    if s.values is not None:
        return set(np.asarray(vals, dtype=float)) <= set(s.values)
    v = np.asarray(vals, dtype=float)
    inside = (v >= s.lo) & (v <= s.hi) & ((not s.integer) | (v == np.round(v)))
    return bool(np.all(inside | np.isin(v, s.masses)))


@st.composite
def tables(draw):
    k = draw(st.integers(2, 9))
    start = draw(st.integers(-5, 20))
    steps = draw(st.lists(st.integers(1, 25), min_size=k - 1, max_size=k - 1))
    codes = np.cumsum([start, *steps])
    mass = draw(st.sampled_from([0.0, -1.0, 5.0]))
    share = draw(st.floats(0.3, 0.9))
    seed = draw(st.integers(0, 2**16))
    return _table(np.random.default_rng(seed), 240, codes, mass, share, missing=0.2)


@settings(max_examples=12, deadline=None)
@given(data=tables())
def test_every_imputed_cell_is_a_value_its_column_takes(data):
    X, y = data
    cols = ("code", "amount", "cat")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        naive = NaiveBayes().fit(X, y)
        tan = NaiveBayes(structure="tan").fit(X, y)
        outs = {"naive": naive.impute(X), "naive+y": naive.impute(X, y=y), "mode": naive.impute(X, strategy="mode"),
                "tan": tan.impute(X), "tan+y": tan.impute(X, y=y),
                "table": impute_table(X, y, configurations=("naive", "mvn"), random_state=0).table}
        for i, t in enumerate(naive.impute(X, strategy="draw", n_imputations=3, random_state=1)):
            outs[f"draw{i}"] = t
        for i, t in enumerate(tan.impute(X, strategy="draw", n_imputations=3, random_state=1)):
            outs[f"tan draw{i}"] = t
    bad = [(name, c) for name, T in outs.items() for c in cols if not _takes(X, T, c)]
    assert not bad, bad


# ------------------------------------------------------------------------- the three symptoms
def _symptoms(codes=(10, 20, 30, 40, 50, 75, 100), seed=0):
    """A 7-code income (depends on the label and on edu) and a debt column that is 82% zeros."""
    rng = np.random.default_rng(seed)
    n = 1200
    y = rng.integers(0, 2, n)
    edu = rng.integers(0, 5, n) + 2 * y
    income = np.asarray(codes, dtype=float)[np.clip(edu + rng.integers(-1, 2, n), 0, len(codes) - 1)]
    debt = np.where(rng.random(n) < 0.82, 0.0, np.round(np.exp(rng.normal(8 + y, 1, n)), 2))
    X = pd.DataFrame({"edu": edu.astype(float), "income": income, "debt": debt, "hours": rng.normal(38 + 4 * y, 6, n)})
    return X.mask(rng.random(X.shape) < 0.15), y


@pytest.fixture(scope="module")
def symptoms():
    X, y = _symptoms()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return X, y, NaiveBayes().fit(X, y), NaiveBayes(structure="tan").fit(X, y)


def _imputed(X, T, c):
    return T[c].to_numpy()[X[c].isna().to_numpy()]


def test_a_coded_column_gets_its_codes(symptoms):
    X, y, naive, tan = symptoms
    codes = set(X["income"].dropna())
    assert len(codes) == 7
    gauss = NaiveBayes(features=dict.fromkeys(X.columns, Gaussian())).fit(X, y)
    for T in (naive.impute(X), tan.impute(X), gauss.impute(X), naive.impute(X, strategy="mode"),
              naive.impute(X, n_components=2, random_state=0), tan.impute(X, n_components=2, random_state=0),
              impute_table(X, y, configurations=("naive", "tan", "mvn"), random_state=0).table):
        v = _imputed(X, T, "income")
        assert v.size > 100 and set(v) <= codes
    # the conditional mean is still there when asked for: it is mostly not a code
    assert np.mean(np.isin(_imputed(X, gauss.impute(X, strategy="mean"), "income"), list(codes))) < 0.1


def test_a_zero_inflated_column_gets_zeros(symptoms):
    X, y, naive, tan = symptoms
    assert 0.78 < np.mean(X["debt"].dropna() == 0) < 0.86
    for T in (naive.impute(X), tan.impute(X), impute_table(X, y, configurations=("naive", "mvn"),
                                                           random_state=0).table):
        v = _imputed(X, T, "debt")
        assert np.mean(v == 0) > 0.5
        assert np.all((v == 0) | (v >= X["debt"][X["debt"] > 0].min()))
    drawn = np.concatenate([_imputed(X, T, "debt") for T in naive.impute(X, strategy="draw", n_imputations=3,
                                                                           random_state=0)])
    assert 0.7 < np.mean(drawn == 0) < 0.95  # draws keep the mass and the amounts
    # where the mass holds less than half of the conditional probability, the median is an amount
    rng = np.random.default_rng(1)
    z = rng.integers(0, 2, 600)
    debt = np.where(rng.random(600) < np.where(z == 0, 0.97, 0.3), 0.0, np.round(np.exp(rng.normal(7, 0.5, 600)), 2))
    D = pd.DataFrame({"z": np.where(rng.random(600) < 0.95, z, 1 - z).astype(str), "debt": debt})
    D.loc[::10, "debt"] = np.nan
    fill = _imputed(D, NaiveBayes().fit(D, z).impute(D), "debt")
    assert np.all(fill[D["z"].to_numpy()[D["debt"].isna()] == "0"] == 0)
    assert np.all(fill[D["z"].to_numpy()[D["debt"].isna()] == "1"] >= debt[debt > 0].min())


def test_a_column_mostly_off_its_masses_gets_the_value_nearest_its_mean():
    # 20% zeros: a point mass, but the column's cells are mostly amounts, so its "auto" fill is the
    # conditional mean kept on the values it takes (the squared-loss action), not the median, and
    # impute_table scores the column by squared error; at 82% zeros (debt, above) the median stays.
    from bayesnb.generative.values import median_filled
    from bayesnb.impute.configs import loss_kinds

    rng = np.random.default_rng(2)
    n = 800
    y = rng.integers(0, 2, n)
    amount = np.where(rng.random(n) < 0.2, 0.0, np.round(np.exp(rng.normal(3 + y, 0.7, n)), 2))
    X = pd.DataFrame({"amount": amount, "g": rng.normal(2.0 * y, 1.0, n)})
    X.loc[::7, "amount"] = np.nan
    support = column_supports(X)[0]
    assert list(support.masses) == [0.0] and not median_filled(support)
    debt = column_supports(_symptoms()[0][["debt"]])[0]
    assert median_filled(debt) and not median_filled(None)
    model = NaiveBayes().fit(X, y)
    auto, mean = model.impute(X), model.impute(X, strategy="mean")
    miss = X["amount"].isna().to_numpy()
    np.testing.assert_array_equal(auto["amount"].to_numpy()[miss], project(mean["amount"].to_numpy()[miss], support))
    assert np.all(auto["amount"].to_numpy()[miss] > 0)  # the mean of 20% zeros and amounts: an amount
    assert loss_kinds(X) == ["squared", "squared"]
    assert loss_kinds(_symptoms()[0])[2] == "absolute"


def test_a_coded_column_mostly_one_value_gets_its_median():
    # 14 distinct counts and 97% zeros: a coded column. The code nearest its conditional mean is a count
    # few rows have (12.03 here, before), so such a column (more than two codes, one holding half the
    # cells) is filled by its conditional median, 0; with two codes the median is the code nearest the mean.
    from bayesnb.generative.values import median_filled
    from bayesnb.impute.configs import loss_kinds

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"rare": np.where(rng.random(n) < 0.97, 0.0, np.round(rng.exponential(100, n), 2)),
                      "g": rng.normal(size=n), "flag": (rng.random(n) < 0.3).astype(float)})
    y = rng.integers(0, 2, n)
    Xm = X.mask(rng.random(X.shape) < 0.2)
    supports = column_supports(Xm)
    assert supports[0].values is not None and supports[0].values.size > 2 and median_filled(supports[0])
    assert supports[2].values.size == 2 and not median_filled(supports[2])
    assert loss_kinds(Xm) == ["absolute", "squared", "squared"]
    fill = NaiveBayes().fit(Xm, y).impute(Xm)
    assert np.all(fill["rare"].to_numpy()[Xm["rare"].isna().to_numpy()] == 0)
    assert np.all(impute_table(Xm, y, random_state=0).table["rare"].to_numpy()[Xm["rare"].isna().to_numpy()] == 0)


def test_a_semi_supervised_fit_records_the_values_of_every_row():
    # 12 labelled rows, 400 unlabelled: the values a column takes are read from all of them (at the EM's
    # row weights), not from the labelled rows alone, where a 30-value column looks coded (12 values) and
    # its range is narrower than the column's
    rng = np.random.default_rng(3)
    n = 412
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"score": rng.integers(0, 30, n).astype(float) + 3.0 * y, "g": rng.normal(y, 1.0, n)})
    labels = np.where(np.arange(n) < 12, y, -1)
    model = NaiveBayes().fit_semi_supervised(X, labels, unlabeled=-1)
    assert support_to_dict(model.value_support_) == support_to_dict(column_supports(X))
    assert model.value_support_[0].values is None  # 33 distinct values: not coded
    half = NaiveBayes().fit_semi_supervised(X, labels, unlabeled=-1, unlabeled_weight=0.5)
    w = np.where(np.arange(n) < 12, 1.0, 0.5)
    assert support_to_dict(half.value_support_) == support_to_dict(column_supports(X, w))


def test_labelled_fills_are_codes_and_vary_with_the_observed_cells(symptoms):
    X, y, naive, tan = symptoms
    codes = set(X["income"].dropna())
    v = _imputed(X, naive.impute(X, y=y), "income")
    assert set(v) <= codes  # naive given the label: a function of the label only, but codes
    for T in (tan.impute(X, y=y),
              impute_table(X, y, configurations=("naive", "tan"), label_given=True, random_state=0).table):
        v = _imputed(X, T, "income")
        assert set(v) <= codes and len(set(v)) > 2


def test_auto_fills_are_deterministic_and_mean_is_unchanged(symptoms):
    X, _, naive, _ = symptoms
    pd.testing.assert_frame_equal(naive.impute(X, random_state=1), naive.impute(X, random_state=2))
    free = NaiveBayes().fit(X, np.zeros(len(X)))
    del free.value_support_  # a model without a record (an old file) imputes as before
    pd.testing.assert_frame_equal(free.impute(X, strategy="mean"),
                                  NaiveBayes().fit(X, np.zeros(len(X))).impute(X, strategy="mean"))


# ------------------------------------------------------------------------------ the record
def test_support_rules():
    x = np.r_[np.zeros(80), np.linspace(3.5, 90.0, 40), [np.nan] * 5]
    s = column_supports(pd.DataFrame({"a": x, "c": ["u"] * 125}))
    assert set(s) == {0} and s[0].values is None and s[0].masses.tolist() == [0.0]
    assert (s[0].lo, s[0].hi, s[0].n) == (3.5, 90.0, 120)
    np.testing.assert_array_equal(project([-4.0, 1.0, 2.0, 50.2, 1e6, np.nan], s[0]),
                                  [0.0, 0.0, 3.5, 50.2, 90.0, np.nan])
    coded = column_supports(np.array([[1.0], [4.0], [9.0], [np.nan]]))[0]
    np.testing.assert_array_equal(project([2.4, 2.5, 2.6, 100.0], coded), [1.0, 1.0, 4.0, 9.0])
    many = column_supports(np.arange(MAX_CODES + 1.0)[:, None])[0]
    assert many.values is None and many.integer and project([3.4], many)[0] == 3.0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(MAX_CODES + 1, 3000), st.lists(st.floats(0.0, 0.35), max_size=5))
def test_the_unweighted_record_without_a_value_count_is_the_counted_one(seed, n, shares):
    """The record of a column of many values, made from its sorted cells at a few ranks, equals the one
    from counting every distinct value (point masses of any share near the 10% rule, ties, few rows)."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n) * rng.choice([1.0, 100.0]), int(rng.integers(0, 3)))
    start = 0
    for k, share in enumerate(shares):  # runs of a repeated value, some just under or over the rule
        m = int(round(share * n))
        x[start:start + m] = float(k) - 2.0
        start += m
    rng.shuffle(x)
    vals, counts = np.unique(x, return_counts=True)
    if vals.size <= MAX_CODES:
        return
    heavy = np.flatnonzero(counts >= 0.1 * n)
    heavy = np.sort(heavy[np.argsort(-counts[heavy], kind="stable")][:3])
    rest = np.delete(vals, heavy)
    got = column_supports(x[:, None])[0]
    assert got.values is None and int(got.n) == n and got.integer == bool(np.all(vals == np.round(vals)))
    np.testing.assert_array_equal(got.masses, vals[heavy])
    np.testing.assert_array_equal(got.counts, counts[heavy])
    assert (got.lo, got.hi) == (rest[0], rest[-1])


def _counted(x):
    """The record of one column by the counting rule itself: every distinct finite value counted."""
    x = x[np.isfinite(x)]
    if not x.size:
        return None
    vals, counts = np.unique(x, return_counts=True)
    integer = bool(np.all(vals == np.round(vals)))
    if vals.size <= MAX_CODES:
        return ColumnSupport(vals, counts, np.zeros(0), vals[0], vals[-1], integer, x.size)
    heavy = np.flatnonzero(counts >= 0.1 * x.size)
    heavy = np.sort(heavy[np.argsort(-counts[heavy], kind="stable")][:3])
    rest = np.delete(vals, heavy)
    return ColumnSupport(None, counts[heavy], vals[heavy], rest[0], rest[-1], integer, x.size)


@st.composite
def _wide_tables(draw):
    """Several numeric columns of the kinds a fit meets (measurements, codes, whole numbers, a point mass
    just under or over the 10% rule, signed zeros, missing and infinite cells) in one of five layouts."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d = draw(st.integers(1, 2500)), draw(st.integers(1, 6))
    cols = []
    for kind in draw(st.lists(st.integers(0, 6), min_size=d, max_size=d)):
        x = [rng.normal(size=n), rng.integers(0, 5, n) * 1.0, rng.integers(-900, 900, n) * 1.0,
             np.where(rng.random(n) < rng.uniform(0.08, 0.12), 3.5, rng.normal(size=n)),
             np.where(rng.random(n) < 0.3, -0.0, rng.normal(size=n)) * np.where(rng.random(n) < 0.5, 1.0, -1.0),
             np.round(rng.normal(size=n) * 100, 1), np.full(n, np.nan)][kind]
        x[rng.random(n) < draw(st.sampled_from([0.0, 0.1, 0.95]))] = np.nan
        if draw(st.booleans()):
            x[rng.integers(0, n)] = np.inf
        cols.append(x)
    X = np.column_stack(cols)
    layout = draw(st.sampled_from(["C", "F", "float32", "DataFrame", "unaligned"]))
    if layout == "F":
        return np.asfortranarray(X)
    if layout == "float32":
        return X.astype(np.float32)
    if layout == "DataFrame":
        return pd.DataFrame(X, columns=[f"c{j}" for j in range(d)])
    if layout == "unaligned":
        raw = np.empty(X.size * 8 + 1, dtype=np.uint8)
        U = np.frombuffer(raw[1:].data, dtype=np.float64).reshape(X.shape)
        U[...] = X
        return U
    return X


@settings(max_examples=80, deadline=None)
@given(_wide_tables())
def test_the_records_read_in_one_pass_are_the_counted_ones(X):
    """The records of a float table read once, every column at a time (a column with no point mass decided by
    its hash histogram), equal the counting rule column by column, in every layout; so do the zero links."""
    from bayesnb.generative.zero_links import zero_links

    A = np.asarray(X)
    got = column_supports(X)
    for j in range(A.shape[1]):
        want = _counted(A[:, j].astype(float))
        if want is None:
            assert j not in got
            continue
        s = got[j]
        assert (s.values is None) == (want.values is None)
        if s.values is not None:
            np.testing.assert_array_equal(s.values, want.values)
        np.testing.assert_array_equal(s.masses, want.masses)
        np.testing.assert_array_equal(s.counts, want.counts)
        assert (s.lo, s.hi, s.integer, s.n) == (want.lo, want.hi, want.integer, want.n)
    assert zero_links(X) == zero_links(pd.DataFrame(A.astype(float)).astype(object))  # the column-by-column count


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 2500), st.lists(st.integers(0, 4), min_size=1, max_size=5),
       st.sampled_from(["int64", "int32", "F", "DataFrame"]))
def test_the_records_of_integer_tables_are_the_counted_ones(seed, n, kinds, layout):
    """Integer tables (codes, counts, a wide range, a zero-inflated range) are read in one pass too, their
    narrow columns' values counted exactly: the records equal the counting rule."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([[rng.integers(0, 5, n), rng.poisson(2.0, n), rng.integers(-10**6, 10**6, n),
                          np.where(rng.random(n) < rng.uniform(0.05, 0.3), 0, rng.integers(-3000, 3000, n)),
                          np.where(rng.random(n) < 0.1, 7, rng.integers(0, 5000, n))][k] for k in kinds])
    X = {"int64": X, "int32": X.astype(np.int32), "F": np.asfortranarray(X), "DataFrame": pd.DataFrame(X)}[layout]
    got, A = column_supports(X), np.asarray(X)
    assert set(got) == set(range(A.shape[1]))
    for j, s in got.items():
        want = _counted(A[:, j].astype(float))
        assert (s.values is None) == (want.values is None)
        if s.values is not None:
            np.testing.assert_array_equal(s.values, want.values)
        np.testing.assert_array_equal(s.masses, want.masses)
        np.testing.assert_array_equal(s.counts, want.counts)
        assert (s.lo, s.hi, s.integer, s.n) == (want.lo, want.hi, want.integer, want.n)


def test_partial_fit_merges_the_record():
    a = column_supports(np.array([[1.0], [2.0], [2.0]]))
    b = column_supports(np.array([[3.0], [np.nan]]))
    m = merge_supports(a, b)[0]
    assert m.values.tolist() == [1.0, 2.0, 3.0] and m.counts.tolist() == [1, 2, 1] and m.n == 4
    X = pd.DataFrame({"a": [1.0, 2.0, 2.0, 3.0, 5.0, 5.0]})
    est = NaiveBayes(features={"a": Gaussian()}).partial_fit(X.iloc[:3], [0, 1, 0], classes=[0, 1])
    est.partial_fit(X.iloc[3:], [1, 0, 1])
    assert est.value_support_[0].values.tolist() == [1.0, 2.0, 3.0, 5.0]


def test_private_and_joint_blocks_record_nothing(symptoms):
    X, y, _, _ = symptoms
    bounds = {"edu": (0, 10), "income": (0, 100), "debt": (0, 1e5), "hours": (0, 100)}
    dp = NaiveBayes(features=dict.fromkeys(X.columns, Gaussian()),
                    privacy=bayesnb.DP(epsilon=1.0, bounds=bounds, classes=[0, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not hasattr(dp.fit(X.fillna(0), y), "value_support_")
    counts = np.random.default_rng(0).poisson(1.0, (50, 4))
    assert bayesnb.MultinomialNB().fit(counts, np.arange(50) % 2).value_support_ == {}


def test_the_record_is_saved_and_checked(symptoms):
    X, _, naive, _ = symptoms
    path = os.path.join(tempfile.mkdtemp(), "m.bnb")
    naive.save(path)
    again = bayesnb.load(path)
    assert support_to_dict(again.value_support_) == support_to_dict(naive.value_support_)
    pd.testing.assert_frame_equal(again.impute(X), naive.impute(X))
    bad = support_to_dict(naive.value_support_)
    bad["1"]["values"] = bad["1"]["values"][::-1]  # not sorted
    with pytest.raises(ValueError, match="malformed"):
        support_from_dict(bad, 4)
    with pytest.raises(ValueError, match="bad column"):
        support_from_dict({"9": bad["0"]}, 4)
    assert isinstance(support_from_dict(support_to_dict(naive.value_support_))[2], ColumnSupport)


def test_a_dask_partial_fit_forgets_the_record(symptoms):
    dd = pytest.importorskip("dask.dataframe")
    X, y, _, _ = symptoms
    est = NaiveBayes(features=dict.fromkeys(X.columns, Gaussian())).partial_fit(X.iloc[:600], y[:600], classes=[0, 1])
    assert hasattr(est, "value_support_") and hasattr(est, "zero_links_")
    est.partial_fit(dd.from_pandas(X.iloc[600:], npartitions=2), dd.from_array(y[600:], chunksize=300))
    assert not hasattr(est, "value_support_") and not hasattr(est, "zero_links_")
