"""Histogram family: evidence by brute force and against scipy, in-support generation,
classification on wine, out-of-range values, bad input, imputation and save/load."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln
from scipy.stats import chisquare, dirichlet_multinomial
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

import bayesnb
from bayesnb import GaussianNB, Histogram, NaiveBayes
from bayesnb.families import _histogram_bins as _bins
from bayesnb.families._histogram_bins import auto_bins, check_state
from bayesnb.inference.conjugate import fit_block


def _fit_family(X, y, fam, K=2):
    return fit_block(fam, X, np.eye(K)[y])


def test_bins_of_an_integer_column_are_half_integers_and_widths_count_integers():
    X = np.array([[0.0], [1.0], [1.0], [2.0], [5.0], [7.0], [9.0], [np.nan]])
    block, state = Histogram(bins=3).encode(X)
    e = state.edges[0]
    assert state.integer[0] and np.all(e - np.floor(e) == 0.5) and e[0] == -0.5 and e[-1] == 9.5
    # every training value lies in a bin with at least one value; offsets cut the distinct values
    np.testing.assert_array_equal(state.values[0], [0, 1, 2, 5, 7, 9])
    np.testing.assert_array_equal(state.counts[0], [1, 2, 1, 1, 1, 1])
    assert np.all(np.diff(state.offsets[0]) > 0)
    assert block.codes[-1, 0] == -1 and block.log_width[-1, 0] == 0.0
    np.testing.assert_allclose(np.exp(block.log_width[:-1, 0]), np.diff(e)[block.codes[:-1, 0]])
    assert auto_bins(1) == 1 and auto_bins(2) == 2 and auto_bins(100) == 10 and auto_bins(10**6) == 20


def test_evidence_is_the_sequential_predictive_minus_log_widths_and_matches_scipy():
    """Brute force: the Dirichlet-multinomial evidence of the bin sequence is the product of the
    sequential predictive probabilities; subtracting sum log w gives the evidence of the density."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=9), rng.integers(0, 6, 9).astype(float)])
    X[2, 0] = np.nan
    y = np.array([0, 1, 0, 1, 0, 1, 1, 0, 0])
    fam = Histogram(bins=3, alpha=0.7)
    block, state, stats, prior, post = _fit_family(X, y, fam)
    ev = fam.log_evidence(prior, post)
    assert min(e.size - 1 for e in state.edges) >= 2
    scipy_total = 0.0
    for k in range(2):
        brute = 0.0
        for j in range(2):
            B = state.edges[j].size - 1
            counts = np.zeros(B)
            for i in np.flatnonzero(y == k):  # sequential predictive of the bins, times 1 / width
                b = block.codes[i, j]
                if b >= 0:
                    brute += np.log((counts[b] + 0.7) / (counts.sum() + B * 0.7)) - block.log_width[i, j]
                    counts[b] += 1
            np.testing.assert_array_equal(counts, stats.counts[j][k])
            # scipy's pmf is of the unordered counts: remove the multinomial coefficient
            n = int(counts.sum())
            scipy_total += (dirichlet_multinomial.logpmf(counts, np.full(B, 0.7), n) - gammaln(n + 1)
                            + gammaln(counts + 1).sum() - stats.log_width[j][k].sum())
        np.testing.assert_allclose(ev[k], brute, rtol=1e-12)
    np.testing.assert_allclose(ev.sum(), scipy_total, rtol=1e-10)


def test_likelihood_is_a_density_that_integrates_to_one():
    """Real column: sum over bins of p(bin) == integral of the density; integer column: the
    probabilities of every integer in [min, max] add up to 1."""
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=60), rng.poisson(4.0, 60).astype(float)])
    y = np.arange(60) % 2
    fam = Histogram(bins=5)
    _, state, _, prior, post = _fit_family(X, y, fam)
    e = state.edges[0]
    grid = np.linspace(e[0], e[-1], 20001)[:-1] + (e[-1] - e[0]) / 40000
    dens = np.exp(fam.log_likelihood(prior, post, fam.encode(np.column_stack([grid, np.full(grid.size, np.nan)]),
                                                              state)[0]))
    np.testing.assert_allclose(dens.sum(0) * (e[-1] - e[0]) / 20000, 1.0, atol=2e-3)
    ints = np.arange(state.edges[1][0] + 0.5, state.edges[1][-1])
    pm = np.exp(fam.log_likelihood(prior, post, fam.encode(np.column_stack([np.full(ints.size, np.nan), ints]),
                                                            state)[0]))
    np.testing.assert_allclose(pm.sum(0), 1.0, rtol=1e-12)


