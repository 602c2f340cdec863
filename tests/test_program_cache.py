"""bayesnb's on-disk cache of compiled programs: keys computed without tracing, damaged or stale entries ignored."""

from __future__ import annotations

import os
import shutil
from typing import NamedTuple

import numpy as np
import pytest

from bayesnb.inference import program_cache as pc
from bayesnb.inference.nuts import JAX_MIN_COMPILE_SECS


class _Spec(NamedTuple):
    blocks: tuple


class _Family:
    pass


def _key(spec=_Spec(("a",)), families=(_Family,), trees=({"x": np.zeros(3, np.float32)},), settings=(500, 0.8)):
    return pc.program_key(spec, families, trees, settings)


def test_key_is_stable_and_changes_with_what_the_program_depends_on():
    k = _key()
    assert k is not None and k == _key() and len(k) == 64
    assert _key(spec=_Spec(("b",))) != k
    assert _key(trees=({"x": np.zeros(4, np.float32)},)) != k  # a shape
    assert _key(trees=({"x": np.zeros(3, np.float64)},)) != k  # a dtype
    assert _key(trees=({"y": np.zeros(3, np.float32)},)) != k  # the tree
    assert _key(settings=(501, 0.8)) != k
    assert _key(families=(_Family, _Spec)) != k  # another class's code


def test_key_follows_the_source_of_the_family_module(monkeypatch):
    k = _key()
    path = os.path.abspath(__file__)
    monkeypatch.setitem(pc._DIGESTS, path, "edited")  # this module's source as if it had changed
    assert _key() != k


def test_no_key_for_a_model_that_cannot_be_pinned_down():
    class Local:
        pass

    assert _key(families=(Local,)) is None  # defined inside a function: its code is not its module's
    assert _key(spec=_Spec((object(),))) is None  # printed with its address: differs per process


def _compiled(offset):
    import jax
    import jax.numpy as jnp

    x0 = np.zeros(3, np.float32)  # a NumPy input: no JAX program (which another run may have cached) to make it
    with pc.fresh_compiles() as hits:
        c = jax.jit(lambda x: {"y": jnp.sin(x) + offset}).lower(x0).compile()
    return c, hits[0]


def test_store_then_load_runs_the_same_program(tmp_path):
    c, hits = _compiled(float(np.random.default_rng().integers(1 << 20)))
    assert hits == 0
    key = _key()
    before = dict(pc.STATS)
    assert pc.store(tmp_path, key, (c,))
    (loaded,) = pc.load(tmp_path, key)
    x = np.linspace(0, 1, 3, dtype=np.float32)
    assert np.asarray(loaded(x)["y"]).tobytes() == np.asarray(c(x)["y"]).tobytes()
    assert pc.STATS["stored"] == before["stored"] + 1 and pc.STATS["loaded"] == before["loaded"] + 1
    assert pc.load(tmp_path, "0" * 64) is None  # absent: not an error, not counted as rejected
    assert pc.STATS["rejected"] == before["rejected"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "empty", "other key"])
def test_a_damaged_or_stale_entry_is_ignored(tmp_path, damage):
    c, _ = _compiled(1.5)
    key = _key()
    assert pc.store(tmp_path, key, (c,))
    path = tmp_path / pc.SUBDIR / f"nuts-{key}.bin"
    blob = path.read_bytes()
    if damage == "other key":  # an entry written for another key, found under this one
        other = _key(settings=(1, 0.5))
        shutil.copy(path, tmp_path / pc.SUBDIR / f"nuts-{other}.bin")
        key = other
    else:
        path.write_bytes({"flip": blob[:-10] + bytes([blob[-10] ^ 1]) + blob[-9:], "truncate": blob[:len(blob) // 2],
                          "garbage": os.urandom(len(blob)), "empty": b""}[damage])
    rejected = pc.STATS["rejected"]
    assert pc.load(tmp_path, key) is None
    assert pc.STATS["rejected"] == rejected + 1


def test_an_unwritable_or_remote_folder_is_not_an_error(tmp_path, monkeypatch):
    c, _ = _compiled(2.5)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert pc.store(blocker, _key(), (c,)) is False
    assert list(tmp_path.iterdir()) == [blocker]
    monkeypatch.chdir(tmp_path)  # a remote folder configured in JAX is left to JAX: nothing written here
    assert pc.store("gs://bucket/jax", _key(), (c,)) is False and pc.load("gs://bucket/jax", _key()) is None
    assert list(tmp_path.iterdir()) == [blocker]


def test_fresh_compiles_keep_programs_out_of_jax_cache_in_this_thread_only():
    import jax

    assert jax.config.jax_persistent_cache_min_compile_time_secs == JAX_MIN_COMPILE_SECS
    with pc.fresh_compiles():
        assert jax.config.jax_persistent_cache_min_compile_time_secs == float("inf")
    assert jax.config.jax_persistent_cache_min_compile_time_secs == JAX_MIN_COMPILE_SECS


def test_fresh_compiles_count_what_jax_read_from_its_cache():
    """A compile that JAX served from its own cache is counted (such an executable is not stored)."""
    import jax
    import jax.numpy as jnp

    from bayesnb.inference.nuts import cache_every_compile

    offset = float(np.random.default_rng().integers(1 << 30))  # a program no earlier run has cached
    x = jnp.zeros(3, jnp.float32)
    with cache_every_compile() as stored:
        jax.jit(lambda v: v * 2 + offset).lower(x).compile()  # written to JAX's cache
    with pc.fresh_compiles() as hits:
        jax.jit(lambda v: v * 3 + offset).lower(x).compile()  # another program: a miss
    assert hits == [0]
    with pc.fresh_compiles() as hits:
        jax.jit(lambda v: v * 2 + offset).lower(x).compile()
    assert hits == ([1] if stored else [0])
    assert stored  # the tests run with a persistent cache (conftest)
