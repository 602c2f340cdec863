"""The Family contract, checked on every family: one row of ``CASES`` covers a new family.

Each check calls only the methods that :class:`bayesnb.families._contract.Family` declares
(NumPyro's ``test_distributions.py`` style): encode, statistics, merge, prior, update,
log-likelihood, evidence, generative hooks, exact draws and the NumPyro pieces. The
estimators and the rest of the package reach a family through these methods alone.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.integrate import simpson

from bayesnb.families import (
    Bernoulli,
    Categorical,
    Complement,
    Gaussian,
    Histogram,
    Hurdle,
    LogNormal,
    Multinomial,
    Poisson,
)
from bayesnb.families._contract import Family
from bayesnb.families.default_hooks import same_state as _same_state

K = 3


def _categorical(rng, n):
    X = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(n, 2))
    X[rng.random((n, 2)) < 0.1] = None
    return X


def _bernoulli(rng, n):
    X = (rng.random((n, 4)) < 0.4).astype(float)
    X[rng.random((n, 4)) < 0.1] = np.nan
    return X


def _multinomial(rng, n):
    return rng.poisson(1.5, (n, 5)).astype(float)


def _multinomial_sparse(rng, n):
    return sp.csr_matrix(rng.poisson(0.5, (n, 6)).astype(float))


def _gaussian(rng, n):
    X = rng.normal(size=(n, 3)) * [1.0, 5.0, 0.1] + [0.0, 10.0, -3.0]
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X


def _lognormal(rng, n):
    X = rng.lognormal(mean=[0.0, 2.0, -3.0], sigma=[1.0, 0.3, 2.0], size=(n, 3))
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X


def _poisson(rng, n):
    X = rng.poisson([0.3, 2.0, 12.0], (n, 3)).astype(float)
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X


def _hurdle(rng, n):
    X = rng.lognormal(mean=[0.0, 2.0, -3.0], sigma=[1.0, 0.3, 2.0], size=(n, 3))
    X[rng.random((n, 3)) < 0.4] = 0.0
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X


def _histogram(rng, n):
    X = np.column_stack([rng.poisson(3.0, n), rng.normal(10.0, 2.0, n), rng.exponential(1.0, n)]).astype(float)
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X


#: (id, family factory, data factory): add a row for a new family
CASES = [
    ("categorical", lambda: Categorical(alpha=0.7), _categorical),
    ("bernoulli", lambda: Bernoulli(alpha=1.0), _bernoulli),
    ("multinomial", lambda: Multinomial(alpha=0.5), _multinomial),
    ("multinomial-sparse", lambda: Multinomial(alpha=1.0), _multinomial_sparse),
    ("complement-norm-sparse", lambda: Complement(alpha=0.5, norm=True), _multinomial_sparse),
    ("gaussian", lambda: Gaussian(), _gaussian),
    ("lognormal", lambda: LogNormal(), _lognormal),
    ("poisson", lambda: Poisson(), _poisson),
    ("hurdle", lambda: Hurdle(), _hurdle),
    ("histogram", lambda: Histogram(bins=6, alpha=0.5), _histogram),
]
IDS = [c[0] for c in CASES]


def _fitted(case, n=90, seed=0):
    _, make, data = case
    rng = np.random.default_rng(seed)
    fam = make()
    X = data(rng, n)
    y = np.arange(n) % K
    resp = np.zeros((n, K))
    resp[np.arange(n), y] = 1.0
    block, state = fam.encode(X)
    stats = fam.stats(block, resp, state)
    prior = fam.make_prior(stats, state)
    post = fam.update(prior, stats)
    return fam, X, y, resp, block, state, stats, prior, post


def _arrays(nt):
    out = []
    for v in nt:
        out += list(v) if isinstance(v, tuple) else [v]
    return [np.asarray(v, dtype=float) for v in out if v is not None]


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    return request.param


def test_every_family_implements_the_whole_contract(case):
    """No hook of the contract falls back to the base class's NotImplementedError."""
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    assert isinstance(fam, Family)
    assert isinstance(fam.param_names, tuple) and fam.param_names
    for t in (fam.stats_type, fam.params_type, *fam.state_types):
        assert issubclass(t, tuple) and hasattr(t, "_fields")
    assert isinstance(stats, fam.stats_type) and isinstance(post, fam.params_type)
    assert set(fam.field_rules) >= {fam.stats_type.__name__, fam.params_type.__name__}