def _wine():
    X, y = load_wine(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_classification_on_wine_is_comparable_to_gaussian_nb():
    """Measured: Histogram 1.000, GaussianNB 0.963 on this split (54 test rows)."""
    Xtr, Xte, ytr, yte = _wine()
    hist = NaiveBayes(features={tuple(range(13)): Histogram()}).fit(Xtr, ytr)
    gauss = GaussianNB().fit(Xtr, ytr)
    acc_h, acc_g = (hist.predict(Xte) == yte).mean(), (gauss.predict(Xte) == yte).mean()
    assert acc_h >= 0.95 and acc_h >= acc_g - 0.05
    np.testing.assert_allclose(hist.predict_proba(Xte).sum(1), 1.0)


def test_samples_are_observed_training_values_in_range():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.poisson(3.0, 80), rng.normal(5.0, 2.0, 80)]).astype(float)
    X[::7, 1] = np.nan
    y = np.arange(80) % 2
    model = NaiveBayes(features={(0, 1): Histogram()}).fit(X, y)
    for S in (model.sample(5000, random_state=0)[0], model.sample(5000, random_state=1, y=np.zeros(5000, int))[0]):
        S = np.asarray(S, dtype=float)
        assert not np.isnan(S).any()
        for j in range(2):
            obs = X[~np.isnan(X[:, j]), j]
            assert np.isin(S[:, j], obs).all()
            assert obs.min() <= S[:, j].min() and S[:, j].max() <= obs.max()
        assert np.all(S[:, 0] == np.round(S[:, 0]))


def test_value_outside_the_training_range_gets_the_end_bin_density_with_an_exponential_tail():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [10.0]]) + 0.25
    y = np.array([0, 0, 0, 1, 1, 1])
    fam = Histogram(bins=2)
    _, state, _, prior, post = _fit_family(X, y, fam)
    np.testing.assert_allclose(state.edges[0], [0.25, 2.75, 10.25])  # the median of the distinct values
    # the tails' scales: the mean distance of the end bin's values from its inner edge (2.75), the
    # maximum-likelihood scale of an exponential fitted to them as excesses over that edge
    below, above = (2.5 + 1.5 + 0.5) / 3, (0.5 + 1.5 + 7.5) / 3
    # beyond an edge: the chance of being more extreme than the end bin's 3 distinct values, 1 / 4,
    # spread as an exponential of that scale, against the end bin's uniform density 1 / width
    step_below, step_above = np.log(4 * below / 2.5), np.log(4 * above / 7.5)
    far, _ = fam.encode(np.array([[-1e6], [1e6], [0.25], [10.25], [-2.0], [20.25]]), state)
    ll = fam.log_likelihood(prior, post, far)
    assert np.isfinite(ll).all()
    # beyond the range: the end bin's density times exp(-step - distance / tail scale)
    np.testing.assert_allclose(ll[0], ll[2] - step_below - (0.25 + 1e6) / below)
    np.testing.assert_allclose(ll[1], ll[3] - step_above - (1e6 - 10.25) / above)
    np.testing.assert_allclose(ll[4], ll[2] - step_below - 2.25 / below)
    np.testing.assert_allclose(ll[5], ll[3] - step_above - 10.0 / above)
    assert np.all(ll[4] > ll[0]) and np.all(ll[5] > ll[1])  # the further out, the less probable


