"""impute_table: per-column choice of configuration by self-validation on hidden observed cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import Gaussian, LogNormal, NaiveBayes, impute_table
from bayesnb.impute.configs import SEARCH_N_INIT, SEARCH_TOL
from bayesnb.impute.table import latent_class_auto


def chained(n=300, seed=0):
    """Two classes; a -> b numeric chain (b is a plus small noise; TAN bins a numeric parent into 5 quantile bins), c independent noise.

    Under the naive model b's best guess is its class mean; TAN conditions b on a (and a on b),
    so it is the better imputer of a and b. For c no configuration can do much better than the
    class mean.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.normal(3.0 * y, 2.0)
    b = a + rng.normal(0.0, 0.3, n)
    c = rng.normal(y, 1.0)
    X = pd.DataFrame({"a": a, "b": b, "c": c})
    M = rng.random(X.shape) < 0.2
    Xm = X.mask(M)
    return X, Xm, M, y


def real_loss(X, F, M, j):
    t, v = X.iloc[:, j].to_numpy()[M[:, j]], F.iloc[:, j].to_numpy()[M[:, j]]
    return np.mean((v - t) ** 2) / np.var(t)


def test_chooses_per_column_the_configuration_that_is_actually_better():
    X, Xm, M, y = chained()
    res = impute_table(Xm, y, configurations=("naive", "tan"), random_state=0)
    assert res.chosen["a"] == res.chosen["b"] == "tan"
    fills = {cfg: impute_table(Xm, y, configurations=cfg).table for cfg in ("naive", "tan")}
    for j, col in enumerate(X.columns):
        losses = {cfg: real_loss(X, F, M, j) for cfg, F in fills.items()}
        # the chosen one is the better on the real missing cells, or within noise of it
        assert losses[res.chosen[col]] <= min(losses.values()) + 0.05, (col, losses, res.chosen)
        # and the final table holds exactly that configuration's imputation of the column
        np.testing.assert_array_equal(res.table[col].to_numpy(), fills[res.chosen[col]][col].to_numpy())
    assert real_loss(X, fills["tan"], M, 1) < 0.8 * real_loss(X, fills["naive"], M, 1)  # a real gap
    obs = ~M
    np.testing.assert_array_equal(res.table.to_numpy()[obs], X.to_numpy()[obs])
    assert not res.table.isna().any().any()
    sc = res.scores
    assert set(sc["configuration"]) == {"naive", "tan"} and (sc.groupby("column")["chosen"].sum() == 1).all()
    best = sc.loc[sc.groupby("column")["loss"].idxmin(), ["column", "configuration"]]
    assert dict(zip(best["column"], best["configuration"], strict=True)) == res.chosen


def test_a_table_blanked_with_the_same_seed_still_has_cells_hidden_and_judged():
    X, _, _, y = chained(n=200, seed=3)
    Xm = X.mask(np.random.default_rng(0).random(X.shape) < 0.3)  # the first draws of seed 0 blank it
    res = impute_table(Xm, y, configurations=("naive", "tan"), random_state=0)
    assert set(res.scores["column"]) == set(X.columns) and (res.scores["n_hidden"] > 10).all()


def test_a_column_without_a_hidden_cell_is_named_in_a_warning():
    X, Xm, _, y = chained(n=40)
    Xm = Xm.assign(d=[1.0] + [np.nan] * 39)  # one observed cell: rarely hidden at holdout 0.05
    with pytest.warns(UserWarning, match=r"no observed cell of \[[^]]*'d'\] was hidden"):
        res = impute_table(Xm, y, configurations=("naive", "tan"), holdout=0.05, random_state=2)
    assert res.chosen["d"] == "naive"


def test_a_table_with_no_missing_cell_comes_back_as_it_is():
    """Nothing to choose for: the table is returned unchanged (it used to end in a bare StopIteration)."""
    X, _, _, y = chained(n=80)
    res = impute_table(X, y, configurations=("naive", "tan"), random_state=0)
    pd.testing.assert_frame_equal(res.table, X)
    assert res.chosen == {}


def test_a_bool_column_can_have_cells_hidden():
    """The holdout blanks cells of a bool column too (pandas refuses a missing value in a bool column)."""
    X, Xm, _, y = chained(n=80)
    Xm = Xm.assign(flag=np.arange(80) % 3 == 0)
    res = impute_table(Xm, y, configurations=("naive", "tan"), random_state=0)
    assert res.table["flag"].dtype == bool and res.table["flag"].equals(Xm["flag"])
    assert "flag" in set(res.scores["column"])


def test_one_configuration_is_no_selection():
    _, Xm, _, y = chained(n=120)
    res = impute_table(Xm, y, configurations="naive")
    assert res.scores is None and set(res.chosen.values()) == {"naive"}
    pd.testing.assert_frame_equal(res.table, NaiveBayes().fit(Xm, y).impute(Xm))
    before = Xm.copy()
    impute_table(Xm, None, configurations=("naive", "tan"), random_state=1)  # y=None: one class
    pd.testing.assert_frame_equal(Xm, before)  # the input is not modified


@pytest.mark.parametrize(("kwargs", "err", "msg"), [
    ({"X": np.zeros((3, 2))}, TypeError, "DataFrame"),
    ({"configurations": ("naive", "knn")}, ValueError, "configurations"),
    ({"configurations": ()}, ValueError, "configurations"),
    ({"holdout": 1.5}, ValueError, "holdout"),
    ({"y": [0, 1]}, ValueError, "one label per row"),
    ({"estimator": object()}, TypeError, "NaiveBayes"),
])
def test_bad_input_is_refused(kwargs, err, msg):
    _, Xm, _, y = chained(n=20)
    args = {"X": Xm, "y": y, **kwargs}
    with pytest.raises(err, match=msg):
        impute_table(args.pop("X"), args.pop("y"), **args)