def test_log_likelihood_shape_and_finite(case):
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    for predictive in ("mean", "marginal"):
        ll = fam.log_likelihood(prior, post, block, predictive)
        assert ll.shape == (X.shape[0], K) and np.isfinite(ll).all()
    ev = fam.log_evidence(prior, post)
    assert np.shape(ev) == (K,) and np.isfinite(ev).all()


def test_merge_of_two_batches_equals_one_batch(case):
    """Counts accumulate: statistics of two halves merged == statistics of the whole."""
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    half = X.shape[0] // 2
    parts = []
    for rows in (slice(None, half), slice(half, None)):
        b, _ = fam.encode(X[rows], state)
        parts.append(fam.stats(b, resp[rows], state))
    merged = fam.merge(*parts)
    for u, v in zip(_arrays(merged), _arrays(stats)):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)


def test_merge_states_of_two_batches_is_the_state_of_both_or_refused(case):
    """Encoding states of two halves merge into the state of the whole; a refusal only for different states."""
    fam, X, *_, state, _stats, _prior, _post = _fitted(case)
    half = X.shape[0] // 2
    first, second = fam.encode(X[:half])[1], fam.encode(X[half:])[1]
    try:
        merged = fam.merge_states(first, second)
    except NotImplementedError as e:
        assert not _same_state(first, second) and type(fam).__name__ in str(e)
        return
    assert _same_state(merged, state)


def test_leading_axis_is_a_context_axis_of_any_size(case):
    """The leading axis of statistics and parameters is a context axis, not "the classes":
    with S contexts (here 5 from 3 classes, as TAN's (class, parent value) or EM's latent
    states), context s's statistics are those of its rows alone and every hook keeps S."""
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    S = 5
    ctx = np.arange(X.shape[0]) % S
    R = np.zeros((X.shape[0], S))
    R[np.arange(X.shape[0]), ctx] = 1.0
    st = fam.stats(block, R, state)
    pr = fam.make_prior(st, state)
    po = fam.update(pr, st)
    ll, row = fam.log_likelihood_parts(pr, po, block, "mean")
    assert ll.shape == (X.shape[0], S) and row.shape == (X.shape[0],)
    np.testing.assert_allclose(ll + row[:, None], fam.log_likelihood(pr, po, block, "mean"), rtol=1e-12)
    assert np.shape(fam.log_evidence(pr, po)) == (S,)
    for s in (0, S - 1):  # context s alone: the same statistics from its rows only
        rows = np.flatnonzero(ctx == s)
        sub, _ = fam.encode(X[rows], state)
        one = fam.stats(sub, np.ones((rows.size, 1)), state)
        for u, v in zip(_arrays(st), _arrays(one)):
            np.testing.assert_allclose(u[s:s + 1], v, rtol=1e-12, atol=1e-12)


