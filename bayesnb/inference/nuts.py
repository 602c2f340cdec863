"""NUTS over the one NumPyro model: the runner, its compile cache and the draws it returns.

The sampler is one jitted function per model structure and array shapes (NumPyro's
functional ``hmc`` kernels, chains by ``vmap`` or sequentially), cached in-process; JAX's
persistent compilation cache is opt-in (:func:`enable_compilation_cache`). JAX and NumPyro
are imported inside the functions; nothing here changes JAX's global settings.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np

from .numpyro_model import _unconstrained, make_model

__all__ = ["enable_compilation_cache", "mcmc_draws", "run_nuts", "sample_stats_from_extra"]


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
    jax.config.update("jax_compilation_cache_dir", str(path))
    return str(path)


_CACHE: dict = {}
_CACHE_MAX = 16
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


def run_nuts(spec, priors, data, *, num_warmup=500, num_samples=1000, num_chains=1, chain_method=None,
             seed=0, progress_bar=False, target_accept_prob=0.8, init_sites=None):
    """Run NUTS on the model; the compiled sampler is cached per structure and shapes.

    The default path is one jitted function (NumPyro's functional ``hmc`` kernels:
    initialisation uniform in (-2, 2) on the unconstrained scale, warmup with step-size
    and diagonal mass adaptation, then sampling, in one ``lax.scan``), compiled once
    per model structure and array shapes and reused for new data, priors, seeds and
    (sequential or vectorized) chains. ``progress_bar=True`` or ``chain_method="parallel"``
    use :class:`numpyro.infer.MCMC` instead (cached too, but it re-traces its
    initialisation on each call). ``init_sites`` (constrained site values, e.g. from
    :func:`point_sites`) starts every chain there instead.

    Returns
    -------
    samples : dict
        ``{site: ndarray (chain, draw, ...)}``.
    extra : dict
        ``{"diverging", "num_steps", "accept_prob", "potential_energy", "energy",
        "adapt_state.step_size"}`` each (chain, draw).
    timing : dict
        ``compile_seconds`` (JAX tracing + compilation: timed ahead of the run on the
        default path, as reported by JAX's monitoring events with ``numpyro.infer.MCMC``;
        0 on a cache hit of the default path), ``sampling_seconds`` (the rest of the
        run), ``total_seconds``, ``cache_hit`` (a compiled sampler of the same shapes was
        reused).
    """
    import jax

    if chain_method is None:
        chain_method = "parallel" if num_chains > 1 and jax.local_device_count() >= num_chains else "sequential"
    if chain_method not in ("sequential", "vectorized", "parallel"):
        raise ValueError(f"chain_method must be 'sequential', 'vectorized' or 'parallel'; received {chain_method!r}.")
    use_mcmc = progress_bar or chain_method == "parallel"
    z_init = None if init_sites is None else _unconstrained(spec, priors, data, init_sites)
    key = (spec, _shapes(priors), _shapes(data), _shapes(z_init), int(num_warmup), int(num_samples),
           float(target_accept_prob),
           ("mcmc", num_chains, chain_method, bool(progress_bar)) if use_mcmc else
           ("fn", num_chains if chain_method == "vectorized" else 1))
    cached = _CACHE.get(key)
    hit = cached is not None
    _listen()
    _COMPILE.active, _COMPILE.seconds = True, 0.0
    t0 = time.perf_counter()
    aot_seconds = 0.0
    try:
        rng_key = jax.random.PRNGKey(int(seed))
        keys = jax.random.split(rng_key, num_chains)
        if not hit:
            t_c = time.perf_counter()
            cached = (_build_mcmc if use_mcmc else _build_fn)(spec, priors, data, num_warmup, num_samples,
                                                              num_chains, chain_method, progress_bar,
                                                              target_accept_prob)
            if not use_mcmc:  # build and compile ahead of time: compile and sampling are timed apart
                cached = cached.lower(keys if chain_method == "vectorized" else keys[0], priors, data,
                                      z_init).compile()
                aot_seconds = time.perf_counter() - t_c
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = cached
        if use_mcmc:
            init = None if z_init is None else {k: np.broadcast_to(v, (num_chains,) + v.shape) if num_chains > 1
                                                else v for k, v in z_init.items()}
            cached.run(rng_key, priors, data, extra_fields=_EXTRA, init_params=init)
            samples = {k: np.asarray(v) for k, v in cached.get_samples(group_by_chain=True).items()}
            extra = {k: np.asarray(v) for k, v in cached.get_extra_fields(group_by_chain=True).items()}
        else:
            if chain_method == "vectorized":
                outs = [cached(keys, priors, data, z_init)]
            else:
                outs = [jax.tree.map(lambda x: x[None], cached(k, priors, data, z_init)) for k in keys]
            outs = jax.block_until_ready(outs)
            z = {k: np.concatenate([np.asarray(o[0][k]) for o in outs]) for k in outs[0][0]}
            extra = {name: np.concatenate([np.asarray(o[1][i]) for o in outs]) for i, name in enumerate(_EXTRA)}
            samples = z
    finally:
        _COMPILE.active = False
    total = time.perf_counter() - t0
    compile_s = min(_COMPILE.seconds if use_mcmc else aot_seconds, total)
    timing = {"compile_seconds": compile_s, "sampling_seconds": total - compile_s, "total_seconds": total,
              "cache_hit": hit}
    return samples, extra, timing


def _build_mcmc(spec, priors, data, num_warmup, num_samples, num_chains, chain_method, progress_bar,
                target_accept_prob):
    from numpyro.infer import MCMC, NUTS, init_to_uniform

    kernel = NUTS(make_model(spec), init_strategy=init_to_uniform, target_accept_prob=target_accept_prob)
    return MCMC(kernel, num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains,
                chain_method=chain_method, progress_bar=progress_bar, jit_model_args=True)


def _build_fn(spec, priors, data, num_warmup, num_samples, num_chains, chain_method, progress_bar,
              target_accept_prob):
    """One jitted ``f(key, priors, data, z_init) -> (constrained samples, extra fields)``.

    ``z_init``: None (uniform in (-2, 2) on the unconstrained scale) or an unconstrained point."""
    import jax
    from jax import lax
    from numpyro.infer import init_to_uniform
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    info, pe_gen, post_gen, _ = initialize_model(
        jax.random.PRNGKey(0), make_model(spec), model_args=(priors, data), dynamic_args=True,
        init_strategy=init_to_uniform, validate_grad=False)
    z_proto = info[0]
    init_kernel, sample_kernel = hmc(potential_fn_gen=pe_gen, algo="NUTS")
    W, S = int(num_warmup), int(num_samples)

    def one_chain(key, priors, data, z_init=None):
        k_init, k_run = jax.random.split(key)
        if z_init is None:
            leaves, tree = jax.tree_util.tree_flatten(z_proto)
            ks = jax.random.split(k_init, len(leaves))
            z0 = jax.tree_util.tree_unflatten(tree, [jax.random.uniform(k, jax.numpy.shape(x), minval=-2.0,
                                                                        maxval=2.0) for k, x in zip(ks, leaves)])
        else:
            z0 = z_init
        state = init_kernel(z0, W, target_accept_prob=target_accept_prob, model_args=(priors, data),
                            rng_key=k_run)
        constrain = post_gen(priors, data)

        def body(st, _):
            st = sample_kernel(st, model_args=(priors, data))
            return st, (constrain(st.z), (st.diverging, st.num_steps, st.accept_prob, st.potential_energy,
                                          st.energy, st.adapt_state.step_size))

        _, out = lax.scan(body, state, None, length=W + S)
        return jax.tree.map(lambda x: x[W:], out)

    if chain_method == "vectorized" and num_chains > 1:
        return jax.jit(jax.vmap(one_chain, in_axes=(0, None, None, None)))
    return jax.jit(one_chain)


def mcmc_draws(post, spec, samples) -> dict:
    """NumPyro sites (chain, draw, ...) -> variables named as the exact draws.

    For the latent-class model the (class, component) axis of every block variable is
    split into two, ``(chain, draw, K, C, ...)``, and ``w`` (chain, draw, K, C) is added.
    """
    out = {}
    K, C = spec.n_classes, spec.n_components
    if not spec.fixed_pi:
        out["pi"] = np.asarray(samples["pi"], dtype=float)
    if C > 1:
        out["w"] = np.asarray(samples["w"], dtype=float)
    for b, (_, label, static, _) in zip(post.blocks, spec.blocks):
        for name, arr in b.family.params_from_sites(label, static, samples).items():
            if C > 1:
                arr = arr.reshape(arr.shape[:2] + (K, C) + arr.shape[3:])
            out[f"{name}_{label}"] = arr
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
