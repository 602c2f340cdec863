"""The persistent compile cache works across processes: bayesnb's programs are stored however fast they compile.

JAX stores only compiles of at least ``jax_persistent_cache_min_compile_time_secs`` (1 s by
default); bayesnb lowers that to 0 for its own programs while it samples, for its thread only.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT, run_python

from bayesnb.inference import nuts
from bayesnb.inference.nuts import JAX_MIN_COMPILE_SECS, cache_every_compile

#: a small run_mcmc that reports JAX's compile-cache events during the run (as JSON)
_PROBE = """
import json
import jax.monitoring
events = {}
jax.monitoring.register_event_listener(lambda name, **kw: events.__setitem__(name, events.get(name, 0) + 1))
from bayesnb import CategoricalNB
from bayesnb.datasets import load_play_tennis
df = load_play_tennis()
X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
est = CategoricalNB().fit(X, y)
before = dict(events)
est.run_mcmc(X, y, num_warmup=10, num_samples=10, random_state=0, progress_bar=False)
print(json.dumps({k: v - before.get(k, 0) for k, v in events.items()}))
"""


def _run_probe(xdg: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("JAX_COMPILATION_CACHE_DIR", "BAYESNB_JAX_CACHE", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS")}
    env.update(XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    r = run_python(["-c", _PROBE], env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_second_process_finds_every_program_in_the_cache(tmp_path):
    """The first process stores every program it compiles (not only those over 1 s); the second
    finds each one (JAX's cache-hit events) and writes nothing new."""
    cache = tmp_path / "bayesnb" / "jax"
    first = _run_probe(tmp_path)
    stored = sorted(p.name for p in cache.iterdir())
    requests = first["/jax/compilation_cache/compile_requests_use_cache"]
    assert requests >= 2  # at least the initialiser and the NUTS chunk
    assert first.get("/jax/compilation_cache/cache_hits", 0) == 0
    assert len(stored) == requests  # every compile written, however fast
    second = _run_probe(tmp_path)
    assert second["/jax/compilation_cache/compile_requests_use_cache"] == requests
    assert second.get("/jax/compilation_cache/cache_hits", 0) == requests
    assert sorted(p.name for p in cache.iterdir()) == stored


def test_threshold_is_lowered_in_the_context_and_thread_only(monkeypatch, tmp_path):
    import jax

    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path))  # a cache in use
    assert jax.config.jax_persistent_cache_min_compile_time_secs == JAX_MIN_COMPILE_SECS
    seen = []
    with cache_every_compile() as lowered:
        assert lowered
        assert jax.config.jax_persistent_cache_min_compile_time_secs == 0.0
        other = threading.Thread(target=lambda: seen.append(jax.config.jax_persistent_cache_min_compile_time_secs))
        other.start()
        other.join()
    assert seen == [JAX_MIN_COMPILE_SECS]  # another thread's compiles keep JAX's threshold
    assert jax.config.jax_persistent_cache_min_compile_time_secs == JAX_MIN_COMPILE_SECS


def test_threshold_the_user_set_or_no_cache_is_left_alone(monkeypatch, tmp_path):
    import jax

    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 2.5)
    try:
        with cache_every_compile() as lowered:
            assert not lowered
            assert jax.config.jax_persistent_cache_min_compile_time_secs == 2.5
    finally:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", JAX_MIN_COMPILE_SECS)
    monkeypatch.setattr(nuts, "default_compilation_cache", lambda: None)  # the cache turned off
    with cache_every_compile() as lowered:
        assert not lowered
        assert jax.config.jax_persistent_cache_min_compile_time_secs == JAX_MIN_COMPILE_SECS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
