"""``latent_class_draws`` under a structure (TAN, k-DB): one plug-in structured latent-class model per draw.

Each draw of ``run_mcmc(X, y, n_components=C)`` (every node's parameters per (class, component,
parents' states)) becomes a ``LatentClassFit`` with ``point=True`` whose ``structure`` is the model
over the states at that draw. Checked: real NUTS draws on categorical (house votes) and mixed
(penguins) tables give fits that ``score_samples`` and ``impute`` use; a "draw" of known parameters
scores exactly the brute-force enumeration of ``log p(x)``; a draw set to the EM fit's parameters
scores as the EM fit; naive results are naive; another model's draws are refused.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy.special import logsumexp

from bayesnb import CategoricalNB, LatentClassFit, NaiveBayes
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.families import Categorical, Histogram
from bayesnb.generative.latent import latent_class_draws
from bayesnb.structure.structure_draws import node_variables
from latent_structure import random_draw, tiny


def _votes():
    df = load_house_votes().iloc[::3]
    return df.drop(columns="party").iloc[:, :5], df["party"].to_numpy()


def _penguins():
    df = load_penguins().iloc[::3]
    return df[["island", "sex", "bill_length_mm", "flipper_length_mm"]], df["species"].to_numpy()


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("table", ["categorical", "mixed"])
def test_nuts_draws_give_structured_fits_that_score_and_impute(table, structure):
    X, y = _votes() if table == "categorical" else _penguins()
    m = NaiveBayes(structure=structure, k=2).fit(X, y)
    assert m.structure_kind_ == structure and any(m.structure_.values())
    idata = m.run_mcmc(X, y, n_components=2, num_warmup=60, num_samples=4, num_chains=1, random_state=0)
    fits = latent_class_draws(m, idata)
    assert len(fits) == 4 and all(isinstance(f, LatentClassFit) and f.point for f in fits)
    f = fits[0]
    assert f.structure.n_classes == 2 * len(m.classes_) and f.structure.parents == m._mixed.parents
    scores = np.array([m.score_samples(X, latent=g) for g in fits])
    assert scores.shape == (4, len(X)) and np.isfinite(scores).all()
    # each fit is its own draw: two consecutive fits score alike exactly when NUTS kept the draw
    ds = idata["posterior"]
    kept = [all(np.array_equal(ds[v].values[0, i], ds[v].values[0, i + 1]) for v in ds.data_vars) for i in range(3)]
    assert not all(kept) and kept == [np.array_equal(scores[i], scores[i + 1]) for i in range(3)]
    for strategy in ("auto", "draw"):
        out = m.impute(X, latent=f, strategy=strategy, random_state=0)
        assert not out.isna().any().any()
        seen = X.notna().to_numpy()
        pd.testing.assert_frame_equal(out.where(seen), X.where(seen).astype(out.dtypes.to_dict()),
                                      check_dtype=False)
    # one draw is used as it is: parameter_uncertainty changes nothing
    a = m.impute(X, latent=f, strategy="draw", random_state=1, parameter_uncertainty=True)
    b = m.impute(X, latent=f, strategy="draw", random_state=1, parameter_uncertainty=False)
    pd.testing.assert_frame_equal(a, b)
    assert len(latent_class_draws(m, idata, n_draws=2, random_state=0)) == 2


def _brute_log_px(x, ds, names):
    """log p(x_obs) of one row by enumerating (class, component) and every completion of its missing cells."""
    pi, w = ds["pi"].values[0, 0], ds["w"].values[0, 0]
    miss = [j for j, v in enumerate(x) if pd.isna(v)]
    terms = []
    for k, c in itertools.product(range(w.shape[0]), range(w.shape[1])):
        for fill in itertools.product(["n", "y"], repeat=len(miss)):
            z = dict(zip(names, x))
            z.update({names[j]: v for j, v in zip(miss, fill)})
            lp = np.log(pi[k]) + np.log(w[k, c])
            for f in names:
                da = ds[f"theta_{f}"].isel(chain=0, draw=0, **{"class": k, "component": c})
                sel = {d: str(z[d[:-len("_state")]]) for d in da.dims if d.endswith("_state")}
                lp += np.log(float(da.sel(sel).sel({f"{f}_category": str(z[f])})))
            terms.append(lp)
    return logsumexp(terms)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("cls", [CategoricalNB, NaiveBayes])
def test_draw_of_known_parameters_scores_brute_force(cls, structure):
    X, y = tiny(0, 120)
    m = cls(structure=structure, k=2).fit(X, y)
    assert max(len(p) for p in m.structure_.values()) == (1 if structure == "tan" else 2)
    idata = random_draw(m.sample_posterior(1, random_state=0), 2, np.random.default_rng(1))
    (fit,) = latent_class_draws(m, idata)
    Xt, _ = tiny(5, 20)
    Xt = Xt.mask(np.random.default_rng(2).random(Xt.shape) < 0.3)
    want = np.array([_brute_log_px(row, idata["posterior"], list(X.columns)) for row in Xt.to_numpy()])
    np.testing.assert_allclose(m.score_samples(Xt, latent=fit), want, rtol=1e-10, atol=1e-12)


def _em_as_draw(m, fit, C):
    """The EM fit's parameters (its plug-in) written as one draw of ``run_mcmc(n_components=C)``."""
    base = m.sample_posterior(1, random_state=0)["posterior"].to_dataset()
    post = m.posterior_
    names = [str(post.blocks[nd.block].names[nd.col]) for nd in fit.structure.nodes]
    K = len(m.classes_)
    p = np.exp(fit.posterior.class_log_prior).reshape(K, C)
    out = {"pi": (base["pi"].dims, (p.sum(1) / p.sum())[None, None]),
           "w": (("chain", "draw", "class", "component"), (p / p.sum(1, keepdims=True))[None, None])}
    for nd, post_j, var in zip(fit.structure.nodes, fit.structure.posteriors, node_variables(fit.structure, names)):
        point = nd.family.point_params(post_j)
        for param, v in var.items():
            da = base[v]
            out[v] = ((*da.dims[:3], "component", *da.dims[3:]),
                      np.asarray(point[param], float).reshape((1, 1, K, C) + da.shape[3:]))
    return xr.DataTree.from_dict({"posterior": xr.Dataset(out, coords={**base.coords, "component": np.arange(C)})})


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_draw_at_em_parameters_scores_and_imputes_as_em_mixed(structure):
    X, y = _penguins()
    m = NaiveBayes(structure=structure, k=2).fit(X, y)
    assert any(m.structure_.values())
    em = m.fit_latent_class(X, y, n_components=2, n_init=1, max_iter=15, random_state=0)
    (fit,) = latent_class_draws(m, _em_as_draw(m, em, 2))
    np.testing.assert_allclose(m.score_samples(X, latent=fit), m.score_samples(X, latent=em), rtol=1e-10)
    pd.testing.assert_frame_equal(m.impute(X, latent=fit), m.impute(X, latent=em))


