"""Self-masking MNAR imputation (bayesnb.impute_mnar, bayesnb.mnar_sensitivity)."""

import numpy as np
import pandas as pd
import pytest

from bayesnb import NaiveBayes, impute_mnar, mnar_sensitivity
from bayesnb.families import Gaussian, Hurdle, Poisson


def _self_masked(n=1500, seed=0, hide_above=0.6, p_hide=0.8):
    """A Gaussian column x whose mean depends on the class; values above its ``hide_above``
    quantile hidden with probability ``p_hide``; a second Gaussian z and a categorical c, complete."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(3.0 * y, 1.0)
    hide = (x > np.quantile(x, hide_above)) & (rng.random(n) < p_hide)
    X = pd.DataFrame({"x": np.where(hide, np.nan, x), "z": rng.normal(2.0 * y, 1.0),
                      "c": np.where(rng.random(n) < 0.7, np.array(["a", "b"])[y], "c")})
    return X, y, x, hide


@pytest.fixture(scope="module")
def masked():
    X, y, x, hide = _self_masked()
    return X, y, x, hide, impute_mnar(X, y)


def test_mnar_recovers_the_mean_that_mar_misses(masked):
    X, y, x, hide, res = masked
    means, sd = res.column_means.loc["x"], x.std()
    assert means["MAR"] < x.mean() - 0.2 * sd  # MAR: biased low
    assert abs(means["MNAR"] - x.mean()) < 0.1 * sd
    assert abs(means["MNAR"] - x.mean()) < 0.5 * abs(means["MAR"] - x.mean())
    err_mnar = np.sqrt(np.mean((res.table["x"].to_numpy()[hide] - x[hide]) ** 2))
    err_mar = np.sqrt(np.mean((res.mar_table["x"].to_numpy()[hide] - x[hide]) ** 2))
    assert err_mnar < 0.8 * err_mar
    sel = res.selection["x"].to_numpy()
    assert sel.shape == (2, 5)
    assert sel[0, -1] > 0.4 and np.all(sel[0, :3] < 0.05)  # high values hidden, low ones not


def test_em_objective_never_decreases(masked):
    hist = np.asarray(masked[4].em_objective)
    assert len(hist) > 2 and masked[4].converged
    assert np.all(np.diff(hist) >= -1e-7 * np.abs(hist[1:]))


def test_observed_cells_and_input_unchanged(masked):
    X, y, x, hide, res = masked
    X2, _, _, _ = _self_masked()
    pd.testing.assert_frame_equal(X, X2)  # not modified in place
    obs = ~hide
    np.testing.assert_array_equal(res.table["x"].to_numpy()[obs], X["x"].to_numpy()[obs])
    assert not res.table.isna().any().any()
    assert list(res.table.columns) == list(X.columns)


def test_mcar_gives_flat_selection():
    rng = np.random.default_rng(1)
    n = 3000
    y = rng.integers(0, 2, n)
    x = rng.normal(2.0 * y, 1.0)
    X = pd.DataFrame({"x": np.where(rng.random(n) < 0.25, np.nan, x), "z": rng.normal(y, 1.0)})
    res = impute_mnar(X, y)
    sel = res.selection["x"].to_numpy()
    # the unbounded end bins rest on the Gaussian's tails and are less well determined than the inner ones
    assert np.all(np.abs(sel[:, 1:-1] - 0.25) < 0.07), sel
    assert np.all(np.abs(sel - 0.25) < 0.12), sel
    assert abs(res.column_means.loc["x", "MNAR"] - res.column_means.loc["x", "MAR"]) < 0.05


def test_delta_adjustment(masked):
    X, y, x, hide, res = masked
    zero = impute_mnar(X, y, delta=0.0)
    pd.testing.assert_frame_equal(zero.table, res.table)
    one = impute_mnar(X, y, delta={"x": 1.0})
    np.testing.assert_allclose(one.table["x"].to_numpy()[hide] - res.table["x"].to_numpy()[hide], 1.0)
    np.testing.assert_array_equal(one.table["x"].to_numpy()[~hide], res.table["x"].to_numpy()[~hide])
    sd = impute_mnar(X, y, delta=0.5, delta_unit="sd")
    shift = sd.table["x"].to_numpy()[hide] - res.table["x"].to_numpy()[hide]
    np.testing.assert_allclose(shift, 0.5 * np.nanstd(X["x"].to_numpy(dtype=float)))


def test_sensitivity_report(masked):
    X, y, x, hide, res = masked
    rep = mnar_sensitivity(X, y, deltas=(-1.0, 0.0, 1.0))
    assert list(rep.index) == ["observed", "MAR", "delta=-1", "delta=0", "delta=1"]
    assert list(rep.columns) == ["x"]
    assert rep.loc["delta=0", "x"] == pytest.approx(res.column_means.loc["x", "MNAR"])
    assert rep.loc["MAR", "x"] == pytest.approx(res.column_means.loc["x", "MAR"])
    step = hide.mean() * np.nanstd(X["x"].to_numpy(dtype=float))  # a 1-sd shift of the hidden share
    assert rep.loc["delta=1", "x"] - rep.loc["delta=0", "x"] == pytest.approx(step)
    assert rep.loc["delta=-1", "x"] < rep.loc["delta=0", "x"] < rep.loc["delta=1", "x"]


def test_draws_and_label_given(masked):
    X, y, x, hide, _ = masked
    res = impute_mnar(X, y, strategy="draw", n_imputations=2, random_state=0)
    a, b = res.table
    assert not a.isna().any().any() and not b.isna().any().any()
    assert not np.allclose(a["x"].to_numpy()[hide], b["x"].to_numpy()[hide])
    # draws follow the MNAR predictive: their mean is near the MNAR mean fill, above the MAR one
    assert abs(a["x"].mean() - res.column_means.loc["x", "MNAR"]) < 0.15
    given = impute_mnar(X, y, label_given=True)
    assert abs(given.column_means.loc["x", "MNAR"] - x.mean()) < 0.1 * x.std()


def test_latent_and_by_class_options():
    X, y, x, hide = _self_masked(n=600, seed=3)
    res = impute_mnar(X[["x", "z"]], y, n_components=2, random_state=0)
    hist = np.asarray(res.em_objective)
    assert np.all(np.diff(hist) >= -1e-7 * np.abs(hist[1:]))
    assert res.selection["x"].shape == (4, 5)  # (class, component) states
    assert list(res.selection["x"].index) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    by = impute_mnar(X[["x", "z"]], y, selection_by_class=True)
    s = by.selection["x"].to_numpy()
    assert not np.allclose(s[0], s[1])  # one selection curve per class


def test_no_label_is_one_class():
    X, y, x, hide = _self_masked(n=600, seed=4)
    res = impute_mnar(X, None)
    assert res.selection["x"].shape == (1, 5)
    assert not res.table.isna().any().any()


def test_clear_errors():
    X, y, _, _ = _self_masked(n=200, seed=5)
    with pytest.raises(TypeError, match="DataFrame"):
        impute_mnar(X.to_numpy(), y)
    with pytest.raises(ValueError, match="n_bins must be an int >= 2"):
        impute_mnar(X, y, n_bins=1)
    with pytest.raises(ValueError, match="strategy must be 'mean' or 'draw'"):
        impute_mnar(X, y, strategy="mode")
    with pytest.raises(ValueError, match="n_imputations > 1 needs strategy='draw'"):
        impute_mnar(X, y, n_imputations=3)
    with pytest.raises(ValueError, match=r"delta names column\(s\) \['nope'\]"):
        impute_mnar(X, y, delta={"nope": 1.0})
    with pytest.raises(TypeError, match="delta must be a finite number"):
        impute_mnar(X, y, delta="big")
    with pytest.raises(ValueError, match="delta_unit must be"):
        impute_mnar(X, y, delta_unit="percent")
    with pytest.raises(ValueError, match="n_components must be an int >= 1 or 'auto'"):
        impute_mnar(X, y, n_components=0)
    with pytest.raises(TypeError, match="estimator must be a NaiveBayes"):
        impute_mnar(X, y, estimator="nb")
    with pytest.raises(ValueError, match="no column can take a missingness node"):
        impute_mnar(X.assign(x=X["x"].fillna(0.0)), y)
    with pytest.raises(ValueError, match="deltas must be a non-empty sequence"):
        mnar_sensitivity(X, y, deltas=())


def test_estimator_template_is_used():
    X, y, _, _ = _self_masked(n=400, seed=6)
    res = impute_mnar(X, y, estimator=NaiveBayes(class_alpha=2.0))
    np.testing.assert_allclose(res.fit.posterior.class_prior_alpha, 2.0)


def test_diverged_fills_raise_a_clear_error():
    """A fill ten observed ranges beyond a column's values is EM's divergence, not an imputation."""
    from bayesnb.impute.selfmasking import _check_diverged
    X = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0], "b": [0.0, 1.0, 2.0, 3.0]})
    _check_diverged(X, 0, np.array([3.5, 30.0]), "impute_mnar")  # beyond the range (1 to 4), within ten ranges
    with pytest.raises(ValueError, match=r"MNAR fit of column 'a' diverged: 1 imputed value\(s\) reach 1e\+09"):
        _check_diverged(X, 0, np.array([3.0, 1e9]), "impute_mnar")
    with pytest.raises(ValueError, match="diverged"):
        _check_diverged(X, 0, np.array([np.nan]), "impute_mnar")


def test_latent_fit_on_a_heavy_tailed_table_stays_in_the_columns_support():
    """Breast cancer's ten "mean" columns, self-masked (above the median 0.45, else 0.15), with 4 latent
    components per class: EM used to feed the unbounded top sub-bin's mean of a heavy-tailed family back into
    its statistics and diverge ('mean concavity', range 0 to 0.41, filled with 1.5e75; with 12 components
    and 60 iterations as first found, or 4 and 10 as here: without the clip of mnar_bins.censored this fit
    raises "diverged", and with masking seeds 0-4 it fails in 4 of 5). Values past the observed range
    widened by TAIL_SD[-1] sds now count as lying on that bound."""
    from sklearn.datasets import load_breast_cancer

    from bayesnb.generative.mnar_bins import TAIL_SD

    b = load_breast_cancer(as_frame=True)
    X = b.data.iloc[:, :10].copy()
    rng = np.random.default_rng(0)
    for c in X.columns:
        v = X[c].to_numpy()
        X.loc[rng.random(len(v)) < np.where(v > np.median(v), 0.45, 0.15), c] = np.nan
    res = impute_mnar(X, b.target.to_numpy(), n_components=4, random_state=0, max_iter=10)
    for c in X.columns:
        obs = X[c].dropna()
        reach = TAIL_SD[-1] * obs.std(ddof=0) + 1e-9
        v = res.table[c].to_numpy()
        assert np.all(np.isfinite(v)) and v.min() >= obs.min() - reach and v.max() <= obs.max() + reach, c


def _categorical_masked(n=2000, seed=0):
    """A yes/no column whose share of "yes" depends on the class (0.8 / 0.3), "yes" hidden with probability
    0.5 and "no" with 0.1 (self-masking), beside a numeric column z and a complete categorical w."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    v = np.where(rng.random(n) < np.where(y == 0, 0.8, 0.3), "yes", "no").astype(object)
    hide = rng.random(n) < np.where(v == "yes", 0.5, 0.1)
    X = pd.DataFrame({"v": np.where(hide, None, v), "z": rng.normal(y, 1.0),
                      "w": np.where(rng.random(n) < 0.7, np.array(["a", "b"])[y], "c")})
    return X, y, v, hide


