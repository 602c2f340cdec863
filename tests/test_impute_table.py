"""impute_table: per-column choice of configuration by self-validation on hidden observed cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import NaiveBayes, impute_table


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
