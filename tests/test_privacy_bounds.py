"""A private model's declared bounds (``DP(bounds=...)``) on its draws: the support kept, nothing more cut.

A Hurdle column's bounds are those of its positive part: the point mass at ``at`` (0) is part of its
support whatever they are, so the zeros are drawn with their released share.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb as bn

CLASSES = ["a", "b"]


@pytest.fixture(scope="module")
def gains():
    rng = np.random.default_rng(0)
    n = 2000
    y = rng.choice(CLASSES, n)
    zero = rng.random(n) < np.where(y == "a", 0.7, 0.4)
    df = pd.DataFrame({"c": rng.choice(["u", "v", "w"], n),
                       "gain": np.where(zero, 0.0, np.clip(rng.lognormal(3, 1, n), 1, 1000))})
    return df, y


def released_zero_share(m, k):
    """The released share of zeros of class ``k`` (the hurdle's Beta posterior mean)."""
    if m.structure_kind_ == "naive":
        post = next(b.posterior for b in m.posterior_.blocks if type(b.family).__name__ == "Hurdle")
        return float(post.a[k, 0] / (post.a[k, 0] + post.b[k, 0]))
    model = m._mixed
    j = next(j for j, nd in enumerate(model.nodes) if type(nd.family).__name__ == "Hurdle")
    assert model.parents[j] == ()  # a numeric node: its contexts are the classes
    post = model.posteriors[j]
    return float(post.a[k, 0] / (post.a[k, 0] + post.b[k, 0]))


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb"])
def test_a_hurdle_draws_its_zeros_whatever_the_bounds_of_its_positive_part(gains, structure):
    df, y = gains
    feats = {"c": bn.Categorical(categories=[["u", "v", "w"]]), "gain": bn.Hurdle(bn.LogNormal())}
    m = bn.NaiveBayes(feats, structure=structure, privacy=bn.DP(
        5.0, classes=CLASSES, bounds={"gain": (1, 1000)}, random_state=0)).fit(df, y)
    assert m.structure_kind_ == structure
    n = 6000
    Xs, ys = m.sample(n, random_state=1, parameter_uncertainty=False)
    gain = Xs["gain"].to_numpy(dtype=float)
    assert np.all((gain == 0) | ((gain >= 1) & (gain <= 1000)))  # the support: 0, or inside the bounds
    for k, label in enumerate(CLASSES):
        rows = np.asarray(ys) == label
        p = released_zero_share(m, k)
        share = float(np.mean(gain[rows] == 0))
        assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / rows.sum()), (label, share, p)


PENGUIN_BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
                  "body_mass_g": (2500, 6500)}


def private_penguins(structure="naive"):
    from bayesnb.datasets import load_penguins

    df = load_penguins().dropna().reset_index(drop=True)
    X, y = df.drop(columns=["species"]), df["species"]
    cats = [["Biscoe", "Dream", "Torgersen"], ["female", "male"], [2007, 2008, 2009]]
    feats = {tuple(PENGUIN_BOUNDS): bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=cats)}
    return X, bn.NaiveBayes(feats, structure=structure, privacy=bn.DP(
        0.5, bounds=PENGUIN_BOUNDS, classes=["Adelie", "Chinstrap", "Gentoo"], random_state=0)).fit(X, y)


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb"])
def test_conditional_draws_of_a_private_model_keep_inside_the_bounds(structure):
    _, m = private_penguins(structure)
    for given in ({"island": "Dream"}, {"bill_length_mm": (0, 100)}, {"bill_depth_mm": 15.0}):
        Xs, _ = m.sample(1000, random_state=1, given=given)
        for col, (lo, hi) in PENGUIN_BOUNDS.items():
            assert Xs[col].between(lo, hi).all(), (given, col)
    Xs, _ = m.sample(300, random_state=1, given={"bill_length_mm": (25, 35)})  # the range's part inside
    assert Xs["bill_length_mm"].between(30, 35).all()
    with pytest.raises(bn.ZeroProbabilityCondition):
        m.sample(10, random_state=1, given={"bill_length_mm": (0, 20)})


def test_imputations_of_a_private_naive_model_keep_inside_the_bounds(gains):
    X, m = private_penguins()
    holes = X.copy()
    holes.loc[::2, list(PENGUIN_BOUNDS)] = np.nan
    tables = m.impute(holes, random_state=0, strategy="draw", n_imputations=3)
    tables += [m.impute(holes, random_state=0, strategy=s) for s in ("mean", "auto")]
    for filled in tables:
        for col, (lo, hi) in PENGUIN_BOUNDS.items():
            assert filled[col].between(lo, hi).all(), col


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_drawn_fills_of_a_hurdle_keep_the_released_share_of_zeros(gains, structure):
    df, y = gains
    feats = {"c": bn.Categorical(categories=[["u", "v", "w"]]), "gain": bn.Hurdle(bn.LogNormal())}
    m = bn.NaiveBayes(feats, structure=structure, privacy=bn.DP(
        5.0, classes=CLASSES, bounds={"gain": (1, 1000)}, random_state=0)).fit(df, y)
    holes = df.copy()
    holes["gain"] = np.nan
    gain = m.impute(holes, random_state=0, strategy="draw", parameter_uncertainty=False)["gain"].to_numpy(float)
    assert np.all((gain == 0) | ((gain >= 1) & (gain <= 1000)))
    p = np.mean([released_zero_share(m, k) for k in range(2)])  # classes about even, c uninformative
    assert abs(np.mean(gain == 0) - p) < 0.05