def test_generative_hooks(case):
    """gen_point / gen_sample / gen_fill / gen_cell_log_lik shapes; fill keeps observed cells."""
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    rng = np.random.default_rng(1)
    n, d = X.shape
    rate = fam.gen_rate(stats, resp.sum(0), None)
    for point in (fam.gen_point(prior, post, None), fam.gen_point(prior, post, rng)):
        if not isinstance(point, fam.params_type):  # a lazily drawn point (PolyaDraw): the fields as attributes
            assert not isinstance(point, tuple)
            for f, v in zip(fam.params_type._fields, post):
                assert v is None or np.shape(getattr(point, f)) == np.shape(v), f
        z = rng.integers(0, K, 50)
        lengths = None if rate is None else rng.poisson(rate[z])
        vals = fam.gen_sample(point, z, rng, lengths)
        assert vals.shape == (50, d)
        miss = np.asarray(sp.csr_matrix(fam.gen_missing(block)).toarray() if sp.issparse(fam.gen_missing(block))
                          else fam.gen_missing(block), dtype=bool)
        assert miss.shape == (n, d)
        for strategy in ("mode", "mean", "draw"):
            zz = rng.integers(0, K, n) if strategy == "draw" else None
            filled = fam.gen_fill(point, block, resp, strategy, zz, rng, rate=rate)
            filled = filled.toarray() if sp.issparse(filled) else np.asarray(filled)
            assert filled.shape == (n, d)
            if not fam.raw_values:
                Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
                np.testing.assert_array_equal(filled[~miss], Xd[~miss])
        cells = fam.gen_cell_log_lik(prior, point, block, resp, "mean")
        assert cells.shape == (n, d)
    assert np.isfinite(fam.gen_log_penalty(prior, post))


def test_exact_draws_match_the_closed_form_moments(case):
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    draws = fam.sample_params(post, 4000, np.random.default_rng(2))
    moments = fam.posterior_moments(post)
    assert set(draws) == set(fam.param_names) == set(moments)
    for name in fam.param_names:
        mean, sd = (np.asarray(m, dtype=float) for m in moments[name])
        d = np.asarray(draws[name], dtype=float)
        assert d.shape[0] == 4000 and d.shape[1:] == mean.shape
        ok = np.isfinite(mean) & (sd > 0)
        z = (d.mean(0)[ok] - mean[ok]) / (sd[ok] / np.sqrt(4000))
        assert np.abs(z).max() < 5, name


def test_point_params_round_trip(case):
    """posterior_from_params(point_params(post)) predicts what post predicts (plug-in)."""
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    again = fam.posterior_from_params(fam.point_params(post))
    np.testing.assert_allclose(fam.log_likelihood(prior, again, block, "mean"),
                               fam.log_likelihood(prior, post, block, "mean"), rtol=1e-9, atol=1e-9)


def test_numpyro_pieces_agree_with_numpy(case):
    """Row and sufficient-statistic likelihoods (JAX) at the plug-in equal the NumPy ones."""
    from numpyro import handlers

    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    static = fam.numpyro_static(prior)
    sites = fam.sites_from_params("t", static, fam.point_params(post), fam.numpyro_prior_args(prior))
    with handlers.seed(rng_seed=0), handlers.substitute(data=sites):
        params = fam.numpyro_sample("t", static, fam.numpyro_prior_args(prior), "feature", "class")
    draws = fam.params_from_sites("t", static, {k: np.asarray(v)[None, None] for k, v in sites.items()})
    for name, value in fam.point_params(post).items():  # sites <-> params round trip
        np.testing.assert_allclose(np.asarray(draws[name], dtype=float)[0, 0], value, rtol=1e-6, atol=1e-6)
    rows = fam.numpyro_row_loglik(params, fam.numpyro_row_args(block, static))
    ll = fam.log_likelihood(prior, post, block, "mean")
    np.testing.assert_allclose(np.asarray(rows, dtype=float), ll, rtol=2e-4, atol=2e-3)
    suff = float(fam.numpyro_suffstat_loglik(params, fam.numpyro_stats_args(stats)))
    if fam.joint_columns:  # complete rows only enter a joint block's statistics
        keep = ~np.asarray(sp.csr_matrix(fam.gen_missing(block)).sum(1)).ravel().astype(bool)
    else:
        keep = np.ones(X.shape[0], dtype=bool)
    np.testing.assert_allclose(suff, ll[keep][np.arange(keep.sum()), y[keep]].sum(), rtol=2e-4, atol=1e-2)


def test_linear_form_or_none(case):
    """A family with a linear log-likelihood gives (w, b) with x @ w[k] + b[k] == log p(x | k)."""
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    theta = fam.posterior_moments(post)[fam.param_names[0]][0]
    terms = fam.linear_terms(theta, state)
    names = fam.linear_names([f"c{j}" for j in range(X.shape[1])], state)
    assert (terms is None) == (names is None)
    if terms is None:
        return
    w, b = terms
    assert w.shape[-1] == len(names)


