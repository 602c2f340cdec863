"""bayesnb's own on-disk cache of compiled NUTS programs: a new process skips tracing and lowering.

JAX's persistent compilation cache (:func:`bayesnb.inference.nuts.default_compilation_cache`)
saves the XLA compile, but a new process still builds the NumPyro model, traces it into a
jaxpr and lowers it to StableHLO only to compute that cache's key, which took most of a
second call on house votes. Here the compiled executables themselves (the NUTS initialiser
and chunk, :func:`jax.experimental.serialize_executable.serialize`) are written to a
``bayesnb-programs`` folder inside that cache folder, under a key computed *without* tracing:
the model's static structure, the shapes, dtypes and tree structure of its inputs, the
sampler's settings, the versions of Python, JAX, jaxlib and NumPyro, a digest of bayesnb's own
source and of the modules defining the model's families, their base classes and the classes
reachable in its structure (each file hashed again once edited), the JAX settings and ``XLA_FLAGS``
that change a program, and the backend and host (device kind, platform version, CPU flags).
A new process with the same key loads the executables and runs them: the same machine code,
so the draws are bit for bit those of the process that compiled them.

An entry is a header, a SHA-256 of its body, and the body (the key it was written for and the
serialized executables). An entry whose checksum, format or key does not match, or that fails
to load, is ignored (and rewritten after the compile); nothing here raises to the caller.
Entries are unpickled, so one is read only when it and its folder are a plain file and folder
(no symbolic links) of this user's that no one else can write (:func:`load`); the folder is
created with mode 0o700 and entries with 0o600.
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
import stat
import sys
import tempfile
import threading

__all__ = ["FORMAT", "STATS", "chain_keys", "fresh_compiles", "load", "program_key", "store"]

#: version of the entry layout; part of every key
FORMAT = 2
#: folder of the entries inside the compile-cache folder
SUBDIR = "bayesnb-programs"
_MAGIC = b"bayesnb compiled programs\n"
#: entries loaded, written, and found but unusable (bad checksum, another key, untrusted, failed load), in this process
STATS = {"loaded": 0, "stored": 0, "rejected": 0}
#: JAX settings that change the traced or compiled program (missing ones are recorded as None)
_CONFIG = ("jax_enable_x64", "jax_default_prng_impl", "jax_threefry_partitionable", "jax_default_matmul_precision",
           "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion", "jax_enable_checks", "jax_debug_nans",
           "jax_debug_infs", "jax_disable_jit", "jax_dynamic_shapes", "jax_use_shardy_partitioner")
_DIGESTS: dict = {}
_LOCK = threading.Lock()


def _file_digest(path) -> str:
    """SHA-256 of a file, memoised on its path, modification time and size (an edited file is hashed again)."""
    st = os.stat(path)
    memo = (path, st.st_mtime_ns, st.st_size)
    if memo not in _DIGESTS:
        with open(path, "rb") as f:
            _DIGESTS[memo] = hashlib.sha256(f.read()).hexdigest()
    return _DIGESTS[memo]


def _source_digest() -> str:
    """SHA-256 over every ``.py`` file of the installed bayesnb package (each file hashed again once edited)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.sha256()
    for base, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(base, name)
                h.update(os.path.relpath(path, root).encode() + b"\0" + _file_digest(path).encode())
    return h.hexdigest()


def _class_digest(cls):
    """``module.qualname`` and the digests of the files of the modules defining the class and its bases.

    None when it cannot be pinned down (a class defined inside a function, or a module without
    a source file); classes of the ``builtins`` module are named only (the Python version is in the key).
    """
    parts = []
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            parts.append(f"builtins.{c.__qualname__}")
            continue
        module = sys.modules.get(c.__module__)
        path = getattr(module, "__file__", None)
        if path is None or "<locals>" in c.__qualname__ or not os.path.isfile(path):
            return None
        parts.append(f"{c.__module__}.{c.__qualname__}:{_file_digest(path)}")
    return "|".join(parts)


