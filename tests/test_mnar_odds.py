"""Self-masking odds of categorical columns (bayesnb.impute.mnar_odds): the rates, their MAR competitor, and the
Imputer that fills from them where BIC prefers them, through impute, draws and the model file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import Imputer
from bayesnb.impute.mnar_odds import column_predictive, fit_rates, mar_given_columns
from helpers import assert_damaged_file_refused

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CONFIGS = ("naive", "latent")
VALUES = np.array(["v0", "v1", "v2", "v3", "v4"], dtype=object)
RATES = np.array([0.6, 0.1, 0.1, 0.3, 0.1])  # p(missing | value) of column c0 under self-masking


def _table(n=1500, seed=0):
    """Six five-valued columns that copy a hidden cluster (probability 0.6 each, otherwise any value): each column
    is predictable from the others, which is what identifies a column's self-masking rates. No labels."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 5, n)
    keep = rng.random((n, 6)) < 0.6
    codes = np.where(keep, z[:, None], rng.integers(0, 5, (n, 6)))
    return pd.DataFrame(VALUES[codes], columns=[f"c{j}" for j in range(6)])


def _blank(X, kind, seed=1):
    """Hide c0 by its own value (``"self"``), at random (``"mcar"``) or by c1's value (``"mar"``: c1 is v0 or v1);
    c1..c5 lose 5% of their cells at random."""
    rng = np.random.default_rng(seed)
    P = np.full(X.shape, 0.05)
    codes = X["c0"].map({v: i for i, v in enumerate(VALUES)}).to_numpy()
    P[:, 0] = {"self": RATES[codes], "mcar": np.full(len(X), 0.25),
               "mar": np.where(X["c1"].isin(["v0", "v1"]), 0.55, 0.05)}[kind]
    M = rng.random(X.shape) < P
    return X.mask(M), M


def _accuracy(X, M, filled, column="c0"):
    m = M[:, list(X.columns).index(column)]
    return float(np.mean(filled[column].to_numpy()[m] == X[column].to_numpy()[m]))


@pytest.fixture(scope="module")
def self_masked():
    X = _table()
    Xm, M = _blank(X, "self")
    return X, Xm, M


@pytest.fixture(scope="module")
def fitted(self_masked):
    return Imputer(configurations=CONFIGS, random_state=0).fit(self_masked[1])