def test_categorical_column_gets_a_missingness_node_on_its_own_value():
    X, y, v, hide = _categorical_masked()
    res = impute_mnar(X, y)
    sel = res.selection["v"]
    assert list(sel.columns) == ["no", "yes"] and sel.shape == (2, 2)
    assert abs(sel.loc[0, "yes"] - 0.5) < 0.1 and abs(sel.loc[0, "no"] - 0.1) < 0.05  # the true selection
    mnar = res.table["v"].to_numpy()[hide]
    mar = res.mar_table["v"].to_numpy()[hide]
    assert np.mean(mnar == v[hide]) > np.mean(mar == v[hide]) + 0.05
    assert set(mnar) <= {"yes", "no"} and list(res.column_means.index) == []  # numeric means only: none selected
    with pytest.raises(ValueError, match="no column can take a missingness node"):  # only v has missing cells
        impute_mnar(X, y, categorical=False)
    with pytest.raises(TypeError, match="categorical must be True or False"):
        impute_mnar(X, y, categorical="yes")


def test_categorical_node_draws_and_states():
    X, y, v, hide = _categorical_masked(n=1200, seed=1)
    draws = impute_mnar(X, y, strategy="draw", n_imputations=2, random_state=0).table
    share = [np.mean(t["v"].to_numpy()[hide] == "yes") for t in draws]
    mar_share = np.mean(NaiveBayes().fit(X, y).impute(X, strategy="draw", random_state=0)["v"].to_numpy()[hide]
                        == "yes")
    truth = np.mean(v[hide] == "yes")
    assert all(abs(s - truth) < abs(mar_share - truth) for s in share)
    latent = impute_mnar(X, y, n_components=2, random_state=0)
    assert latent.selection["v"].shape == (4, 2)
    assert not latent.table.isna().any().any()


