"""The MCAR verdicts of bayesnb.criticism.check_mcar and check_independence's ``attrs["mcar"]``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from bayesnb import NaiveBayes, Synthesizer
from bayesnb.criticism import check_independence, check_mcar


def _table(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["u", "v"], n)
    df = pd.DataFrame({"a": rng.choice(["p", "q"], n), "b": rng.normal(size=n), "c": rng.choice(["s", "t", "w"], n),
                       "d": rng.choice(["g", "h"], n)})
    mcar = rng.random(n) < 0.1
    df.loc[mcar, "a"] = np.nan  # completely at random
    df.loc[rng.random(n) < np.where(y == "v", 0.2, 0.03), "c"] = np.nan  # depends on the class
    df.loc[rng.random(n) < np.where(df["b"] > 0.5, 0.3, 0.02), "d"] = np.nan  # depends on b's value
    df.loc[mcar & (rng.random(n) < 0.8), "b"] = np.nan  # mostly where a is missing: patterns correlate, still MCAR
    return df, y


def test_verdicts_name_the_dependence():
    X, y = _table()
    model = NaiveBayes().fit(X, y)
    table = check_mcar(model, X, y).set_index("feature")
    assert set(table.index) == {"a", "b", "c", "d"}
    assert table.loc["a", "mcar"] and table.loc["b", "mcar"]  # b's missing cells follow a's missingness only
    assert not table.loc["c", "mcar"] and table.loc["c", "partner"] == "class"
    assert not table.loc["d", "mcar"] and table.loc["d", "partner"] == "b"
    # b is missing only where a is: on a's observed rows b has no missing cell, so a is no testable partner of b
    assert table["n_partners"].to_dict() == {"a": 4, "b": 3, "c": 4, "d": 4}
    assert table.loc["a", "n_missing"] == X["a"].isna().sum()
    assert list(check_mcar(model, X, y)["p_value"]) == sorted(table["p_value"])


def test_the_g_statistic_and_adjusted_p_value_by_hand():
    X, y = _table(seed=1)
    model = NaiveBayes().fit(X, y)
    row = check_mcar(model, X, y).set_index("feature").loc["c"]
    miss = X["c"].isna().to_numpy()
    obs = np.array([[np.sum(~miss & (y == k)), np.sum(miss & (y == k))] for k in ("u", "v")], dtype=float).T
    expected = obs.sum(1, keepdims=True) * obs.sum(0, keepdims=True) / obs.sum()
    g = 2 * np.sum(obs * np.log(obs / expected))
    assert row["g_statistic"] == pytest.approx(g, rel=1e-10) and row["dof"] == 1
    assert row["p_value"] == pytest.approx(min(1.0, chi2.sf(g, 1) * row["n_partners"]), rel=1e-8)


def test_check_independence_reports_the_verdicts_and_no_missing_gives_none():
    X, y = _table(n=400, seed=2)
    model = NaiveBayes().fit(X, y)
    res = check_independence(model, X, y, n_replicates=5, random_state=0)
    table = check_mcar(model, X, y).set_index("feature")
    assert set(res.attrs["mcar"]) == set(table.index)
    for f, v in res.attrs["mcar"].items():
        assert v["mcar"] == table.loc[f, "mcar"] and v["p_value"] == table.loc[f, "p_value"]
    full = X.dropna()
    assert check_mcar(NaiveBayes().fit(full, y[X.notna().all(axis=1)]), full, y[X.notna().all(axis=1)]).empty
    with pytest.raises(ValueError, match="alpha must be a level in"):
        check_mcar(model, X, y, alpha=1.5)


def test_a_synthesizers_indicators_are_not_partners():
    X, y = _table(n=600, seed=3)
    synth = Synthesizer(latent=None, random_state=0).fit(X.assign(y=y))
    Xm, labels = synth.model_table(X.assign(y=y))
    table = check_mcar(synth.model_, Xm, labels)
    assert set(table["feature"]) == {"a", "b", "c", "d"}  # the indicators are never missing
    assert not table["partner"].isin(list(synth.missing_indicators_.values())).any()
    # y (a column here: one class) and the three other columns; b has no testable a (see above)
    assert table.set_index("feature")["n_partners"].to_dict() == {"a": 4, "b": 3, "c": 4, "d": 4}
