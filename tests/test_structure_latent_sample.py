"""``sample(latent=)`` under a structure (TAN, k-DB): rows from a latent-class model of the structure.

Each row's (class, component) state is drawn from the state weights (within its class when ``y``
is given), then every node after its parents in that state's context (the structure's one
ancestral sampler, ``sample_nodes``, on the model over the states). Checked: categorical (house
votes) and mixed (penguins) tables give rows of the training columns and dtypes, reproducibly;
on a tiny table the frequencies of 20,000 rows match the joint ``p(x, y)`` enumerated by brute
force from the parameters (and not the joint without the components); ``latent_class_draws``
fits sample at their draw; ``given`` conditions the state; the naive path is unchanged (sets,
ranges, ``forbid`` and ``return_probability`` with ``latent``: ``test_structure_latent_constrained.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from bayesnb import CategoricalNB, NaiveBayes
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.generative.latent import latent_class_draws
from latent_structure import brute_states, random_draw, tiny


def _votes():
    df = load_house_votes().iloc[::3]
    return df.drop(columns="party").iloc[:, :5], df["party"].to_numpy()


def _penguins():
    df = load_penguins().iloc[::3]
    return df[["island", "sex", "bill_length_mm", "flipper_length_mm", "body_mass_g"]], df["species"].to_numpy()


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("table", ["categorical", "mixed"])
def test_rows_have_the_training_columns_and_are_reproducible(table, structure):
    X, y = _votes() if table == "categorical" else _penguins()
    m = NaiveBayes(structure=structure, k=2).fit(X, y)
    assert m.structure_kind_ == structure and any(m.structure_.values())
    fit = m.fit_latent_class(X, y, n_components=2, n_init=1, max_iter=20, random_state=0)
    assert fit.structure is not None
    for pu in (True, False):
        Xs, ys = m.sample(50, latent=fit, random_state=3, parameter_uncertainty=pu)
        assert list(Xs.columns) == list(X.columns) and len(Xs) == 50 and set(ys) <= set(m.classes_)
        assert Xs.dtypes.to_dict() == m.sample(3, random_state=0)[0].dtypes.to_dict()
        for c in X.columns:
            if X[c].dtype.kind in "OUT" or str(X[c].dtype).startswith("str"):
                assert set(Xs[c].dropna()) <= set(X[c].dropna())
        X2, y2 = m.sample(50, latent=fit, random_state=3, parameter_uncertainty=pu)
        pd.testing.assert_frame_equal(Xs, X2)
        np.testing.assert_array_equal(ys, y2)
    # y fixes the class, the component is drawn among its states
    _, yk = m.sample(20, y=m.classes_[1], latent=fit, random_state=0)
    assert (yk == m.classes_[1]).all()
    # given (values): the given cells are written in, the state drawn given them
    col = X.columns[0]
    Xg, _ = m.sample(10, given={col: X[col].dropna().iloc[0]}, latent=fit, random_state=0)
    assert (Xg[col] == X[col].dropna().iloc[0]).all()
    # forbid (and sets, ranges, return_probability) by the same message passing over the states
    Xf, _ = m.sample(10, latent=fit, forbid=[{col: X[col].dropna().iloc[0]}], random_state=0)
    assert (Xf[col] != X[col].dropna().iloc[0]).all()


def _brute_joint(ds, names, classes, components=True):
    """``{(x..., y): p(x, y)}``: :func:`brute_states`' enumeration summed over the components
    (``components=False``: component 0 only, its weight taken off, the model without its mixture)."""
    w = ds["w"].values[0, 0]
    out = {}
    for (*x, k, c), p in brute_states(ds, names).items():
        key = (*x, classes[k])
        if components:
            out[key] = out.get(key, 0.0) + p
        elif c == 0:
            out[key] = p / w[k, 0]
    return out


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("cls", [CategoricalNB, NaiveBayes])
def test_frequencies_match_the_brute_force_joint(cls, structure):
    X, y = tiny(0, 120)
    m = cls(structure=structure, k=2).fit(X, y)
    assert max(len(p) for p in m.structure_.values()) == (1 if structure == "tan" else 2)
    idata = random_draw(m.sample_posterior(1, random_state=0), 2, np.random.default_rng(4),
                        random_pi=True, concentration=0.7)
    (fit,) = latent_class_draws(m, idata)
    assert fit.point
    joint = _brute_joint(idata["posterior"], list(X.columns), list(m.classes_))
    assert np.isclose(sum(joint.values()), 1.0)
    cells = list(joint)
    n = 20_000
    Xs, ys = m.sample(n, latent=fit, random_state=11)
    seen = pd.Series(list(zip(*(Xs[c].astype(str) for c in X.columns), ys))).value_counts()
    assert set(seen.index) <= set(cells)
    counts = np.array([seen.get(c, 0) for c in cells])
    assert chisquare(counts, n * np.array([joint[c] for c in cells])).pvalue > 0.01
    # the test has power: the model without its components is rejected
    flat = _brute_joint(idata["posterior"], list(X.columns), list(m.classes_), components=False)
    flat_p = np.array([flat[c] for c in cells])
    assert chisquare(counts, n * flat_p / flat_p.sum()).pvalue < 1e-6
    # a draw is used as it is; with y, the class's components only: p(x | y) from the same joint
    a = m.sample(200, latent=fit, random_state=5, parameter_uncertainty=True)
    b = m.sample(200, latent=fit, random_state=5, parameter_uncertainty=False)
    pd.testing.assert_frame_equal(a[0], b[0])
    Xv, _ = m.sample(n, y="v", latent=fit, random_state=12)
    seen = pd.Series(list(zip(*(Xv[c].astype(str) for c in X.columns)))).value_counts()
    xs = [c[:-1] for c in cells if c[-1] == "v"]
    pv = np.array([joint[(*x, "v")] for x in xs])
    assert chisquare(np.array([seen.get(x, 0) for x in xs]), n * pv / pv.sum()).pvalue > 0.01


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_given_draws_the_state_from_its_conditional(structure):
    X, y = tiny(0, 120)
    m = CategoricalNB(structure=structure, k=2).fit(X, y)
    idata = random_draw(m.sample_posterior(1, random_state=0), 2, np.random.default_rng(6),
                        random_pi=True, concentration=0.7)
    (fit,) = latent_class_draws(m, idata)
    joint = _brute_joint(idata["posterior"], list(X.columns), list(m.classes_))
    n = 20_000
    Xs, ys = m.sample(n, given={"a": "y"}, latent=fit, random_state=2)
    assert (Xs["a"] == "y").all()
    cells = [c for c in joint if c[0] == "y"]
    seen = pd.Series(list(zip(*(Xs[c].astype(str) for c in X.columns), ys))).value_counts()
    p = np.array([joint[c] for c in cells])
    assert chisquare(np.array([seen.get(c, 0) for c in cells]), n * p / p.sum()).pvalue > 0.01


def test_nuts_draws_sample():
    # the mixed table and warmup of test_structure_latent_draws: the same compiled NUTS program
    # (in this process or the on-disk cache), so no second compile
    X, y = _penguins()
    X = X.drop(columns="body_mass_g")
    m = NaiveBayes(structure="kdb", k=2).fit(X, y)
    idata = m.run_mcmc(X, y, n_components=2, num_warmup=60, num_samples=2, num_chains=1, random_state=0)
    fits = latent_class_draws(m, idata)
    for f in fits:
        Xs, ys = m.sample(30, latent=f, random_state=0)
        assert list(Xs.columns) == list(X.columns) and len(ys) == 30
        assert np.isfinite(Xs["bill_length_mm"].to_numpy(float)).all()
        assert np.isfinite(m.score_samples(Xs, latent=f)).all()


def test_without_latent_and_naive_unchanged():
    X, y = tiny(0, 120)
    naive = NaiveBayes().fit(X, y)
    fit = naive.fit_latent_class(X, y, n_components=2, n_init=1, random_state=0)
    a = naive.sample(40, latent=fit, random_state=0)
    b = NaiveBayes(structure="naive").fit(X, y).sample(40, latent=fit, random_state=0)
    pd.testing.assert_frame_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    tan = NaiveBayes(structure="tan").fit(X, y)
    with pytest.raises(ValueError, match="latent"):
        tan.sample(5, latent=fit)  # the naive model's fit, given to a structure
    with pytest.raises(ValueError, match="latent"):
        naive.sample(5, latent=tan.fit_latent_class(X, y, n_components=2, n_init=1, random_state=0))
