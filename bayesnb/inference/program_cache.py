"""bayesnb's own on-disk cache of compiled NUTS programs: a new process skips tracing and lowering.

JAX's persistent compilation cache (:func:`bayesnb.inference.nuts.default_compilation_cache`)
saves the XLA compile, but a new process still builds the NumPyro model, traces it into a
jaxpr and lowers it to StableHLO only to compute that cache's key, which took most of a
second call on house votes. Here the compiled executables themselves (the NUTS initialiser
and chunk, :func:`jax.experimental.serialize_executable.serialize`) are written to a
``bayesnb-programs`` folder inside that cache folder, under a key computed *without* tracing:
the model's static structure, the shapes, dtypes and tree structure of its inputs, the
sampler's settings, the versions of Python, JAX, jaxlib and NumPyro, a digest of bayesnb's own
source and of the modules defining the model's families, the JAX settings and ``XLA_FLAGS``
that change a program, and the backend and host (device kind, platform version, CPU flags).
A new process with the same key loads the executables and runs them: the same machine code,
so the draws are bit for bit those of the process that compiled them.

An entry is a header, a SHA-256 of its body, and the body (the key it was written for and the
serialized executables). An entry whose checksum, format or key does not match, or that fails
to load, is ignored (and rewritten after the compile); nothing here raises to the caller.
A key is not computed (nothing is cached) when the model's structure does not print the same
in every process (an object shown by its address) or a family class has no source file or is
defined inside a function. :data:`STATS` counts what happened in this process.

JAX is imported inside the functions.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import platform
import sys
import threading

__all__ = ["FORMAT", "STATS", "chain_keys", "fresh_compiles", "load", "program_key", "store"]

#: version of the entry layout; part of every key
FORMAT = 2
#: folder of the entries inside the compile-cache folder
SUBDIR = "bayesnb-programs"
_MAGIC = b"bayesnb compiled programs\n"
#: entries loaded, written, and found but unusable (bad checksum, another key, failed load), in this process
STATS = {"loaded": 0, "stored": 0, "rejected": 0}
#: JAX settings that change the traced or compiled program (missing ones are recorded as None)
_CONFIG = ("jax_enable_x64", "jax_default_prng_impl", "jax_threefry_partitionable", "jax_default_matmul_precision",
           "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion", "jax_enable_checks", "jax_debug_nans",
           "jax_debug_infs", "jax_disable_jit", "jax_dynamic_shapes", "jax_use_shardy_partitioner")
_DIGESTS: dict = {}


def _file_digest(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _source_digest() -> str:
    """SHA-256 over every ``.py`` file of the installed bayesnb package (computed once per process)."""
    if "bayesnb" not in _DIGESTS:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256()
        for base, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(base, name)
                    h.update(os.path.relpath(path, root).encode() + b"\0" + _file_digest(path).encode())
        _DIGESTS["bayesnb"] = h.hexdigest()
    return _DIGESTS["bayesnb"]


def _class_digest(cls):
    """``module.qualname`` and the digest of the module's file, or None when it cannot be pinned down."""
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    if path is None or "<locals>" in cls.__qualname__ or not os.path.isfile(path):
        return None
    if path not in _DIGESTS:
        _DIGESTS[path] = _file_digest(path)
    return f"{cls.__module__}.{cls.__qualname__}:{_DIGESTS[path]}"


def _versions() -> tuple:
    """Installed versions of JAX, jaxlib and NumPyro (read from their metadata: NumPyro is not imported)."""
    if "versions" not in _DIGESTS:
        from importlib.metadata import PackageNotFoundError, version

        def get(name):
            try:
                return version(name)
            except PackageNotFoundError:  # pragma: no cover - a source checkout
                return None

        _DIGESTS["versions"] = tuple(get(name) for name in ("jax", "jaxlib", "numpyro"))
    return _DIGESTS["versions"]