@pytest.mark.parametrize("model", ["naive", "mvn"])
def test_em_options_and_flags_are_checked(model):
    """tol / max_iter reached EM unchecked (max_iter=0 with model='mvn': UnboundLocalError; tol='a': a
    multiplication error; tol=-1 accepted); mnar_sensitivity let categorical / selection_by_class through
    unchecked; a delta naming a categorical column was silently ignored."""
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    x = rng.normal(y, 1.0)
    X = pd.DataFrame({"x": np.where(rng.random(n) < 0.3, np.nan, x), "z": rng.normal(size=n),
                      "c": np.where(rng.random(n) < 0.2, None, np.array(["a", "b"])[y]).astype(object)})
    for bad in (0, -1, 2.5, "a", True):
        with pytest.raises(ValueError, match="max_iter must be an int >= 1"):
            impute_mnar(X, y, model=model, max_iter=bad)
    for bad in (-1.0, "a", np.nan, None):
        with pytest.raises(ValueError, match="tol must be a finite number >= 0"):
            impute_mnar(X, y, model=model, tol=bad)
    with pytest.raises(ValueError, match="tol must be a finite number >= 0"):
        mnar_sensitivity(X, y, model=model, tol="a")
    with pytest.raises(TypeError, match="categorical must be True or False"):
        mnar_sensitivity(X, y, model=model, categorical="yes")
    with pytest.raises(TypeError, match="selection_by_class must be True or False"):
        mnar_sensitivity(X, y, model=model, selection_by_class="yes")
    with pytest.raises(ValueError, match=r"delta applies to numeric columns; received \['c'\]"):
        impute_mnar(X, y, model=model, delta={"c": 1.0})