def test_tail_scale_follows_how_the_column_thins_out():
    """A column whose end bin's values crowd its inner edge (a light tail) gets a steeper tail than
    one whose cells spread to its extreme: the same distance beyond the range costs more nats."""
    rng = np.random.default_rng(3)
    light = np.sort(rng.normal(size=400))
    heavy = np.sort(rng.standard_t(2, size=400))
    for col in (light, heavy):
        state = _bins.build_state(col[:, None], 10)
        below, above = _bins.tail_scales(state, 0)
        w = np.diff(state.edges[0])
        assert 0 < below <= w[0] and 0 < above <= w[-1]
    s_light = _bins.tail_scales(_bins.build_state(light[:, None], 10), 0)
    s_heavy = _bins.tail_scales(_bins.build_state(heavy[:, None], 10), 0)
    assert s_light[0] < s_heavy[0] and s_light[1] < s_heavy[1]


def test_impossible_values_lower_log_p_x_of_the_row():
    """Issue 31: a value far outside a column's range (or a 0/1 column's 34, or a constant column's 1e6)
    makes the row less typical under the default NaiveBayes, whose numeric columns choose Histogram."""
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"tenure": rng.integers(0, 73, n), "flag": rng.integers(0, 2, n), "const": np.ones(n, int),
                      "charge": np.round(rng.gamma(2.0, 30.0, n), 2)})
    y = rng.integers(0, 2, n)
    model = NaiveBayes(features={tuple(X.columns): Histogram()}).fit(X, y)
    clean = X.iloc[:20].copy()
    base = model.score_samples(clean)
    for col, value in (("tenure", 10000), ("flag", 34), ("const", 10**6), ("charge", -50.0)):
        bad = clean.copy()
        bad[col] = value
        assert np.all(model.score_samples(bad) < base - 1.0), col
    np.testing.assert_allclose(model.predict_proba(bad).sum(axis=1), 1.0)


@pytest.mark.parametrize("kw, match", [({"bins": 0}, "bins must be an int >= 1 or 'auto'; received 0"),
                                        ({"bins": "x"}, "bins must be an int >= 1 or 'auto'; received 'x'"),
                                        ({"bins": 2.5}, "bins must be an int"),
                                        ({"alpha": -1.0}, r"alpha must be a finite number > 0.*received -1.0"),
                                        ({"alpha": 0.0}, "alpha must be a finite number > 0")])
def test_bad_hyperparameters_raise(kw, match):
    X, y = np.arange(10.0)[:, None], np.arange(10) % 2
    with pytest.raises(ValueError, match=match):
        NaiveBayes(features={(0,): Histogram(**kw)}).fit(X, y)


def test_bad_values_raise():
    y = np.arange(4) % 2
    with pytest.raises(ValueError, match="Histogram features must be numbers"):
        Histogram().encode(np.array([["a"], ["b"], ["1"], ["c"]], dtype=object))
    with pytest.raises(TypeError, match="must be numeric for a Histogram block"):
        NaiveBayes(features={("s",): Histogram()}).fit(pd.DataFrame({"s": ["a", "b", "c", "d"]}), y)
    with pytest.raises(ValueError, match="infinite"):
        NaiveBayes(features={(0,): Histogram()}).fit(np.array([[1.0], [np.inf], [2.0], [3.0]]), y)


@pytest.mark.parametrize("strategy", ["mean", "mode", "draw"])
def test_impute_stays_within_the_training_range(strategy):
    Xtr, Xte, ytr, _ = _wine()
    model = NaiveBayes(features={tuple(range(13)): Histogram()}).fit(Xtr, ytr)
    Xm = Xte.copy()
    Xm[::2, 0] = np.nan
    Xm[1::3, 5] = np.nan
    filled = np.asarray(model.impute(Xm, strategy=strategy, random_state=0), dtype=float)
    assert not np.isnan(filled).any()
    np.testing.assert_array_equal(filled[~np.isnan(Xm)], Xm[~np.isnan(Xm)])
    for j in (0, 5):
        assert Xtr[:, j].min() <= filled[:, j].min() and filled[:, j].max() <= Xtr[:, j].max()
    if strategy != "mean":
        assert np.isin(filled[::2, 0], Xtr[:, 0]).all()


