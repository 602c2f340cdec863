"""impute on TAN / k-DB CategoricalNB against brute-force enumeration on tiny tables."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import bayesnb
from bayesnb.structure import exact_impute as MI
from bayesnb.structure import engine as MX


def _tiny4(seed=0, n=80, missing=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = (rng.random(n) < np.where(y == 1, 0.8, 0.3)).astype(int)
    b = np.where(rng.random(n) < 0.85, a, 1 - a)
    c = np.where(rng.random(n) < 0.8, a ^ b, rng.integers(0, 2, n))
    e = (rng.random(n) < np.where(y == 1, 0.6, 0.4)).astype(int)
    X = np.column_stack([a, b, c, e]).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def _brute_tables(X, y, parents, alpha=1.0):
    """Posterior-mean tables by direct counting (binary features and classes)."""
    tables = []
    for j, pa in enumerate(parents):
        t = {}
        for k in range(2):
            for u in itertools.product(range(2), repeat=len(pa)):
                rows = (y == k) & ~np.isnan(X[:, j])
                for p, val in zip(pa, u):
                    rows &= X[:, p] == val
                counts = np.array([np.sum(rows & (X[:, j] == v)) for v in range(2)], float)
                t[(k, *u)] = (counts + alpha) / (counts.sum() + 2 * alpha)
        tables.append(t)
    return tables


def _brute_posterior(x, tables, parents, log_prior, label=None):
    """``{(k, completion): p(k, completion | x_obs)}`` by enumeration, and the missing positions."""
    miss = [j for j in range(len(x)) if np.isnan(x[j])]
    logp = {}
    for k in range(2) if label is None else [label]:
        for fill in itertools.product(range(2), repeat=len(miss)):
            z = x.copy()
            z[miss] = fill
            z = z.astype(int)
            logp[(k, fill)] = log_prior[k] + sum(np.log(tables[j][(k, *(z[p] for p in pa))][z[j]])
                                                 for j, pa in enumerate(parents))
    tot = logsumexp(list(logp.values()))
    return {key: np.exp(v - tot) for key, v in logp.items()}, miss


def _fit(structure, seed=1):
    X, y = _tiny4(seed)
    # flat Dirichlet(1) tables, as the brute force counts them (k-DB's default is hierarchical smoothing,
    # checked against brute force in tests/test_hierarchical.py)
    m = bayesnb.CategoricalNB(structure=structure, k=2, alpha=1.0).fit(X, y)
    assert any(m._mixed.parents)
    return m, _brute_tables(X, y, m._mixed.parents)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("given", [False, True])
def test_mode_is_the_argmax_of_the_enumerated_marginal(structure, given):
    m, tables = _fit(structure)
    Xt, yt = _tiny4(5, n=40, missing=0.4)
    before = Xt.copy()
    out = m.impute(Xt, y=yt if given else None)
    assert np.array_equal(Xt, before, equal_nan=True)  # input not modified
    ref = bayesnb.CategoricalNB().fit(*_tiny4(1)).impute(Xt)  # the naive method's output form
    assert isinstance(out, np.ndarray) and out.shape == Xt.shape and out.dtype == ref.dtype
    out = out.astype(float)
    obs = ~np.isnan(Xt)
    assert np.array_equal(out[obs], Xt[obs]) and not np.isnan(out).any()
    checked = 0
    for i, x in enumerate(Xt):
        post, miss = _brute_posterior(x, tables, m._mixed.parents, m.class_log_prior_, yt[i] if given else None)
        for pos, j in enumerate(miss):
            p1 = sum(p for (k, fill), p in post.items() if fill[pos] == 1)
            if abs(p1 - 0.5) > 1e-9:
                assert out[i, j] == float(p1 > 0.5), (i, j, p1)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("label", [None, 1])
@pytest.mark.parametrize("x", [[np.nan, 1.0, np.nan, np.nan], [np.nan, np.nan, np.nan, 1.0]])
def test_draws_follow_the_enumerated_joint_posterior(structure, label, x):
    m, tables = _fit(structure)
    x = np.array(x)
    obs = ~np.isnan(x)
    n = 4000
    X = np.tile(x, (n, 1))
    out = m.impute(X, strategy="draw", random_state=0, parameter_uncertainty=False,
                   y=None if label is None else np.full(n, label))
    post, miss = _brute_posterior(x, tables, m._mixed.parents, m.class_log_prior_, label)
    out = out.astype(float)
    assert np.all(out[:, obs] == x[obs])
    for fill in itertools.product(range(2), repeat=len(miss)):
        p = sum(v for (k, f), v in post.items() if f == fill)
        freq = np.mean((out[:, miss] == fill).all(axis=1))
        assert abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1e-12, (fill, freq, p)


def test_multiple_imputation_output_mirrors_naive():
    Xa, y = _tiny4(2, n=120, missing=0.2)
    X = pd.DataFrame(Xa, columns=list("abcd")).astype("Int64")
    before = X.copy()
    tan = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    naive = bayesnb.CategoricalNB().fit(X, y)
    outs = tan.impute(X, strategy="draw", n_imputations=3, random_state=0)
    ref = naive.impute(X, strategy="draw", n_imputations=3, random_state=0)
    pd.testing.assert_frame_equal(X, before)
    assert isinstance(outs, list) and len(outs) == 3
    for o, r in zip(outs, ref):
        assert list(o.dtypes) == list(r.dtypes) and list(o.columns) == list(r.columns)
        assert not o.isna().any().any()
        obs = X.notna().to_numpy()
        assert np.array_equal(o.to_numpy()[obs], X.to_numpy()[obs])
    assert not all(o.equals(outs[0]) for o in outs[1:])  # one parameter draw and one cell draw per table
    pu = tan.impute(X, strategy="draw", random_state=7)
    plug = tan.impute(X, strategy="draw", random_state=7, parameter_uncertainty=False)
    assert not pu.equals(plug)
    assert not tan.impute(X, n_components=2, random_state=0).isna().any().any()  # a latent-class TAN
    with pytest.raises(ValueError, match="n_imputations"):
        tan.impute(X, n_imputations=2)


def test_table_draws_average_to_the_posterior_mean():
    m, _ = _fit("kdb")
    rng = np.random.default_rng(0)
    model = m._mixed
    draws = [MI.drawn_model(model, rng) for _ in range(300)]
    for j in range(len(model.nodes)):
        mean = MX.log_table(model, j)
        p = np.exp(np.stack([MX.log_table(d, j) for d in draws]))
        assert not np.allclose(p[0], p[1])
        np.testing.assert_array_less(np.abs(p.mean(0) - np.exp(mean)), 4 * p.std(0) / np.sqrt(300) + 1e-12)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_an_unseen_value_stays_and_counts_as_missing(structure):
    m, _ = _fit(structure)
    X = np.array([[7.0, np.nan, 1.0, np.nan], [np.nan, np.nan, 1.0, np.nan]])
    out = m.impute(X)
    assert out[0, 0] == 7.0 and list(out[0, 1:]) == list(out[1, 1:])