def test_display_hooks(case):
    fam, X, y, resp, block, state, stats, prior, post = _fitted(case)
    labels = fam.value_labels(state)
    assert labels is None or len(labels) == X.shape[1]
    from bayesnb.inference.nb_posterior import BlockPosterior

    bp = BlockPosterior(fam, np.arange(X.shape[1]), [f"c{j}" for j in range(X.shape[1])], state, stats, prior, post)
    panels = fam.plot_panels(bp, top=3)
    assert panels
    for title, kind, payload in panels:
        assert kind in ("bars", "density")
        if kind == "bars":
            lab, p = payload
            assert np.shape(p) == (K, len(lab))
        else:
            mu, sd = payload
            assert np.shape(mu) == np.shape(sd) == (K,)


def test_a_family_needs_log_likelihood_or_its_parts():
    """Either hook gives the other by default; a family with neither says so instead of recursing."""
    from bayesnb.families import Bernoulli

    class Neither(Bernoulli):
        log_likelihood = Family.log_likelihood

    fam, X, y, resp, block, state, stats, prior, post = _fitted(CASES[IDS.index("bernoulli")])
    with pytest.raises(NotImplementedError, match="neither log_likelihood nor log_likelihood_parts"):
        Neither().log_likelihood(prior, post, block)
    with pytest.raises(NotImplementedError, match="neither log_likelihood nor log_likelihood_parts"):
        Neither().log_likelihood_parts(prior, post, block)


#: numeric families as structure nodes: how to integrate their predictive (whole numbers or a density
#: on a range, point masses), and whether ``predictive_bins``' means are the predictive's own (a
#: log-Student-t has no mean: LogNormal's "marginal" means are its Normal's; a histogram's whole bins
#: take their training values' mean)
NODES = {"gaussian": {"low": -np.inf, "means": ("mean", "marginal")},
         "lognormal": {"low": 0.0, "means": ("mean",)},
         "poisson": {"low": 0.0, "means": ("mean", "marginal")},
         "hurdle": {"low": 0.0, "atoms": (0.0,), "means": ("mean",)},
         "histogram": {"bounded": True, "means": ()}}


def _grid(seen, edges, positive):
    """A fine grid covering the predictive's mass (in ``log x`` for a positive variable), the edges on it."""
    if positive:
        u = np.linspace(np.log(seen[seen > 0].min()) - 25.0, np.log(seen.max()) + 25.0, 20001)
        edges = np.log(edges[edges > 0])
    else:
        sd = seen.std()
        u = np.linspace(seen.min() - 60 * sd, seen.max() + 60 * sd, 20001)
    return np.unique(np.concatenate([u, edges]))


def _grid_integral(u, f, x, a, c, smooth=True):
    """``int_a^c dens`` and ``int_a^c x dens`` (K,) by Simpson's rule (``f``: density times Jacobian on ``u``;
    ``smooth`` False: the trapezoid rule, for a piecewise-constant density)."""
    keep = (u >= a) & (u <= c)
    if keep.sum() < 3:
        return np.zeros(f.shape[1]), np.zeros(f.shape[1])
    rule = simpson if smooth else np.trapezoid
    return rule(f[keep], x=u[keep], axis=0), rule(f[keep] * x[keep, None], x=u[keep], axis=0)