def test_save_load_round_trip_and_partial_fit_keeps_the_bins(tmp_path):
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.poisson(2.0, 60), rng.gamma(2.0, 1.0, 60)]).astype(float)
    X[::5, 0] = np.nan
    y = rng.integers(0, 3, 60)
    model = NaiveBayes(features={(0, 1): Histogram(bins=4, alpha=0.5)}).fit(X, y)
    model.save(tmp_path / "h.bnb")
    again = bayesnb.load(tmp_path / "h.bnb")
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    assert again.log_evidence_ == model.log_evidence_
    # partial_fit in two batches: the bins come from the first batch, the counts add up
    pf = NaiveBayes(features={(0, 1): Histogram(bins=4, alpha=0.5)})
    pf.partial_fit(X[:30], y[:30], classes=np.arange(3)).partial_fit(X[30:] * 3, y[30:])
    st = pf.posterior_.blocks[0].state
    assert st.edges[1][-1] == X[:30, 1].max()
    assert np.isfinite(pf.predict_joint_log_proba(X * 3)).all()


def test_a_tampered_state_is_refused():
    X = np.column_stack([np.arange(20.0) % 5, np.linspace(0, 1, 20)])
    _, st = Histogram(bins=3).encode(X)
    assert check_state(st, 2) == [3, 3]
    for bad in (st._replace(edges=(st.edges[0][::-1], st.edges[1])),
                st._replace(offsets=(st.offsets[0], np.array([0, 1, 1, 20]))),
                st._replace(counts=(st.counts[0], -st.counts[1]))):
        with pytest.raises(ValueError, match="not those of a fitted histogram"):
            check_state(bad, 2)


def _sbc_ranks(alpha_fit, reps=200, n=8, L=99, seed=0):
    """Simulation-based calibration with the bins fixed: theta ~ Dirichlet(1) per class, bins of
    n rows from it, posterior by the family, rank of the true theta[., 0] among L exact draws."""
    rng = np.random.default_rng(seed)
    fam = Histogram(bins=4, alpha=alpha_fit)
    reps_X = np.arange(4.0)[:, None]  # one training value per bin: integer edges -0.5 .. 3.5
    _, state = fam.encode(reps_X)
    assert state.edges[0].size == 5
    ranks = []
    for _ in range(reps):
        theta = rng.dirichlet(np.ones(4), size=2)
        y = rng.integers(0, 2, n)
        X = np.array([[rng.choice(4, p=theta[k])] for k in y], dtype=float)
        block, _ = fam.encode(X, state)
        resp = np.eye(2)[y]
        stats = fam.stats(block, resp, state)
        post = fam.update(fam.make_prior(stats, state), stats)
        draws = fam.sample_params(post, L, rng)["theta"][:, :, 0, 0]  # (L, K)
        ranks.append((draws < theta[None, :, 0]).sum(0))
    r = np.concatenate(ranks)
    return chisquare(np.bincount(r * 10 // (L + 1), minlength=10)).pvalue


def test_sbc_exact_draws_are_calibrated_and_the_wrong_prior_is_not():
    assert _sbc_ranks(1.0) > 1e-3
    assert _sbc_ranks(3.0) < 1e-4  # negative control: the prior used to fit is not the one simulated


def test_a_heavy_whole_number_gets_a_unit_bin_of_its_own():
    """Zero-inflated counts: the zeros' bin is [-0.5, 0.5], so p(0) is not spread over the
    integers near it; light values (under 1/B of the cells, or under 1/20) get no such bin."""
    rng = np.random.default_rng(4)
    x = np.where(rng.random(2000) < 0.6, 0.0, rng.integers(1, 400, 2000)).astype(float)
    x[:600] = np.where(x[:600] > 0, 170.0, 0.0)  # a second heavy value (~12% of cells) inside the range
    y = rng.integers(0, 2, 2000)
    for bins in (4, 16, 64):
        _, state, stats, _, post = _fit_family(x[:, None], y, Histogram(bins=bins))
        e = state.edges[0]
        for v in (0.0, 170.0):
            b = int(np.searchsorted(e, v)) - 1
            unit = (e[b], e[b + 1]) == (v - 0.5, v + 0.5)
            assert unit == (v == 0.0 or bins >= 16), (bins, v, e)  # 170 is under 1/4 of the cells
        assert np.all(np.diff(e) >= 1)
        # the zeros' bin counts exactly the zeros, and its posterior is the heaviest
        np.testing.assert_allclose(stats.counts[0][:, 0], [np.sum((x == 0) & (y == k)) for k in (0, 1)])
        a = post.concentration[0]
        assert np.all(a[:, 0] > a[:, 1:].max(axis=1))
    # weights never move an edge; a light repeated value gets no unit bin
    z = np.r_[np.arange(1.0, 200.0), np.full(5, 77.0)]
    e = Histogram(bins=64).encode(z[:, None])[1].edges[0]
    b = int(np.searchsorted(e, 77.0)) - 1
    assert e[b + 1] - e[b] > 1


def test_soft_weights_count_as_a_dense_one_hot_product():
    """The bincount statistics equal ``resp.T @ onehot(bin)`` with soft weights and missing cells."""
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.normal(size=50), rng.integers(0, 9, 50).astype(float)])
    X[rng.random(50) < 0.2, 0] = np.nan
    resp = rng.dirichlet(np.ones(3), 50) * rng.uniform(0.5, 2.0, (50, 1))
    fam = Histogram(bins=5)
    block, state = fam.encode(X)
    stats = fam.stats(block, resp, state)
    for j, e in enumerate(state.edges):
        onehot = np.zeros((50, e.size - 1))
        ok = block.codes[:, j] >= 0
        onehot[np.flatnonzero(ok), block.codes[ok, j]] = 1.0
        np.testing.assert_allclose(stats.counts[j], resp.T @ onehot, rtol=1e-12)
        np.testing.assert_allclose(stats.log_width[j], resp.T @ onehot * np.log(np.diff(e)), rtol=1e-12)


