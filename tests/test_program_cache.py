"""bayesnb's on-disk cache of compiled programs: keys computed without tracing, damaged or stale entries ignored."""

from __future__ import annotations

import importlib
import os
import shutil
import stat
import sys
import uuid
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
    assert _key(families=(_Family, uuid.UUID)) != k  # another class's code


def test_key_follows_the_source_of_the_family_module(monkeypatch):
    k = _key()
    path = os.path.abspath(__file__)
    st = os.stat(path)
    monkeypatch.setitem(pc._DIGESTS, (path, st.st_mtime_ns, st.st_size), "edited")  # as if it had changed
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


def _module(tmp_path, monkeypatch, name, source):
    """Write ``source`` as module ``name`` in ``tmp_path`` and import (or reload) it."""
    (tmp_path / f"{name}.py").write_text(source)
    importlib.invalidate_caches()
    if name in sys.modules:
        return importlib.reload(sys.modules[name])
    monkeypatch.setitem(sys.modules, name, importlib.import_module(name))  # removed after the test
    return sys.modules[name]


def test_key_follows_edits_of_a_family_module_its_bases_and_classes_in_the_spec(tmp_path, monkeypatch):
    """A family module edited and reloaded in the same process gets a new key (the old program is not reused)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    tag = uuid.uuid4().hex[:8]
    base_name, fam_name = f"nb_base_{tag}", f"nb_fam_{tag}"
    base = _module(tmp_path, monkeypatch, base_name, "class Base:\n    def f(self):\n        return 1\n")
    fam = _module(tmp_path, monkeypatch, fam_name, f"from {base_name} import Base\n\n\nclass Fam(Base):\n    pass\n")
    k0 = _key(families=(fam.Fam,))
    assert k0 is not None and _key(families=(fam.Fam,)) == k0
    fam = _module(tmp_path, monkeypatch, fam_name, f"from {base_name} import Base\n\n\nclass Fam(Base):\n    x = 2\n")
    k1 = _key(families=(fam.Fam,))
    assert k1 not in (None, k0)  # the family's own module
    base = _module(tmp_path, monkeypatch, base_name, "class Base:\n    def f(self):\n        return 12\n")
    fam = importlib.reload(fam)
    k2 = _key(families=(fam.Fam,))
    assert k2 not in (None, k1)  # the module of a base class
    k3 = _key(spec=_Spec(("a", base.Base)))  # a class held in the structure (as a hurdle holds its base's)
    _module(tmp_path, monkeypatch, base_name, "class Base:\n    def f(self):\n        return 123\n")
    assert _key(spec=_Spec(("a", sys.modules[base_name].Base))) not in (None, k3)


def test_same_named_families_of_two_modules_do_not_share_a_key(tmp_path, monkeypatch):
    from bayesnb.inference.numpyro_model import FamilyCode

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    tag = uuid.uuid4().hex[:8]
    a, b = (_module(tmp_path, monkeypatch, f"nb_{n}_{tag}", "class Fam:\n    pass\n") for n in "ab")
    codes = [FamilyCode(m.Fam()) for m in (a, b)]
    assert repr(codes[0]) == f"FamilyCode(nb_a_{tag}.Fam)" and repr(codes[0]) != repr(codes[1])
    keys = [_key(spec=_Spec((c,)), families=()) for c in codes]
    assert None not in keys and keys[0] != keys[1]


@pytest.mark.parametrize("how", ["entry 0o666", "folder 0o775", "symlinked entry", "another user's"])
def test_an_entry_anyone_else_could_write_is_never_unpickled(tmp_path, monkeypatch, how):
    """Entries are unpickled: one that is not a plain file and folder of this user's, writable by no
    one else, is refused (counted as rejected); the run compiles instead and writes a trusted entry."""
    import jax

    n = int(np.random.default_rng().integers(50, 5000))  # a program no earlier run has cached
    expected = np.asarray(jax.random.split(jax.random.PRNGKey(3), n))
    stored = pc.STATS["stored"]
    assert np.array_equal(pc.chain_keys(3, n, "float32", tmp_path, {}), expected)
    assert pc.STATS["stored"] == stored + 1
    folder = tmp_path / pc.SUBDIR
    (entry,) = folder.glob("nuts-*.bin")
    key = entry.name[len("nuts-"):-len(".bin")]
    assert pc.load(tmp_path, key) is not None  # a normal entry loads
    if how == "entry 0o666":
        entry.chmod(0o666)
    elif how == "folder 0o775":
        folder.chmod(0o775)
    elif how == "symlinked entry":
        elsewhere = tmp_path / "elsewhere.bin"
        shutil.copy(entry, elsewhere)
        entry.unlink()
        entry.symlink_to(elsewhere)
    else:
        uid = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: uid + 1)
    before = dict(pc.STATS)

    unpickled = []

    def never(*args, **kwargs):
        unpickled.append(True)
        raise RuntimeError("an untrusted entry was unpickled")

    with monkeypatch.context() as m:
        m.setattr(pc.pickle, "loads", never)
        assert pc.load(tmp_path, key) is None
    assert not unpickled
    assert pc.STATS["rejected"] == before["rejected"] + 1 and pc.STATS["loaded"] == before["loaded"]
    assert np.array_equal(pc.chain_keys(3, n, "float32", tmp_path, {}), expected)  # the run compiles
    assert pc.STATS["rejected"] == before["rejected"] + 2
    if how == "another user's":  # nothing written into another user's folder
        assert pc.STATS["stored"] == before["stored"]
        return
    assert pc.STATS["stored"] == before["stored"] + 1  # written again, as a trusted entry
    assert entry.is_file() and not entry.is_symlink() and stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert pc.load(tmp_path, key) is not None and pc.STATS["loaded"] == before["loaded"] + 1


def test_a_symlinked_folder_is_refused(tmp_path):
    c, _ = _compiled(4.5)
    key = _key()
    assert pc.store(tmp_path / "real", key, (c,))
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / pc.SUBDIR).symlink_to(tmp_path / "real" / pc.SUBDIR)
    rejected = pc.STATS["rejected"]
    assert pc.load(tmp_path / "linked", key) is None and pc.STATS["rejected"] == rejected + 1
    assert pc.store(tmp_path / "linked", key, (c,)) is False


def test_two_stores_of_one_key_at_once_both_succeed(tmp_path, monkeypatch):
    """Each store writes a temporary file of its own: another thread storing the same key between
    this one's write and rename (simulated here inside the rename) does not take its file away."""
    c, _ = _compiled(5.5)
    key = _key()
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(src)
        if len(calls) == 1:
            assert pc.store(tmp_path, key, (c,))
        real(src, dst)

    monkeypatch.setattr(pc.os, "replace", replace)
    assert pc.store(tmp_path, key, (c,))
    assert len(calls) == 2 and calls[0] != calls[1]
    monkeypatch.setattr(pc.os, "replace", real)
    assert pc.load(tmp_path, key) is not None
    assert sorted(p.name for p in (tmp_path / pc.SUBDIR).iterdir()) == [f"nuts-{key}.bin"]


def test_a_failed_store_leaves_no_temporary_file(tmp_path, monkeypatch):
    c, _ = _compiled(6.5)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(pc.os, "replace", fail)
    assert pc.store(tmp_path, _key(), (c,)) is False
    assert list((tmp_path / pc.SUBDIR).iterdir()) == []
