"""Full posteriors: exact conjugate draws, the NumPyro plate model, NUTS and ArviZ output.

Equivalence tests: exact draws == closed form; NUTS == exact within Monte-Carlo error;
the model's sufficient-statistics, per-row and unlabelled forms == NumPy log densities.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, NaiveBayes
from bayesnb.criticism.diagnostics import compare_posteriors
from bayesnb.families import Bernoulli, Categorical, Gaussian
from bayesnb.estimators._posterior_methods import NotLinearError
from bayesnb.inference.numpyro_model import model_inputs, model_log_likelihood
from bayesnb.inference.draws import credible_interval, posterior_moments


@pytest.fixture(scope="module")
def votes01(votes):
    X, y = votes
    return X.replace({"y": 1.0, "n": 0.0}).astype(float).to_numpy(), y


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    d = load_iris()
    return pd.DataFrame(d.data, columns=d.feature_names), d.target_names[d.target]


def _check_exact_vs_closed_form(clf, n_draws=20000):
    dt = clf.sample_posterior(n_draws, random_state=0)
    mom = posterior_moments(clf.posterior_)
    post = dt["posterior"]
    assert set(post.data_vars) == set(mom)
    for var, (mean, sd) in mom.items():
        d = post[var].values[0]
        ok = np.isfinite(mean)
        m_hat, sd_hat = d.mean(0), d.std(0, ddof=1)
        assert np.all(np.isnan(m_hat[~ok]))  # categorical padding stays NaN
        z = (m_hat[ok] - mean[ok]) / (sd[ok] / np.sqrt(n_draws))
        assert np.abs(z).max() < 4.5, var
        assert np.abs(sd_hat[ok] / sd[ok] - 1).max() < 0.05, var


def test_exact_draws_match_closed_form(votes, votes01, iris):
    X, y = votes
    _check_exact_vs_closed_form(CategoricalNB().fit(X, y))
    Xb, yb = votes01
    _check_exact_vs_closed_form(BernoulliNB(binarize=None, alpha=0.5).fit(Xb, yb))
    rng = np.random.default_rng(0)
    _check_exact_vs_closed_form(MultinomialNB(alpha=0.3).fit(rng.poisson(2, (40, 6)), rng.integers(0, 3, 40)))
    Xi, yi = iris
    _check_exact_vs_closed_form(GaussianNB().fit(Xi, yi))


def test_exact_layout_uses_real_names(votes):
    X, y = votes
    dt = CategoricalNB().fit(X, y).sample_posterior(50, random_state=1)
    th = dt["posterior"]["theta_categorical"]
    assert th.dims == ("chain", "draw", "class", "feature", "category")
    assert list(th["class"].values) == ["democrat", "republican"]
    assert list(th["feature"].values) == list(X.columns)
    assert list(th["category"].values) == ["n", "y"]
    np.testing.assert_allclose(th.sum("category").values, 1.0)
    pi = dt["posterior"]["pi"]
    assert pi.dims == ("chain", "draw", "class")
    # reproducible
    dt2 = CategoricalNB().fit(X, y).sample_posterior(50, random_state=1)
    np.testing.assert_array_equal(dt2["posterior"]["pi"].values, pi.values)


def test_uneven_categories_are_padded_with_labels():
    X = pd.DataFrame({"a": ["x", "y", "z", "x", "y", "x"], "b": ["p", "q", "p", "q", "q", "p"]})
    y = np.array([0, 0, 0, 1, 1, 1])
    dt = CategoricalNB().fit(X, y).sample_posterior(10, random_state=0)
    th = dt["posterior"]["theta_categorical"]
    assert th.dims[-1] == "value"
    assert np.isnan(th.sel(feature="b", value=2).values).all()
    assert th["category"].sel(feature="a").values.tolist() == ["x", "y", "z"]
    assert th["category"].sel(feature="b").values.tolist() == ["p", "q", ""]


def test_fixed_class_prior_has_no_pi(votes):
    X, y = votes
    dt = CategoricalNB(fit_prior=False).fit(X, y).sample_posterior(5, random_state=0)
    assert "pi" not in dt["posterior"].data_vars


# ----------------------------------------------------------------- the model's log density
def _nb_mixed_data(seed=0, n=30):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "c": rng.choice(["a", "b", "c"], n).astype(object),
        "g1": rng.normal(size=n), "g2": rng.normal(2, 3, size=n),
        "b1": rng.integers(0, 2, n).astype(float), "b2": rng.integers(0, 2, n).astype(float),
    })
    X.loc[3, "c"] = None
    X.loc[5, "g1"] = np.nan
    X.loc[7, "b2"] = np.nan
    y = rng.choice(["u", "v"], n)
    clf = NaiveBayes(features={"c": Categorical(), ("g1", "g2"): Gaussian(), ("b1", "b2"): Bernoulli(binarize=None)})
    return clf.fit(X, y), X, y


def test_model_likelihood_forms_match_numpy():
    """suffstats form == rows form == NumPy joint log-likelihood; unlabelled rows == logsumexp."""
    from scipy.special import logsumexp

    clf, X, y = _nb_mixed_data()
    post = clf.posterior_
    # one posterior draw as parameter values
    draws = {k: v.values[0, 0] for k, v in clf.sample_posterior(1, random_state=3)["posterior"].data_vars.items()}
    sites = {"pi": draws["pi"]}  # the model's sites (sample and deterministic) at that draw
    block_args = model_inputs(post)[1]["blocks"]  # in the model's coordinates (its sampler arguments too)
    for b, args in zip(post.blocks, block_args):
        par = {k.split("_")[0]: v for k, v in draws.items() if k.endswith("_" + b.family.name)}
        sites.update(b.family.sites_from_params(b.family.name, b.family.numpyro_static(b.prior), par, args))
    enc, _ = clf._encode_blocks(X, post)
    codes = np.searchsorted(post.classes, y)
    # NumPy reference: log p(x, y) with the drawn parameters, via the family log-likelihoods
    jll = np.log(draws["pi"])[None, :].copy()
    for b, e in zip(post.blocks, enc):
        name = b.family.name
        par = {k.split("_")[0]: v for k, v in draws.items() if k.endswith("_" + name)}
        jll = jll + b.family.log_likelihood(b.prior, b.family.posterior_from_params(par), e)
    ref_lab = jll[np.arange(len(y)), codes].sum()
    ref_unl = logsumexp(jll, axis=1).sum()
    def factors(likelihood, labelled, unlabelled):
        spec, priors, data = model_inputs(post, labelled, unlabelled, likelihood)
        return model_log_likelihood(spec, priors, data, sites)  # the sum of the factor (observed) sites

    f_stats = factors("suffstats", (enc, codes), None)
    f_rows = factors("rows", (enc, codes), None)
    f_unl = factors("suffstats", None, enc)
    np.testing.assert_allclose(f_stats, ref_lab, rtol=2e-5)
    np.testing.assert_allclose(f_rows, ref_lab, rtol=2e-5)
    np.testing.assert_allclose(f_unl, ref_unl, rtol=2e-5)


def test_model_prior_simulation_with_data_none(votes):
    """data=None: the model is the prior; Predictive simulates it."""
    from cases import PRIOR_DRAWS, prior_draws

    X, y = votes
    clf = CategoricalNB(alpha=2.0).fit(X, y)
    spec, priors, _ = model_inputs(clf.posterior_)
    sims = prior_draws(spec, priors)
    th = np.asarray(sims["theta_categorical"])
    assert th.shape == (PRIOR_DRAWS, 2, 16, 2)
    np.testing.assert_allclose(th.mean(0), 0.5, atol=0.02)  # Dirichlet(2, 2) prior mean
    np.testing.assert_allclose(th.std(0), np.sqrt(0.25 / 5), rtol=0.1)


# ----------------------------------------------------------------- NUTS vs exact
def _assert_agree(exact, mcmc):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # divergences / r_hat would warn
        table = compare_posteriors(exact, mcmc, verbose=False)
    assert table.attrs["ok"], table.attrs["verdict"]
    assert (table["z"].abs() < 4).all()
    assert (table["sd_rel_diff"].abs() < 0.10).all()
    return table


def _assert_same_layout(exact, mcmc):
    pe, pm = exact["posterior"], mcmc["posterior"]
    assert set(pe.data_vars) == set(pm.data_vars)
    for v in pe.data_vars:
        assert pe[v].dims == pm[v].dims
        assert pe[v].shape[2:] == pm[v].shape[2:]
    for c in pe.coords:
        if c not in ("chain", "draw"):
            np.testing.assert_array_equal(pe[c].values, pm[c].values)


def _nuts_against_exact(clf, X, y, random_state, num_warmup=500, **kwargs):
    """(exact, mcmc, table): 20000 exact draws and a NUTS run of 3000 with the same layout and posterior."""
    exact = clf.sample_posterior(20000, random_state=0)
    mcmc = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=3000, random_state=random_state, **kwargs)
    _assert_same_layout(exact, mcmc)
    return exact, mcmc, _assert_agree(exact, mcmc)


@pytest.mark.slow
def test_nuts_matches_exact_house_votes(votes):
    X, y = votes
    exact, mcmc, table = _nuts_against_exact(CategoricalNB().fit(X, y), X, y, random_state=1)
    assert len(table) == 2 + 2 * 16 * 2
    ss = mcmc["sample_stats"]
    assert {"diverging", "tree_depth"} <= set(ss.data_vars)
    assert ss["diverging"].dims == ("chain", "draw")
    assert mcmc.attrs["sampling_seconds"] > 0
    # compiled here, or by an earlier test of the same worker (one NumPyro model: a structure
    # without parents on this table has the same compiled sampler)
    assert mcmc.attrs["compile_seconds"] > 0 or mcmc.attrs["cache_hit"] == 1


@pytest.mark.slow
def test_nuts_matches_exact_gaussian_iris(iris):
    X, y = iris
    clf = GaussianNB().fit(X, y)
    exact, mcmc, table = _nuts_against_exact(clf, X, y, random_state=2)
    assert set(table["variable"]) == {"pi", "mu_gaussian", "sigma2_gaussian"}
    # same shapes: the compiled sampler is reused (no compilation), also for sequential chains
    again = clf.run_mcmc(X, y, num_warmup=500, num_samples=3000, num_chains=2, random_state=5)
    assert again.attrs["cache_hit"] == 1
    assert again.attrs["compile_seconds"] < 0.5 * mcmc.attrs["compile_seconds"]
    assert again["posterior"].sizes["chain"] == 2
    assert not np.allclose(again["posterior"]["pi"].values[0], again["posterior"]["pi"].values[1])
    _assert_agree(exact, again)


@pytest.mark.slow
def test_nuts_rows_form_bernoulli_matches_exact(votes01):
    """The per-row likelihood (plate obs) gives the same posterior; missing cells masked."""
    X, y = votes01
    X, y = X[::3], y[::3]
    clf = BernoulliNB(binarize=None).fit(X, y)
    _, mcmc, _ = _nuts_against_exact(clf, X, y, random_state=3, num_warmup=400, likelihood="rows")
    assert mcmc.attrs["likelihood"] == "rows"


@pytest.mark.slow
def test_mixed_model_layout_and_unlabelled_rows():
    """NaiveBayes with three families: identical layout; unlabelled rows are accepted."""
    clf, X, y = _nb_mixed_data(n=40)
    exact = clf.sample_posterior(100, random_state=0)
    y_semi = y.astype(object)
    y_semi[:5] = None
    mcmc = clf.run_mcmc(X, y_semi, num_warmup=100, num_samples=100, random_state=0)
    _assert_same_layout(exact, mcmc)
    names = set(exact["posterior"].data_vars)
    assert names == {"pi", "theta_categorical", "mu_gaussian", "sigma2_gaussian", "theta_bernoulli"}
    assert exact["posterior"]["mu_gaussian"].dims[-1] == "feature_gaussian"
    assert exact["posterior"]["theta_categorical"].dims[-2:] == ("feature_categorical", "category_categorical")
    assert np.isfinite(mcmc["posterior"]["mu_gaussian"].values).all()


def test_run_mcmc_rejects_improper_prior_and_bad_args(votes):
    X, y = votes
    with pytest.raises(ValueError, match="proper prior"):
        CategoricalNB(alpha=0).fit(X, y).run_mcmc(X, y)
    clf = CategoricalNB().fit(X, y)
    with pytest.raises(ValueError, match="likelihood"):
        clf.run_mcmc(X, y, likelihood="bogus")
    with pytest.raises(ValueError, match="num_samples"):
        clf.run_mcmc(X, y, num_samples=0)
    with pytest.raises(ValueError, match="n_draws"):
        clf.sample_posterior(0)


def test_compare_posteriors_flags_a_wrong_posterior(votes):
    X, y = votes
    a = CategoricalNB().fit(X, y).sample_posterior(4000, random_state=0)
    b = CategoricalNB(alpha=30).fit(X, y).sample_posterior(4000, random_state=1)
    table = compare_posteriors(a, b, verbose=False)
    assert not table.attrs["ok"]
    assert table.attrs["verdict"].startswith("DISAGREE")
    same = compare_posteriors(a, CategoricalNB().fit(X, y).sample_posterior(4000, random_state=2), verbose=False)
    assert same.attrs["ok"], same.attrs["verdict"]
    # same means, sds smaller by ~sqrt(2) (every row counted twice): the sd rule must catch it
    narrow = CategoricalNB().fit(X, y, sample_weight=np.full(len(y), 2.0)).sample_posterior(4000, random_state=3)
    table = compare_posteriors(a, narrow, verbose=False)
    assert not table.attrs["ok"] and table["sd_rel_diff"].min() < -0.2


# ----------------------------------------------------------------- uncertainty of p(y | x)
def test_predict_proba_draws_and_interval(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    d = clf.predict_proba_draws(X.iloc[:20], n_draws=300, random_state=0)
    assert d.shape == (300, 20, 2)
    np.testing.assert_allclose(d.sum(-1), 1.0)
    lo, hi = credible_interval(d, ci=0.9)
    p = clf.predict_proba(X.iloc[:20])
    assert np.all(lo <= hi)
    assert np.mean((lo - 1e-9 <= p) & (p <= hi + 1e-9)) > 0.9
    # ten times the data -> narrower intervals
    big = CategoricalNB().fit(X, y, sample_weight=np.full(len(y), 10.0))
    lo2, hi2 = credible_interval(big.predict_proba_draws(X.iloc[:20], n_draws=300, random_state=0), ci=0.9)
    assert np.median((hi2 - lo2)[:, 0]) < 0.6 * np.median((hi - lo)[:, 0])
    np.testing.assert_array_equal(lo, np.quantile(d, (1 - 0.9) / 2, axis=0))  # equal-tailed
    np.testing.assert_array_equal(hi, np.quantile(d, 1 - (1 - 0.9) / 2, axis=0))
    for bad in (1.5, 0, True, "0.9"):
        with pytest.raises(ValueError, match="ci must be a probability"):
            credible_interval(d, ci=bad)
    with pytest.raises(ValueError, match="at least one draw"):
        credible_interval(d[:0])
    assert not hasattr(clf, "predict_proba_interval")  # moved: credible_interval of predict_proba_draws


def test_credible_interval_of_a_sample_posterior_variable(votes):
    """A variable of ``sample_posterior`` (dims chain, draw, ...) is summarised over all its draws, not
    over its one chain (which gave lower == upper == each draw)."""
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    pi = clf.sample_posterior(2000, random_state=0).posterior["pi"]
    assert pi.dims[:2] == ("chain", "draw")
    lo, hi = credible_interval(pi, ci=0.9)
    flat = np.asarray(pi).reshape(-1, pi.shape[-1])
    assert lo.shape == hi.shape == (2,)
    np.testing.assert_array_equal(lo, np.quantile(flat, 0.05, axis=0))
    np.testing.assert_array_equal(hi, np.quantile(flat, 0.95, axis=0))
    assert np.all(hi - lo > 0.01)
    # an explicit axis is used as given, and one out of range is a clear error
    np.testing.assert_array_equal(credible_interval(flat, ci=0.9, axis=0)[0], lo)
    with pytest.raises(ValueError, match="axis 3 .* 2 dimension"):
        credible_interval(flat, axis=3)


def test_predict_proba_draws_gaussian(iris):
    X, y = iris
    clf = GaussianNB().fit(X, y)
    d = clf.predict_proba_draws(X.iloc[[0, 60, 120]], n_draws=200, random_state=0)
    assert d.shape == (200, 3, 3)
    np.testing.assert_allclose(d.mean(0), clf.predict_proba(X.iloc[[0, 60, 120]]), atol=0.05)


# ----------------------------------------------------------------- NB as a linear classifier
def test_coef_bernoulli_is_log_odds(votes01):
    X, y = votes01
    complete = ~np.isnan(X).any(axis=1)
    clf = BernoulliNB(binarize=None).fit(X, y)
    Xc = X[complete]
    jll = clf.predict_joint_log_proba(Xc)
    assert clf.coef_.shape == (1, 16) and clf.intercept_.shape == (1,)
    np.testing.assert_allclose(Xc @ clf.coef_.T + clf.intercept_, (jll[:, 1] - jll[:, 0])[:, None], rtol=1e-10)
    lo, hi = credible_interval(clf.coef_draws(2000, random_state=0)[0], ci=0.94)
    assert lo.shape == hi.shape == (16,) and not hasattr(clf, "coef_interval")
    assert np.all(lo < clf.coef_) and np.all(clf.coef_ < hi)
    w, b = clf.coef_draws(500, random_state=0)
    assert w.shape == (500, 16) and b.shape == (500,)


def test_coef_categorical_one_hot_and_multinomial(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    names = clf.coef_names_
    assert names[0] == "handicapped-infants=n" and len(names) == 32
    Xc = X.dropna()
    onehot = np.column_stack([(Xc[c] == v).to_numpy(float) for c in X.columns for v in ("n", "y")])
    jll = clf.predict_joint_log_proba(Xc)
    np.testing.assert_allclose(onehot @ clf.coef_.T + clf.intercept_, (jll[:, 1] - jll[:, 0])[:, None], rtol=1e-10)
    rng = np.random.default_rng(0)
    Xm, ym = rng.poisson(3, (30, 5)), rng.integers(0, 2, 30)
    m = MultinomialNB().fit(Xm, ym)
    jll = m.predict_joint_log_proba(Xm)
    np.testing.assert_allclose(Xm @ m.coef_.T + m.intercept_, (jll[:, 1] - jll[:, 0])[:, None], rtol=1e-10)


def test_coef_errors_for_gaussian_and_multiclass(iris, votes):
    X, y = iris
    g = GaussianNB().fit(X, y)
    with pytest.raises(NotLinearError, match="binary"):
        g.coef_
    two = y != "setosa"
    g2 = GaussianNB().fit(X[two], y[two])
    with pytest.raises(ValueError, match="quadratic"):
        g2.coef_
    assert not hasattr(g2, "coef_")
    assert not hasattr(CategoricalNB(), "coef_")  # unfitted


def test_enable_compilation_cache_directory(tmp_path, monkeypatch):
    """One function sets JAX's persistent cache (the demo uses it too): an explicit folder is
    created and used; with none, JAX_COMPILATION_CACHE_DIR wins, else $XDG_CACHE_HOME/bayesnb/jax."""
    import jax

    from bayesnb.inference.nuts import enable_compilation_cache

    before = jax.config.jax_compilation_cache_dir
    try:
        path = tmp_path / "a" / "b"
        assert enable_compilation_cache(path) == str(path) and path.is_dir()
        assert jax.config.jax_compilation_cache_dir == str(path)
        monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "env"))
        assert enable_compilation_cache() == str(tmp_path / "env")
        monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert enable_compilation_cache() == str(tmp_path / "xdg" / "bayesnb" / "jax")
        assert (tmp_path / "xdg" / "bayesnb" / "jax").is_dir()
    finally:
        jax.config.update("jax_compilation_cache_dir", before)


def test_default_compilation_cache_switch_and_no_override(tmp_path, monkeypatch):
    """On by default in $XDG_CACHE_HOME/bayesnb/jax; BAYESNB_JAX_CACHE=0 turns it off; a folder the
    user configured in JAX (config or JAX_COMPILATION_CACHE_DIR) is never overridden. Nothing compiles."""
    import jax

    from bayesnb.inference.nuts import default_compilation_cache

    before = jax.config.jax_compilation_cache_dir
    try:
        monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        jax.config.update("jax_compilation_cache_dir", None)
        for off in ("0", "off", "False"):
            monkeypatch.setenv("BAYESNB_JAX_CACHE", off)
            assert default_compilation_cache() is None
            assert jax.config.jax_compilation_cache_dir is None
        monkeypatch.delenv("BAYESNB_JAX_CACHE")
        assert default_compilation_cache() == str(tmp_path / "xdg" / "bayesnb" / "jax")
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "xdg" / "bayesnb" / "jax")
        jax.config.update("jax_compilation_cache_dir", str(tmp_path / "mine"))  # the user's own folder
        assert default_compilation_cache() == str(tmp_path / "mine")
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "mine")
        jax.config.update("jax_compilation_cache_dir", None)
        monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "env"))
        assert default_compilation_cache() == str(tmp_path / "env")
        assert jax.config.jax_compilation_cache_dir is None
    finally:
        jax.config.update("jax_compilation_cache_dir", before)


def test_progress_bar_auto_follows_the_terminal():
    """progress_bar=None: on exactly when the stream is a TTY; True/False are kept as given."""
    from bayesnb.inference.nuts import show_progress

    class Stream:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

    assert show_progress(None, Stream(True)) is True
    assert show_progress(None, Stream(False)) is False
    assert show_progress(None, object()) is False  # no isatty at all
    assert show_progress(True, Stream(False)) is True
    assert show_progress(False, Stream(True)) is False


@pytest.mark.slow
def test_changing_num_samples_does_not_recompile(votes, capsys, caplog, monkeypatch):
    """A second run_mcmc on the same model with another num_samples reuses the compiled sampler: JAX
    logs no compilation of it (while it logs the first call's), and the draw count is the new one.
    The first call prints the compile message when the progress bar is on, with the sampler's
    dimension: 1 for pi and 2 x 16 x 1 stick-breaking logits for theta (a Dirichlet over V values
    is sampled on its V - 1 identified coordinates: one per binary vote). (num_warmup=300 is used by no other test, so the first call
    always compiles: one compile for this test; the on-disk program cache is bypassed, since an
    earlier session may have stored this sampler.)"""
    import logging

    import jax

    from bayesnb.inference import nuts, program_cache

    monkeypatch.setattr(program_cache, "load", lambda cache_dir, key: None)
    # and the process's own: the examples run in this process (tests/test_examples.py), one of them
    # with the same model and warmup
    monkeypatch.setattr(nuts, "_CACHE", {})
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    before = jax.config.jax_log_compiles
    jax.config.update("jax_log_compiles", True)

    def sampler_compiles():
        return [r.getMessage() for r in caplog.records if "Compiling jit(" in r.getMessage()
                and ("chunk_flat" in r.getMessage() or "init_flat" in r.getMessage())]

    try:
        with caplog.at_level(logging.WARNING):
            first = clf.run_mcmc(X, y, num_warmup=300, num_samples=130, random_state=0, progress_bar=True)
            assert len(sampler_compiles()) == 2  # the initialiser and the chunk
            caplog.clear()
            second = clf.run_mcmc(X, y, num_warmup=300, num_samples=270, random_state=1, progress_bar=False)
            assert sampler_compiles() == []
    finally:
        jax.config.update("jax_log_compiles", before)
    assert first.attrs["cache_hit"] == 0
    assert "compiling the NUTS sampler for a model with 33 parameters (first call only" in capsys.readouterr().err
    assert second.attrs["cache_hit"] == 1 and second.attrs["compile_seconds"] == 0.0
    assert first["posterior"].sizes["draw"] == 130 and second["posterior"].sizes["draw"] == 270
    assert second["sample_stats"]["step_size"].shape == (1, 270)