def test_bins_are_labelled_by_the_interval_they_cover():
    from bayesnb.families._histogram_bins import bin_labels

    assert bin_labels(np.array([-0.5, 2.5, 3.5, 9.5]), True) == ["0..2", "3", "4..9"]
    assert bin_labels(np.array([0.25, 1.5, 10.25]), False) == ["[0.25, 1.5)", "[1.5, 10.25]"]
    block, state = Histogram(bins=3).encode(np.array([[0.0, 0.5], [1.0, 1.5], [5.0, 2.0], [9.0, 7.25]]))
    labels = Histogram().param_value_labels(state)
    assert [len(c) for c in labels] == [len(e) - 1 for e in state.edges]
    assert labels[0][0].startswith("0") and labels[1][-1].endswith("7.25]")
    assert Histogram().value_labels(state) is None  # still a numeric family (no finite set of values)


@pytest.mark.parametrize("bins", ["auto", 3, 16])
def test_merged_states_of_parts_are_the_state_of_the_rows_together(bins):
    """merge_states (a fit over partitions) adds the tables of distinct values and cell counts and makes
    the edges again: bit for bit the state of encoding all rows at once, spikes and empty parts included."""
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.normal(size=300).round(2),
                         rng.poisson(5, 300) * (rng.random(300) < 0.6),  # a spike at 0: its own unit bin
                         np.where(np.arange(300) < 100, np.nan, rng.exponential(size=300))])
    X[rng.random(X.shape) < 0.1] = np.nan
    fam = Histogram(bins=bins)
    whole = fam.encode(X)[1]
    parts = [fam.encode(X[s])[1] for s in (slice(0, 100), slice(100, 120), slice(120, 300))]
    merged = fam.merge_states(fam.merge_states(parts[0], parts[1]), parts[2])
    other = fam.merge_states(parts[2], fam.merge_states(parts[1], parts[0]))  # any order
    for state in (merged, other):
        assert check_state(state, 3)
        for a, b in zip(whole, state):
            for u, v in zip(a if isinstance(a, tuple) else [a], b if isinstance(b, tuple) else [b]):
                assert u.dtype == v.dtype and np.array_equal(u, v)
    assert parts[0].edges[2].tolist() == [0.0, 1.0] and whole.edges[2].size > 2  # a part with nothing seen
    assert not np.array_equal(parts[2].edges[0], whole.edges[0])  # a part's own bins are not the column's