def test_naive_structure_keeps_naive_draws():
    X, y = tiny(0, 120)
    tan = NaiveBayes(structure="tan").fit(X, y)
    naive = NaiveBayes(structure="naive").fit(X, y)
    idata = naive.sample_posterior(4, random_state=0)
    fits = latent_class_draws(naive, idata)
    assert all(f.structure is None and f.point for f in fits)
    # a draw of the naive model: log p(x) = logsumexp_k log pi_k + sum_j log theta_j[k, x_j]
    ds, x = idata["posterior"], X.iloc[:10]
    theta = [v for v in ds.data_vars if v != "pi"]
    assert len(theta) == 1  # the categorical block's theta (class, feature, category)
    t = ds[theta[0]].values[0, 0]
    cats = [list(np.asarray(ds[theta[0]].coords[d])) for d in ds[theta[0]].dims[4:]]
    assert len(cats) == 1
    lp = np.log(ds["pi"].values[0, 0])[None, :] + sum(
        np.log(t[:, j, [cats[0].index(v) for v in x[f]]]).T for j, f in enumerate(X.columns))
    np.testing.assert_allclose(naive.score_samples(x, latent=fits[0]), logsumexp(lp, axis=1), rtol=1e-10)
    with pytest.raises(ValueError, match="does not match"):
        latent_class_draws(tan, idata)  # the naive model's draws, given to a structure


def test_other_models_draws_are_refused():
    X, y = tiny(0, 120)
    tan = NaiveBayes(structure="tan").fit(X, y)
    kdb = NaiveBayes(structure="kdb", k=2).fit(X, y)
    assert tan._mixed.parents != kdb._mixed.parents
    naive = NaiveBayes().fit(X, y)
    for m, other in [(tan, kdb), (kdb, tan), (naive, tan)]:
        with pytest.raises(ValueError, match="does not match this estimator's model"):
            latent_class_draws(m, other.sample_posterior(2, random_state=0))
    other_data = NaiveBayes(structure="tan").fit(*_penguins())
    with pytest.raises(ValueError, match="does not match"):
        latent_class_draws(tan, other_data.sample_posterior(2, random_state=0))
    with pytest.raises(TypeError, match="DataTree returned by run_mcmc"):
        latent_class_draws(tan, {"w": 1})
    with pytest.raises(ValueError, match="n_draws"):
        latent_class_draws(tan, tan.sample_posterior(2, random_state=0), n_draws=3)
    (fit,) = latent_class_draws(tan, tan.sample_posterior(1, random_state=0))
    with pytest.raises(ValueError, match="latent"):
        kdb.score_samples(X, latent=fit)  # a draw of another structure
    with pytest.raises(ValueError, match="latent"):
        naive.score_samples(X, latent=fit)


def test_naive_draws_of_a_histogram_block_are_read():
    """A Histogram's bins are an own axis of its draws (``theta_<label>_dim_0``), which the naive
    layout check now reads (it refused the estimator's own draws before)."""
    X, y = _penguins()
    num = ["bill_length_mm", "flipper_length_mm"]
    m = NaiveBayes(features={("island", "sex"): Categorical(), tuple(num): Histogram()}).fit(X, y)
    idata = m.sample_posterior(3, random_state=0)
    assert any(d.endswith("_dim_0") for v in idata["posterior"].data_vars for d in idata["posterior"][v].dims)
    fits = latent_class_draws(m, idata)
    scores = np.array([m.score_samples(X, latent=f) for f in fits])
    assert np.isfinite(scores).all() and not np.allclose(scores[0], scores[1])
    bad = idata["posterior"].to_dataset()
    v = next(v for v in bad.data_vars if any(d.endswith("_dim_0") for d in bad[v].dims))
    bad = bad.isel({bad[v].dims[-1]: slice(1, None)})  # one bin fewer
    with pytest.raises(ValueError, match="does not match"):
        latent_class_draws(m, xr.DataTree.from_dict({"posterior": bad}))
