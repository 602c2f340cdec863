"""Where JAX's persistent compilation cache lives, and when bayesnb's programs are written to it.

:func:`enable_compilation_cache` sets the folder, :func:`default_compilation_cache` is the one
NUTS uses unless turned off (``BAYESNB_JAX_CACHE=0``), and :func:`cache_every_compile` stores
bayesnb's programs however fast they compile. :mod:`bayesnb.inference.nuts` re-exports them.
JAX is imported inside the functions.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["CACHE_ENV", "JAX_MIN_COMPILE_SECS", "cache_every_compile", "default_compilation_cache",
           "enable_compilation_cache"]


def enable_compilation_cache(path=None):
    """Opt in to JAX's persistent compilation cache (NUTS compiles once per model shape).

    Parameters
    ----------
    path : str or None
        Cache directory (created if needed). Default: ``JAX_COMPILATION_CACHE_DIR`` when set
        (left as it is), else ``$XDG_CACHE_HOME/bayesnb/jax`` (``~/.cache/bayesnb/jax``).

    Returns
    -------
    str
        The cache directory in use.
    """
    import jax

    if path is None and os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return os.environ["JAX_COMPILATION_CACHE_DIR"]
    if path is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "bayesnb", "jax")
    os.makedirs(path, exist_ok=True)
    if jax.config.jax_compilation_cache_dir != str(path):
        from jax.experimental.compilation_cache import compilation_cache

        jax.config.update("jax_compilation_cache_dir", str(path))
        compilation_cache.reset_cache()  # JAX decides once whether to use a cache: decide again
    return str(path)


CACHE_ENV = "BAYESNB_JAX_CACHE"


def default_compilation_cache():
    """The persistent compile cache NUTS uses unless turned off; called by :func:`run_nuts`.

    A folder already configured in JAX (``jax.config.jax_compilation_cache_dir`` or the
    ``JAX_COMPILATION_CACHE_DIR`` variable) is used as it is, never overridden. Otherwise,
    unless the environment variable ``BAYESNB_JAX_CACHE`` is ``0``, ``false``, ``no`` or
    ``off``, :func:`enable_compilation_cache` sets ``$XDG_CACHE_HOME/bayesnb/jax``
    (``~/.cache/bayesnb/jax``).

    Returns
    -------
    str or None
        The cache folder in use, or None when the cache is off.
    """
    import jax

    configured = jax.config.jax_compilation_cache_dir or os.environ.get("JAX_COMPILATION_CACHE_DIR")
    if configured:
        return str(configured)
    if os.environ.get(CACHE_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    return enable_compilation_cache()


#: JAX's default ``jax_persistent_cache_min_compile_time_secs``: only compiles at least this long are stored
JAX_MIN_COMPILE_SECS = 1.0


@contextlib.contextmanager
def cache_every_compile():
    """Within the context, bayesnb's programs are written to the persistent compile cache however fast they compile.

    JAX stores only the compiles that took at least ``jax_persistent_cache_min_compile_time_secs``
    (1 s by default), and the samplers of small models compile in less (house votes: 0.99 s and
    0.29 s), so every new process compiled them again. When a persistent cache is in use
    (:func:`default_compilation_cache`) and that setting has JAX's default value, it is 0 inside
    the context, for the calling thread only (JAX's thread-local override): programs compiled
    elsewhere, and a threshold the user set, are left as they are.

    Yields
    ------
    bool
        Whether every compile inside is stored.
    """
    import jax

    if default_compilation_cache() is None or jax.config.jax_persistent_cache_min_compile_time_secs != \
            JAX_MIN_COMPILE_SECS:
        yield False
        return
    try:  # the setting's thread-local context manager (not exported by jax)
        from jax._src.config import persistent_cache_min_compile_time_secs as setting
    except ImportError:  # pragma: no cover - another JAX layout: set and restore the global value
        setting = None
    if setting is not None:
        with setting(0.0):
            yield True
        return
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)  # pragma: no cover
    try:  # pragma: no cover
        yield True
    finally:  # pragma: no cover
        jax.config.update("jax_persistent_cache_min_compile_time_secs", JAX_MIN_COMPILE_SECS)