def test_draws_take_one_state_per_row_for_all_its_cells():
    """A draw from p(x_miss | x_obs, m) takes one state per row and draws all the row's missing cells in it.
    Each selected column (numeric and categorical) drew its own state, so two cells of one row hidden
    together came from different classes about half the time when the class is uncertain: here a and b
    both sit 6 sds apart by class, and in the rows where both are hidden their draws were uncorrelated
    (and v's draws unrelated to a's)."""
    rng = np.random.default_rng(0)
    n = 1500
    y = rng.integers(0, 2, n)
    a, b = rng.normal(6.0 * y, 1.0), rng.normal(6.0 * y, 1.0)
    v = np.where(rng.random(n) < np.where(y == 1, 0.9, 0.1), "hi", "lo").astype(object)
    both = rng.random(n) < 0.25
    X = pd.DataFrame({"a": np.where(both, np.nan, a), "b": np.where(both, np.nan, b),
                      "v": np.where(both, None, v), "z": rng.normal(size=n)})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    for t in impute_mnar(X, y, strategy="draw", n_imputations=2, random_state=0).table:
        da, db = t["a"].to_numpy()[both], t["b"].to_numpy()[both]
        assert np.corrcoef(da, db)[0, 1] > 0.8
        assert np.corrcoef(da, t["v"].to_numpy()[both] == "hi")[0, 1] > 0.7


def test_count_column_gets_the_poisson_family_and_a_missingness_node():
    """A whole-number column gets the Poisson family; its M-step adds fractional interval means, which
    ``Poisson.encode`` refuses (impute_mnar used to raise "non-integer value(s) [2.0000000000000004, ...]")."""
    rng = np.random.default_rng(3)
    n = 1500
    y = rng.integers(0, 2, n)
    p = rng.poisson(np.where(y == 0, 3.0, 8.0)).astype(float)
    hide = (p > np.quantile(p, 0.6)) & (rng.random(n) < 0.8)
    X = pd.DataFrame({"p": np.where(hide, np.nan, p), "g": rng.normal(y, 1.0)})
    res = impute_mnar(X, y)
    assert type(res.fit.posterior.blocks[0].family).__name__ == "Poisson"
    filled = res.table["p"].to_numpy()
    assert np.all(filled == np.round(filled)) and filled.min() >= 0
    means = res.column_means.loc["p"]
    assert abs(means["MNAR"] - p.mean()) < 0.5 * abs(means["MAR"] - p.mean())
    zeroed = X.assign(p=np.where(rng.random(n) < 0.3, 0.0, X["p"]))  # a Hurdle passes its other cells to Poisson
    est = NaiveBayes(features={"p": Hurdle(Poisson()), "g": Gaussian()})
    filled = impute_mnar(zeroed, y, estimator=est).table["p"].to_numpy()
    assert np.all(filled == np.round(filled)) and filled.min() >= 0


