"""Issue 31, item 1: one rule for a cell outside its family's support, under every numeric family and
every structure. The cell has probability 0: ``score_samples`` scores its row ``-inf`` (the other rows
as before), ``feature_log_contributions`` marks that cell ``-inf`` (the other cells finite), and the
outlier detector flags the row. A Histogram fitted on a whole-number column knows its support (whole
numbers, and no negative value where the training values were all ``>= 0``) as Poisson does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import Bernoulli, Categorical, Gaussian, Histogram, Hurdle, LogNormal, NaiveBayes, NBOutlierDetector, Poisson


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    return pd.DataFrame({
        "normal": 50 + 10 * base + rng.normal(scale=4, size=n),
        "skewed": np.exp(0.4 * base + rng.normal(scale=0.3, size=n)) * 20,
        "count": rng.poisson(np.exp(1.5 + 0.3 * base)).astype(float),
        "zeros": np.where(rng.random(n) < 0.3, 0.0, np.exp(rng.normal(1, 0.5, n))),
        "year": np.where(base > 0.5, 2009.0, np.where(base > -0.5, 2008.0, 2007.0)),
        "flag": (base + rng.normal(size=n) > 0).astype(float),
        "cat": np.where(base > 0, "a", "b"),
    })


DEFAULT = {"normal": Gaussian(), "skewed": LogNormal(), "count": Poisson(), "zeros": Hurdle(LogNormal()),
           "year": Histogram(), "flag": Bernoulli(), "cat": Categorical()}
# (column, family under test, a value outside that family's support on that column)
CASES = [("count", Poisson(), -1.0), ("count", Poisson(), 1.5), ("count", Histogram(), -1.0),
         ("count", Histogram(), 2.5), ("year", Histogram(), 2007.5), ("year", Poisson(), 2008.25),
         ("flag", Histogram(), 0.5), ("flag", Histogram(), -1.0), ("flag", Bernoulli(), 34.0),
         ("skewed", LogNormal(), -2.0), ("skewed", LogNormal(), 0.0), ("zeros", Hurdle(LogNormal()), -3.0)]


def _detector(structure, column, family, X):
    if column is None:  # features="auto": each column's family chosen by its evidence (as a structure needs)
        return NBOutlierDetector(NaiveBayes(structure=structure), range_tails=False, statistic="density").fit(X)
    features = {(c,): (family if c == column else f) for c, f in DEFAULT.items()}
    return NBOutlierDetector(NaiveBayes(features=features), range_tails=False, statistic="density").fit(X)


def _check_impossible_cell(det, X, column, value):
    Q = X.iloc[:8].copy()
    clean = det.score_samples(Q)
    Q.loc[Q.index[3], column] = value
    s = det.score_samples(Q)
    assert np.isneginf(s[3]) and s[3] < clean[3]
    np.testing.assert_allclose(np.delete(s, 3), np.delete(clean, 3), rtol=1e-12)
    C = det.estimator_.feature_log_contributions(Q)
    expected = np.zeros(C.shape, dtype=bool)
    expected[3, list(C.columns).index(column)] = True
    np.testing.assert_array_equal(np.isneginf(C.to_numpy()), expected)
    assert np.isfinite(C.to_numpy()[~expected]).all()
    assert det.predict(Q)[3] == -1


@pytest.mark.parametrize("column, family, value", CASES,
                         ids=[f"{c}-{type(f).__name__}-{v}" for c, f, v in CASES])
def test_an_out_of_support_cell_is_impossible_and_named_under_every_family(column, family, value):
    X = _table()
    _check_impossible_cell(_detector("naive", column, family, X), X, column, value)


STRUCTURED = [("count", -1.0), ("count", 1.5), ("year", 2007.5), ("year", -1.0), ("flag", 0.5), ("flag", -1.0),
              ("skewed", -2.0), ("zeros", -3.0)]


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb"])
def test_an_out_of_support_cell_is_impossible_and_named_under_every_structure(structure):
    """Under ``features="auto"`` the table's columns get Poisson, Histogram (the whole-number year and
    flag columns), LogNormal and Hurdle; each of their impossible cells is named under each structure."""
    X = _table()
    det = _detector(structure, None, None, X)
    chosen = {c: type(f).__name__ for cols, f in det.estimator_.blocks_ for c in cols}
    assert {chosen[c] for c, _ in STRUCTURED} == {"Poisson", "Histogram", "LogNormal", "Hurdle"}
    if structure != "naive":
        assert any(det.estimator_.structure_.values())  # the structured engine
    for column, value in STRUCTURED:
        _check_impossible_cell(det, X, column, value)


@pytest.mark.parametrize("column, value", [("normal", -1000.5), ("skewed", -3.0), ("zeros", -0.5)])
def test_real_columns_have_no_support_of_their_own_under_histogram_and_gaussian(column, value):
    """A Histogram on a real-valued column (and Gaussian everywhere) has the whole line for support:
    a value far outside the range is charged by the tail (lower, finite), not made impossible."""
    X = _table()
    for family in (Histogram(), Gaussian()):
        det = _detector("naive", column, family, X)
        Q = X.iloc[:4].copy()
        clean = det.score_samples(Q)
        Q.loc[Q.index[1], column] = value
        s = det.score_samples(Q)
        assert np.isfinite(s).all() and s[1] < clean[1], type(family).__name__


def test_histogram_support_comes_from_the_values_and():
    X = _table()
    model = NaiveBayes(features={("count", "year", "normal", "zeros"): Histogram()})
    model.fit(X[["count", "year", "normal", "zeros"]], (X["normal"] > 50).to_numpy())
    ((cols, fam),) = model.blocks_
    state = model.posterior_.blocks[0].state
    odd = np.array([[-1.0, 2008.0, -5.0, -1.0], [0.5, 2007.5, 0.5, 0.5], [40.0, 2100.0, 1e4, 1e4]])
    np.testing.assert_array_equal(fam.out_of_support(odd, state),
                                  [[True, False, False, False], [True, True, False, False], [False] * 4])
    assert fam.out_of_support(odd, None) is None


def test_predict_proba_stays_a_distribution_beside_an_impossible_histogram_cell():
    """``predict`` reads the class from the bins; the cell's support is the outlier score's business, so
    the class probabilities of a row with a fraction in a whole-number Histogram column stay finite."""
    X = _table()
    y = (X["normal"] > 50).to_numpy()
    model = NaiveBayes(features={("count",): Histogram(), ("normal",): Gaussian()}).fit(X[["count", "normal"]], y)
    Q = X[["count", "normal"]].iloc[:3].copy()
    Q.loc[Q.index[0], "count"] = 2.5
    P = model.predict_proba(Q)
    assert np.isfinite(P).all() and np.allclose(P.sum(axis=1), 1.0)
    assert np.isneginf(model.score_samples(Q)[0])


def test_conditional_cell_scores_name_every_impossible_cell_of_a_row():
    """Two impossible cells in one row: each is ``-inf`` given the rest (not ``-inf - -inf = NaN``)."""
    X = _table()
    det = _detector("tan", None, None, X)
    Q = X.iloc[:4].copy()
    Q.loc[Q.index[2], "count"] = 1.5
    Q.loc[Q.index[2], "year"] = 2008.5
    S = det.cell_scores(Q, method="conditional")
    assert np.isneginf(S.loc[Q.index[2], ["count", "year"]].to_numpy()).all()
    assert np.isfinite(S.drop(index=Q.index[2]).to_numpy()).all()


# ------------------------------------------------------------------ property: out-of-range cells lower log p(x)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

MODELS = {"naive-default": lambda num: NaiveBayes(features={(c,): f for c, f in DEFAULT.items()}),
          "naive-histogram": lambda num: NaiveBayes(features={tuple(num): Histogram(), ("cat",): Categorical()}),
          "naive-gaussian": lambda num: NaiveBayes(features={tuple(num): Gaussian(), ("cat",): Categorical()}),
          "tan": lambda num: NaiveBayes(structure="tan"), "kdb": lambda num: NaiveBayes(structure="kdb")}


def _moved_out(X, column, side, steps):
    """The column's training edge on ``side``, then values further and further beyond it (whole numbers
    rounded outward in a whole-number column, duplicates dropped)."""
    lo, hi = X[column].min(), X[column].max()
    edge = hi if side == "above" else lo
    whole = bool((X[column] % 1 == 0).all())
    values = [edge]
    for step in sorted(steps):
        v = edge + step * (hi - lo) * (1 if side == "above" else -1)
        v = (np.ceil(v) if side == "above" else np.floor(v)) if whole else v
        if v not in values:
            values.append(v)
    return values


@given(seed=st.integers(0, 2**16), model=st.sampled_from(sorted(MODELS)), range_tails=st.booleans(),
       steps=st.lists(st.floats(0.005, 5.0), min_size=1, max_size=3, unique=True))
@settings(max_examples=12, deadline=None)
def test_out_of_range_and_unseen_cells_always_lower_the_score(seed, model, range_tails, steps):
    """Under every family (the fixed families, Histogram and Gaussian everywhere, the families ``"auto"``
    chooses) and every structure, moving one cell of a row from its column's training edge further
    and further beyond the range lowers the row's score strictly at each step (or leaves it ``-inf``
    once outside the family's support); an unseen category scores below the same cell missing. With and
    without the detector's range tails (without them the score is the model's ``log p(x)``)."""
    X = _table(n=150, seed=seed)
    numeric = [c for c in X.columns if c != "cat"]
    det = NBOutlierDetector(MODELS[model](numeric), range_tails=range_tails, statistic="density").fit(X)
    rows = X.iloc[:10]
    # every moved copy of the rows scored in one call (a row's score is its own: the batch changes no score)
    moves = [(column, side, v) for column in numeric for side in ("below", "above")
             for v in _moved_out(X, column, side, steps)]
    frames = [rows.assign(**{column: v}) for column, side, v in moves] + [rows.assign(cat="unseen"),
                                                                          rows.assign(cat=np.nan)]
    flat = det.score_samples(pd.concat(frames, ignore_index=True)).reshape(len(frames), len(rows))
    scores = {}
    for (column, side, _), s in zip(moves, flat):
        scores.setdefault((column, side), []).append(s)
    for (column, side), seq in scores.items():
        for before, after in zip(seq, seq[1:]):
            assert np.all((after < before) | (np.isneginf(after) & np.isneginf(before))), (column, side)
    assert np.all(flat[-2] < flat[-1])  # an unseen category scores below the same cell missing