@pytest.mark.parametrize("name", list(NODES))
def test_predictive_bins_match_integration_of_the_predictive(name):
    """Interval masses (and means) against sums / integrals of the family's own ``log_likelihood``."""
    spec, case = NODES[name], next(c for c in CASES if c[0] == name)
    rng = np.random.default_rng(1)
    Xall = case[2](rng, 120)
    y = np.arange(120) % K
    resp = np.zeros((120, K))
    resp[np.arange(120), y] = 1.0
    for j in range(Xall.shape[1]):
        fam, X = case[1](), Xall[:, [j]]
        block, state = fam.encode(X)
        prior = fam.make_prior(fam.stats(block, resp, state), state)
        post = fam.update(prior, fam.stats(block, resp, state))
        seen = X[np.isfinite(X)]
        whole = np.all(seen == np.round(seen))
        lo_s, hi_s = (seen.min(), seen.max()) if spec.get("bounded") else (spec["low"], np.inf)
        edges = np.unique(np.quantile(seen[seen > 0] if "atoms" in spec else seen, [0.25, 0.5, 0.75]))
        bounds = np.concatenate([[-np.inf], edges, [np.inf]])
        for predictive in ("mean", "marginal"):
            def dens(x, predictive=predictive, fam=fam, prior=prior, post=post, state=state):
                x = np.atleast_1d(np.asarray(x, dtype=float))
                return np.exp(fam.log_likelihood(prior, post, fam.encode(x[:, None], state)[0], predictive))

            positive = spec.get("low") == 0.0
            if not whole:  # the density once on a fine grid (a histogram's range is the data's)
                u = _grid(seen, edges, positive)
                if spec.get("bounded"):  # a piecewise-constant density: a finer grid on its range
                    u = np.unique(np.concatenate([np.linspace(lo_s, hi_s, 200001), edges]))
                x = np.exp(u) if positive else u
                f = dens(x) * (x if positive else np.ones_like(x))[:, None]
            logm, mean = fam.predictive_bins(prior, post, state, edges, predictive)
            assert logm.shape == mean.shape == (K, edges.size + 1)
            np.testing.assert_allclose(np.exp(logm).sum(axis=1), 1.0, rtol=1e-6)
            for b in range(edges.size + 1):
                if whole:  # every whole number of the node state [e_(b-1), e_b) (within the support)
                    first = np.ceil(bounds[b]) if np.isfinite(bounds[b]) else lo_s
                    last = np.ceil(bounds[b + 1]) - 1 if np.isfinite(bounds[b + 1]) else np.inf
                    ks = np.arange(first, min(last, np.floor(hi_s), np.floor(20 * seen.max() + 60)) + 1)
                    p = dens(ks) if ks.size else np.zeros((0, K))
                    mass, mom = p.sum(axis=0), ks @ p
                else:
                    a, c = max(bounds[b], lo_s), min(bounds[b + 1], hi_s)
                    if positive:
                        a, c = (np.log(a) if a > 0 else -np.inf), np.log(c)
                    mass, mom = _grid_integral(u, f, x, a, c, not spec.get("bounded"))
                    for at in spec.get("atoms", ()):
                        if bounds[b] <= at < bounds[b + 1]:  # the state that holds the atom
                            mass, mom = mass + dens(at)[0], mom + at * dens(at)[0]
                tol = 1e-4 if spec.get("bounded") else 1e-5  # the trapezoid rule errs by h x jump at each step
                np.testing.assert_allclose(np.exp(logm[:, b]), mass, rtol=tol, atol=1e-9, err_msg=f"{name} {j}")
                if predictive in spec["means"] and np.all(mass > 0):
                    np.testing.assert_allclose(mean[:, b], mom / mass, rtol=1e-5, err_msg=f"{name} {j}")


#: a value outside the support of the families that have one (``out_of_support``)
OUTSIDE = {"bernoulli": 34.0, "lognormal": -2.0, "poisson": 1.5, "hurdle": -3.0}


def test_out_of_support_agrees_with_encode(case):
    """``out_of_support`` marks no cell of valid data, and exactly the cells ``encode`` refuses."""
    fam, X, *_ = _fitted(case)
    mask = fam.out_of_support(X)
    assert mask is None or (mask.shape == X.shape and not mask.any())
    if case[0] not in OUTSIDE:
        assert mask is None
        return
    bad = np.array(X, dtype=float, copy=True)
    bad[[2, 5], 1] = OUTSIDE[case[0]]
    mask = fam.out_of_support(bad)
    expected = np.zeros(bad.shape, dtype=bool)
    expected[[2, 5], 1] = True
    np.testing.assert_array_equal(mask, expected)
    with pytest.raises(ValueError):
        fam.encode(bad)
    fam.encode(np.where(mask, np.nan, bad))  # the other cells are in the support