def _classes(obj, found, seen):
    """Add to ``found`` every class reachable in ``obj``: classes held, and the class of every object,
    through tuples, lists, sets, dicts and ``__slots__`` attributes (not other attributes)."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, type):
        found.add(obj)
        return
    found.add(type(obj))
    if isinstance(obj, dict):
        items = [*obj.keys(), *obj.values()]
    elif isinstance(obj, (tuple, list, set, frozenset)):
        items = list(obj)
    else:
        names = [n for c in type(obj).__mro__ for n in getattr(c, "__slots__", ()) if isinstance(n, str)]
        items = [getattr(obj, n) for n in names if hasattr(obj, n)]
    for item in items:
        _classes(item, found, seen)


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
        The classes whose code the model runs (each block's family): the source of the modules
        defining them and their base classes is part of the key, as is that of every class
        reachable in ``spec`` (a class it holds, such as a hurdle's base family in its static
        structure, or the class of an object it holds, through tuples, lists, sets, dicts and
        ``__slots__``; not through other attributes of an object).
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
    classes = set(families)
    _classes(spec, classes, set())
    fams = sorted({_class_digest(cls) or "" for cls in classes})
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


def _count(name):
    with _LOCK:
        STATS[name] += 1


def _trusted(st, kind) -> bool:
    """Whether ``st`` (an ``os.fstat``) is of ``kind`` (``stat.S_ISDIR`` or ``S_ISREG``), owned by
    this user and writable by nobody else (where the platform has user ids: not on Windows)."""
    if not kind(st.st_mode):
        return False
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows: no owner ids or POSIX modes
        return True
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _open(path, flags, dir_fd=None):
    """``os.open`` without following a symbolic link (its last component), relative to ``dir_fd``."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    if not nofollow and os.path.islink(path):  # pragma: no cover - Windows (no dir_fd there: a full path)
        raise OSError(f"{path} is a symbolic link")
    if dir_fd is not None and os.open in os.supports_dir_fd:
        return os.open(path, flags | nofollow, dir_fd=dir_fd)
    return os.open(path, flags | nofollow)


def _read(cache_dir, key):
    """The bytes of the entry, None when absent; raises ValueError for an entry that is not trusted
    (its folder or itself not a plain folder or file of this user's, writable by nobody else)."""
    folder = os.path.join(str(cache_dir), SUBDIR)
    name = os.path.basename(_path(cache_dir, key))
    try:
        dfd = _open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except FileNotFoundError:
        return None
    except OSError as e:  # a symbolic link (ELOOP), or not a folder
        raise ValueError("untrusted folder") from e
    try:
        if not _trusted(os.fstat(dfd), stat.S_ISDIR):
            raise ValueError("untrusted folder")
        try:
            fd = _open(name if os.open in os.supports_dir_fd else os.path.join(folder, name),
                       os.O_RDONLY | getattr(os, "O_BINARY", 0), dfd)
        except FileNotFoundError:
            return None
        except OSError as e:  # a symbolic link
            raise ValueError("untrusted entry") from e
        with os.fdopen(fd, "rb") as f:
            if not _trusted(os.fstat(f.fileno()), stat.S_ISREG):
                raise ValueError("untrusted entry")
            return f.read()
    finally:
        os.close(dfd)


def load(cache_dir, key):
    """The compiled programs stored under ``key``, or None (absent, damaged, stale, untrusted or unloadable).

    An entry is read only when it and its ``bayesnb-programs`` folder are a plain file and
    folder (not symbolic links) owned by this user and writable by no one else (on Windows
    only the first), since entries are unpickled: another user able to write there could run
    code in this process. Otherwise it is ignored and counted as rejected.

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
        blob = _read(cache_dir, key)
        if blob is None:
            return None
        head, digest, body = blob[:len(_MAGIC)], blob[len(_MAGIC):len(_MAGIC) + 32], blob[len(_MAGIC) + 32:]
        if head != _MAGIC or hashlib.sha256(body).digest() != digest:
            raise ValueError("damaged entry")
        entry = pickle.loads(body)
        if entry.get("format") != FORMAT or entry.get("key") != key:
            raise ValueError("stale entry")
        from jax.experimental.serialize_executable import deserialize_and_load

        programs = tuple(deserialize_and_load(*v) if kind == "program" else v for kind, v in entry["programs"])
    except Exception:
        _count("rejected")
        return None
    _count("loaded")
    return programs


def _folder(cache_dir):
    """The entries' folder, created (mode 0o700) or made 0o700 when it is this user's; None when it
    is not a plain folder of this user's."""
    folder = os.path.join(str(cache_dir), SUBDIR)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    dfd = _open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        st = os.fstat(dfd)
        if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None
        if hasattr(os, "fchmod") and st.st_mode & 0o077:
            os.fchmod(dfd, 0o700)
    finally:
        os.close(dfd)
    return folder


def store(cache_dir, key, programs) -> bool:
    """Write compiled programs under ``key`` (atomically: a temporary file renamed into place).

    The ``bayesnb-programs`` folder is created readable and writable by this user only (and
    made so when it is this user's); entries are written with mode 0o600.

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
        is not writable, is another user's or is a remote one such as ``gs://...``; the run
        goes on without it).
    """
    if "://" in str(cache_dir):
        return False
    tmp = None
    try:
        from jax.experimental.serialize_executable import serialize

        import jax

        items = [("program", serialize(c)) if isinstance(c, jax.stages.Compiled) else ("value", c) for c in programs]
        body = pickle.dumps({"format": FORMAT, "key": key, "programs": items}, protocol=pickle.HIGHEST_PROTOCOL)
        folder = _folder(cache_dir)
        if folder is None:
            return False
        fd, tmp = tempfile.mkstemp(prefix="nuts-", suffix=".tmp", dir=folder)  # mode 0o600, a name of its own
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(body).digest() + body)
        os.replace(tmp, _path(cache_dir, key))
    except Exception:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.remove(tmp)
        return False
    _count("stored")
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
