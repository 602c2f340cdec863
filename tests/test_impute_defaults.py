"""impute's default fill (each family's ``default_fill``), the widening n_components="auto"
search of fit_latent_class, and the support of imputed values."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnb import CategoricalNB, GaussianNB, NaiveBayes, SearchEdgeWarning
from bayesnb.families import Categorical, Gaussian, Hurdle, LogNormal, Poisson


def clustered(n_per, n_comp=12, n_cols=6, seed=0):
    """Two classes, each a mixture of ``n_comp`` well-separated naive-Bayes components."""
    rng = np.random.default_rng(seed)
    rows, ys = [], []
    for k in range(2):
        for c in range(n_comp):
            for _ in range(n_per):
                noise = rng.random(n_cols) < 0.1
                rows.append(np.where(noise, rng.integers(0, n_comp, n_cols), (c + k + np.arange(n_cols) * (c % 3 + 1))
                                     % n_comp))
                ys.append(k)
    return pd.DataFrame(np.array(rows).astype(str), columns=[f"x{j}" for j in range(n_cols)]), np.array(ys)


def test_auto_widens_past_the_largest_candidate():
    X, y = clustered(n_per=20)
    clf = CategoricalNB().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchEdgeWarning)  # cap = 480 // 20 = 24: not reached
        fit = clf.fit_latent_class(X, y, n_components="auto", candidates=(1, 4, 8), n_init=1, random_state=0)
    assert fit.n_components > 8
    assert set(fit.selection) > {1, 4, 8} and max(fit.selection) > 8
    assert fit.n_components == max(fit.selection, key=fit.selection.get)
    assert fit.n_components < max(fit.selection)  # widening stopped because a wider count scored worse


def test_auto_warns_when_the_cap_binds():
    X, y = clustered(n_per=5)  # 120 rows, 2 classes: cap = 6 components per class
    clf = CategoricalNB().fit(X, y)
    with pytest.warns(SearchEdgeWarning, match="stopped at its edge.*cap of 6"):
        fit = clf.fit_latent_class(X, y, n_components="auto", candidates=(1, 2, 4), n_init=1, random_state=0)
    assert fit.n_components == 6 and sorted(fit.selection) == [1, 2, 4, 6]


def test_default_strategy_is_each_familys_default_fill():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"c": rng.choice(["a", "b", "c"], 200), "g": rng.normal(size=200),
                       "p": rng.poisson(3.0, 200)})
    y = rng.integers(0, 2, 200)
    df.loc[::7, "c"] = None
    df.loc[1::5, "g"] = np.nan
    df.loc[2::6, "p"] = np.nan
    nb = NaiveBayes(features={"c": Categorical(), "g": Gaussian(), "p": Poisson()}).fit(df, y)
    auto, mode, mean = nb.impute(df), nb.impute(df, strategy="mode"), nb.impute(df, strategy="mean")
    pd.testing.assert_series_equal(auto["c"], mode["c"])
    pd.testing.assert_series_equal(auto["g"], mean["g"])
    pd.testing.assert_series_equal(auto["p"], mean["p"])
    assert not auto["g"].equals(mode["g"])
    assert Categorical().default_fill == "mode" and Gaussian().default_fill == "mean"
    assert Hurdle(base=Poisson()).default_fill == "mean"
    with pytest.raises(ValueError, match="strategy must be 'auto', 'mode', 'mean' or 'draw'; received 'median'"):
        GaussianNB().fit(df[["g"]].fillna(0), y).impute(df[["g"]], strategy="median")


@pytest.mark.parametrize("family", [LogNormal(), Poisson(), Hurdle(), Hurdle(base=Poisson())],
                         ids=["lognormal", "poisson", "hurdle", "hurdle-poisson"])
def test_imputed_values_stay_in_the_support(family):
    rng = np.random.default_rng(1)
    n = 300
    y = rng.integers(0, 2, n)
    if family.name == "poisson" or getattr(family, "base", None) is not None:
        X = rng.poisson(np.where(y[:, None] == 1, 0.4, 4.0), size=(n, 3)).astype(float)
    else:
        X = rng.lognormal(np.where(y[:, None] == 1, -2.0, 1.0), 1.5, size=(n, 3))
        if family.name == "hurdle":
            X[rng.random(X.shape) < 0.3] = 0.0
    X[rng.random(X.shape) < 0.3] = np.nan
    nb = NaiveBayes(features={(0, 1, 2): family}).fit(X, y)
    miss = np.isnan(X)
    outs = [nb.impute(X, strategy=s, random_state=2) for s in ("auto", "mode", "mean")]
    outs += nb.impute(X, strategy="draw", n_imputations=5, random_state=3)
    for out in outs:
        v = out[miss]
        assert np.isfinite(v).all() and (v >= 0).all()
        np.testing.assert_array_equal(out[~miss], X[~miss])
        if family.name == "poisson":
            assert (v == np.round(v)).all()
