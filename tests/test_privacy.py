"""privacy=bayesnb.DP(...): the setting, the private fit, post-processing and what is refused."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayesnb as bn
from helpers import complete_penguins_xy, votes_xy
from bayesnb.cli.report import model_report
from bayesnb.families.dp_release import VAR_FLOOR_MIN, var_floor
from bayesnb.families.gaussian import plug_in
from bayesnb.families.poisson import lam_of
from bayesnb.inference.conjugate import fit_block
from bayesnb.privacy import Budget, analytic_gaussian_sigma, gaussian_mu, gdp_epsilon, project_simplex

PARTIES = ["democrat", "republican"]
SPECIES = ["Adelie", "Chinstrap", "Gentoo"]
BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
          "body_mass_g": (2500, 6500)}
NUMERIC = tuple(BOUNDS)
CATS = [["Biscoe", "Dream", "Torgersen"], ["female", "male"], [2007, 2008, 2009]]


@pytest.fixture(scope="module")
def votes():
    return votes_xy()


@pytest.fixture(scope="module")
def penguins():
    return complete_penguins_xy()


def penguin_features():
    return {NUMERIC: bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=CATS)}


def private_votes(X, y, **kw):
    d = X.shape[1]
    return bn.CategoricalNB(categories=[["n", "y"]] * d, privacy=bn.DP(classes=PARTIES, **kw)).fit(X, y)


# ---------------------------------------------------------------------------- the setting
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"epsilon": 0}, "epsilon must be a finite number > 0"),
    ({"epsilon": math.inf}, "epsilon must be a finite number > 0"),
    ({"epsilon": "1"}, "epsilon must be a finite number > 0"),
    ({"epsilon": 1, "delta": 1.0}, "0 <= delta < 1"),
    ({"epsilon": 1, "delta": 1e-6}, "Laplace mechanism is pure"),
    ({"epsilon": 1, "mechanism": "gaussian"}, "needs delta > 0"),
    ({"epsilon": 1, "mechanism": "exponential"}, "'laplace' or 'gaussian'"),
    ({"epsilon": 1, "bounds": {"a": (2, 1)}}, r"bounds\['a'\] must be a pair"),
    ({"epsilon": 1, "bounds": {"a": (0, math.nan)}}, r"bounds\['a'\] must be a pair"),
])
def test_dp_setting_is_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bn.DP(**kwargs)


def test_dp_is_frozen_and_every_estimator_takes_it():
    dp = bn.DP(1.0)
    with pytest.raises(AttributeError):
        dp.epsilon = 2.0
    for cls in (bn.NaiveBayes, bn.CategoricalNB, bn.BernoulliNB, bn.GaussianNB, bn.MultinomialNB, bn.ComplementNB):
        est = cls(privacy=dp)
        assert est.get_params()["privacy"] is dp  # __init__ only stores it
    with pytest.raises(ValueError, match="expected privacy=None or a bayesnb.DP"):
        bn.GaussianNB(privacy=1.0).fit([[0.0], [1.0]], [0, 1])


def test_analytic_gaussian_sigma_solves_the_privacy_profile():
    from scipy.stats import norm

    for eps, delta, l2 in [(0.1, 1e-6, 1.0), (1.0, 1e-5, math.sqrt(2)), (5.0, 1e-3, 3.0)]:
        s = analytic_gaussian_sigma(l2, eps, delta)
        # the exact delta(eps) of N(0, s^2) noise on a query moved by l2 (Balle & Wang, Thm 8)
        prof = norm.cdf(l2 / (2 * s) - eps * s / l2) - math.exp(eps) * norm.cdf(-l2 / (2 * s) - eps * s / l2)
        assert prof == pytest.approx(delta, rel=1e-6)
        if eps < 1:  # never more noise than the classical calibration
            assert s <= math.sqrt(2 * math.log(1.25 / delta)) * l2 / eps
    # a large epsilon: exp(epsilon) overflows a float, the profile is solved in log space
    sigmas = [analytic_gaussian_sigma(1.0, eps, 1e-6) for eps in (50.0, 1e3, 1e6)]
    assert all(math.isfinite(s) and s > 0 for s in sigmas) and sigmas == sorted(sigmas, reverse=True)
    s = sigmas[1]
    a, b = 1 / (2 * s), 1e3 * s
    prof = norm.cdf(a - b) - math.exp(1e3 + norm.logcdf(-a - b))
    assert prof == pytest.approx(1e-6, rel=1e-4)


def test_project_simplex_matches_a_brute_force_minimiser():
    from scipy.optimize import minimize

    v = np.array([3.0, -1.0, 0.5, 7.0])
    p = project_simplex(v, 5.0)
    res = minimize(lambda x: ((x - v) ** 2).sum(), np.full(4, 1.25), method="SLSQP", bounds=[(0, None)] * 4,
                   constraints={"type": "eq", "fun": lambda x: x.sum() - 5.0})
    np.testing.assert_allclose(p, res.x, atol=1e-5)
    assert p.sum() == pytest.approx(5.0) and (p >= 0).all()


# --------------------------------------------------------------------------- the private fit
def test_private_categorical_fit_noise_shrinks_with_epsilon(votes):
    X, y = votes
    exact = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1]).fit(X, y)
    errs = {}
    for eps in (0.1, 10.0):
        fits = [private_votes(X, y, epsilon=eps, random_state=s) for s in range(5)]
        errs[eps] = np.mean([np.abs(np.concatenate(f.category_count_) - np.concatenate(exact.category_count_)).mean()
                             for f in fits])
        for f in fits:  # post-processing: valid statistics
            assert all((c >= 0).all() for c in f.category_count_)
            assert (f.class_count_ >= 0).all() and f.class_count_.sum() == pytest.approx(len(y))
    # Laplace noise of scale 2 d / (eps * share): its mean absolute value is the scale
    share = X.shape[1] / (X.shape[1] + 1)
    assert errs[10.0] == pytest.approx(2 * X.shape[1] / (10.0 * share), rel=0.25)
    assert errs[0.1] > 50 * errs[10.0]


def test_private_fit_is_post_processed_and_the_api_works(penguins):
    X, y = penguins
    dp = bn.DP(1.0, delta=1e-5, mechanism="gaussian", bounds=BOUNDS, classes=SPECIES, random_state=0)
    m = bn.NaiveBayes(penguin_features(), privacy=dp).fit(X, y)
    g = m.posterior_.blocks[0].stats
    assert (g.n >= 0).all() and np.isfinite(g.mean).all()
    lo = np.array([b[0] for b in BOUNDS.values()])
    hi = np.array([b[1] for b in BOUNDS.values()])
    has = g.n > 0
    assert ((g.mean >= lo) & (g.mean <= hi))[has].all()
    var = g.m2[has] / g.n[has]
    r2 = np.broadcast_to(((hi - lo) / 2) ** 2, g.n.shape)[has]
    assert (var >= VAR_FLOOR_MIN * r2 * (1 - 1e-9)).all() and (var <= r2 * (1 + 1e-9)).all()
    spent = m.privacy_spent_
    assert spent["epsilon"] == 1.0 and spent["delta"] == 1e-5 and spent["mechanism"] == "gaussian"
    # Gaussian shares compose in mu (Budget.split): mu_i**2 in proportion to the statistics released,
    # one share each: class counts 1, Gaussian 3 per column, Categorical 1 per column
    mus = np.array([gaussian_mu(*v) for v in spent["split"].values()])
    np.testing.assert_allclose(mus**2 / gaussian_mu(1.0, 1e-5) ** 2, [1 / 16, 12 / 16, 3 / 16], rtol=1e-6)
    assert sum(v[1] for v in spent["split"].values()) <= 1e-5
    assert "Gaussian shares compose by GDP: their epsilons do not add up" in model_report(m)
    # predict, sample, impute, score work as for any model (post-processing)
    assert (m.predict(X) == y).mean() > 0.5  # majority class 0.44; 0.65 on average over 30 noise seeds
    Xs, ys = m.sample(20, random_state=0)
    assert list(Xs.columns) == list(X.columns) and set(ys) <= set(SPECIES)
    filled = m.impute(X.head(5).assign(sex=np.nan))
    assert filled["sex"].notna().all()
    assert np.isfinite(m.score_samples(X.head(5))).all()


# bounds a user unsure of the domain might declare: five times the range of BOUNDS (a within-class
# sd is then a few percent of the half-range, below the old fixed floor of 0.1 half-range)
WIDE = {k: (lo - 2 * (hi - lo), hi + 2 * (hi - lo)) for k, (lo, hi) in BOUNDS.items()}


@pytest.mark.parametrize("bounds", [BOUNDS, WIDE], ids=["bounds", "wide bounds"])
def test_the_variance_floor_vanishes_as_epsilon_grows(penguins, bounds):
    """Issue 28, defect 4: a fixed floor (variance >= 0.01 half-range**2) changed the predictions at any
    budget (with the wide bounds, 2 of 333 and probabilities by 0.41 at epsilon = 1e6); the floor is now
    the noise sd of the released variance, so a private fit tends to the exact one."""
    X, y = penguins
    exact = bn.NaiveBayes(penguin_features()).fit(X, y)
    dp = bn.DP(1e6, classes=SPECIES, bounds=bounds, random_state=0)
    private = bn.NaiveBayes(penguin_features(), privacy=dp).fit(X, y)
    np.testing.assert_array_equal(private.predict(X), exact.predict(X))
    np.testing.assert_allclose(private.predict_proba(X), exact.predict_proba(X), atol=2e-3)


def test_the_variance_floor_follows_the_noise_and_keeps_variances_positive(penguins):
    n = np.array([0.0, 1e-6, 10.0, 1000.0])
    assert var_floor(n, 1e-30).tolist() == [1.0, VAR_FLOOR_MIN, VAR_FLOOR_MIN, VAR_FLOOR_MIN]
    np.testing.assert_allclose(var_floor(n, 5.0), [1.0, 1.0, 0.5, 0.005])
    X, y = penguins
    for eps in (0.01, 0.1):
        for seed in range(5):
            m = bn.NaiveBayes(penguin_features(), privacy=bn.DP(eps, classes=SPECIES, bounds=BOUNDS,
                                                                random_state=seed)).fit(X, y)
            g = m.posterior_.blocks[0]
            mu, var = plug_in(g.posterior)
            assert np.isfinite(mu).all() and np.isfinite(var).all() and (var > 0).all()
            assert np.isfinite(m.predict_proba(X)).all()


@pytest.mark.parametrize(("epsilon", "mechanism", "seeds"), [(1.0, "laplace", 200), (0.3, "laplace", 200),
                                                              (1.0, "gaussian", 100)])
def test_the_posterior_of_a_class_mean_covers_it_under_noise(epsilon, mechanism, seeds):
    """Issue 28, defect 6: the 94% interval of a class mean ignored the noise (at epsilon = 1, 101 of these 200
    tables covered the true mean with Laplace noise, 24 with Gaussian noise). With the noise-aware count of
    ``noisy_moments`` the coverage is that of a 94% interval: within the 99.9% binomial band of
    Binomial(seeds, 0.94). Each seed draws its own table (600 rows, two classes of known means) and noise."""
    from scipy import stats

    kw = {"delta": 1e-6, "mechanism": "gaussian"} if mechanism == "gaussian" else {}
    hits = 0
    for s in range(seeds):
        rng = np.random.default_rng(1000 + s)
        y = np.repeat([0, 1], 300)
        X = rng.normal(np.where(y == 0, 10.0, 14.0), 2.0)[:, None]
        dp = bn.DP(epsilon, bounds={0: (0.0, 24.0)}, classes=[0, 1], random_state=s, **kw)
        p = bn.GaussianNB(privacy=dp).fit(X, y).posterior_.blocks[0].posterior
        a, kappa = p.a[0, 0], p.kappa[0, 0]  # mu's marginal posterior: Student-t(2 a, mu, b / (a kappa))
        lo, hi = stats.t.interval(0.94, 2 * a, loc=p.mu[0, 0], scale=np.sqrt(p.b[0, 0] / (a * kappa)))
        hits += lo <= 10.0 <= hi
    band = stats.binom.ppf([0.0005, 0.9995], seeds, 0.94)
    assert band[0] <= hits <= band[1], (hits, band)


def test_private_bernoulli_counts_are_consistent():
    rng = np.random.default_rng(0)
    X = (rng.random((300, 4)) < 0.3).astype(float)
    y = rng.integers(0, 2, 300)
    m = bn.BernoulliNB(privacy=bn.DP(0.5, classes=[0, 1], random_state=1)).fit(X, y)
    s = m.posterior_.blocks[0].stats
    assert (s.ones >= 0).all() and (s.ones <= s.observed).all()


def test_the_seed_makes_a_private_fit_reproducible_and_differs_from_the_exact_fit(votes):
    X, y = votes
    a = private_votes(X, y, epsilon=1.0, random_state=3)
    b = private_votes(X, y, epsilon=1.0, random_state=3)
    np.testing.assert_array_equal(a.category_count_[0], b.category_count_[0])
    exact = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1]).fit(X, y)
    assert not np.allclose(a.category_count_[0], exact.category_count_[0])


def test_labels_and_categories_must_be_declared_not_read_from_the_data(votes):
    """Issue 28, defects 2 and 3: labels from y, or categories from astype('category'), would be released
    without noise; both are refused."""
    X, y = votes
    with pytest.raises(ValueError, match=r"class labels must be declared: DP\(classes=\[...\]\)"):
        bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], privacy=bn.DP(1.0)).fit(X, y)
    as_category = X.astype("category")  # categories built from the data, rare values included
    with pytest.raises(ValueError, match="a pandas categorical dtype does not count"):
        bn.CategoricalNB(privacy=bn.DP(1.0, classes=PARTIES)).fit(as_category, y)
    declared = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], privacy=bn.DP(1.0, classes=PARTIES))
    assert declared.fit(as_category, y).privacy_spent_["epsilon"] == 1.0
    with pytest.raises(ValueError, match="democrat"):  # a label outside the declared ones
        bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], privacy=bn.DP(1.0, classes=["x", "z"])).fit(X, y)


# --------------------------------------------------------------------------------- refused
def refusals(votes, penguins):
    Xv, yv = votes
    Xp, yp = penguins
    cats = [["n", "y"]] * Xv.shape[1]
    dp = bn.DP(1.0, classes=PARTIES)
    dpp = bn.DP(1.0, classes=SPECIES, bounds=BOUNDS)
    nb = bn.CategoricalNB(categories=cats, privacy=dp)
    return [
        (lambda: bn.CategoricalNB(alpha="auto", categories=cats, privacy=dp).fit(Xv, yv), "alpha='auto' maximises"),
        (lambda: bn.BernoulliNB(alpha="auto", privacy=dp).fit((Xv == "y").astype(float), yv), "alpha='auto'"),
        (lambda: bn.NaiveBayes(privacy=dpp).fit(Xp, yp), "features='auto' chooses"),
        (lambda: bn.CategoricalNB(privacy=dp).fit(Xv, yv), "categories must be declared"),
        (lambda: bn.NaiveBayes({NUMERIC: bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=CATS)},
                               privacy=bn.DP(1.0, classes=SPECIES)).fit(Xp, yp), "needs declared bounds"),
        (lambda: bn.NaiveBayes({NUMERIC: bn.Gaussian(prior=None), ("island", "sex", "year"):
                                bn.Categorical(categories=CATS)}, privacy=dpp).fit(Xp, yp), "proper prior"),
        (lambda: bn.NaiveBayes({NUMERIC: bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=CATS)},
                               privacy=bn.DP(1.0, classes=SPECIES, bounds={**BOUNDS, "sex": (0, 1)})).fit(Xp, yp),
         "bounds apply to numeric"),
        (lambda: bn.NaiveBayes({NUMERIC: bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=CATS)},
                               privacy=bn.DP(1.0, classes=SPECIES, bounds={**BOUNDS, "wings": (0, 1)})).fit(Xp, yp),
         "names column 'wings'"),
        (lambda: nb.partial_fit(Xv, yv, classes=PARTIES), "partial_fit is not available"),
        (lambda: nb.fit(Xv, yv, sample_weight=np.ones(len(yv))), "sample_weight is not available"),
        (lambda: bn.CategoricalNB(categories=cats, structure="auto", privacy=dp).fit(Xv, yv), "pass auto_cv=False"),
        (lambda: bn.NaiveBayes({NUMERIC: bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=CATS)},
                               structure="tan", privacy=bn.DP(1.0, classes=SPECIES, bounds={
                                   k: v for k, v in BOUNDS.items() if k != "body_mass_g"})).fit(Xp, yp),
         "bins numeric column 'body_mass_g' between its declared bounds"),
        (lambda: bn.NaiveBayes({(0, 1): bn.Multinomial()}, structure="tan", privacy=bn.DP(1.0, classes=PARTIES,
                               row_length=5)).fit(np.ones((435, 2)), yv), "fit it with structure='naive'"),
        (lambda: nb.fit_latent_class(Xv, yv), "fit_latent_class is not available"),
        (lambda: nb.fit_semi_supervised(Xv, yv), "reads the unlabelled rows without noise"),
        (lambda: nb.fit(Xv, yv).run_mcmc(Xv, yv, num_warmup=5, num_samples=5), "run_mcmc is not available"),
        (lambda: bn.MultinomialNB(privacy=dp).fit(np.ones((435, 3)), yv), "bound on the length of a row"),
        (lambda: bn.NaiveBayes({(0, 1): bn.Histogram()}, privacy=dp).fit(np.ones((435, 2)), yv),
         "Histogram block has no differentially private release"),
    ]


def test_what_breaks_the_guarantee_is_refused(votes, penguins):
    for call, match in refusals(votes, penguins):
        with pytest.raises((ValueError, NotImplementedError), match=match):
            call()



@pytest.mark.parametrize("structure", ["auto", "tan", "kdb"])
@pytest.mark.parametrize("how", ["NaiveBayes auto", "NaiveBayes dict", "CategoricalNB", "partial_fit"])
def test_a_structure_under_privacy_is_fitted_privately_or_refused_naming_privacy(votes, penguins, structure, how):
    """Issue 28: a structure under privacy is learned privately (docs/privacy.md, "Private structure");
    what still cannot be private is refused with a message naming privacy, not the structure."""
    Xv, yv = votes
    Xp, yp = penguins
    dpp = bn.DP(1.0, classes=SPECIES, bounds=BOUNDS, random_state=0)
    dpv = bn.DP(1.0, classes=PARTIES, random_state=0)
    cats = [["n", "y"]] * Xv.shape[1]
    call = {
        "NaiveBayes auto": lambda: bn.NaiveBayes(structure=structure, privacy=dpp, auto_cv=False).fit(Xp, yp),
        "NaiveBayes dict": lambda: bn.NaiveBayes(penguin_features(), structure=structure, privacy=dpp,
                                                 auto_cv=False).fit(Xp, yp),
        "CategoricalNB": lambda: bn.CategoricalNB(categories=cats, structure=structure, privacy=dpv,
                                                  auto_cv=False).fit(Xv, yv),
        "partial_fit": lambda: bn.CategoricalNB(categories=cats, structure=structure, auto_cv=False,
                                                privacy=dpv).partial_fit(Xv, yv, classes=PARTIES),
    }[how]
    if how in ("NaiveBayes dict", "CategoricalNB"):
        model = call()
        assert model.structure_kind_ in ((structure,) if structure != "auto" else ("naive", "tan"))
        assert set(model.privacy_spent_["split"]) >= {"class_count"}
        return
    match = "features='auto' chooses" if how == "NaiveBayes auto" else "partial_fit is not available with privacy="
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------ model files
def test_a_private_model_says_so_in_its_file_and_in_info(tmp_path, votes, capsys):
    X, y = votes
    m = private_votes(X, y, epsilon=0.5, random_state=0)
    path = tmp_path / "m.bnb"
    m.save(path)
    back = bn.load(path)
    assert back.privacy == m.privacy and back.privacy_spent_ == m.privacy_spent_
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    from bayesnb.cli import main

    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "differential privacy: (0.5, 0)-DP, laplace mechanism" in out
    plain = tmp_path / "p.bnb"
    bn.CategoricalNB().fit(X, y).save(plain)
    assert main(["info", str(plain)]) == 0
    assert "differential privacy" not in capsys.readouterr().out


def test_laplace_budget_split_is_basic_composition():
    parts = Budget(1.0, 0.0, "laplace", np.random.default_rng(0)).split([1, 2, 1])
    assert [p.epsilon for p in parts] == pytest.approx([0.25, 0.5, 0.25])
    assert [p.scale(2.0, 0.0) for p in parts] == pytest.approx([8.0, 4.0, 8.0])
    with pytest.raises(ValueError, match="every weight must be > 0"):
        Budget(1.0, 1e-6, "gaussian", None).split([1, 0])


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(0.01, 50.0), log_delta=st.floats(-12.0, -2.0),
       weights=st.lists(st.floats(0.01, 100.0), min_size=1, max_size=40))
def test_gaussian_budget_split_composes_exactly_to_the_budget(eps, log_delta, weights):
    """Gaussian shares of mu_i = L2 / sigma_i compose to sqrt(sum mu_i**2)-GDP (Dong, Roth & Su): that
    mechanism's privacy profile at epsilon is at most delta, and every share's noise is what its
    (epsilon_i, delta_i) calls for."""
    delta = 10.0**log_delta
    parts = Budget(eps, delta, "gaussian", None).split(weights)
    mus = np.array([1.0 / p.scale(0.0, 1.0) for p in parts])
    mu = math.sqrt(float(np.sum(mus**2)))
    assert mu <= gaussian_mu(eps, delta) * (1 + 1e-12)  # rounding only
    assert mu == pytest.approx(gaussian_mu(eps, delta), rel=1e-12)  # the whole budget is used
    np.testing.assert_allclose(mus**2 / mu**2, np.asarray(weights) / np.sum(weights), rtol=1e-6)
    assert 1.0 / mu == pytest.approx(analytic_gaussian_sigma(1.0, eps, delta), rel=1e-7)
    assert sum(p.delta for p in parts) <= delta * (1 + 1e-12)
    for p, m in zip(parts, mus):
        assert gdp_epsilon(m, p.delta) == pytest.approx(p.epsilon, rel=1e-9)
        # the stated (epsilon_i, delta_i) calls for the noise the share draws
        assert analytic_gaussian_sigma(1.0, p.epsilon, p.delta) == pytest.approx(1.0 / m, rel=1e-6)
        assert p.split([1, 3])[0].mu == pytest.approx(m / 2)  # a share split again composes from its own mu


def test_gaussian_shares_get_less_noise_than_basic_composition():
    """15 released statistics at (0.9, 1e-9): each share's noise sd for L2 sensitivity sqrt(2) is the
    joint mechanism's (sensitivity sqrt(2 * 15)); splitting epsilon and delta instead costs 3.8 times the sd."""
    parts = Budget(0.9, 1e-9, "gaussian", None).split([1] * 15)
    sd = parts[0].scale(2.0, math.sqrt(2.0))
    assert sd == pytest.approx(analytic_gaussian_sigma(math.sqrt(30.0), 0.9, 1e-9), rel=1e-7)
    assert analytic_gaussian_sigma(math.sqrt(2.0), 0.9 / 15, 1e-9 / 15) > 3.5 * sd