def _host() -> tuple:
    """Backend, device kind, platform version, machine and a digest of the CPU flags (Linux)."""
    import jax

    dev = jax.devices()[0]
    try:
        platform_version = dev.client.platform_version
    except Exception:  # pragma: no cover - an older client without the attribute
        platform_version = None
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith(("flags", "Features"))), "")
    except OSError:  # pragma: no cover - not Linux
        pass
    return (jax.default_backend(), dev.device_kind, platform_version, platform.machine(),
            hashlib.sha256(flags.encode()).hexdigest())


def _tree(tree) -> tuple:
    import jax
    import numpy as np

    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return str(treedef), tuple((tuple(np.shape(x)), str(np.asarray(x).dtype)) for x in leaves)


def program_key(spec, families, trees, settings):
    """The key of a compiled sampler in the on-disk cache, computed without tracing.

    Parameters
    ----------
    spec : object
        The model's static structure (:class:`~bayesnb.inference.numpyro_model.ModelSpec`); its
        ``repr`` is part of the key.
    families : iterable of type
        The classes whose code the model runs (each block's family): their module's source
        is part of the key.
    trees : sequence of pytrees
        The programs' inputs (priors, data, initial point): tree structure, shapes and dtypes.
    settings : tuple
        The sampler's own settings (warmup length, target acceptance, chains, chunk, precision,
        compiler options), printed into the key.

    Returns
    -------
    str or None
        A hex SHA-256, or None when the model cannot be keyed reliably (see the module notes).
    """
    import jax

    text = repr(spec)
    if " at 0x" in text:
        return None
    fams = sorted({_class_digest(cls) or "" for cls in families})
    if "" in fams:
        return None
    config = tuple((name, repr(getattr(jax.config, name, None))) for name in _CONFIG)
    parts = (FORMAT, sys.version_info[:2], _versions(), _source_digest(),
             tuple(fams), config, os.environ.get("XLA_FLAGS", ""), _host(), text,
             tuple(_tree(t) for t in trees), repr(settings))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


_LOCAL = threading.local()
_LISTENING = []


def _on_event(event, **kwargs):
    if event == "/jax/compilation_cache/cache_hits" and getattr(_LOCAL, "hits", None) is not None:
        _LOCAL.hits += 1


@contextlib.contextmanager
def fresh_compiles():
    """Within the context (this thread only), JAX's persistent cache stores nothing, and JAX's cache hits are counted.

    An executable that JAX read back from its own cache serializes incompletely on CPU (a
    program loaded from such an entry fails with ``Function ... not found``), so only fresh
    compiles may be stored by :func:`store`: the programs meant for it are kept out of JAX's
    cache (they live in this one), and a compile that was a JAX cache hit anyway (an entry
    written elsewhere) is not stored.

    Yields
    ------
    list
        One element once the context exits: the number of JAX cache hits inside.
    """
    import jax.monitoring

    if not _LISTENING:
        jax.monitoring.register_event_listener(_on_event)
        _LISTENING.append(True)
    out, outer = [], getattr(_LOCAL, "hits", None)
    _LOCAL.hits = 0
    try:
        try:  # the setting's thread-local context manager (not exported by jax)
            from jax._src.config import persistent_cache_min_compile_time_secs as setting
        except ImportError:  # pragma: no cover - another JAX layout: count hits only
            setting = None
        with setting(float("inf")) if setting is not None else contextlib.nullcontext():
            yield out
    finally:
        out.append(_LOCAL.hits)
        _LOCAL.hits = outer


def _path(cache_dir, key):
    return os.path.join(str(cache_dir), SUBDIR, f"nuts-{key}.bin")


