"""NUTS over the one NumPyro model: the runner, its compile cache and the draws it returns.

The sampler is two jitted functions per model structure, array shapes and warmup length
(NumPyro's functional ``hmc`` kernels, chains by ``vmap`` or sequentially): an initialiser
and a run of a given number of NUTS steps that keeps up to a fixed number of them, called
in a Python loop, so the number of draws never recompiles. They are cached in-process, and
JAX's persistent compilation cache is on by default (:func:`default_compilation_cache`;
``BAYESNB_JAX_CACHE=0`` turns it off). That cache folder is the only JAX setting bayesnb
changes, and never one the user has set; while it samples, bayesnb also stores its own
programs in that cache however fast they compile (:func:`cache_every_compile`, a
thread-local override). The compiled initialiser, run and chain-key programs themselves are
kept in :mod:`~bayesnb.inference.program_cache` (inside that folder), under a key computed
without tracing, so a new process loads them and traces, lowers and compiles nothing.
JAX and NumPyro are imported inside the functions.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

import numpy as np

from .._progress import interactive, show
from . import program_cache
from .compile_cache import (CACHE_ENV, JAX_MIN_COMPILE_SECS, cache_every_compile, default_compilation_cache,
                            enable_compilation_cache)
from .numpyro_model import _unconstrained, make_model

__all__ = ["cache_every_compile", "default_compilation_cache", "enable_compilation_cache", "mcmc_draws", "run_nuts",
           "sample_stats_from_extra", "show_progress"]


def show_progress(progress_bar, stream=None):
    """Whether to show the progress bar: ``progress_bar`` itself, or for None whether ``stream`` is a TTY.

    Parameters
    ----------
    progress_bar : bool or None
        None: automatic (:func:`bayesnb.set_progress`; by default on when ``stream``, default
        ``sys.stderr``, is a terminal or the code runs in a Jupyter kernel).
    stream : file-like or None

    Returns
    -------
    bool
    """
    if progress_bar is not None:
        return bool(progress_bar)
    return show(None) if stream is None else interactive(stream)


_CACHE: dict = {}
_CACHE_MAX = 16
_CACHE_LOCK = threading.Lock()
_COMPILE = threading.local()
_LISTENER = []
_COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration",
                   "/jax/core/compile/jaxpr_to_mlir_module_duration",
                   "/jax/core/compile/backend_compile_duration",
                   "/jax/compilation_cache/cache_retrieval_time_sec")


def _listen():
    """Register (once) a JAX monitoring listener that adds up tracing + compilation time."""
    if _LISTENER:
        return
    import jax.monitoring

    def on_duration(event, duration, **kwargs):
        if event in _COMPILE_EVENTS and getattr(_COMPILE, "active", False):
            _COMPILE.seconds += duration

    jax.monitoring.register_event_duration_secs_listener(on_duration)
    _LISTENER.append(on_duration)


def _shapes(tree):
    import jax

    return tuple((tuple(np.shape(x)), str(np.asarray(x).dtype)) for x in jax.tree_util.tree_leaves(tree))


_EXTRA = ("diverging", "num_steps", "accept_prob", "potential_energy", "energy", "adapt_state.step_size")


CHUNK = 100  # NUTS steps per compiled call while a progress bar is shown
#: draws one compiled call keeps at most, and the most values (draws x columns) it holds
BUF_MAX, BUF_VALUES = 1000, 2**22


def run_nuts(spec, priors, data, *, num_warmup=500, num_samples=1000, num_chains=1, chain_method=None,
             seed=0, progress_bar=None, target_accept_prob=0.8, init_sites=None, precision="float32"):
    """Run NUTS on the model; the compiled sampler is cached per structure, shapes and warmup length.

    The default path is two jitted functions (NumPyro's functional ``hmc`` kernels): an
    initialiser (uniform in (-2, 2) on the unconstrained scale, or ``init_sites``) and a
    run of ``n`` NUTS steps (warmup with step-size and diagonal mass adaptation while the
    step counter is below ``num_warmup``, sampling after it) that keeps up to
    :data:`BUF_MAX` draws, called in a Python loop until ``num_warmup + num_samples``
    steps are done: one call when the draws fit (the warmup and the draws in one program
    run, as NumPyro's loop), calls of :data:`CHUNK` steps while a progress bar is shown.
    Both are compiled once per model structure, array shapes and ``num_warmup``, and reused
    for any ``num_samples``, new data, priors, seeds and (sequential or vectorized) chains.
    ``chain_method="parallel"`` uses :class:`numpyro.infer.MCMC` instead (cached too, but
    it re-traces its initialisation on each call). ``init_sites`` (constrained site
    values, e.g. from :func:`point_sites`) starts every chain there instead.

    ``precision``: ``"float32"`` (the default) or ``"float64"``. The run (tracing,
    compiling and sampling) happens inside ``jax.enable_x64(...)``, a thread-local context,
    so the user's global ``jax_enable_x64`` is never changed; the floating inputs are cast
    to that precision and the compiled sampler is cached per precision.

    ``progress_bar``: True, False, or None (the default) for automatic: on when stderr is a
    terminal (:func:`show_progress`); the bar (tqdm, as NumPyro's) appears after 2 s. When
    it is on, a line on stderr says when the sampler is being compiled. The persistent
    compile cache is set up by :func:`default_compilation_cache`.

    Returns
    -------
    samples : dict
        ``{site: ndarray (chain, draw, ...)}``.
    extra : dict
        ``{"diverging", "num_steps", "accept_prob", "potential_energy", "energy",
        "adapt_state.step_size"}`` each (chain, draw).
    timing : dict
        ``compile_seconds`` (building, tracing and compiling the sampler, ahead of the
        run on the default path, as reported by JAX's monitoring events with
        ``numpyro.infer.MCMC``; 0 on a cache hit of the default path; the time to key and load
        it when it comes from the on-disk program cache),
        ``sampling_seconds`` (the rest of the run), ``total_seconds``, ``cache_hit`` (a
        compiled sampler of the same shapes was reused in this process), ``program_cache``:
        ``"memory"`` (that reuse), ``"loaded"`` (the compiled sampler read from
        :mod:`~bayesnb.inference.program_cache`, no tracing), ``"stored"`` (compiled and written
        there) or ``"off"`` (compiled, not written: no persistent cache, ``chain_method="parallel"``,
        or a model that cannot be keyed).

    Raises
    ------
    ValueError
        ``num_warmup`` not an integer >= 0, ``num_samples`` or ``num_chains`` not an integer
        >= 1, or an unknown ``precision`` or ``chain_method``.
    """
    import jax

    for name, v, low in (("num_warmup", num_warmup, 0), ("num_samples", num_samples, 1), ("num_chains", num_chains, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"run_nuts: {name} must be an integer >= {low}; received {v!r}.")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be 'float32' or 'float64'; received {precision!r}.")
    # both thread-local: the global settings are left alone
    with jax.enable_x64(precision == "float64"), cache_every_compile():
        return _run_nuts(spec, priors, data, num_warmup, num_samples, num_chains, chain_method, seed,
                         progress_bar, target_accept_prob, init_sites, precision)


PRECISIONS = {"float32": np.float32, "float64": np.float64}


def _cast(tree, dtype):
    """Every floating leaf of a pytree of arrays as ``dtype`` (integer leaves unchanged)."""
    import jax

    return jax.tree.map(lambda x: np.asarray(x, dtype=dtype) if np.asarray(x).dtype.kind == "f" else x, tree)


def _run_nuts(spec, priors, data, num_warmup, num_samples, num_chains, chain_method, seed, progress_bar,
              target_accept_prob, init_sites, precision):
    """:func:`run_nuts` inside its precision context."""
    import jax

    dtype = PRECISIONS[precision]
    priors, data = _cast(priors, dtype), _cast(data, dtype)
    if chain_method is None:
        chain_method = "parallel" if num_chains > 1 and jax.local_device_count() >= num_chains else "sequential"
    if chain_method not in ("sequential", "vectorized", "parallel"):
        raise ValueError(f"chain_method must be 'sequential', 'vectorized' or 'parallel'; received {chain_method!r}.")
    show = show_progress(progress_bar)
    cache_dir = default_compilation_cache()
    use_mcmc = chain_method == "parallel"
    vec = chain_method == "vectorized" and num_chains > 1
    z_init = None if init_sites is None else _cast(_unconstrained(spec, priors, data, init_sites), dtype)
    key = (spec, precision, _shapes(priors), _shapes(data), _shapes(z_init), int(num_warmup), float(target_accept_prob),
           ("mcmc", int(num_samples), num_chains, show) if use_mcmc
           else ("fn", num_chains if vec else 1, BUF_MAX, BUF_VALUES))
    cached = _CACHE.get(key)
    hit = cached is not None
    _listen()
    _COMPILE.active, _COMPILE.seconds = True, 0.0
    t0 = time.perf_counter()
    aot_seconds = 0.0
    program = "memory" if hit else "off"
    try:
        if use_mcmc:
            rng_key = jax.random.PRNGKey(int(seed))
        else:
            keys = program_cache.chain_keys(int(seed), num_chains, precision, cache_dir, _CACHE)
        if not hit:
            t_c = time.perf_counter()
            if use_mcmc:
                cached = _build_mcmc(spec, num_warmup, num_samples, num_chains, chain_method, show,
                                     target_accept_prob)
            else:
                disk_key = None if cache_dir is None else program_cache.program_key(
                    spec, [type(b.code.family) for b in spec.blocks], (priors, data, z_init),
                    (int(num_warmup), float(target_accept_prob), num_chains if vec else 1, BUF_MAX, BUF_VALUES, precision,
                     _init_options()))
                cached = None if disk_key is None else program_cache.load(cache_dir, disk_key)
                program = "loaded" if cached is not None else "stored" if disk_key is not None else "off"
                if cached is None:
                    cached, jax_hits = _compile_fn(spec, priors, data, z_init, keys, num_warmup, vec,
                                                   target_accept_prob, show, cache_dir, disk_key is not None)
                    if jax_hits or not program_cache.store(cache_dir, disk_key, cached):
                        program = "off"
                aot_seconds = time.perf_counter() - t_c
            with _CACHE_LOCK:  # another thread may be evicting too
                while _CACHE and len(_CACHE) >= _CACHE_MAX:
                    _CACHE.pop(next(iter(_CACHE), None), None)
                _CACHE[key] = cached
        if use_mcmc:
            init = None if z_init is None else {k: np.broadcast_to(v, (num_chains,) + v.shape) if num_chains > 1
                                                else v for k, v in z_init.items()}
            cached.run(rng_key, priors, data, extra_fields=_EXTRA, init_params=init)
            samples = {k: np.asarray(v) for k, v in cached.get_samples(group_by_chain=True).items()}
            extra = {k: np.asarray(v) for k, v in cached.get_extra_fields(group_by_chain=True).items()}
        else:
            starts = [keys] if vec else list(keys)
            outs = [_run_chunks(cached, k, priors, data, z_init, int(num_warmup), int(num_samples), vec, show,
                                f"chain {i + 1}/{len(starts)}" if len(starts) > 1 else "NUTS")
                    for i, k in enumerate(starts)]
            samples = {k: np.concatenate([o[0][k] for o in outs]) for k in outs[0][0]}
            extra = {name: np.concatenate([o[1][name] for o in outs]) for name in _EXTRA}
    finally:
        _COMPILE.active = False
    total = time.perf_counter() - t0
    compile_s = min(_COMPILE.seconds if use_mcmc else aot_seconds, total)
    timing = {"compile_seconds": compile_s, "sampling_seconds": total - compile_s, "total_seconds": total,
              "cache_hit": hit, "program_cache": program}
    return samples, extra, timing


def _compile_fn(spec, priors, data, z_init, keys, num_warmup, vec, target_accept_prob, show, cache_dir, fresh):
    """Build, trace and compile (ahead of time) the initialiser and the run: ``((init, run, layout), jax_hits)``
    (``layout``: :func:`_build_fn`'s, kept beside the programs).

    ``fresh``: the two compiles are kept out of JAX's cache (:func:`program_cache.fresh_compiles`)
    and ``jax_hits`` counts those of them that JAX read from its cache anyway; otherwise
    ``jax_hits`` is 1 (nothing to store)."""
    import jax

    init_fn, chunk_fn, n_params, layout = _build_fn(spec, priors, data, num_warmup, vec, target_accept_prob)
    if show:
        where = f"cached in {cache_dir}" if cache_dir else f"persistent cache off: {CACHE_ENV}=0"
        print(f"bayesnb: compiling the NUTS sampler for a model with {n_params} parameters "
              f"(first call only; {where})", file=sys.stderr, flush=True)
    # compile ahead of time, so that compile and sampling are timed apart
    k0 = keys if vec else keys[0]
    init_l = init_fn.lower(k0, priors, data, z_init)
    n0 = np.int32(0)
    chunk_l = chunk_fn.lower(jax.eval_shape(init_fn, k0, priors, data, z_init), priors, data, n0, n0)
    with program_cache.fresh_compiles() if fresh else contextlib.nullcontext([1]) as jax_hits:
        compiled = init_l.compile(compiler_options=_init_options()), chunk_l.compile(), layout
    return compiled, jax_hits[0]


def _init_options():
    """XLA options of the initialiser's compile: LLVM -O0 on CPU (None elsewhere).

    The initialiser runs once per chain (one potential and gradient, the adaptation's start),
    so optimising its machine code buys nothing, while on CPU it is compiled as some fifty
    separate kernels whose LLVM optimisation took about as long as the NUTS chunk's. The
    chunk, which does all the sampling, keeps XLA's default optimisation level."""
    import jax

    return {"xla_backend_optimization_level": 0} if jax.default_backend() == "cpu" else None


def _calls(W, S, buf, cap):
    """``(steps, first kept step)`` of each compiled call: ``W + S`` steps in all, at most ``cap``
    per call and at most ``buf`` kept (steps ``>= W``) per call."""
    out, a = [], 0
    while a < W + S:
        keep_from = max(W - a, 0)
        n = min(cap, W + S - a, keep_from + buf)
        out.append((n, keep_from))
        a += n
    return out


def _run_chunks(compiled, key, priors, data, z_init, W, S, vec, show, desc):
    """Initialise, then call the compiled run until W + S steps: draws W..W+S-1, each (chain, draw, ...).

    A call runs ``n`` steps and returns the ones from ``keep_from`` on, as one array (their
    constrained sites and extra fields side by side, :func:`_build_fn`): without a progress bar,
    the warmup and up to ``buf`` draws are one call, and each call costs one device-to-host
    copy; a call holding no draw is never copied, and the next call is dispatched before the
    copy, so the copy overlaps the sampling. The columns are split into ``{site: (chain,
    draw, ...)}`` and ``{extra field: (chain, draw)}`` at the end."""
    init_c, chunk_c, layout = compiled
    state = init_c(key, priors, data, z_init)
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=W + S, desc=desc, delay=2.0, file=sys.stderr, leave=True)
    pieces, pending, done = [], None, 0
    try:
        for n, keep_from in _calls(W, S, layout[2], CHUNK if show else W + S):
            state, out = chunk_c(state, priors, data, np.int32(n), np.int32(keep_from))  # dispatched, not waited for
            if pending is not None:
                pieces.append(np.asarray(pending[0])[..., :pending[1], :])
            pending = (out, n - keep_from) if n > keep_from else None
            done += n
            if bar is not None:
                bar.set_description(f"{desc} {'warmup' if done <= W else 'sample'}", refresh=False)
                bar.update(done - bar.n)
        pieces.append(np.asarray(pending[0])[..., :pending[1], :])
    finally:
        if bar is not None:
            bar.close()
    flat = np.concatenate(pieces, axis=1 if vec else 0)
    return _unpack(flat if vec else flat[None], layout)


def _unpack(flat, layout):
    """Run rows (chain, draw, columns) -> ``{site: (chain, draw, ...)}, {extra: (chain, draw)}``
    (integer and boolean fields, ``num_steps`` and ``diverging``, are exact as floats)."""
    out, at = [], 0
    for part in layout[:2]:
        d = {}
        for name, shape, dtype in part:
            n = int(np.prod(shape, dtype=int))
            d[name] = flat[..., at:at + n].reshape(flat.shape[:2] + tuple(shape)).astype(dtype, copy=False)
            at += n
        out.append(d)
    return out[0], out[1]


def _build_mcmc(spec, num_warmup, num_samples, num_chains, chain_method, progress_bar, target_accept_prob):
    from numpyro.infer import MCMC, NUTS, init_to_uniform

    kernel = NUTS(make_model(spec), init_strategy=init_to_uniform, target_accept_prob=target_accept_prob)
    return MCMC(kernel, num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains,
                chain_method=chain_method, progress_bar=progress_bar, jit_model_args=True)


def _build_fn(spec, priors, data, num_warmup, vec, target_accept_prob):
    """Jitted ``init(key, priors, data, z_init) -> state`` and ``chunk(state, priors, data, n, keep_from)
    -> (state, draws)``, the number of unconstrained parameters and the layout of ``draws``
    (:func:`_unpack`; its last item ``buf``, the draws a call keeps at most).

    ``z_init``: None (uniform in (-2, 2) on the unconstrained scale) or an unconstrained point.
    ``chunk`` runs ``n`` NUTS steps (adapting while the step counter is below ``num_warmup``)
    and returns the constrained sites and extra fields of steps ``keep_from`` to
    ``keep_from + buf - 1`` (those run), packed in the rows of one (buf, columns) array
    (sites by name, then the extra fields); ``buf`` is :data:`BUF_MAX`, or fewer so that it
    holds at most :data:`BUF_VALUES` values."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.flatten_util import ravel_pytree
    from numpyro.infer import init_to_uniform
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    fns = []

    def setup(priors, data):
        info, pe_gen, post_gen, _ = initialize_model(
            jax.random.PRNGKey(0), make_model(spec), model_args=(priors, data), dynamic_args=True,
            init_strategy=init_to_uniform, validate_grad=False)
        fns.append((pe_gen, post_gen))
        return info[0]  # the unconstrained sites

    # Model setup by abstract evaluation: only the shapes of the unconstrained sites are kept, so
    # nothing runs (or compiles op by op) eagerly. With dynamic_args the potential and constrain
    # functions re-run the model on their own arguments, and the supports here (simplex, unit
    # interval, positive, real) have no parameters, so nothing traced is kept.
    z_proto = jax.eval_shape(setup, priors, data)
    pe_gen, post_gen = fns[0]
    # NUTS runs on ONE flat vector of every unconstrained site: its integrator, tree building and
    # adaptation are elementwise ops repeated per leaf of the state, so one leaf instead of one per
    # site (two per Gaussian block, one per categorical block, pi) keeps the compiled program from
    # growing with the number of blocks. The model and its law are unchanged.
    z_flat_proto, unravel = ravel_pytree(jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), z_proto))
    n_params = int(z_flat_proto.shape[0])

    def flat_pe_gen(priors, data):
        potential = pe_gen(priors, data)
        return lambda z_flat: potential(unravel(z_flat))

    init_kernel, sample_kernel = hmc(potential_fn_gen=flat_pe_gen, algo="NUTS")
    W = int(num_warmup)

    def init_one(key, priors, data, z_init=None):
        k_init, k_run = jax.random.split(key)
        if z_init is None:
            z0 = jax.random.uniform(k_init, z_flat_proto.shape, z_flat_proto.dtype, minval=-2.0, maxval=2.0)
        else:
            z0 = ravel_pytree(z_init)[0].astype(z_flat_proto.dtype)
        return init_kernel(z0, W, target_accept_prob=target_accept_prob, model_args=(priors, data),
                           rng_key=k_run)

    def _extras(st):
        return (st.diverging, st.num_steps, st.accept_prob, st.potential_energy, st.energy, st.adapt_state.step_size)

    def shapes(key, priors, data):  # the sites and extra fields of one step, as abstract values
        st = init_one(key, priors, data)
        return post_gen(priors, data)(unravel(st.z)), _extras(st)

    key_proto = jax.eval_shape(jax.random.PRNGKey, 0)  # abstract: nothing runs (nor compiles) eagerly
    site_proto, extra_proto = jax.eval_shape(shapes, key_proto, priors, data)
    sites = [(k, v.shape, np.dtype(v.dtype)) for k, v in sorted(site_proto.items())]
    extras = [(k, v.shape, np.dtype(v.dtype)) for k, v in zip(_EXTRA, extra_proto)]
    cols = sum(int(np.prod(sh, dtype=int)) for _, sh, _ in sites + extras)
    buf = max(1, min(BUF_MAX, BUF_VALUES // cols))
    n_extra = sum(int(np.prod(sh, dtype=int)) for _, sh, _ in extras)

    def chunk_one(state, priors, data, n, keep_from):
        # hmc() keeps its adaptation and integrator in closures set by init_kernel, tied to the
        # traced model arguments: set them again in this trace (the unused result is dropped).
        init_kernel(state.z, W, target_accept_prob=target_accept_prob, model_args=(priors, data),
                    rng_key=state.rng_key)
        constrain = post_gen(priors, data)

        def step(i, st):
            return sample_kernel(st, model_args=(priors, data))

        def body(i, carry):  # step i >= keep_from is row i - keep_from; before it or past the buffer, the spare row
            st, rows = carry
            st = step(i, st)
            row = jnp.concatenate([st.z] + [jnp.ravel(v).astype(st.z.dtype) for v in _extras(st)])
            at = jnp.where(i < keep_from, buf, jnp.minimum(i - keep_from, buf)).astype(jnp.int32)
            return st, lax.dynamic_update_slice(rows, row[None], (at, jnp.int32(0)))

        def packed(zrow):  # a kept step's constrained sites (by name), then its extra fields
            sites = constrain(unravel(zrow[:n_params]))
            leaves = [jnp.ravel(sites[k]).astype(zrow.dtype) for k in sorted(sites)]
            return jnp.concatenate(leaves + [zrow[n_params:]])

        # ONE loop over the n steps, so that the program holds one copy of the NUTS step (a loop of
        # its own for the warmup steps before keep_from doubled the code XLA compiles); those steps
        # write their row to the spare row. The kept steps store only the unconstrained vector and
        # the extra fields, and their sites are constrained after the loop, vectorised over the whole
        # buffer: one copy of the constrain (a second, for the first CHUNK rows of a call under a progress
        # bar, took a fifth of the compile). Under a loop, XLA's CPU code for the vectorised constrain
        # was 4-5x slower (house votes), so it is not done in one.
        st, zs = lax.fori_loop(0, n, body, (state, jnp.zeros((buf + 1, n_params + n_extra), state.z.dtype)))
        return st, jax.vmap(packed)(zs[:buf])

    layout = (sites, extras, buf)
    if vec:
        init_one = jax.vmap(init_one, in_axes=(0, None, None, None))
        chunk_one = jax.vmap(chunk_one, in_axes=(0, None, None, None, None))
    # The state crosses the programs' boundary as its list of leaves (NumPyro's HMCState rebuilt
    # inside): the compiled programs' argument trees then hold only lists, tuples and dicts, so a
    # program loaded from the on-disk cache needs neither NumPyro nor the model to be imported.
    treedef = []

    def init_flat(key, priors, data, z_init=None):
        leaves, tdef = jax.tree.flatten(init_one(key, priors, data, z_init))
        treedef[:] = [tdef]
        return leaves

    def chunk_flat(leaves, priors, data, n, keep_from):
        state, out = chunk_one(jax.tree.unflatten(treedef[0], leaves), priors, data, n, keep_from)
        return jax.tree.leaves(state), out

    return jax.jit(init_flat), jax.jit(chunk_flat), n_params, layout


def mcmc_draws(spec, samples, variables=None, shapes=None) -> dict:
    """NumPyro sites (chain, draw, ...) -> variables named as the exact draws.

    Parameters
    ----------
    spec : ModelSpec
    samples : dict
        ``{site: (chain, draw, ...)}`` (:func:`run_nuts`).
    variables : sequence of dict, optional
        Per block, ``{param name: variable}``; default ``<param>_<label>`` for every parameter.
    shapes : dict, optional
        ``{variable: shape}`` without ``chain``/``draw`` (a structure's ``(K, [C,] parent
        states..., ...)``); default the site's own, its (class, component) axis split in two
        (``(K, C, ...)``) for the latent-class model.

    Returns
    -------
    dict
        ``{variable: (chain, draw, ...)}`` float64, with ``pi`` (unless fixed) and ``w`` (C > 1).
    """
    out = {}
    K, C = spec.n_classes, spec.n_components
    if not spec.fixed_pi:
        out["pi"] = np.asarray(samples["pi"], dtype=float)
    if C > 1:
        out["w"] = np.asarray(samples["w"], dtype=float)
    for i, b in enumerate(spec.blocks):
        params = b.code.family.params_from_sites(b.label, b.static, samples)
        for name, var in (variables[i] if variables is not None else {p: f"{p}_{b.label}" for p in params}).items():
            a = np.asarray(params[name], dtype=float)
            shape = shapes[var] if shapes is not None else ((K, C) if C > 1 else (K,)) + a.shape[3:]
            out[var] = a.reshape(a.shape[:2] + tuple(shape))
    return out


def sample_stats_from_extra(extra) -> dict:
    """NumPyro extra fields -> ArviZ ``sample_stats`` names."""
    steps = np.asarray(extra["num_steps"])
    return {
        "diverging": np.asarray(extra["diverging"], dtype=bool),
        "tree_depth": np.ceil(np.log2(steps + 1)).astype(np.int64),
        "n_steps": steps.astype(np.int64),
        "acceptance_rate": np.asarray(extra["accept_prob"], dtype=float),
        "lp": -np.asarray(extra["potential_energy"], dtype=float),
        "energy": np.asarray(extra["energy"], dtype=float),
        "step_size": np.asarray(extra["adapt_state.step_size"], dtype=float),
    }
