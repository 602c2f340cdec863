"""The compile cache works across processes: a second process loads the compiled sampler.

bayesnb stores the compiled NUTS programs in its own entries inside the persistent cache
folder (``bayesnb.inference.program_cache``), keyed without tracing, so a new process neither
builds the model nor calls JAX's tracing, lowering or compiler. JAX stores only compiles of at
least ``jax_persistent_cache_min_compile_time_secs`` (1 s by default); bayesnb lowers that to 0
for its other programs while it samples, for its thread only.

Each process is a fresh interpreter forked by a server that has imported JAX, NumPyro, scikit-learn, pandas
and xarray (never bayesnb, never a JAX backend: ``conftest.jax_fork_server``), so that the processes pay
their compiles and cache reads, not those imports.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT

from bayesnb.inference import compile_cache, program_cache
from bayesnb.inference.nuts import JAX_MIN_COMPILE_SECS, cache_every_compile

#: run_mcmc calls on a small table (as many as the first argument says; the in-memory sampler cache emptied
#: before each, so each call goes to the disk cache) that report, as a JSON list: JAX's compile events
#: during the call, how often the sampler was built (traced), where the compiled sampler came from, the
#: entries loaded / stored / rejected so far in the process, and a digest of the draws
_PROBE = """
import hashlib, json, sys
import jax.monitoring
events = {}
jax.monitoring.register_event_listener(lambda name, **kw: events.__setitem__(name, events.get(name, 0) + 1))
jax.monitoring.register_event_duration_secs_listener(
    lambda name, d, **kw: events.__setitem__(name, events.get(name, 0) + 1))
import numpy as np, pandas as pd
from bayesnb import CategoricalNB
from bayesnb.inference import nuts, program_cache
built = []
build = nuts._build_fn
nuts._build_fn = lambda *a, **k: built.append(1) or build(*a, **k)
rng = np.random.default_rng(0)  # a small model: the sampler compiles in less time than house votes' (the same code)
X, y = pd.DataFrame({"vote": rng.choice(["n", "y", "?"], 40)}), rng.choice(["dem", "rep"], 40)
est = CategoricalNB().fit(X, y)
runs = []
for _ in range(int(sys.argv[1])):
    nuts._CACHE.clear()
    before, built_before = dict(events), len(built)
    dt = est.run_mcmc(X, y, num_warmup=20, num_samples=30, random_state=0, progress_bar=False)
    draws = b"".join(dt["posterior"][v].values.tobytes() for v in sorted(dt["posterior"].data_vars))
    stats = b"".join(dt["sample_stats"][v].values.tobytes() for v in sorted(dt["sample_stats"].data_vars))
    runs.append({"events": {k: v - before.get(k, 0) for k, v in events.items() if v != before.get(k, 0)},
                 "built": len(built) - built_before, "program_cache": dt.attrs["program_cache"],
                 "stats": dict(program_cache.STATS), "draws": hashlib.sha256(draws + stats).hexdigest()})
print(json.dumps(runs))
"""


def _run_probe(server, xdg: Path, cache_off: bool = False, runs: int = 1) -> list[dict]:
    updates = {"XDG_CACHE_HOME": str(xdg)}  # both read when run_mcmc runs, not when a module is imported
    if cache_off:
        updates["BAYESNB_JAX_CACHE"] = "0"
    r = server.run(["-c", _PROBE, runs], cwd=ROOT, updates=updates)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


_COMPILES = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration",
             "/jax/core/compile/backend_compile_duration", "/jax/compilation_cache/compile_requests_use_cache")


@pytest.mark.slow
def test_a_second_process_loads_the_compiled_sampler_and_compiles_nothing(jax_fork_server, tmp_path):
    """The first process compiles the sampler and stores it; the second loads it: the model is
    never built or traced, JAX lowers and compiles nothing, and the draws are bit for bit those
    of the first process and of a process with the cache off. A damaged entry is ignored (the
    sampler is compiled and stored again, same draws) and the one after it loads again (a second call of
    that process, its in-memory sampler cache emptied: 4 processes in all)."""
    programs = tmp_path / "bayesnb" / "jax" / program_cache.SUBDIR
    [first] = _run_probe(jax_fork_server, tmp_path)
    assert first["program_cache"] == "stored" and first["built"] == 1
    assert first["stats"] == {"loaded": 0, "stored": 2, "rejected": 0}  # the sampler and the chain keys
    assert all(first["events"].get(e, 0) > 0 for e in _COMPILES)
    entries = sorted(programs.iterdir())
    assert len(entries) == 2

    [second] = _run_probe(jax_fork_server, tmp_path)
    assert second["program_cache"] == "loaded" and second["built"] == 0
    assert second["stats"] == {"loaded": 2, "stored": 0, "rejected": 0}
    assert [e for e in _COMPILES if second["events"].get(e, 0)] == []  # no trace, lowering or compile
    assert second["draws"] == first["draws"]

    for entry in entries:  # damage every entry: one byte in the middle of the executable
        blob = bytearray(entry.read_bytes())
        blob[len(blob) // 2] ^= 0xFF
        entry.write_bytes(bytes(blob))
    third, fourth = _run_probe(jax_fork_server, tmp_path, runs=2)  # the fourth run: a load in the process that stored again
    assert third["program_cache"] == "stored" and third["built"] == 1
    assert third["stats"] == {"loaded": 0, "stored": 2, "rejected": 2}
    assert third["draws"] == first["draws"]
    assert fourth["program_cache"] == "loaded" and fourth["draws"] == first["draws"]
    assert fourth["built"] == 0 and fourth["stats"] == {"loaded": 2, "stored": 2, "rejected": 2}
    assert [e for e in _COMPILES if fourth["events"].get(e, 0)] == []

    [off] = _run_probe(jax_fork_server, tmp_path / "off", cache_off=True)
    assert off["program_cache"] == "off" and off["stats"] == {"loaded": 0, "stored": 0, "rejected": 0}
    assert off["draws"] == first["draws"]
    assert not (tmp_path / "off" / "bayesnb").exists()


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
    monkeypatch.setattr(compile_cache, "default_compilation_cache", lambda: None)  # the cache turned off
    with cache_every_compile() as lowered:
        assert not lowered
        assert jax.config.jax_persistent_cache_min_compile_time_secs == JAX_MIN_COMPILE_SECS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