def test_a_whole_number_column_gets_no_ghost_bin():
    """A 3-valued whole-number column hidden completely at random: no observed value lies on a bin edge and
    every bin holds observed values (an edge on a value once put its mass in two bins and left an empty top
    bin whose selection went to 1), so the fitted selection is flat."""
    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 2, n)
    year = rng.integers(2007, 2010, n).astype(float)
    X = pd.DataFrame({"year": np.where(rng.random(n) < 0.3, np.nan, year), "z": rng.normal(y, 1.0)})
    res = impute_mnar(X, y)
    (sc,), (rho,) = res.fit.columns, res.fit.selection
    seen = X["year"].dropna().unique()
    assert not np.isin(seen, sc.edges).any()
    assert np.all(np.bincount(sc.observed_bin[sc.observed_bin >= 0], minlength=len(sc.edges) + 1) > 0)
    assert np.ptp(rho[0]) < 0.1 and abs(rho[0].mean() - 0.3) < 0.05


def test_tied_selection_is_the_missing_rate():
    """``fit_selection(tied=True)`` (mnar_evidence's MAR fit): one probability per column, the Beta posterior
    mean of its missing share."""
    from bayesnb.impute.mnar_evidence import mnar_evidence

    X, y, x, hide = _self_masked(n=400)
    fit = mnar_evidence(X, y).fits["MAR"]
    (rho,) = fit.selection
    assert rho.shape == (2, 5) and fit.converged
    np.testing.assert_allclose(rho, (hide.sum() + 1.0) / (len(hide) + 2.0))


@pytest.mark.parametrize("self_masked", [True, False])
def test_mnar_evidence_chooses_the_mechanism(self_masked):
    """BIC between the tied (MAR) and the self-masking selection nodes: the self-masking model gains far more
    than the penalty on a self-masked column and a self-masked categorical one, nothing when the same share of
    cells is hidden completely at random. Here the class nearly fixes both columns' values, so a missing rate
    per class (MAR by state) explains the self-masked cells as well: not identified, the choice is MAR."""
    from bayesnb.impute.mnar_evidence import mnar_evidence

    X, y, x, hide = _self_masked(n=800, seed=1)
    rng = np.random.default_rng(2)
    c = X["c"].to_numpy(dtype=object)
    hide_c = rng.random(len(c)) < np.where(c == "a", 0.5, 0.1)
    if not self_masked:  # the same numbers of cells, at random
        hide, hide_c = rng.permutation(hide), rng.permutation(hide_c)
    X = X.assign(x=np.where(hide, np.nan, x), c=np.where(hide_c, None, c))
    ev = mnar_evidence(X, y)
    assert ev.k == 4 + 2 and ev.n == 800 and np.isclose(ev.penalty, 3 * np.log(800))
    assert ev.k_state == 2 * (2 - 1) - 6  # one probability per (column, class) against 4 + 2 bins' extra ones
    gain = ev.loglik_mnar - ev.loglik_mar
    assert gain > 2 * ev.penalty if self_masked else gain < 0.5 * ev.penalty
    by_state = ev.loglik_mnar - ev.loglik_mar_state
    assert by_state < -0.5 * ev.k_state * np.log(ev.n)  # MAR by state has the lower BIC in both cases
    assert ev.choice == "MAR"
    assert ev.fits["MAR"].converged and ev.fits["MNAR"].converged and ev.fits["MAR by state"].converged
    assert np.ptp(ev.fits["MAR"].selection[0]) == 0.0
    assert np.ptp(ev.fits["MAR by state"].selection[0], axis=1).max() == 0.0  # tied over the bins, per class


