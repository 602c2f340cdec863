"""MAR given the observed columns (bayesnb.impute.mar_observed): the fourth model of the self-masking test, each
column's missingness a logistic regression on fully observed columns, so that "missing because of another, always
observed column" is not taken for "missing because of its own value"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from bayesnb import Imputer
from bayesnb.impute.mar_observed import (MAX_LEVELS, candidate_drivers, driver_design, logistic_loglik, score_statistics,
                                         screen_drivers, select_drivers)
from bayesnb.impute.mnar_evidence import mnar_evidence
from helpers import edit_meta, self_masked_blank, two_valued_table

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _binomial_loglik(m, groups):
    """The maximum log-likelihood of one missing rate per group (closed form)."""
    total = 0.0
    for g in np.unique(groups):
        k, n = m[groups == g].sum(), (groups == g).sum()
        total += sum(c * np.log(c / n) for c in (k, n - k) if c > 0)
    return total


def test_a_categorical_drivers_regression_is_one_missing_rate_per_value():
    rng = np.random.default_rng(0)
    g = rng.integers(0, 3, 900)
    m = (rng.random(900) < np.array([0.1, 0.3, 0.6])[g]).astype(float)
    design = (g[:, None] == np.arange(1, 3)[None, :]).astype(float)
    exact = _binomial_loglik(m, g)
    ll = logistic_loglik(design, m)
    assert ll <= exact + 1e-9 and ll == pytest.approx(exact, abs=0.05)  # the light ridge costs a few hundredths


def test_a_driver_that_separates_the_missing_cells_gives_a_finite_loglik_near_zero():
    x = np.linspace(-2, 2, 200)[:, None]
    ll = logistic_loglik(x, (x[:, 0] > 0).astype(float))
    assert np.isfinite(ll) and -10.0 < ll < 0.0  # the constant rate's is 200 log(1/2) = -138.6


def test_candidates_are_the_fully_observed_columns():
    rng = np.random.default_rng(1)
    n = 300
    X = pd.DataFrame({"num": rng.normal(size=n), "flag": rng.integers(0, 2, n), "const": np.ones(n),
                      "cat": rng.choice(np.array(["a", "b", "c"], dtype=object), n),
                      "wide": np.array([f"v{i % (MAX_LEVELS + 1)}" for i in range(n)], dtype=object),
                      "holes": np.where(rng.random(n) < 0.1, np.nan, 1.0)})
    drivers = candidate_drivers(X, n_bins=5)
    assert [d.name for d in drivers] == ["num", "num (bins)", "flag", "cat"]
    shapes = {d.name: driver_design(X, d, 5).shape for d in drivers}
    assert shapes == {"num": (n, 1), "num (bins)": (n, 4), "flag": (n, 1), "cat": (n, 2)}
    z = driver_design(X, drivers[0])
    assert np.allclose(z.mean(), 0.0) and np.allclose(z.std(), 1.0)


@pytest.mark.parametrize("scale", [1e-170, 1e200])
def test_a_driver_of_extreme_magnitude_is_standardised_without_overflow(scale):
    rng = np.random.default_rng(5)
    x = rng.normal(size=400)
    X = pd.DataFrame({"x": x * scale})
    (d,) = [d for d in candidate_drivers(X) if d.kind == "linear"]
    z = driver_design(X, d)
    assert np.isfinite(z).all() and np.allclose(z[:, 0], (x - x.mean()) / x.std())


def test_forward_selection_takes_the_driver_and_leaves_the_noise():
    rng = np.random.default_rng(2)
    n = 800
    X = pd.DataFrame({"driver": rng.normal(size=n), "noise": rng.normal(size=n),
                      "other": rng.choice(np.array(["p", "q"], dtype=object), n)})
    designs = [(d.name, driver_design(X, d)) for d in candidate_drivers(X)]
    m = rng.random(n) < expit(-0.5 + 1.5 * X["driver"].to_numpy())
    ll, k, names = select_drivers(m, designs, np.log(n))
    assert names[0] == "driver" and "noise" not in names and "other" not in names and k >= 1
    assert ll > _binomial_loglik(m.astype(float), np.zeros(n)) + 0.5 * k * np.log(n)
    flat = rng.random(n) < 0.3
    assert select_drivers(flat, designs, np.log(n))[1:] == (0, ())
    assert select_drivers(np.zeros(n, dtype=bool), designs, np.log(n)) == (0.0, 0, ())


def test_screening_ranks_the_driver_first_among_many_and_matches_the_score_test():
    rng = np.random.default_rng(3)
    n, d = 1000, 60
    X = pd.DataFrame(rng.normal(size=(n, d)), columns=[f"v{j}" for j in range(d)])
    X["g"] = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    M = np.column_stack([rng.random(n) < expit(-1.0 + 1.2 * X["v17"].to_numpy()),
                         rng.random(n) < np.where(X["g"].to_numpy() == "c", 0.6, 0.1),
                         rng.random(n) < 0.2])
    drivers = candidate_drivers(X)
    picks = screen_drivers(X, drivers, M, keep=4)
    assert drivers[picks[0][0]].column == "v17" and drivers[picks[1][0]].name == "g"
    assert all(len(p) == 4 for p in picks)
    # the statistic is the score test: for a one-hot driver, Pearson's chi-squared of the group-by-missing table
    m = M[:, 1].astype(float)
    groups = pd.factorize(X["g"])[0]
    expected = np.outer(np.bincount(groups), [1 - m.mean(), m.mean()])
    observed = np.column_stack([np.bincount(groups, weights=1 - m), np.bincount(groups, weights=m)])
    pearson = float(((observed - expected) ** 2 / expected).sum())
    stats = score_statistics(driver_design(X, drivers[picks[1][0]]), M)
    assert stats[1] == pytest.approx(pearson, rel=1e-9)
    assert stats[1] > 50.0 and max(stats[0], stats[2]) < 13.8  # the others: chi-squared(2), below its 0.999 quantile
    assert score_statistics(driver_design(X, drivers[picks[1][0]]), np.zeros((n, 1)))[0] == 0.0


def _driven(seed, n=500):
    """x2 and x4 go missing with probability logistic(-1.2 + 1.5 x1); x1 is always observed and drives x2 and x4
    (the multiple-imputation simulation's mechanism, without the class)."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = np.where(rng.random(n) < expit(1.2 * x1), "b", "a").astype(object)
    x4 = rng.normal(0.8 * x1, 0.6)
    y = rng.integers(0, 2, n)
    x4 = x4 + 0.7 * y
    X = pd.DataFrame({"x1": x1, "x2": x2, "x4": x4})
    Xm = X.copy()
    Xm.loc[rng.random(n) < expit(-1.2 + 1.5 * x1), "x2"] = None
    Xm.loc[rng.random(n) < expit(-1.2 + 1.5 * x1), "x4"] = np.nan
    return Xm, y


def test_missing_because_of_an_observed_column_is_not_taken_for_self_masking():
    Xm, y = _driven(1)
    ev = mnar_evidence(Xm, y, n_components=3, random_state=0)
    log_n = np.log(ev.n)
    # the three models of the test before this one chose self-masking here
    assert ev.loglik_mnar - ev.loglik_mar > ev.penalty
    assert ev.loglik_mnar - ev.loglik_mar_state > -0.5 * ev.k_state * log_n
    # x1 explains the missingness better than the columns' own values, at fewer parameters
    assert ev.drivers == {"x2": ("x1",), "x4": ("x1",)}
    assert ev.k_observed == 2 - ev.k  # one weight per column, against the own values' k
    assert ev.loglik_mnar - ev.loglik_mar_observed < -0.5 * ev.k_observed * log_n - 10.0
    assert ev.choice == "MAR"


def test_self_masking_beside_an_unrelated_observed_column_is_still_found():
    """The imputer tests' self-masked table (two-valued columns, the most frequent value hidden more often)
    with an always-observed column that has nothing to do with the missingness."""
    X, y = two_valued_table()
    Xm, _ = self_masked_blank(X, True)
    Xm["noise"] = np.random.default_rng(2).normal(size=len(X))
    ev = mnar_evidence(Xm, y, n_components=3, random_state=0)
    assert ev.choice == "MNAR" and sum(len(v) for v in ev.drivers.values()) <= 1
    bare = mnar_evidence(Xm.drop(columns="noise"), y, n_components=3, random_state=0)
    assert bare.loglik_mar_observed == bare.loglik_mar and set(bare.drivers.values()) == {()}  # no candidate


def test_the_imputer_reports_the_fourth_model_and_a_file_written_before_it_loads(tmp_path):
    Xm, y = _driven(1)
    imp = Imputer(configurations=("naive", "latent"), label_given=True, random_state=0, missingness="mnar").fit(Xm, y)
    ev = imp.missingness_
    assert {"loglik_mar_observed", "k_observed"} <= set(ev) and ev["choice"] == "MAR"
    path, old, extra = tmp_path / "imputer.bnb", tmp_path / "old.bnb", tmp_path / "extra.bnb"
    imp.save(path)
    again = Imputer.load(path)
    assert again.missingness_ == ev

    def drop(meta):  # the member's figures and the imputer's, as a file written before this model holds them
        for node in (meta["fitted"]["models"]["mnar"]["evidence"], meta["fitted"]["missingness"]):
            node["__dict__"] = [kv for kv in node["__dict__"] if kv[0] not in ("loglik_mar_observed", "k_observed")]
    edit_meta(path, old, drop)
    before = Imputer.load(old)
    assert before.missingness_ == {k: v for k, v in ev.items() if k not in ("loglik_mar_observed", "k_observed")}
    pd.testing.assert_frame_equal(before.impute(Xm, y), imp.impute(Xm, y))

    def add(meta):
        meta["fitted"]["models"]["mnar"]["evidence"]["__dict__"].append(["surprise", 1.0])

    def half(meta):  # one of the fourth model's two fields without the other
        node = meta["fitted"]["models"]["mnar"]["evidence"]
        node["__dict__"] = [kv for kv in node["__dict__"] if kv[0] != "k_observed"]
    from bayesnb.io.persistence import ModelFileError
    for change in (add, half):
        edit_meta(path, extra, change)
        with pytest.raises(ModelFileError, match="self-masking test's figures"):
            Imputer.load(extra)


def test_the_proxy_probe_prints_a_line_per_mechanism_and_seed(capsys):
    import probe_mar_observed as probe

    probe.main(["--seeds", "1", "--rows", "300", "--components", "1"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("mechanism | seed | choice") and len(lines) == 4
    mar, mnar = (line.split(" | ") for line in lines[1:3])
    assert mar[:2] == ["MAR", "0"] and mar[2] in ("MAR", "MNAR") and "x1" in mar[6]
    assert mnar[:2] == ["MNAR", "0"]
