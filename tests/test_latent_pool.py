"""Pooling latent-class fits from several EM starts (bayesnb.inference.latent_pool) and the imputer's pooled fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from bayesnb import Imputer, NaiveBayes
from bayesnb.datasets import load_house_votes
from bayesnb.impute.configs import POOLED_STARTS, pooled_latent_fit
from bayesnb.inference.latent_pool import first_start, pool_fits
from bayesnb.io.persistence import ModelFileError


@pytest.fixture(scope="module")
def votes():
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    model = NaiveBayes().fit(X, y)
    rng = np.random.default_rng(0)
    fits = [model.fit_latent_class(X, y, n_components=3, n_init=1, random_state=rng) for _ in range(3)]
    return X, y, model, fits


def test_the_pooled_density_is_the_mean_of_the_starts(votes):
    X, y, model, fits = votes
    pooled = pool_fits(fits)
    assert pooled.n_components == 9 and pooled.posterior.classes.shape == (18,)
    starts = np.array([model.score_samples(X, latent=f) for f in fits])
    assert not np.allclose(starts[0], starts[1])  # the starts differ: there is something to pool
    np.testing.assert_allclose(model.score_samples(X, latent=pooled), logsumexp(starts, axis=0) - np.log(3),
                               rtol=0, atol=1e-9)


def test_each_state_keeps_its_starts_parameters_and_a_third_of_its_weight(votes):
    _, _, _, fits = votes
    pooled = pool_fits(fits)
    K, C, R = 2, 3, 3
    w = np.exp(pooled.posterior.class_log_prior)
    best_first = sorted(fits, key=lambda f: -f.em_objective[-1])
    assert pooled.starts == R and pooled.em_objective == best_first[0].em_objective
    for r, f in enumerate(best_first):
        for k in range(K):
            new = [k * R * C + r * C + c for c in range(C)]
            old = [k * C + c for c in range(C)]
            np.testing.assert_allclose(w[new], np.exp(f.posterior.class_log_prior[old]) / R, rtol=1e-12)
            for b, blk in enumerate(pooled.posterior.blocks):
                for got, want in zip(blk.posterior, f.posterior.blocks[b].posterior):
                    if got is not None and not isinstance(got, tuple):
                        np.testing.assert_array_equal(np.asarray(got)[new], np.asarray(want)[old])
    np.testing.assert_array_equal(pooled.group, np.repeat([0, 1], 9))


def test_what_cannot_be_pooled_is_refused(votes):
    X, y, model, fits = votes
    with pytest.raises(ValueError, match="at least one fit"):
        pool_fits([])
    two = model.fit_latent_class(X, y, n_components=2, n_init=1, random_state=0)
    with pytest.raises(ValueError, match="one count"):
        pool_fits([fits[0], two])
    hier = model.fit_latent_class(X, y, n_components=3, n_init=1, random_state=0, component_prior="hierarchical")
    with pytest.raises(ValueError, match="Dirichlet"):
        pool_fits([fits[0], hier])
    assert pool_fits(fits[:1]) is fits[0]
    tan = NaiveBayes(structure="tan").fit(X, y)
    structured = tan.fit_latent_class(X, y, n_components=3, n_init=1, random_state=0)
    for bad in (structured, fits[1]._replace(point=True), pool_fits(fits)):
        with pytest.raises(ValueError, match="one EM start"):
            pool_fits([fits[0], bad])


def test_the_imputers_latent_configuration_is_pooled_and_saved(tmp_path, votes):
    X, y, model, _ = votes
    Xm = X.mask(np.random.default_rng(1).random(X.shape) < 0.2)
    imp = Imputer(configurations=("latent",), random_state=0, missingness="mar").fit(Xm, y)
    fit = imp.models_["latent"][1]
    C = imp.n_components_
    assert C >= 2 and fit.n_components == POOLED_STARTS * C
    path = tmp_path / "imp.bnb"
    imp.save(path)
    again = Imputer.load(path)
    assert again.models_["latent"][1].n_components == POOLED_STARTS * C
    assert again.impute(Xm).equals(imp.impute(Xm))


def test_one_component_and_structured_models_keep_the_best_start():
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    rng = np.random.default_rng(0)
    one = pooled_latent_fit(NaiveBayes().fit(X, y), X, y, 1, rng)
    assert one.n_components == 1
    tan = NaiveBayes(structure="tan").fit(X, y)
    fit = pooled_latent_fit(tan, X, y, 2, np.random.default_rng(1))
    assert fit.n_components == 2 and fit.structure is not None and fit.starts == 1
    again = np.random.default_rng(1)  # the same three starts, one by one: the best objective is kept
    starts = [tan.fit_latent_class(X, y, n_components=2, n_init=1, random_state=again) for _ in range(POOLED_STARTS)]
    assert fit.em_objective[-1] == max(f.em_objective[-1] for f in starts)


def test_the_count_searchs_scores_stay_with_the_pooled_fit():
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    for seed in range(3):  # whichever start has the best objective
        Xm = X.mask(np.random.default_rng(seed).random(X.shape) < 0.2)
        imp = Imputer(configurations=("latent",), random_state=seed, missingness="mar").fit(Xm, y)
        selection = imp.models_["latent"][1].selection
        assert isinstance(selection, dict) and imp.n_components_ in selection


def test_the_first_start_is_the_best_start_exactly(votes):
    X, _, model, fits = votes
    best = max(fits, key=lambda f: f.em_objective[-1])
    got = first_start(pool_fits(fits))
    assert got.starts == 1 and got.n_components == 3
    np.testing.assert_array_equal(got.posterior.class_log_prior, best.posterior.class_log_prior)
    np.testing.assert_array_equal(model.score_samples(X, latent=got), model.score_samples(X, latent=best))
    assert first_start(best) is best


def test_a_pooled_fit_round_trips_and_a_bad_count_of_starts_is_refused(tmp_path, votes):
    from helpers import edit_meta

    X, y, _, _ = votes
    Xm = X.mask(np.random.default_rng(2).random(X.shape) < 0.2)
    imp = Imputer(configurations=("naive", "latent"), random_state=0, missingness="mar").fit(Xm, y)
    path = tmp_path / "imp.bnb"
    imp.save(path)
    assert Imputer.load(path).models_["latent"][1].starts == POOLED_STARTS
    for bad in (0, "3", 1.5, True, POOLED_STARTS * imp.n_components_ + 1):
        def change(meta, bad=bad):
            meta["fitted"]["models"]["latent"]["latent"]["starts"] = bad
        edit_meta(path, tmp_path / "bad.bnb", change)
        with pytest.raises(ModelFileError, match="starts"):
            Imputer.load(tmp_path / "bad.bnb")

    model, fit = imp.models_["latent"]  # a fit that cannot be pooled must say one start
    hier = model.fit_latent_class(Xm, None, n_components=fit.n_components, n_init=1, random_state=0,
                                  component_prior="hierarchical")
    imp.models_["latent"] = (model, hier)
    imp.save(tmp_path / "hier.bnb")
    imp.models_["latent"] = (model, fit)

    def pooled_hier(meta):
        meta["fitted"]["models"]["latent"]["latent"]["starts"] = POOLED_STARTS
    edit_meta(tmp_path / "hier.bnb", tmp_path / "bad.bnb", pooled_hier)
    assert Imputer.load(tmp_path / "hier.bnb").models_["latent"][1].starts == 1
    with pytest.raises(ModelFileError, match="starts"):
        Imputer.load(tmp_path / "bad.bnb")

    def old(meta):  # a file written before pooled fits has no starts: read as one start
        meta["fitted"]["models"]["latent"]["latent"].pop("starts")
    edit_meta(path, tmp_path / "old.bnb", old)
    again = Imputer.load(tmp_path / "old.bnb")
    assert again.models_["latent"][1].starts == 1
    assert again.models_["latent"][1].n_components == POOLED_STARTS * imp.n_components_


def test_draws_come_from_the_best_start(votes):
    X, y, _, _ = votes
    Xm = X.mask(np.random.default_rng(3).random(X.shape) < 0.2)
    imp = Imputer(configurations=("latent",), random_state=0, missingness="mar").fit(Xm, y)
    model, pooled = imp.models_["latent"]
    got = imp.impute(Xm, strategy="draw", n_imputations=2, random_state=5)
    imp.models_["latent"] = (model, first_start(pooled))
    want = imp.impute(Xm, strategy="draw", n_imputations=2, random_state=5)
    for g, w in zip(got, want):
        pd.testing.assert_frame_equal(g, w)
