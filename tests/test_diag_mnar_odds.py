"""benchmarks/diag_mnar_odds.py: its estimator recovers known self-masking rates, and the script runs."""

import numpy as np
from bench_impute import tables
from diag_mnar_odds import fit_rho, run


def test_fit_rho_recovers_self_masking_rates_from_an_informative_predictive():
    rng = np.random.default_rng(0)
    n, V = 20000, 3
    P = rng.dirichlet(np.full(V, 0.3), size=n)  # what the other columns say about the value
    value = np.array([rng.choice(V, p=p) for p in P])
    rho = np.array([0.5, 0.1, 0.3])
    missing = rng.random(n) < rho[value]
    # the predictive of the observed rows is p(v | x_-j, observed), as a model fitted on them gives
    Pobs = P * (1 - rho)
    Pobs /= Pobs.sum(axis=1, keepdims=True)
    est, ll, ll_tied = fit_rho(Pobs, ~missing)
    np.testing.assert_allclose(est, rho, atol=0.03)
    assert ll - ll_tied > 50  # the test sees it
    # missing completely at random: one rate, and no evidence against it
    mcar = rng.random(n) < 0.3
    est, ll, ll_tied = fit_rho(P, ~mcar)
    np.testing.assert_allclose(est, 0.3, atol=0.03)
    assert ll - ll_tied < (V - 1) / 2 * np.log(n)


def test_diag_runs_on_penguins_under_mnar():
    out = run(tables(True), ["penguins"], ["MNAR"], prior=20.0)
    row = out.iloc[0]
    assert row["table"] == "penguins" and row["mask"] == "MNAR"
    assert all(0.0 < row[k] <= 1.0 for k in ("mar", "mnar", "test", "lr", "bic", "oracle"))
    # one rate is the MAR competitor with no driver, so a column BIC reweights the likelihood ratio does too
    assert row["bic in"] <= row["lr in"]
    # at maximum likelihood, penguins' two self-masked categorical columns are not explained by the other columns
    plain = run(tables(True), ["penguins"], ["MNAR"]).iloc[0]
    assert plain["bic in"] == plain["lr in"] == 2 and plain["bic"] > plain["mar"] + 0.05
