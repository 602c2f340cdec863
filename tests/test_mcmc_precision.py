"""``run_mcmc(..., precision="float64")``: float64 draws, the exact posterior, the user's JAX setting untouched."""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb import GaussianNB
from bayesnb.criticism.diagnostics import compare_posteriors
from bayesnb.inference.nuts import run_nuts
from bayesnb.inference.numpyro_model import estimator_inputs


def test_precision_is_checked():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), np.repeat([0, 1], 10)
    clf = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="precision must be 'float32' or 'float64'; received 'double'"):
        clf.run_mcmc(X, y, num_samples=10, precision="double")


@pytest.mark.slow
def test_float64_draws_match_exact_and_leave_global_x64_alone():
    import jax

    rng = np.random.default_rng(1)
    # a raw scale of ~1e4 (variances ~1e8), where float32 is at its least comfortable
    X = np.r_[rng.normal(5e4, 1e4, (40, 2)), rng.normal(6e4, 2e4, (40, 2))]
    y = np.repeat([0, 1], 40)
    clf = GaussianNB().fit(X, y)
    before = jax.config.jax_enable_x64
    m = clf.run_mcmc(X, y, num_warmup=400, num_samples=1000, random_state=0, progress_bar=False,
                     precision="float64")
    assert jax.config.jax_enable_x64 == before
    assert m.attrs["precision"] == "float64"
    t = compare_posteriors(clf.sample_posterior(20000, random_state=1), m, verbose=False)
    assert t.attrs["ok"], t.attrs["verdict"]

    spec, priors, data = estimator_inputs(clf, X, y)
    kw = {"num_warmup": 400, "num_samples": 50, "seed": 2, "progress_bar": False}
    s64, _, tm64 = run_nuts(spec, priors, data, precision="float64", **kw)
    assert tm64["cache_hit"]  # the float64 sampler of run_mcmc above
    assert all(v.dtype == np.float64 for v in s64.values()), {k: v.dtype for k, v in s64.items()}
    s32, _, tm32 = run_nuts(spec, priors, data, precision="float32", **kw)
    assert not tm32["cache_hit"]  # a float64 program is never reused for float32, nor the reverse
    assert all(v.dtype == np.float32 for v in s32.values()), {k: v.dtype for k, v in s32.items()}
    assert all(np.isfinite(v).all() for v in s32.values())
    assert jax.config.jax_enable_x64 == before

    # a user who turned x64 on globally still gets float32 when asking for it, and keeps the setting
    jax.config.update("jax_enable_x64", True)
    try:
        s32b, _, tm = run_nuts(spec, priors, data, precision="float32", **kw)
        assert tm["cache_hit"] and all(v.dtype == np.float32 for v in s32b.values())
        assert jax.config.jax_enable_x64 is True
    finally:
        jax.config.update("jax_enable_x64", before)