def test_a_private_fit_does_not_modify_the_data(penguins):
    X, y = penguins
    X0 = X.copy()
    dp = bn.DP(1.0, bounds=BOUNDS, classes=SPECIES, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bn.NaiveBayes(penguin_features(), privacy=dp).fit(X, y)
    pd.testing.assert_frame_equal(X, X0)


@pytest.mark.parametrize("epsilon", [0.05, 1.0])
def test_private_samples_stay_inside_the_declared_bounds(penguins, epsilon):
    """Issue 28, defect 1: a noisy mean or a posterior draw far outside the bounds made 10-13% of the
    synthetic cells leave them (ages down to -11.5); draws now come from the truncated law."""
    X, y = penguins
    model = bn.NaiveBayes(penguin_features(), privacy=bn.DP(epsilon, classes=SPECIES, bounds=BOUNDS,
                                                            random_state=0)).fit(X, y)
    for seed in range(3):
        S, _ = model.sample(3000, random_state=seed)
        for col, (lo, hi) in BOUNDS.items():
            assert S[col].between(lo, hi).all(), col


def test_draws_between_bounds_follow_the_truncated_law():
    from scipy import stats

    rng = np.random.default_rng(0)
    z = np.zeros(20000, dtype=np.int64)
    g = bn.Gaussian()
    X = np.column_stack([rng.normal(1.0, 2.0, 400), rng.normal(-3.0, 0.5, 400)])
    _, _, _, _, post = fit_block(g, X, np.ones((400, 1)))
    mu, var = plug_in(post)
    x = g.gen_sample_between(post, z, rng, 0, 0.0, 4.0)
    a, b = (0.0 - mu[0, 0]) / np.sqrt(var[0, 0]), (4.0 - mu[0, 0]) / np.sqrt(var[0, 0])
    assert stats.kstest(x, stats.truncnorm(a, b, loc=mu[0, 0], scale=np.sqrt(var[0, 0])).cdf).pvalue > 0.01
    far = g.gen_sample_between(post, z[:500], rng, 1, 10.0, 12.0)  # 26 sds away: no mass to reject into
    assert np.all((far >= 10.0) & (far <= 12.0)) and far.mean() < 10.1
    p = bn.Poisson()
    counts = rng.poisson(6.0, (400, 1)).astype(float)
    _, _, _, _, ppost = fit_block(p, counts, np.ones((400, 1)))
    lam = lam_of(ppost)[0][0, 0]
    k = p.gen_sample_between(ppost, z, rng, 0, 2.0, 5.0)
    want = stats.poisson.pmf(np.arange(2, 6), lam)
    observed = np.bincount(k.astype(int), minlength=6)[2:6]
    assert set(np.unique(k)) <= {2.0, 3.0, 4.0, 5.0}
    assert stats.chisquare(observed, want / want.sum() * len(k)).pvalue > 0.01