def test_fit_rates_recovers_the_rates_of_a_known_predictive():
    """Rows with known value distributions p_i, values drawn from them, cells hidden with RATES by value; the
    predictive among observed cells is p_i(v) (1 - rho_v) normalised. The fitted rates are the true ones."""
    rng = np.random.default_rng(0)
    n = 40_000
    p = rng.dirichlet(np.full(5, 0.5), n)
    v = (p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    observed = rng.random(n) >= RATES[v]
    q = p * (1 - RATES)
    q /= q.sum(axis=1, keepdims=True)
    rho, ll = fit_rates(q, observed, strength=0)
    np.testing.assert_allclose(rho, RATES, atol=0.03)
    # the log-likelihood is the indicators' at the fitted rates, and no other rates do better
    c = q @ (1 / (1 - rho))
    assert ll == pytest.approx(-np.log(c).sum() + np.log(c[~observed] - 1).sum())
    flat = np.full(5, (~observed).mean())
    c0 = q @ (1 / (1 - flat))
    assert ll > -np.log(c0).sum() + np.log(c0[~observed] - 1).sum() + 100


def test_the_laplace_covariance_matches_the_posterior_on_a_grid():
    """Two values, 600 rows: the posterior of the two logits computed on a grid (the same likelihood and prior)
    has the covariance that logit_covariance gives at the mode, to 15%."""
    from bayesnb.impute.mnar_odds import _posterior, logit_covariance

    rng = np.random.default_rng(3)
    n, rates = 600, np.array([0.5, 0.15])
    p = rng.dirichlet([0.7, 0.7], n)
    v = (rng.random(n) > p[:, 0]).astype(int)
    observed = rng.random(n) >= rates[v]
    q = p * (1 - rates)
    q /= q.sum(axis=1, keepdims=True)
    rho, _ = fit_rates(q, observed)
    cov = logit_covariance(q, observed, rho)
    _, _, objective, _ = _posterior(q, observed, None)
    t0 = np.log(rho / (1 - rho))
    sd = np.sqrt(np.diag(cov))
    g = [np.linspace(t0[k] - 6 * sd[k], t0[k] + 6 * sd[k], 121) for k in range(2)]
    T = np.array([[a, b] for a in g[0] for b in g[1]])
    logpost = -np.array([objective(t)[0] for t in T])
    w = np.exp(logpost - logpost.max())
    w /= w.sum()
    mean = w @ T
    grid_cov = (T - mean).T @ ((T - mean) * w[:, None])
    grid_sd = np.sqrt(np.diag(grid_cov))
    np.testing.assert_allclose(sd, grid_sd, rtol=0.15)
    corr = cov[0, 1] / (sd[0] * sd[1])
    assert abs(corr - grid_cov[0, 1] / (grid_sd[0] * grid_sd[1])) < 0.1 and abs(corr) > 0.2
    assert np.all(np.abs(mean - t0) < 0.5 * sd)


def test_a_rate_at_the_bound_is_drawn_at_the_bound():
    """One value's cells are never missing: its rate goes to the bound, where the draws would otherwise pile up
    and move the fills (a review's reproduction gave that value's fill probability 0.49 instead of 0.10)."""
    from scipy.special import expit

    from bayesnb.impute.mnar_odds import LOGIT_BOUND, MAX_LOGIT_VARIANCE, logit_covariance
    rng = np.random.default_rng(5)
    n = 20_000
    p = rng.dirichlet([0.5, 0.5, 0.5], n)
    v = (p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    observed = rng.random(n) >= np.array([0.0, 0.3, 0.3])[v]
    q = p * (1 - np.array([0.0, 0.3, 0.3]))
    q /= q.sum(axis=1, keepdims=True)
    rho, _ = fit_rates(q, observed, strength=0)  # (the default prior keeps it off the bound: 0.0025)
    cov = logit_covariance(q, observed, rho, strength=0)
    assert rho[0] == pytest.approx(expit(-LOGIT_BOUND)) and cov[0, 0] < 1e-9 and np.allclose(cov[0, 1:], 0)
    assert np.array_equal(cov, cov.T) and np.linalg.eigvalsh(cov).max() <= MAX_LOGIT_VARIANCE
    assert 0 < cov[1, 1] < 0.01 and 0 < cov[2, 2] < 0.01


def test_multiple_imputations_draw_the_rates(self_masked, fitted):
    """Across completed tables the share of c0's missing cells drawn as v0 moves with the rates drawn per table:
    its spread is larger than the spread of the same cells drawn at the fitted rates (cell noise only)."""
    _, Xm, _ = self_masked
    odds = fitted.odds_["c0"]
    draws = fitted.impute(Xm, strategy="draw", n_imputations=120, random_state=4)
    miss = Xm["c0"].isna().to_numpy()
    share = np.array([np.mean(t["c0"].to_numpy()[miss] == "v0") for t in draws])
    fitted.odds_["c0"] = odds._replace(logit_cov=np.eye(len(odds.rho)) * 1e-12)
    try:
        fixed = fitted.impute(Xm, strategy="draw", n_imputations=120, random_state=4)
    finally:
        fitted.odds_["c0"] = odds
    fixed_share = np.array([np.mean(t["c0"].to_numpy()[miss] == "v0") for t in fixed])
    assert 1.5 * fixed_share.std() < share.std() < 3.5 * fixed_share.std()
    assert abs(share.mean() - fixed_share.mean()) < 0.05


def test_the_prior_keeps_a_rare_value_from_an_extreme_rate():
    """A value seen in two cells, both missing, has a maximum-likelihood rate near 1; the default prior (ten
    cells' worth of the column's missing share) pulls it toward that share."""
    rng = np.random.default_rng(1)
    n = 3000
    q = np.column_stack([np.full(n, 0.5), np.full(n, 0.5), np.zeros(n)])
    q[:4] = [[0.05, 0.05, 0.9]] * 4
    observed = rng.random(n) >= 0.3
    observed[:4] = [False, False, True, True]
    ml, _ = fit_rates(q, observed, strength=0)
    shrunk, _ = fit_rates(q, observed)
    assert abs(shrunk[2] - 0.3) < abs(ml[2] - 0.3)
    assert 0.2 < shrunk[2] < 0.6 and abs(shrunk[0] - ml[0]) < 0.02


def test_mar_given_columns_finds_a_partly_observed_driver():
    X = _table(seed=2)
    for kind, driver in (("mar", "c1"), ("mcar", None)):
        Xm, _ = _blank(X, kind, seed=3)
        ll, k, drivers = mar_given_columns(Xm, "c0", Xm["c0"].isna().to_numpy())
        if driver is None:
            assert k == 0 and drivers == ()
        else:  # c1 has missing cells of its own: they are a level of the driver
            assert drivers[0] == driver and k >= 4
            rate = Xm["c0"].isna().mean()
            n1 = Xm["c0"].isna().sum()
            assert ll > n1 * np.log(rate) + (len(X) - n1) * np.log(1 - rate) + 50


def test_cells_missing_together_are_missing_at_random_not_self_masking():
    """c0 and c2 hidden together in random rows (a skipped block of a survey): c2's missing cells are a level of
    the driver, which explains c0's missingness; the self-masking odds are fitted but not used."""
    X = _table(seed=6)
    rng = np.random.default_rng(7)
    both = rng.random(len(X)) < 0.2
    Xm = X.copy()
    Xm.loc[both, ["c0", "c2"]] = None
    ll, k, drivers = mar_given_columns(Xm, "c0", both)
    assert drivers == ("c2",) and ll > -1.0
    imp = Imputer(configurations=CONFIGS, random_state=0).fit(Xm)
    assert not imp.odds_["c0"].used and imp.odds_["c0"].drivers == ("c2",)


def test_column_predictive_is_the_models_conditional(self_masked):
    """The predictive of c0 is each completed row's joint score, normalised over c0's values; with a label it is
    the joint within the row's class."""
    from scipy.special import logsumexp

    from bayesnb import NaiveBayes
    X, Xm, _ = self_masked
    y = np.where(X["c1"].isin(["v0", "v1"]), "a", "b")
    joint = NaiveBayes(structure="tan").fit(Xm, y)
    rows = Xm[Xm["c0"].notna()].iloc[:50]
    P = column_predictive("tan", joint, rows, "c0", VALUES)
    assert P.shape == (50, 5) and np.allclose(P.sum(axis=1), 1)
    S = np.column_stack([joint.score_samples(rows.assign(c0=v)) for v in VALUES])
    np.testing.assert_allclose(P, np.exp(S - logsumexp(S, axis=1, keepdims=True)), rtol=1e-10)
    labels = y[rows.index]
    J = np.stack([joint.predict_joint_log_proba(rows.assign(c0=v)) for v in VALUES], axis=1)  # (n, V, K)
    k = np.searchsorted(joint.classes_, labels)
    S = J[np.arange(50), :, k]
    np.testing.assert_allclose(column_predictive("tan", joint, rows, "c0", VALUES, labels),
                               np.exp(S - logsumexp(S, axis=1, keepdims=True)), rtol=1e-10)


def test_self_masking_is_found_and_its_fills_beat_the_mar_fills(self_masked, fitted):
    X, Xm, M = self_masked
    odds = fitted.odds_["c0"]
    assert odds.used and odds.configuration == fitted.chosen_["c0"]
    assert odds.loglik - len(VALUES) / 2 * np.log(len(X)) > odds.loglik_mar - (odds.k_mar + 1) / 2 * np.log(len(X))
    rho = dict(zip(odds.values, odds.rho))
    np.testing.assert_allclose([rho[v] for v in VALUES], RATES, atol=0.12)
    assert rho["v0"] == odds.rho.max()
    mar = Imputer(configurations=CONFIGS, random_state=0, missingness="mar").fit(Xm)
    assert mar.odds_ == {}
    assert _accuracy(X, M, fitted.impute(Xm)) > _accuracy(X, M, mar.impute(Xm)) + 0.03
    # the columns hidden at random keep their MAR fills
    assert not any(o.used for c, o in fitted.odds_.items() if c != "c0")


@pytest.mark.parametrize("kind", ["mcar", "mar"])
def test_missing_at_random_keeps_the_mar_fills_exactly(kind):
    X = _table(seed=4)
    Xm, _ = _blank(X, kind, seed=5)
    auto = Imputer(configurations=CONFIGS, random_state=0).fit(Xm)
    mar = Imputer(configurations=CONFIGS, random_state=0, missingness="mar").fit(Xm)
    assert set(auto.odds_) == set(X.columns) and not any(o.used for o in auto.odds_.values())
    pd.testing.assert_frame_equal(auto.impute(Xm, random_state=2), mar.impute(Xm, random_state=2))


def test_mnar_uses_the_odds_without_the_test():
    X = _table(seed=4)
    Xm, _ = _blank(X, "mcar", seed=5)
    imp = Imputer(configurations=CONFIGS, random_state=0, missingness="mnar").fit(Xm)  # one class: no node
    assert "mnar" not in imp.models_ and all(o.used for o in imp.odds_.values())
    assert imp.impute(Xm).notna().all().all()


def test_fills_are_the_argmax_of_the_reweighted_predictive(self_masked, fitted):
    _, Xm, _ = self_masked
    odds = fitted.odds_["c0"]
    rows = Xm[Xm["c0"].isna()]
    P = column_predictive(odds.configuration, fitted.models_[odds.configuration], rows, "c0", odds.values)
    want = odds.values[np.argmax(P * odds.rho / (1 - odds.rho), axis=1)]
    got = fitted.impute(Xm).loc[rows.index, "c0"].to_numpy()
    assert (got == want).all() and (want != odds.values[np.argmax(P, axis=1)]).any()


def test_draws_follow_the_reweighted_predictive(self_masked, fitted):
    _, Xm, _ = self_masked
    odds = fitted.odds_["c0"]
    rows = Xm[Xm["c0"].isna()].iloc[:40]
    P = column_predictive(odds.configuration, fitted.models_[odds.configuration], rows, "c0", odds.values)
    Q = P * odds.rho / (1 - odds.rho)
    Q /= Q.sum(axis=1, keepdims=True)
    draws = fitted.impute(Xm.loc[rows.index], strategy="draw", n_imputations=400, random_state=0)
    got = np.array([[np.mean([t.loc[i, "c0"] == v for t in draws]) for v in odds.values] for i in rows.index])
    assert np.abs(got - Q).max() < 0.1 and np.abs(got - P).max() > 0.2


def test_saved_imputer_with_odds_fills_and_draws_identically(self_masked, fitted, tmp_path):
    _, Xm, _ = self_masked
    path = tmp_path / "imputer.bnb"
    fitted.save(path)
    again = Imputer.load(path)
    assert set(again.odds_) == set(fitted.odds_)
    for c, o in fitted.odds_.items():
        b = again.odds_[c]
        assert (b.values == o.values).all() and np.array_equal(b.rho, o.rho)
        assert (b.configuration, b.loglik, b.loglik_mar, b.k_mar, b.drivers, b.used) == \
            (o.configuration, o.loglik, o.loglik_mar, o.k_mar, o.drivers, o.used)
        assert np.array_equal(b.logit_cov, o.logit_cov)
    pd.testing.assert_frame_equal(again.impute(Xm), fitted.impute(Xm))
    for a, b in zip(again.impute(Xm, strategy="draw", n_imputations=2, random_state=3),
                    fitted.impute(Xm, strategy="draw", n_imputations=2, random_state=3)):
        pd.testing.assert_frame_equal(a, b)


def _odds_entry(meta):
    return next(e for e in meta["fitted"]["odds"] if e[8])


@pytest.mark.parametrize("change, match", [
    (lambda m: _odds_entry(m).__setitem__(0, 99), "column position"),
    (lambda m: _odds_entry(m).__setitem__(1, "mvn"), "fitted configuration"),
    (lambda m: _odds_entry(m).__setitem__(6, -1), "malformed"),
    (lambda m: m["fitted"].update(odds={"c0": 1}), "must be a list"),
])
def test_a_damaged_odds_entry_is_refused(fitted, tmp_path, change, match):
    assert_damaged_file_refused(fitted, tmp_path, change, match, Imputer.load)


def _read_odds(fitted, change_entry=None, **imp_changes):
    """``_odds_from_file`` on c0's entry of ``fitted`` (its arrays given directly), after ``change_entry(entry,
    arrays)`` and with the imputer's attributes ``imp_changes`` replaced."""
    from types import SimpleNamespace

    from bayesnb.io.imputer_file import _odds_from_file
    o = fitted.odds_["c0"]
    arrays = {"values": o.values.copy(), "rho": o.rho.copy(), "cov": o.logit_cov.copy()}
    entry = [0, o.configuration, "values", "rho", o.loglik, o.loglik_mar, o.k_mar, list(o.drivers), o.used, "cov"]
    if change_entry is not None:
        change_entry(entry, arrays)
    imp = SimpleNamespace(**{"missingness": fitted.missingness, "columns_": fitted.columns_,
                             "supports_": fitted.supports_, "chosen_": fitted.chosen_, **imp_changes})
    return _odds_from_file([entry], arrays.get, imp, fitted.models_)


@pytest.mark.parametrize("change, imp_changes, match", [
    (lambda e, a: a.update(rho=np.r_[a["rho"][:-1], 1.0]), {}, r"rates must lie in \(0, 1\)"),
    (lambda e, a: a.update(rho=a["rho"][:-1]), {}, "must be an array of shape"),
    (lambda e, a: a["values"].__setitem__(0, "never"), {}, "never seen"),
    (lambda e, a: a.update(cov=-a["cov"]), {}, "eigenvalues within"),
    (lambda e, a: a.update(cov=1e-10 * np.eye(len(a["rho"])) + 5e-9 * (1 - np.eye(len(a["rho"])))), {},
     "eigenvalues within"),
    (lambda e, a: a.update(cov=np.full((len(a["rho"]),) * 2, 1e308)), {}, "eigenvalues within"),
    (lambda e, a: a.update(cov=a["cov"] + np.triu(np.full(a["cov"].shape, 1e-12), 1)), {}, "symmetric"),
    (lambda e, a: a.update(cov=a["cov"][:-1]), {}, "must be an array of shape"),
    (lambda e, a: a["values"].__setitem__(0, None), {}, "none missing"),
    (None, {"chosen_": {"c0": "naive"}}, "configuration chosen for it"),
    (lambda e, a: e.__setitem__(1, "tan"), {}, "a fitted configuration"),
    (None, {"supports_": {0: None}}, "categorical column"),
    (None, {"missingness": "mar"}, "missingness='mar' holds no"),
])
def test_a_damaged_odds_entry_is_refused_before_it_can_fill(fitted, change, imp_changes, match):
    """What a file could hold that would make ``impute`` divide by zero, fill a value never seen, leave cells
    missing, or reweight a numeric column: each refused at load with the package's error."""
    from bayesnb.io.persistence import ModelFileError

    got = _read_odds(fitted)  # the entry as saved reads back
    assert got["c0"].used and np.array_equal(got["c0"].rho, fitted.odds_["c0"].rho)
    with pytest.raises(ModelFileError, match=match):
        _read_odds(fitted, change, **imp_changes)


def test_a_file_written_before_the_odds_loads_without_them(self_masked, fitted, tmp_path):
    from helpers import edit_meta
    _, Xm, _ = self_masked
    path, old = tmp_path / "imputer.bnb", tmp_path / "old.bnb"
    fitted.save(path)
    edit_meta(path, old, lambda m: m["fitted"].pop("odds"))
    again = Imputer.load(old)
    assert again.odds_ == {}
    plain = fitted.impute(Xm)
    fitted_odds, fitted.odds_ = fitted.odds_, {}
    try:
        pd.testing.assert_frame_equal(again.impute(Xm), fitted.impute(Xm))
    finally:
        fitted.odds_ = fitted_odds
    assert not again.impute(Xm).equals(plain)


def test_cli_impute_table_names_the_columns_filled_from_their_odds(self_masked, tmp_path, capsys):
    from bayesnb import impute_table
    from bayesnb.cli import main
    _, Xm, _ = self_masked
    data, out = tmp_path / "t.csv", tmp_path / "f.csv"
    Xm.to_csv(data, index=False)
    assert main(["impute-table", str(data), "-o", str(out), "--configurations", "naive,latent"]) == 0
    assert "self-masking odds (missing because of their own values, by BIC) for c0" in capsys.readouterr().out
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert got.equals(impute_table(Xm, configurations=CONFIGS, random_state=0).table.astype(str))


def test_missingness_driven_by_the_label_is_not_self_masking():
    """c0 depends on the class and is missing in half of class a's rows and 5% of class b's: MAR given the label.
    The label is among the competitor's drivers, so the odds are fitted but not used (a review's reproduction)."""
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(0, 2, n)
    c0 = np.where(y == 0, rng.choice(5, n, p=[.45, .35, .1, .05, .05]), rng.choice(5, n, p=[.05, .05, .2, .35, .35]))
    X = pd.DataFrame({"c0": VALUES[c0], **{f"c{j}": VALUES[np.where(rng.random(n) < 0.5, c0, rng.integers(0, 5, n))]
                                           for j in range(1, 5)}})
    labels = np.where(y == 0, "a", "b").astype(object)
    Xm = X.copy()
    Xm.loc[rng.random(n) < np.where(y == 0, 0.5, 0.05), "c0"] = None
    for given in (True, False):
        imp = Imputer(configurations="naive", label_given=given, random_state=0).fit(Xm, labels)
        odds = imp.odds_["c0"]
        assert not odds.used and odds.drivers[0] == "(label)"


def test_column_predictive_of_the_latent_class_model(self_masked, fitted):
    from scipy.special import logsumexp
    _, Xm, _ = self_masked
    model, fit = fitted.models_["latent"]
    rows = Xm.iloc[:40]
    P = column_predictive("latent", (model, fit), rows, "c0", VALUES)
    S = np.column_stack([model.score_samples(rows.assign(c0=v), latent=fit) for v in VALUES])
    np.testing.assert_allclose(P, np.exp(S - logsumexp(S, axis=1, keepdims=True)), rtol=1e-10)


def test_new_rows_of_another_dtype_are_filled_as_the_training_rows(self_masked, fitted):
    """New rows whose c0 is all missing (read as float) or a category set without the values: the odds' fills
    are those of the same rows as objects (a review's reproduction: the first raised, the second filled every
    cell with one value)."""
    _, Xm, _ = self_masked
    rows = Xm[Xm["c0"].isna()].iloc[:60]
    want = fitted.impute(rows)["c0"].tolist()
    as_float = rows.assign(c0=np.full(len(rows), np.nan))
    assert fitted.impute(as_float)["c0"].tolist() == want
    cats = rows.astype("category")
    cats["c0"] = pd.Categorical([None] * len(rows), categories=["zz"])
    assert fitted.impute(cats)["c0"].astype(object).tolist() == want


def test_a_row_impossible_under_its_label_keeps_its_configurations_fill():
    """alpha=0 and a value never seen with the row's class: the predictive is 0 for every value of c0; the cell
    keeps the configuration's own fill, without a NaN or an error."""
    from bayesnb import NaiveBayes
    X = _table(seed=8)
    Xm, _ = _blank(X, "self", seed=9)
    y = np.where(X["c2"].isin(["v0", "v1"]), "a", "b").astype(object)
    Xm.loc[y == "a", "c1"] = Xm.loc[y == "a", "c1"].where(Xm.loc[y == "a", "c1"].isin(["v0", "v1", None]), "v0")
    kw = dict(configurations="naive", random_state=0, estimator=NaiveBayes(alpha=0), label_given=True)
    imp = Imputer(missingness="mnar", **kw).fit(Xm, y)
    mar = Imputer(missingness="mar", **kw).fit(Xm, y)
    new = Xm.iloc[:3].copy()
    new["c0"], new["c1"] = None, ["v4", "v3", "v2"]  # never seen with class a
    got = imp.impute(new, ["a"] * 3)
    assert got["c0"].notna().all() and got["c0"].tolist() == mar.impute(new, ["a"] * 3)["c0"].tolist()
    assert imp.impute(new, ["a"] * 3, strategy="draw", random_state=0)["c0"].notna().all()