def test_a_hurdle_columns_point_mass_keeps_a_sub_bin_of_its_own():
    """A Hurdle(LogNormal) column (zeros and positive values) hidden completely at random. Its quadrature has a
    sub-bin ``[0, 0 + 1 ulp)`` whose mean is exactly 0, so a missing cell's expected statistics count the zeros
    as zeros. Before, the zeros' mass was averaged with the positive values of their sub-bin into one small
    positive mean, which the LogNormal base then took the log of: the MAR model fitted by the same EM lost 50 to
    200 nats from its starting optimum (breast cancer's concavity columns) and never converged there."""
    from bayesnb.families import LogNormal
    from bayesnb.generative.mnar_bins import column_bins
    from bayesnb.impute.mnar_evidence import mnar_evidence

    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 2, n)
    v = np.where(rng.random(n) < 0.15, 0.0, rng.lognormal(np.where(y == 0, -3.0, -1.5), 0.6))
    X = pd.DataFrame({"v": np.where(rng.random(n) < 0.3, np.nan, v), "z": rng.normal(y, 1.0)})
    est = NaiveBayes(features={"v": Hurdle(LogNormal()), "z": Gaussian()})
    fit = mnar_evidence(X, y, estimator=est).fits["MAR"]
    hist = np.asarray(fit.em_objective)
    assert fit.converged and np.all(np.diff(hist) >= -1e-6 * np.abs(hist[1:]))
    (sc,) = fit.columns
    k = np.flatnonzero(sc.fine == 0.0)
    assert k.size == 1 and sc.fine[k[0] + 1] == np.nextafter(0.0, 1.0)
    block = fit.posterior.blocks[sc.block]
    logm, mean = column_bins(block, block.posterior, sc.col, sc.fine)
    assert np.all(mean[:, k[0] + 1] == 0.0) and np.all(np.exp(logm[:, k[0] + 1]) > 0.1)  # the zeros' share, as 0


def test_mnar_evidence_over_the_latent_class_model_tells_self_masking_from_the_class():
    """House votes, each vote's more frequent answer hidden with probability 0.45 and the other with 0.15:
    over the naive model a missing rate per party explains the hidden votes about as well (MAR); over a
    latent-class model (``n_components``, as the imputer's test runs it) the components leave less for the party
    to explain and self-masking wins. The same share hidden completely at random stays MAR."""
    from bayesnb.datasets import load_house_votes
    from bayesnb.impute.mnar_evidence import mnar_evidence

    X = load_house_votes()
    y = X.pop("party").to_numpy()
    rng = np.random.default_rng(0)
    P = np.column_stack([np.where(X[c] == X[c].mode().iloc[0], 0.45, 0.15) for c in X.columns])
    masked = X.mask(X.notna() & (rng.random(X.shape) < P))
    assert mnar_evidence(masked, y).choice == "MAR"
    ev = mnar_evidence(masked, y, n_components=4, random_state=0)
    assert ev.choice == "MNAR" and ev.loglik_mnar - ev.loglik_mar > 3 * ev.penalty
    assert mnar_evidence(X.mask(X.notna() & (rng.random(X.shape) < 0.25)), y, n_components=4,
                         random_state=0).choice == "MAR"
    with pytest.raises(ValueError, match="n_components must be an int >= 1 or 'auto'"):
        mnar_evidence(masked, y, n_components=0)


@pytest.mark.parametrize("categorical", [True, False])
def test_a_numeric_block_before_a_categorical_one_keeps_the_categorical_choice(categorical):
    """Each column its own block (a features dict), the numeric one first: ``selection_columns`` once reused the
    name of its ``values`` flag for the numeric block's values, so the categorical block after it read an array as
    the flag (an error for two or more rows, and ``categorical=False`` ignored)."""
    from bayesnb.families import Categorical

    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 2, n)
    x = rng.normal(2.0 * y, 1.0)
    c = np.where(rng.random(n) < 0.8, np.array(["a", "b"], dtype=object)[y], "b").astype(object)
    X = pd.DataFrame({"x": np.where((x > 1) & (rng.random(n) < 0.6), np.nan, x),
                      "c": np.where((c == "a") & (rng.random(n) < 0.5), None, c)})
    est = NaiveBayes(features={"x": Gaussian(), "c": Categorical()})
    res = impute_mnar(X, y, estimator=est, categorical=categorical)
    assert {X.columns[sc.column] for sc in res.fit.columns} == ({"x", "c"} if categorical else {"x"})
    assert res.table.notna().all().all()