def load(cache_dir, key):
    """The compiled programs stored under ``key``, or None (absent, damaged, stale or unloadable).

    Parameters
    ----------
    cache_dir : str
        The compile-cache folder.
    key : str
        From :func:`program_key`.

    Returns
    -------
    tuple or None
        The programs (and plain values) stored under ``key``, in their order.
    """
    if "://" in str(cache_dir):  # a remote folder configured in JAX: JAX's cache only
        return None
    try:
        with open(_path(cache_dir, key), "rb") as f:
            blob = f.read()
    except OSError:
        return None
    try:
        head, digest, body = blob[:len(_MAGIC)], blob[len(_MAGIC):len(_MAGIC) + 32], blob[len(_MAGIC) + 32:]
        if head != _MAGIC or hashlib.sha256(body).digest() != digest:
            raise ValueError("damaged entry")
        entry = pickle.loads(body)
        if entry.get("format") != FORMAT or entry.get("key") != key:
            raise ValueError("stale entry")
        from jax.experimental.serialize_executable import deserialize_and_load

        programs = tuple(deserialize_and_load(*v) if kind == "program" else v for kind, v in entry["programs"])
    except Exception:
        STATS["rejected"] += 1
        return None
    STATS["loaded"] += 1
    return programs


def store(cache_dir, key, programs) -> bool:
    """Write compiled programs under ``key`` (atomically: a temporary file renamed into place).

    Parameters
    ----------
    cache_dir : str
        The compile-cache folder (``bayesnb-programs`` is created inside).
    key : str
        From :func:`program_key`.
    programs : sequence
        Compiled programs (``jax.stages.Compiled``), and plain values kept beside them (such as
        the layout of a program's output), returned by :func:`load` in the same order.

    Returns
    -------
    bool
        Whether the entry was written (False when the backend cannot serialize, the folder
        is not writable or is a remote one such as ``gs://...``; the run goes on without it).
    """
    if "://" in str(cache_dir):
        return False
    path = _path(cache_dir, key)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        from jax.experimental.serialize_executable import serialize

        import jax

        items = [("program", serialize(c)) if isinstance(c, jax.stages.Compiled) else ("value", c) for c in programs]
        body = pickle.dumps({"format": FORMAT, "key": key, "programs": items}, protocol=pickle.HIGHEST_PROTOCOL)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(body).digest() + body)
        os.replace(tmp, path)
    except Exception:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return False
    STATS["stored"] += 1
    return True


def chain_keys(seed, num_chains, precision, cache_dir, memo):
    """``jax.random.split(jax.random.PRNGKey(seed), num_chains)`` as a NumPy array (chain, 2).

    Computed by one small compiled program, kept in ``memo`` (the runner's in-process cache)
    and on disk like the sampler, so that a process that loads its sampler compiles nothing.

    Parameters
    ----------
    seed : int
    num_chains : int
    precision : {"float32", "float64"}
        Part of the keys (the seed is int64 under x64, as ``jax.random.PRNGKey`` takes it).
    cache_dir : str or None
        The compile-cache folder; None: nothing on disk.
    memo : dict
        In-process cache of compiled programs.

    Returns
    -------
    numpy.ndarray
        (num_chains, 2) uint32 keys.
    """
    import jax
    import numpy as np

    # int32, or int64 under x64, as jax.random.PRNGKey(seed) takes it (OverflowError past its range)
    seed = np.asarray(seed, dtype=jax.dtypes.canonicalize_dtype(np.int64))
    key = ("keys", num_chains, precision, str(seed.dtype))
    compiled = memo.get(key)
    if compiled is None:
        disk_key = None if cache_dir is None else program_key(
            "chain keys", [], (seed,), (num_chains, precision))
        loaded = None if disk_key is None else load(cache_dir, disk_key)
        if loaded is None:
            lowered = jax.jit(lambda s: jax.random.split(jax.random.PRNGKey(s), num_chains)).lower(seed)
            with fresh_compiles() if disk_key else contextlib.nullcontext([1]) as jax_hits:
                compiled = lowered.compile()
            if not jax_hits[0]:
                store(cache_dir, disk_key, (compiled,))
        else:
            compiled = loaded[0]
        memo[key] = compiled
    return np.asarray(compiled(seed))
