"""Property: with features="auto", sampled and imputed values keep every numeric column's support.

Whatever mix of columns a table has, ``NaiveBayes()`` chooses families that respect each
column's support, so generated values (sampled with a posterior draw of the parameters, with
the plug-in, or from a latent-class model; imputed) are whole in whole-number columns (and keep the
training dtype), never negative in a column that is not, positive in a positive real column,
and within the training range where a histogram was chosen.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from bayesnb import NaiveBayes

KINDS = ["count", "count_na", "whole_signed", "positive", "zeros", "signed"]


@st.composite
def tables(draw):
    n = draw(st.integers(30, 80))
    seed = draw(st.integers(0, 2**31 - 1))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, draw(st.integers(2, 3)), n)
    y[:3] = [0, 1, 1]
    cols = {}
    for j, kind in enumerate(kinds):
        scale = float(rng.choice([0.5, 3.0, 40.0]))
        if kind in ("count", "count_na"):
            v = rng.poisson(scale * (1 + y)).astype("int64")
            col = pd.array(v, dtype="Int64")
            if kind == "count_na":
                col[rng.random(n) < 0.2] = pd.NA
            cols[f"c{j}"] = col if kind == "count_na" else v
        elif kind == "whole_signed":
            cols[f"c{j}"] = np.round(rng.normal(y * scale, scale)).astype("int64") - 1
        elif kind == "positive":
            cols[f"c{j}"] = np.round(rng.lognormal(np.log(scale) + 0.3 * y, 0.6), 2) + 0.01
        elif kind == "zeros":
            cols[f"c{j}"] = np.where(rng.random(n) < 0.4, 0.0, np.round(rng.lognormal(np.log(scale), 1.0), 3))
        else:
            x = np.round(rng.normal(y, scale), 1)
            x[rng.random(n) < 0.1] = np.nan
            cols[f"c{j}"] = x
    cols["colour"] = rng.choice(["red", "green"], n)
    return pd.DataFrame(cols), y, seed


def _check_generated(X, G, model, where):
    chosen = model.family_scores_[model.family_scores_.chosen].set_index("column").family.to_dict()
    for c in X.columns[:-1]:
        real = pd.to_numeric(X[c]).astype(float).dropna().to_numpy()
        gen = pd.to_numeric(G[c]).astype(float).dropna().to_numpy()
        assert gen.size, (where, c)
        whole = bool(np.all(real == np.round(real)))
        if whole:
            assert np.all(gen == np.round(gen)), (where, c, chosen[c])
        if real.min() >= 0:
            assert gen.min() >= 0, (where, c, chosen[c])
        if real.min() > 0 and not whole:  # a positive real column (counts may be 0)
            assert gen.min() > 0, (where, c, chosen[c])
        if chosen[c] == "Histogram":
            assert real.min() <= gen.min() and gen.max() <= real.max(), (where, c)


@given(tables())
@settings(max_examples=25, deadline=None)
def test_sample_and_impute_keep_each_columns_support(case):
    X, y, seed = case
    # a RuntimeWarning (overflow, log of 0, 0/0) would mean a silently wrong value: an error here
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = NaiveBayes().fit(X, y)
        S, _ = model.sample(300, random_state=seed)
        latent = model.fit_latent_class(X, y, n_components=2, n_init=1, max_iter=10, random_state=seed)
        L, _ = model.sample(300, latent=latent, random_state=seed)
        P, _ = model.sample(300, random_state=seed, parameter_uncertainty=False)
        blanked = X.copy()
        rng = np.random.default_rng(seed)
        for c in X.columns[:-1]:
            blanked.loc[rng.random(len(X)) < 0.3, c] = np.nan if X[c].dtype.kind == "f" else pd.NA
        filled = {s: model.impute(blanked.astype({c: "Int64" for c in X.columns[:-1] if X[c].dtype.kind == "i"}),
                                  strategy=s, random_state=seed) for s in ("draw", "auto", "mode")}
    for c in X.columns:
        for G in (S, L, P):
            assert G[c].dtype == X[c].dtype, (c, G[c].dtype, X[c].dtype)
    _check_generated(X, S, model, "sample")
    _check_generated(X, L, model, "sample latent")
    _check_generated(X, P, model, "sample plug-in")
    for s, F in filled.items():
        _check_generated(X, F, model, f"impute {s}")
