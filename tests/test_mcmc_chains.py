"""Several chains: parallel on host devices (opt-in, set before JAX starts) and vectorized.

``numpyro.set_host_device_count`` must run before JAX initialises, so the parallel case
runs in a fresh process (forked from a server that has imported JAX but started no backend:
``tests/forkserver.py``); bayesnb itself never calls it.
"""

from __future__ import annotations

import textwrap

import pytest

from cases import two_gaussians
from conftest import ROOT

SCRIPT = textwrap.dedent("""
    import numpyro
    numpyro.set_host_device_count(2)          # the user's opt-in, before JAX starts
    import warnings, jax, numpy as np
    from bayesnb import CategoricalNB
    from bayesnb.criticism.diagnostics import compare_posteriors
    from bayesnb.datasets import load_house_votes
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"]
    clf = CategoricalNB().fit(X, y)
    m = clf.run_mcmc(X, y, num_warmup=500, num_samples=1500, num_chains=2, random_state=0)
    t = compare_posteriors(clf.sample_posterior(20000, random_state=1), m, verbose=False)
    print("devices", jax.local_device_count())
    print("chains", m["posterior"].sizes["chain"])
    print("distinct", not np.allclose(m["posterior"]["pi"].values[0], m["posterior"]["pi"].values[1]))
    print("maxz", float(t["z"].abs().max()))
    print("verdict", t.attrs["verdict"])
""")


@pytest.mark.slow
def test_parallel_chains_on_host_devices(jax_fork_server):
    # the compile cache in this checkout's folder, as the suite's (set here: the server configures none)
    r = jax_fork_server.run(["-c", SCRIPT], updates={"XDG_CACHE_HOME": str(ROOT / ".jax_cache" / "xdg")})
    assert r.returncode == 0, r.stderr[-3000:]
    out = dict(line.split(" ", 1) for line in r.stdout.strip().splitlines())
    assert out["devices"] == "2" and out["chains"] == "2" and out["distinct"] == "True"
    assert float(out["maxz"]) < 4, out["verdict"]


@pytest.mark.slow
def test_vectorized_chains_match_exact():
    from bayesnb import GaussianNB
    from bayesnb.criticism.diagnostics import compare_posteriors

    X, y = two_gaussians()
    clf = GaussianNB().fit(X, y)
    m = clf.run_mcmc(X, y, num_warmup=500, num_samples=1500, num_chains=2, chain_method="vectorized",
                     random_state=3)
    assert m["posterior"].sizes["chain"] == 2
    t = compare_posteriors(clf.sample_posterior(20000, random_state=1), m, verbose=False)
    assert (t["z"].abs() < 4).all(), t.attrs["verdict"]