def test_repeated_column_names_are_refused_by_name():
    X = pd.DataFrame([["a", "b", "a"], ["b", None, "a"], ["a", "b", None], ["b", "a", "b"]] * 10, columns=["x", "y", "x"])
    for call in (lambda: impute_table(X), lambda: bayesnb.Imputer().fit(X)):
        with pytest.raises(ValueError, match=r"unique column names.*\['x'\]"):
            call()


def test_holdout_is_any_real_fraction_as_in_imputer():
    """impute_table checks its options as Imputer does (it is Imputer.fit): a NumPy float holdout is taken."""
    _, Xm, _, y = chained(n=20)
    res = impute_table(Xm, y, configurations=("naive", "tan"), holdout=np.float32(0.2), random_state=0)
    assert not res.table.isna().any().any() and set(res.scores["configuration"]) == {"naive", "tan"}


def two_groups(n=360, seed=0):
    """One class, two hidden groups of rows that shift four categorical columns: 2 components fit it."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    cols = {f"c{j}": np.where(rng.random(n) < np.where(g == 1, 0.85, 0.15), "a", "b").astype(object)
            for j in range(4)}
    X = pd.DataFrame(cols).mask(rng.random((n, 4)) < 0.1)
    return X, np.zeros(n, dtype=np.int64)


@pytest.mark.filterwarnings("ignore::bayesnb.SearchEdgeWarning")
def test_latent_count_is_searched_on_a_subsample_then_fitted_on_every_row():
    X, y = two_groups(n=200)
    model = NaiveBayes().fit(X, y)
    fit = latent_class_auto(model, X, None, search_rows=80, random_state=0)
    # the same procedure written out: a random subsample, the held-out search there, the count on all rows
    rng = np.random.default_rng(0)
    rows = np.sort(rng.choice(len(X), size=80, replace=False))
    sub = model.fit_latent_class(X.iloc[rows], None, n_components="auto", random_state=rng,
                                 search_n_init=SEARCH_N_INIT, search_tol=SEARCH_TOL)
    full = model.fit_latent_class(X, None, n_components=sub.n_components, random_state=rng)
    assert fit.n_components == sub.n_components >= 2 and fit.selection == sub.selection
    assert max(fit.selection) <= 8  # the subsample's cap (80 // 10), not the table's (20)
    np.testing.assert_allclose(fit.em_objective, full.em_objective)
    again = latent_class_auto(model, X, None, search_rows=80, random_state=0)
    assert again.n_components == fit.n_components and again.em_objective == fit.em_objective  # a seed fixes it
    # a table no larger than search_rows: the plain search on every row
    small = latent_class_auto(model, X.iloc[:80], None, search_rows=80, random_state=1)
    plain = model.fit_latent_class(X.iloc[:80], None, n_components="auto", random_state=1, search_n_init=1,
                                   search_tol=SEARCH_TOL)
    assert small.selection == plain.selection and small.em_objective == plain.em_objective


@pytest.mark.filterwarnings("ignore::bayesnb.SearchEdgeWarning")
def test_impute_table_reports_the_latent_count_and_is_deterministic_under_a_seed():
    X, y = two_groups(n=150, seed=1)
    res = impute_table(X, y, configurations=("naive", "latent"), search_rows=60, random_state=3)
    again = impute_table(X, y, configurations=("naive", "latent"), search_rows=60, random_state=3)
    assert res.n_components == again.n_components >= 2
    pd.testing.assert_frame_equal(res.table, again.table)
    assert not res.table.isna().any().any()
    assert impute_table(X, y, configurations=("naive", "tan"), random_state=0).n_components is None


@pytest.mark.parametrize("rows", [1, 2.5, True, "all"])
def test_bad_search_rows_is_refused(rows):
    X, y = two_groups(n=40)
    with pytest.raises(ValueError, match=r"search_rows must be None or a whole number >= 2; received"):
        impute_table(X, y, search_rows=rows)


def test_latent_class_auto_refuses_bad_input():
    X, y = two_groups(n=40)
    model = NaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match=r"latent_class_auto: search_rows must be None or a whole number >= 2"):
        latent_class_auto(model, X, search_rows=0)
    with pytest.raises(TypeError, match=r"latent_class_auto: X must be a pandas DataFrame; received ndarray"):
        latent_class_auto(model, X.to_numpy(), search_rows=10)


def test_imputed_numeric_values_stay_in_the_observed_range():
    # a log-normal column of 1s and 1000s: its posterior-predictive mean exp(mu + s**2 / 2) is far above 1000
    x = np.array([1.0, 1000.0] * 20)
    x[[3, 8, 13]] = np.nan
    X, y = pd.DataFrame({"a": x, "b": np.arange(40.0)}), np.zeros(40, dtype=np.int64)
    est = NaiveBayes(features={"a": LogNormal(), "b": Gaussian()})
    raw = est.fit(X, y).impute(X, strategy="mean")["a"].to_numpy()[[3, 8, 13]]
    assert (raw > 1000).all()  # the model's conditional mean leaves the range
    res = impute_table(X, y, configurations="naive", estimator=est)
    np.testing.assert_array_equal(res.table["a"].to_numpy()[[3, 8, 13]], 1000.0)
    np.testing.assert_array_equal(res.table["b"], X["b"])  # nothing missing there: untouched


def test_a_column_with_no_observed_cell_is_named_for_that_reason():
    X, Xm, _, y = chained(n=60)
    Xm = Xm.assign(e=np.nan)
    with pytest.warns(UserWarning, match=r"\['e'\] have no observed cell; they are imputed with the first"):
        res = impute_table(Xm, y, configurations=("naive", "tan"), random_state=0)
    assert res.chosen["e"] == "naive"
