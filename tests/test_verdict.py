"""Calibration of compare_posteriors' verdict, without NUTS: the check only sees draws.

A "correct sampler" is stood in for by an autocorrelated chain whose every draw is exact:
each step repeats the previous draw with probability ``RHO`` or takes a fresh exact draw
(a Markov chain with the exact posterior as stationary law; autocorrelation ``RHO^lag``,
ESS about ``n (1 - RHO) / (1 + RHO)``, a third of the draws at ``RHO = 0.5``, a harder
case than NUTS on these models, whose ESS is about its number of draws).

Measured (``pytest tests/test_verdict.py -s`` prints them): false alarms 0 of 20 seeds on
house votes (66 elements) and 0 of 20 on penguins (categorical + Gaussian, 51 elements);
detection 20 of 20 for alpha=2 vs alpha=1 and 20 of 20 for a Gaussian prior mean shifted by
2 sds (kappa0 = 1).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import xarray as xr

from bayesnb import CategoricalNB, NaiveBayes
from bayesnb.inference.mcmc_stats import bulk_ess_and_rhat, ess, ess_bulk, rhat_rank
from bayesnb.datasets import load_penguins
from bayesnb.criticism.diagnostics import compare_posteriors
from bayesnb.families import Categorical, Gaussian
from bayesnb.inference.draws import posterior_moments

SEEDS, N_MCMC, N_EXACT, RHO = 20, 1000, 4000, 0.5
NUM = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")


def _chains(clf, seed0):
    """SEEDS independent sticky chains of exact draws, each a (1, N_MCMC) Dataset."""
    post = clf.sample_posterior(SEEDS * N_MCMC, random_state=seed0)["posterior"].to_dataset()
    rng = np.random.default_rng(seed0)
    out = []
    for s in range(SEEDS):
        fresh = rng.random(N_MCMC) >= RHO
        fresh[0] = True
        idx = np.maximum.accumulate(np.where(fresh, np.arange(N_MCMC), 0)) + s * N_MCMC
        out.append(post.isel(draw=idx).assign_coords(draw=np.arange(N_MCMC)))
    return out


def _exacts(clf, seed0):
    post = clf.sample_posterior(SEEDS * N_EXACT, random_state=seed0)["posterior"].to_dataset()
    return [post.isel(draw=slice(s * N_EXACT, (s + 1) * N_EXACT)) for s in range(SEEDS)]


def _rate(exacts, chains):
    """Number of DISAGREE verdicts and the verdicts."""
    verdicts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # r_hat of one sticky chain warns; not part of the verdict
        for e, m in zip(exacts, chains):
            t = compare_posteriors(e, m, verbose=False)
            verdicts.append((t.attrs["ok"], t.attrs["verdict"]))
    return sum(not ok for ok, _ in verdicts), verdicts


@pytest.fixture(scope="module")
def penguins():
    df = load_penguins()
    X, y = df.drop(columns="species"), df["species"]
    num = X[list(NUM)].astype(float)
    m0, s0 = num.mean().to_numpy(), num.std().to_numpy()

    def prior(shift):
        return {"mu0": m0 + shift * s0, "kappa0": 1.0, "a0": 1.0, "b0": s0 ** 2}

    def make(shift):
        return NaiveBayes(features={("island", "sex", "year"): Categorical(), NUM: Gaussian(prior=prior(shift))})

    return make(0.0).fit(X, y), make(2.0).fit(X, y)


def test_false_alarms_and_detection_house_votes(votes):
    X, y = votes
    right, wrong = CategoricalNB(alpha=1.0).fit(X, y), CategoricalNB(alpha=2.0).fit(X, y)
    exacts = _exacts(right, 1)
    alarms, v = _rate(exacts, _chains(right, 2))
    caught, w = _rate(exacts, _chains(wrong, 3))
    print(f"\nhouse votes: false alarms {alarms}/{SEEDS}; alpha 2 vs 1 detected {caught}/{SEEDS}")
    assert alarms <= 0.05 * SEEDS, [t for ok, t in v if not ok]
    assert caught >= SEEDS - 1, [t for ok, t in w if ok]
    assert all(t.startswith("DISAGREE: ") and "means differ by more than the Monte-Carlo error allows" in t
               for ok, t in w if not ok)


def test_false_alarms_and_detection_mixed_table(penguins):
    right, shifted = penguins
    exacts = _exacts(right, 4)
    alarms, v = _rate(exacts, _chains(right, 5))
    caught, w = _rate(exacts, _chains(shifted, 6))
    print(f"\npenguins (categorical + Gaussian): false alarms {alarms}/{SEEDS}; "
          f"prior mean shifted by 2 sd detected {caught}/{SEEDS}")
    assert alarms <= 0.05 * SEEDS, [t for ok, t in v if not ok]
    assert caught >= SEEDS - 1, [t for ok, t in w if ok]


def test_verdict_text_says_what_failed(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    exact = clf.sample_posterior(4000, random_state=0)
    same = compare_posteriors(exact, clf.sample_posterior(1000, random_state=1), verbose=False)
    limit = same.attrs["limit"]
    assert 3.5 < limit < 3.6  # Phi^-1(1 - 0.05 / (2 * 132)) for 66 elements, mean and sd
    assert same.attrs["ok"] and same.attrs["failed"] == []
    assert same.attrs["verdict"].startswith("AGREE: 66 parameters; means and sds within the Monte-Carlo error")
    assert f"limit {limit:.2f} = family-wise 5% over 132 checks" in same.attrs["verdict"]
    # every row counted twice: same means, sds narrower by ~1/sqrt(2): only the sd check fails
    narrow = CategoricalNB().fit(X, y, sample_weight=np.full(len(y), 2.0)).sample_posterior(1000, random_state=3)
    t = compare_posteriors(exact, narrow, verbose=False)
    text = t.attrs["verdict"]
    assert not t.attrs["ok"] and text.startswith("DISAGREE: ")
    assert "sds differ by more than the Monte-Carlo error allows" in text and "narrower" in text
    n_bad = int((t["z_sd"].abs() > limit).sum())
    assert f"{n_bad} of 66 sds" in text and n_bad > 10
    assert f"largest |z| {t['z_sd'].abs().max():.1f} at " in text
    assert set(t.attrs["failed"]) >= set(t.loc[t["z_sd"].abs() > limit, "element"])
    # a fixed limit and an sd floor
    loose = compare_posteriors(exact, narrow, z_threshold=100, verbose=False)
    assert loose.attrs["ok"] and "limit 100.00)" in loose.attrs["verdict"]
    floor = compare_posteriors(exact, narrow, sd_tolerance=0.5, verbose=False)
    assert "sds differ" not in floor.attrs["verdict"]  # the sds differ by ~30%, under the 50% floor


def test_verdict_text_with_an_undefined_z():
    """A z that is NaN (no Monte-Carlo error: one row, a few draws) is reported as the worst, not a crash."""
    import pandas as pd

    from bayesnb.criticism.posterior_check import verdict_text

    table = pd.DataFrame({"element": ["a", "b"], "z": [np.nan, np.nan], "z_sd": [np.nan, 0.5],
                          "mcmc_mean": [1.0, 2.0], "exact_mean": [1.1, 2.0], "mcmc_sd": [0.1, 0.2],
                          "exact_sd": [0.2, 0.2], "sd_rel_diff": [-0.5, 0.0], "ess_bulk": [np.nan, 5.0]})
    bad = np.array([True, False])
    ok, text = verdict_text(table, limit=3.0, alpha=0.05, fixed_limit=False, bad_mean=bad, bad_sd=bad, n_div=0,
                            max_rhat=1.2, rhat_threshold=1.01)
    assert not ok and "1 of 2 means differ" in text and "largest |z| nan at a" in text, text
    ok, text = verdict_text(table, limit=3.0, alpha=0.05, fixed_limit=False, bad_mean=~bad & bad, bad_sd=~bad & bad,
                            n_div=0, max_rhat=1.0, rhat_threshold=1.01)
    assert ok and text.startswith("AGREE: 2 parameters") and "0.50 on an sd at b" in text, text


def test_closed_form_exact_moments(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    mom = posterior_moments(clf.posterior_)
    t = compare_posteriors(mom, clf.sample_posterior(2000, random_state=5), verbose=False)
    assert t.attrs["ok"], t.attrs["verdict"]
    np.testing.assert_allclose(t["exact_mean"], np.concatenate([np.ravel(m) for _, (m, _) in sorted(mom.items())]))
    wrong = posterior_moments(CategoricalNB(alpha=3).fit(X, y).posterior_)
    assert not compare_posteriors(wrong, clf.sample_posterior(2000, random_state=5), verbose=False).attrs["ok"]
    with pytest.raises(ValueError, match=r"\{variable: \(mean, sd\)\}; received ndarray"):
        compare_posteriors({k: m for k, (m, s) in mom.items()}, clf.sample_posterior(100), verbose=False)
    with pytest.raises(ValueError, match="shape"):
        compare_posteriors({k: (m[:1], s[:1]) for k, (m, s) in mom.items()}, clf.sample_posterior(100), verbose=False)


def test_vectorised_ess_and_rhat_equal_arviz():
    import arviz as az

    rng = np.random.default_rng(0)
    e = rng.normal(size=(3, 400, 5))
    x = np.zeros_like(e)
    for t in range(1, 400):
        x[:, t] = 0.7 * x[:, t - 1] + e[:, t]
    x[..., :2] = np.exp(x[..., :2])
    ds = xr.Dataset({"a": (("chain", "draw", "k"), x)})
    np.testing.assert_allclose(ess(x), az.ess(ds, method="mean")["a"].values, rtol=1e-10)
    np.testing.assert_allclose(ess_bulk(x), az.ess(ds, method="bulk")["a"].values, rtol=1e-10)
    np.testing.assert_allclose(rhat_rank(x), az.rhat(ds)["a"].values, rtol=1e-10)
    both = bulk_ess_and_rhat(x)  # compare_posteriors ranks the split chains once for both
    np.testing.assert_array_equal(both[0], ess_bulk(x))
    np.testing.assert_array_equal(both[1], rhat_rank(x))


def test_average_ranks_equal_scipys_with_ties_and_nans():
    from scipy.stats import rankdata

    from bayesnb.inference.mcmc_stats import _average_ranks

    rng = np.random.default_rng(0)
    flat = np.concatenate([rng.normal(size=(500, 3)), np.round(rng.normal(size=(500, 3)), 1),
                           rng.integers(0, 3, (500, 2)).astype(float), np.full((500, 1), 2.5)], 1)
    flat[[3, 9], 1] = np.inf
    flat[17, 4] = np.nan
    for x in (flat, flat[:1], flat[:2]):
        ref = rankdata(x, method="average", axis=0)
        np.testing.assert_array_equal(_average_ranks(x), ref)
    assert np.isnan(_average_ranks(flat)[:, 4]).all() and not np.isnan(_average_ranks(flat)[:, 5]).any()


def _geyer_walk(rho):
    """ArviZ's per-element walk (``_ess``: Geyer's initial monotone sequence), the reference for the vectorised one."""
    n_draw = rho.size
    r = np.zeros(n_draw)
    r[0], r[1] = 1.0, rho[1]
    even, odd, t = 1.0, rho[1], 1
    while t < n_draw - 3 and even + odd > 0.0:
        even, odd = rho[t + 1], rho[t + 2]
        if even + odd >= 0:
            r[t + 1], r[t + 2] = even, odd
        t += 2
    max_t = t - 2
    if even > 0:
        r[max_t + 1] = even
    t = 1
    while t <= max_t - 2:
        if r[t + 1] + r[t + 2] > r[t - 1] + r[t]:
            r[t + 1] = r[t + 2] = (r[t - 1] + r[t]) / 2.0
        t += 2
    return -1.0 + 2.0 * np.sum(r[: max_t + 1]) + np.sum(r[max_t + 1: max_t + 2])


@pytest.mark.parametrize("n_draw", [4, 5, 6, 7, 8, 9, 12, 61, 200])
def test_vectorised_geyer_walk_equals_the_per_element_walk(n_draw):
    """All elements' autocorrelation times at once equal ArviZ's walk of each, on sequences that stop at the first
    pair, at a pair summing to exactly 0 (kept), at a negative pair with a positive even term, or run out of pairs."""
    from bayesnb.inference.mcmc_stats import _geyer_tau

    rng = np.random.default_rng(n_draw)
    decay = np.exp(-np.arange(n_draw)[:, None] / rng.uniform(0.3, 30, 40))
    rho = np.concatenate([rng.normal(0, 0.5, (n_draw, 40)), np.round(rng.normal(0, 0.6, (n_draw, 40)) * 2) / 2,
                          decay, decay * (-1.0) ** np.arange(n_draw)[:, None], rng.uniform(-1.5, 1.0, (n_draw, 40))], 1)
    rho[0] = 1.0
    np.testing.assert_allclose(_geyer_tau(rho), [_geyer_walk(rho[:, j]) for j in range(rho.shape[1])],
                               rtol=1e-12, atol=1e-12)


def _dirichlet_tree(conc, n, rng):
    """``n`` independent exact draws of Dirichlet rows ``conc`` (R, V), as a one-chain posterior."""
    g = rng.standard_gamma(np.broadcast_to(conc, (n, *conc.shape)))
    draws = (g / g.sum(-1, keepdims=True))[None]
    return xr.DataTree.from_dict({"posterior": xr.Dataset({"theta": (("chain", "draw", "context", "value"), draws)})})


@pytest.mark.slow
def test_false_alarms_on_a_large_sparse_posterior():
    """1,000 elements of a sparse Dirichlet posterior (concentration 0.5 + counts, mostly 0: the cells
    of a TAN model's contexts), 1,000 independent exact draws fed as "MCMC draws": DISAGREE on at most
    5% of seeds (the raw-scale checks said DISAGREE on 35%: a small probability's skewed posterior),
    while a posterior with alpha 1.0 instead of 0.5 is still caught.

    10 seeds, so none may alarm (5% of 10 rounds down to 0): a false-alarm rate p passes with
    probability (1 - p)^10, about what at most 1 of 20 gives (0.60 vs 0.74 at 5%, 0.20 vs 0.18 at
    15%, 0.013 vs 0.002 at 35%, the raw scales' rate). Measured: 0 alarms in seeds 0-19; an sd check
    without the kurtosis (a normal law's error) alarms at every seed."""
    seeds = 10
    rng = np.random.default_rng(0)
    counts = rng.poisson(rng.gamma(0.3, 3.0, (125, 8)))
    right, wrong = 0.5 + counts, 1.0 + counts
    assert right.size == 1000 and np.mean(counts == 0) > 0.5
    verdicts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(seeds):
            g = np.random.default_rng(1000 + seed)
            t = compare_posteriors(_dirichlet_tree(right, 1000, g), _dirichlet_tree(right, 1000, g), verbose=False)
            verdicts.append((t.attrs["ok"], t.attrs["verdict"]))
        caught = [compare_posteriors(_dirichlet_tree(right, 1000, np.random.default_rng(seed)),
                                     _dirichlet_tree(wrong, 1000, np.random.default_rng(seed + 1)),
                                     verbose=False).attrs["ok"] for seed in (1, 2)]
    alarms = sum(not ok for ok, _ in verdicts)
    print(f"\nsparse Dirichlet, 1000 elements: false alarms {alarms}/{seeds}; alpha 1.0 vs 0.5 caught "
          f"{caught.count(False)}/2")
    assert alarms <= 0.05 * seeds, [t for ok, t in verdicts if not ok]
    assert caught == [False, False]


def test_constant_chains_warn_that_r_hat_is_unchecked_and_disagree(votes):
    """Chains stuck at one point give no r_hat anywhere: a UserWarning says so (not numpy's
    all-NaN RuntimeWarning), and the verdict is DISAGREE since the draws cannot match."""
    clf = CategoricalNB().fit(*votes)
    post = clf.sample_posterior(400, random_state=0)["posterior"].to_dataset()
    stuck = post.isel(draw=np.zeros(200, dtype=int)).assign_coords(draw=np.arange(200))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = compare_posteriors(post, stuck, verbose=False)
    assert not any(w.category is RuntimeWarning for w in caught), [str(w.message) for w in caught]
    assert any("r_hat could not be computed" in str(w.message) for w in caught)
    assert not t.attrs["ok"]
    assert "r_hat not computed (mixing unchecked)" in t.attrs["verdict"], t.attrs["verdict"]
    assert "nan" not in t.attrs["verdict"].lower(), t.attrs["verdict"]