#: the families whose block holds its mask otherwise than in a ``missing`` field, with the reason
OWN_MASK = {"categorical": "the block is the code array itself (code -1)",
            "multinomial": "sparse, and the input's own mask beside the marginalised columns (raw)",
            "multinomial-sparse": "as multinomial", "complement-norm-sparse": "as multinomial"}


def test_blocks_carry_one_missing_mask(case):
    """Every encoded block carries its missing cells once, in one form read through the contract's
    accessors: ``gen_missing`` gives the input's missing cells (NaN / None), ``all_missing`` its columns
    missing in every row. Outside ``OWN_MASK`` a family keeps no override of either: the contract's
    default reads the block's ``missing`` field, None when no cell is missing."""
    name, make, data = case
    fam, rng = make(), np.random.default_rng(3)
    X = data(rng, 60)
    A = np.array(X.toarray() if sp.issparse(X) else X, dtype=object)
    A[rng.random(A.shape) < 0.15] = None
    A[:, 0] = None  # a column missing in every row
    A[5, 1] = None  # a cell missing in any family's data (the count families' draws have none)
    expected = np.array([[v is None or (isinstance(v, float) and np.isnan(v)) for v in row] for row in A])
    raw = A if fam.raw_values else np.where(expected, np.nan, A).astype(float)
    block, _ = fam.encode(sp.csr_matrix(raw) if sp.issparse(X) else raw)
    miss = fam.gen_missing(block)
    np.testing.assert_array_equal(miss.toarray() if sp.issparse(miss) else miss, expected)
    np.testing.assert_array_equal(fam.all_missing(block), expected.all(axis=0))
    if name in OWN_MASK:
        return
    assert type(fam).gen_missing is Family.gen_missing and type(fam).all_missing is Family.all_missing
    assert block.missing.shape == A.shape
    full = np.asarray(X, dtype=float)
    complete, _ = fam.encode(full[~np.isnan(full).any(axis=1)])
    assert complete.missing is None or not complete.missing.any()  # (Hurdle keeps an all-False array)
    assert not fam.gen_missing(complete).any() and not fam.all_missing(complete).any()


@pytest.mark.parametrize("make", [
    lambda v: Gaussian(prior={"mu0": np.array([v, 2.0]), "kappa0": np.array([1.0, 1.0])}),
    lambda v: LogNormal(prior={"mu0": np.array([v, 0.0])}),
    lambda v: Categorical(alpha=np.array([v, 1.0]), categories=[np.array(["a", "b"]), np.array([v, 3.0])]),
    lambda v: Bernoulli(alpha=np.array([v, 1.0])),
    lambda v: Multinomial(alpha=np.array([v, 0.5, 0.5])),
    lambda v: Complement(alpha=np.array([v, 0.5])),
    lambda v: Poisson(a=np.array([v, 1.0]), b=np.array([1.0, 1.0])),
    lambda v: Histogram(bins=[np.array([0.0, v, 3.0])], alpha=np.array([v])),
    lambda v: Hurdle(Gaussian(prior={"mu0": np.array([v, 0.0])}), at=np.array([0.0, v])),
], ids=["Gaussian", "LogNormal", "Categorical", "Bernoulli", "Multinomial", "Complement", "Poisson", "Histogram",
        "Hurdle"])
def test_families_with_equal_array_hyperparameters_are_equal(make):
    """``Gaussian(prior={"mu0": array}) == Gaussian(prior={"mu0": array})`` was False: the dicts (or lists)
    of arrays were compared with ``==``, whose ambiguous truth value made the comparison fall back to ``is``."""
    a, b, c = make(1.0), make(1.0), make(2.0)  # built separately: equal arrays, not the same ones
    assert a == b and b == a and not (a != b)
    assert a != c and c != a
    assert a != make(1.0).set_params(**{next(iter(a.get_params())): "other"})
