"""The NUTS loop of ``run_nuts``: its kept draws, their fields, its calls and what it copies to the host."""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb import CategoricalNB, GaussianNB
from bayesnb.inference import nuts
from bayesnb.inference.numpyro_model import estimator_inputs
from cases import two_gaussians


@pytest.fixture(scope="module")
def votes_model(votes):
    X, y = votes
    return estimator_inputs(CategoricalNB(alpha=1.0).fit(X, y), X, y)


def _key(spec, W, buf_max):
    """The cache key of the default path's one-chain sampler of ``spec`` with ``W`` warmup steps."""
    return next(k for k in nuts._CACHE if k[0] == spec and k[5] == W and k[-1] == ("fn", 1, buf_max, nuts.BUF_VALUES))


class _Spy:
    """A chunk's output that counts its copies to the host."""

    copies = 0

    def __init__(self, out):
        self.out = out

    def __array__(self, dtype=None, copy=None):
        _Spy.copies += 1
        return np.asarray(self.out, dtype=dtype)


# (90, 100, 30) and (90, 85, 30): the same compiled program (warmup and buffer), two splits of the draws;
# (500, 70, 1000): the program of 500 warmup steps on house votes that test_mcmc.py, docs/mcmc.md and the
# demo use too (one compile, shared in this process or through the on-disk program cache)
@pytest.mark.parametrize("W, S, buf_max", [(500, 70, 1000), (90, 100, 30), (0, 30, 1000), (90, 85, 30)])
def test_kept_draws_are_the_steps_after_warmup_one_copy_per_kept_call(votes_model, monkeypatch, W, S, buf_max):
    """The draws are steps W..W+S-1 of the chain (here run one step per call of the same compiled
    program), every field with its own dtype. Without a progress bar the warmup and the first
    ``buf`` draws are one call, and only the calls holding draws are copied to the host."""
    import jax

    monkeypatch.setattr(nuts, "BUF_MAX", buf_max)
    spec, priors, data = votes_model
    kw = {"num_warmup": W, "num_samples": S, "seed": 3, "progress_bar": False}
    samples, extra, _ = nuts.run_nuts(spec, priors, data, **kw)
    key = _key(spec, W, buf_max)
    init_c, chunk_c, layout = nuts._CACHE[key]
    assert layout[2] == buf_max  # the votes model's draws are small
    p32, d32 = nuts._cast(priors, np.float32), nuts._cast(data, np.float32)
    state = init_c(jax.random.split(jax.random.PRNGKey(3), 1)[0], p32, d32, None)
    steps = []
    one, zero = np.int32(1), np.int32(0)
    for _ in range(W + S):
        state, out = chunk_c(state, p32, d32, one, zero)
        steps.append(np.asarray(out)[:1])
    ref_s, ref_e = nuts._unpack(np.concatenate(steps)[None, W:W + S], layout)
    assert set(samples) == set(ref_s) and set(extra) == set(nuts._EXTRA)
    for k, v in ref_s.items():
        assert samples[k].shape == (1, S) + v.shape[2:] and samples[k].dtype == np.float32
        np.testing.assert_array_equal(samples[k], v)
    for k, v in ref_e.items():
        np.testing.assert_array_equal(extra[k], v)
    assert extra["diverging"].dtype == bool and extra["diverging"].shape == (1, S)
    assert np.issubdtype(extra["num_steps"].dtype, np.integer) and (extra["num_steps"] >= 1).all()
    np.testing.assert_allclose(samples["pi"].sum(-1), 1.0, rtol=1e-5)

    calls = []
    spied = (init_c, lambda *a: (calls.append(int(a[3])), (lambda st, out: (st, _Spy(out)))(*chunk_c(*a)))[1], layout)
    _Spy.copies = 0
    nuts._CACHE[key] = spied
    try:
        again, _, timing = nuts.run_nuts(spec, priors, data, **kw)
    finally:
        nuts._CACHE[key] = (init_c, chunk_c, layout)
    assert timing["cache_hit"] and sum(calls) == W + S
    assert len(calls) == _Spy.copies == -(-S // buf_max)  # the first call runs the warmup too
    for k, v in samples.items():
        np.testing.assert_array_equal(again[k], v)


def test_progress_bar_calls_are_chunks(votes_model, monkeypatch):
    """With a progress bar the steps run in calls of at most CHUNK steps, the same draws."""
    spec, priors, data = votes_model
    # 90 warmup steps and a buffer of 30 draws: the compiled program of test_kept_draws_...[90-100-30]
    # (same model, warmup and buffer); the first kept step falls inside the first call
    monkeypatch.setattr(nuts, "BUF_MAX", 30)
    kw = {"num_warmup": 90, "num_samples": 130, "seed": 1}
    quiet, _, _ = nuts.run_nuts(spec, priors, data, progress_bar=False, **kw)
    key = _key(spec, 90, nuts.BUF_MAX)
    init_c, chunk_c, layout = nuts._CACHE[key]
    calls = []
    nuts._CACHE[key] = (init_c, lambda *a: (calls.append((int(a[3]), int(a[4]))), chunk_c(*a))[1], layout)
    try:
        shown, _, _ = nuts.run_nuts(spec, priors, data, progress_bar=True, **kw)
    finally:
        nuts._CACHE[key] = (init_c, chunk_c, layout)
    assert nuts.CHUNK == 100  # (steps, first kept step): at most CHUNK steps, at most 30 kept, per call
    assert calls == [(100, 90), (30, 0), (30, 0), (30, 0), (30, 0)]
    for k, v in quiet.items():
        np.testing.assert_array_equal(shown[k], v)


def _loop_carries(jaxpr, found):
    """Shapes of the arrays every ``while`` loop of ``jaxpr`` (and of the jaxprs inside it) carries."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "while":
            found.extend(tuple(v.aval.shape) for v in eqn.outvars)
        for p in eqn.params.values():
            for sub in p if isinstance(p, (tuple, list)) else [p]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _loop_carries(inner, found)
    return found


def test_the_loop_keeps_the_unconstrained_vector_and_constrains_after_it(votes_model):
    """The loop of kept steps stores each step's unconstrained vector and extra fields (n_params + 6
    columns), and the sites are constrained after the loops, vectorised: no loop carries a buffer of
    constrained sites (the warmup's steps were constrained and packed only to be dropped, and each
    kept step one at a time, 12% of house votes' run)."""
    import jax

    spec, priors, data = votes_model
    p32, d32 = nuts._cast(priors, np.float32), nuts._cast(data, np.float32)
    init_fn, chunk_fn, n_params, layout = nuts._build_fn(spec, p32, d32, 10, False, 0.8)
    sites, extras, buf = layout
    cols = sum(int(np.prod(sh, dtype=int)) for _, sh, _ in sites + extras)
    key = jax.random.PRNGKey(0)
    state = jax.eval_shape(init_fn, key, p32, d32, None)
    jaxpr = jax.make_jaxpr(chunk_fn)(state, p32, d32, np.int32(5), np.int32(2)).jaxpr
    carried = _loop_carries(jaxpr, [])
    assert n_params == 33 and cols > n_params + len(extras)
    assert (buf + 1, n_params + len(extras)) in carried
    assert not any(len(sh) == 2 and sh[1] == cols for sh in carried)


def test_vectorized_chains_keep_their_own_draws():
    """Vectorized chains: (chain, draw, ...) per field, each chain its own draws."""
    # the model, warmup and chains of test_mcmc_chains.test_vectorized_chains_match_exact: one compiled program
    X, y = two_gaussians()
    spec, priors, data = estimator_inputs(GaussianNB().fit(X, y), X, y)
    samples, extra, _ = nuts.run_nuts(spec, priors, data, num_warmup=500, num_samples=90, num_chains=2,
                                      chain_method="vectorized", seed=0, progress_bar=False)
    assert samples["pi"].shape == (2, 90, 2)
    assert all(v.shape == (2, 90) for v in extra.values())
    assert not np.array_equal(samples["pi"][0], samples["pi"][1])
    assert extra["diverging"].dtype == bool


class _Evicting(dict):
    """A full in-process cache whose oldest entry another thread evicts while this one looks it up."""

    def __iter__(self):
        keys = list(dict.__iter__(self))
        if keys:
            dict.pop(self, keys[0])
        return iter(keys)


def test_an_entry_evicted_by_another_thread_meanwhile_is_not_an_error(votes_model, monkeypatch):
    spec, priors, data = votes_model
    full = _Evicting({("other", i): None for i in range(nuts._CACHE_MAX)})
    monkeypatch.setattr(nuts, "_CACHE", full)
    # (the warmup of the tests above: their program comes from the on-disk cache, not compiled again)
    samples, _, timing = nuts.run_nuts(spec, priors, data, num_warmup=500, num_samples=5, progress_bar=False)
    assert not timing["cache_hit"] and samples["pi"].shape == (1, 5, 2)
    assert len(full) <= nuts._CACHE_MAX and any(k[0] == spec for k in dict.keys(full))


@pytest.mark.parametrize("name, value, low", [("num_samples", 0, 1), ("num_samples", -3, 1), ("num_warmup", -1, 0),
                                              ("num_chains", 0, 1), ("num_samples", 2.5, 1), ("num_chains", True, 1)])
def test_run_nuts_checks_its_counts(votes_model, name, value, low):
    spec, priors, data = votes_model
    kw = {"num_warmup": 10, "num_samples": 10, "num_chains": 1, name: value}
    with pytest.raises(ValueError, match=rf"run_nuts: {name} must be an integer >= {low}; received {value!r}\."):
        nuts.run_nuts(spec, priors, data, progress_bar=False, **kw)
