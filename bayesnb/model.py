"""The one NumPyro plate model of Naive Bayes, exact conjugate draws, and the MCMC runner.

The model (plates ``class``, ``feature``, ``obs``)::

    pi                ~ Dirichlet(class_alpha)                    (absent if the class prior is fixed)
    theta[k, j]       ~ the family prior of block b               plates class x feature_b
    y[i] | labelled   : sum_k n_k log pi_k + block log-likelihoods on sufficient statistics
                        (``likelihood="suffstats"``), or per row in plate ``obs`` (``"rows"``)
    x[i] | unlabelled : logsumexp_k (log pi_k + sum_b log p(x_ib | theta_b[k]))   plate ``obs_unlabelled``

assembled from each family module's pieces (``numpyro_sample``,
``numpyro_suffstat_loglik``, ``numpyro_row_loglik``), so any estimator -- including a
mixed :class:`~bayesnb.NaiveBayes` -- gets the same model, and the MCMC likelihood is
never re-derived here.

The latent-class model (``n_components = C > 1``; the model behind
:meth:`~bayesnb.generative.GenerativeMixin.fit_latent_class`) is the same function
with every class a mixture of ``C`` naive-Bayes components::

    w[k]              ~ Dirichlet(1, ..., 1)                     plate class (component weights)
    theta[k, c, j]    ~ the family prior of block b              plates class_component x feature_b
    y[i] | labelled   : log pi_y + logsumexp_c (log w[y, c] + sum_b log p(x_ib | theta_b[y, c]))
    x[i] | unlabelled : logsumexp_k,c (log pi_k + log w[k, c] + sum_b log p(x_ib | theta_b[k, c]))

The (class, component) pairs are one plate ``class_component`` of size ``K * C``
(pair ``k * C + c``, the state order of :class:`~bayesnb.generative.LatentClassFit`),
so the family pieces are used unchanged; the component is marginalised with logsumexp
(rows only: a row's component is never observed, so there are no sufficient statistics). Missing cells are masked, not imputed. ``data=None`` (the
default) leaves only the prior: ``numpyro.infer.Predictive(model, num_samples=...)``
then simulates parameters from the prior.

Estimator methods (through :class:`PosteriorMixin`, a base of every estimator):

- ``sample_posterior(n_draws)`` -- exact conjugate draws (NumPy, thousands per second)
- ``run_mcmc(X, y)`` -- NUTS draws of the same model, with compile / sampling times
  (``n_components=C``: the latent-class model)
- ``model_inputs(X, y)`` -- ``(spec, priors, data)`` for your own NumPyro inference
- ``predict_proba_draws`` / ``predict_proba_interval`` -- uncertainty of ``p(y | x)``
- ``coef_`` / ``intercept_`` / ``coef_draws`` / ``coef_interval`` -- binary NB as a linear classifier

Both kinds of draws come back as the same ArviZ ``DataTree`` (see :mod:`bayesnb.arviz`).
JAX, NumPyro and ArviZ are imported lazily; nothing here changes JAX's global settings
(float32 is used; ``numpyro.set_host_device_count`` is left to the user).
"""

from __future__ import annotations

import threading
import time
from typing import NamedTuple

import numpy as np

from ._utils import as_generator, take_rows

__all__ = ["PosteriorMixin", "NotLinearError", "ModelSpec", "make_model", "model_inputs", "point_sites",
           "model_log_likelihood", "sample_posterior_draws", "run_nuts", "enable_compilation_cache"]


class NotLinearError(AttributeError, ValueError):
    """The model is not a linear classifier (multiclass, or a Gaussian block)."""


def enable_compilation_cache(path=None):
    """Opt in to JAX's persistent compilation cache (NUTS compiles once per model shape).

    Parameters
    ----------
    path : str or None
        Cache directory; default ``~/.cache/bayesnb-jax``.
    """
    import os

    import jax

    path = path or os.path.join(os.path.expanduser("~"), ".cache", "bayesnb-jax")
    jax.config.update("jax_compilation_cache_dir", str(path))
    return path


# ============================================================================ exact draws
def sample_posterior_draws(post, n_draws: int, rng) -> dict:
    """Exact conjugate draws of every parameter: ``{variable: (n_draws, ...)}``."""
    from .arviz import block_layouts

    out = {}
    if not post.fixed_class_prior:
        from .families._base import dirichlet_draws

        out["pi"] = dirichlet_draws(post.class_concentration, n_draws, rng)
    for b, lay in zip(post.blocks, block_layouts(post)):
        for name, arr in b.family.sample_params(b.posterior, n_draws, rng).items():
            out[f"{name}_{lay.label}"] = arr
    return out


def posterior_moments(post) -> dict:
    """Closed-form posterior mean and sd of every parameter: ``{variable: (mean, sd)}``."""
    from .arviz import block_layouts

    out = {}
    if not post.fixed_class_prior:
        a = post.class_concentration
        m = a / a.sum()
        out["pi"] = (m, np.sqrt(m * (1 - m) / (a.sum() + 1)))
    for b, lay in zip(post.blocks, block_layouts(post)):
        for name, mom in b.family.posterior_moments(b.posterior).items():
            out[f"{name}_{lay.label}"] = mom
    return out


# ============================================================================ NumPyro model
class ModelSpec(NamedTuple):
    """Static (hashable) structure of the NumPyro model.

    Attributes
    ----------
    n_classes : int
    fixed_pi : bool
        The class prior is fixed (no ``pi`` site).
    blocks : tuple of (:class:`FamilyCode`, label, static structure, feature plate name)
    likelihood : {"suffstats", "rows"}
        Form used for the labelled rows.
    n_components : int, default=1
        Naive-Bayes components per class; > 1 is the latent-class model (site ``w`` of
        shape (K, C), block parameters over the ``K * C`` (class, component) pairs).
    """

    n_classes: int
    fixed_pi: bool
    blocks: tuple
    likelihood: str
    n_components: int = 1


class FamilyCode:
    """A block's family in a :class:`ModelSpec`: equal (and hashing equal) for every family of
    the same class, since the NumPyro pieces depend on the class only (hyperparameters reach
    the model as prior arrays), so one compiled sampler serves them all."""

    __slots__ = ("family",)

    def __init__(self, family):
        self.family = family

    def __eq__(self, other):
        return isinstance(other, FamilyCode) and type(other.family) is type(self.family)

    def __hash__(self):
        return hash(type(self.family))

    def __repr__(self):
        return f"FamilyCode({type(self.family).__qualname__})"


def make_model(spec: ModelSpec):
    """The NumPyro model function ``model(priors, data=None)`` for a structure.

    ``priors`` holds the prior hyperparameters (arrays), ``data`` the observations:
    ``{"stats": ..., "class_count": ...}`` (labelled, sufficient statistics),
    ``{"rows": ..., "y": ...}`` (labelled, per row) and/or ``{"unlabelled": ...}``.
    With ``data=None`` only the prior is sampled. With ``spec.n_components > 1`` the
    block priors are per (class, component) pair and ``priors["component_alpha"]``
    (K, C) is the Dirichlet prior of the component weights.
    """
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist
    from jax.scipy.special import logsumexp as jlse

    mods = [code.family for code, *_ in spec.blocks]
    K, C = int(spec.n_classes), int(spec.n_components)
    class_plate = "class" if C == 1 else "class_component"

    def model(priors, data=None):
        if spec.fixed_pi:
            log_pi = priors["class_log_prior"]
        else:
            pi = numpyro.sample("pi", dist.Dirichlet(priors["class_alpha"]))
            log_pi = jnp.log(jnp.clip(pi, jnp.finfo(pi.dtype).tiny))
        if C > 1:
            with numpyro.plate("class", K, dim=-1):
                w = numpyro.sample("w", dist.Dirichlet(priors["component_alpha"]))
            log_w = jnp.log(jnp.clip(w, jnp.finfo(w.dtype).tiny))
        params = [mod.numpyro_sample(label, static, priors["blocks"][i], plate, class_plate)
                  for i, (mod, (_, label, static, plate)) in enumerate(zip(mods, spec.blocks))]
        if data is None:
            return

        def class_loglik(rows):
            """``log p(x_i | y=k)`` (n, K): the block likelihoods, components marginalised."""
            ll = sum(mod.numpyro_row_loglik(params[i], rows[i]) for i, mod in enumerate(mods))
            if C == 1:
                return ll
            return jlse(ll.reshape(ll.shape[0], K, C) + log_w, axis=-1)

        if "stats" in data:
            numpyro.factor("y", (data["class_count"] * log_pi).sum())
            for i, (mod, (_, label, _s, _p)) in enumerate(zip(mods, spec.blocks)):
                numpyro.factor(f"x_{label}", mod.numpyro_suffstat_loglik(params[i], data["stats"][i]))
        if "rows" in data:
            ll = class_loglik(data["rows"])
            y = data["y"]
            with numpyro.plate("obs", y.shape[0]):
                numpyro.factor("y_x", log_pi[y] + jnp.take_along_axis(ll, y[:, None], axis=1)[:, 0])
        if "unlabelled" in data:
            ll = class_loglik(data["unlabelled"])
            with numpyro.plate("obs_unlabelled", ll.shape[0]):
                numpyro.factor("x_unlabelled", jlse(ll + log_pi, axis=1))

    return model


def _check_proper(post, who):
    if not post.fixed_class_prior and np.any(post.class_prior_alpha <= 0):
        raise ValueError(f"{who}: run_mcmc needs a proper class prior; class_alpha has a 0 "
                         "(use class_alpha > 0, or fix the class prior).")
    for b in post.blocks:
        if not b.family.is_proper(b.prior):
            raise ValueError(f"{who}: run_mcmc needs a proper prior, but the {b.family.name} block "
                             f"({', '.join(b.names[:3])}...) has an improper one (alpha=0, or a Gaussian "
                             "prior=None/'reference'). Use alpha > 0 or prior='auto'.")


def model_inputs(post, labelled=None, unlabelled=None, likelihood="suffstats", n_components=1,
                 component_alpha=1.0):
    """Static spec and array inputs of the model for a fitted posterior and data.

    Parameters
    ----------
    post : NBPosterior
        Supplies the priors, categories and structure.
    labelled : (encoded blocks, class codes) or None
        Labelled rows, encoded with the posterior's encoding states.
    unlabelled : encoded blocks or None
        Rows whose label is missing (marginalised in the model).
    likelihood : {"suffstats", "rows"}
        ``"rows"`` is required when ``n_components > 1``.
    n_components : int, default=1
        Components per class: > 1 builds the latent-class model, every (class, component)
        pair with the block priors of its class.
    component_alpha : float, default=1.0
        Symmetric Dirichlet prior of the component weights (``n_components > 1``).

    Returns
    -------
    spec : ModelSpec
    priors : dict
    data : dict or None
    """
    from .arviz import block_layouts
    from .generative import _index_params

    if likelihood not in ("suffstats", "rows"):
        raise ValueError(f"likelihood must be 'suffstats' or 'rows'; received {likelihood!r}.")
    C = int(n_components)
    if C < 1:
        raise ValueError(f"n_components must be >= 1; received {n_components!r}.")
    if C > 1 and likelihood != "rows":
        raise ValueError("the latent-class model (n_components > 1) needs likelihood='rows': a row's "
                         "component is never observed, so there are no sufficient statistics.")
    layouts = block_layouts(post)
    mods = [b.family for b in post.blocks]
    K = len(post.classes)
    group = np.repeat(np.arange(K), C)
    block_priors = [b.prior if C == 1 else _index_params(b.prior, group) for b in post.blocks]
    blocks = tuple((FamilyCode(b.family), lay.label, mod.numpyro_static(pr), lay.feature_dim)
                   for b, pr, lay, mod in zip(post.blocks, block_priors, layouts, mods))
    spec = ModelSpec(K, bool(post.fixed_class_prior), blocks, likelihood, C)
    priors = {"blocks": [mod.numpyro_prior_args(pr) for pr, mod in zip(block_priors, mods)]}
    if C > 1:
        priors["component_alpha"] = np.full((K, C), float(component_alpha), dtype=np.float32)
    if post.fixed_class_prior:
        priors["class_log_prior"] = np.maximum(post.class_log_prior, -1e30).astype(np.float32)
    else:
        priors["class_alpha"] = post.class_prior_alpha.astype(np.float32)
    data = {}
    if labelled is not None:
        encoded, codes = labelled
        codes = np.asarray(codes, dtype=np.int64)
        if likelihood == "suffstats":
            resp = np.zeros((codes.shape[0], K))
            resp[np.arange(codes.shape[0]), codes] = 1.0
            data["class_count"] = resp.sum(0).astype(np.float32)
            data["stats"] = [mod.numpyro_stats_args(b.family.stats(enc, resp, b.state))
                             for b, mod, enc in zip(post.blocks, mods, encoded)]
        else:
            data["y"] = codes.astype(np.int32)
            data["rows"] = [mod.numpyro_row_args(enc, static)
                            for mod, enc, (_, _, static, _) in zip(mods, encoded, blocks)]
    if unlabelled is not None:
        data["unlabelled"] = [mod.numpyro_row_args(enc, static)
                              for mod, enc, (_, _, static, _) in zip(mods, unlabelled, blocks)]
    return spec, priors, (data or None)


def point_sites(post, spec) -> dict:
    """NumPyro site values (constrained) at the plug-in of a posterior.

    Parameters
    ----------
    post : NBPosterior
        For ``spec.n_components == 1`` a fitted estimator's posterior; for ``C > 1`` the
        posterior of a :class:`~bayesnb.generative.LatentClassFit` (its ``K * C`` state
        weights give ``pi[k] = sum_c p(k, c)`` and ``w[k, c] = p(k, c) / pi[k]``).
    spec : ModelSpec

    Returns
    -------
    dict
        ``{site: ndarray}`` (``pi``, ``w``, the block sites), e.g. for
        :func:`model_log_likelihood` or as an initial point of NUTS.
    """
    K, C = spec.n_classes, spec.n_components
    if len(post.classes) != K * C:
        raise ValueError(f"point_sites: the posterior has {len(post.classes)} states; the model has "
                         f"{K} classes x {C} components.")
    sites = {}
    p = np.exp(np.asarray(post.class_log_prior, dtype=float)).reshape(K, C)
    if not spec.fixed_pi:
        sites["pi"] = p.sum(1) / p.sum()
    if C > 1:
        sites["w"] = p / p.sum(1, keepdims=True)
    for b, (_, label, static, _) in zip(post.blocks, spec.blocks):
        mod = b.family
        sites.update(mod.sites_from_params(label, static, mod.point_params(b.posterior)))
    return {k: np.asarray(v, dtype=np.float32) for k, v in sites.items()}


def model_log_likelihood(spec, priors, data, sites) -> float:
    """The model's log-likelihood (its factors: every term but the priors) at ``sites``.

    Parameters
    ----------
    spec, priors, data
        As returned by :func:`model_inputs`.
    sites : dict
        Values of every latent site (constrained), e.g. from :func:`point_sites`.

    Returns
    -------
    float
    """
    from numpyro import handlers

    tr = handlers.trace(handlers.substitute(make_model(spec), data=sites)).get_trace(priors, data)
    total = 0.0
    for site in tr.values():
        if site["type"] == "sample" and site["is_observed"]:
            total += float(np.asarray(site["fn"].log_prob(site["value"])).sum())
    return total


def _unconstrained(spec, priors, data, sites):
    """Site values -> NUTS's unconstrained space (an initial point for every chain)."""
    from numpyro.infer.util import unconstrain_fn

    z = unconstrain_fn(make_model(spec), (priors, data), {}, sites)
    return {k: np.asarray(v, dtype=np.float32) for k, v in z.items()}


# ============================================================================ MCMC runner
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


# ============================================================================ estimator mixin
class PosteriorMixin:
    """Full-posterior methods (exact conjugate draws, NUTS, uncertainty) shared by every estimator."""

    # ------------------------------------------------------------------ draws
    def sample_posterior(self, n_draws=1000, random_state=None):
        """Exact draws from the conjugate posterior (no MCMC needed).

        Parameters
        ----------
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        xarray.DataTree
            Group ``posterior`` with dims ``(chain=1, draw=n_draws, ...)``; variables,
            dims and coords as in :mod:`bayesnb.arviz` (identical to :meth:`run_mcmc`).
        """
        from sklearn.utils.validation import check_is_fitted

        from .arviz import to_datatree

        check_is_fitted(self, "posterior_")
        n_draws = self._check_n_draws(n_draws)
        post = self.posterior_
        t0 = time.perf_counter()
        draws = sample_posterior_draws(post, n_draws, as_generator(random_state))
        secs = time.perf_counter() - t0
        draws = {k: v[None] for k, v in draws.items()}
        return to_datatree(post, draws, attrs={"inference": "exact conjugate posterior",
                                               "sampling_seconds": secs, "estimator": self._who})

    def _check_n_draws(self, n_draws):
        if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
            raise ValueError(f"{self._who}: n_draws must be a positive integer; received {n_draws!r}.")
        return int(n_draws)

    def _check_model_args(self, n_components, likelihood):
        """Validated ``(n_components, likelihood)``; likelihood None -> the default form."""
        who = self._who
        if isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer)) or n_components < 1:
            raise ValueError(f"{who}: n_components must be a positive integer; received {n_components!r}.")
        C = int(n_components)
        if likelihood is None:
            likelihood = "suffstats" if C == 1 else "rows"
        if likelihood not in ("suffstats", "rows"):
            raise ValueError(f"{who}: likelihood must be 'suffstats' or 'rows'; received {likelihood!r}.")
        if C > 1 and likelihood != "rows":
            raise ValueError(f"{who}: n_components > 1 needs likelihood='rows' (or None): a row's component "
                             "is never observed, so the latent-class model has no sufficient statistics.")
        return C, likelihood

    def _model_data(self, X, y, C, likelihood):
        """Validate ``X, y`` (fit first if needed) -> (X, y, (spec, priors, data))."""
        from .generative import missing_labels

        who = self._who
        if not (hasattr(X, "shape") and len(X.shape) == 2):  # lists: validate like fit does
            from sklearn.utils.validation import check_array

            X = check_array(X, dtype=None, ensure_all_finite=False, input_name="X")
        if y is None:
            if not hasattr(self, "posterior_"):
                raise ValueError(f"{who}: y=None (every row unlabelled) needs a fitted estimator.")
            y = np.full(X.shape[0], None, dtype=object)
        y = np.asarray(y, dtype=object if np.asarray(y).dtype.kind in "OUS" else None)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"{who}: y must be 1-D with one label per row of X ({X.shape[0]}); "
                             f"received shape {y.shape}.")
        miss = missing_labels(y, unlabeled=None)  # only missing values: -1 is a label
        lab, unl = np.flatnonzero(~miss), np.flatnonzero(miss)
        if not hasattr(self, "posterior_"):
            if lab.size == 0:
                raise ValueError(f"{who}: run_mcmc needs labelled rows to fit the model first.")
            self.fit(take_rows(X, lab), np.asarray(list(y[lab])))
        post = self.posterior_
        _check_proper(post, who)
        X = self._check_X(X, reset=False)
        labelled = unlabelled = None
        if lab.size:
            yl = np.asarray(list(y[lab]))
            known = np.isin(yl, post.classes)
            if not known.all():
                raise ValueError(f"{who}: y has label(s) {list(np.unique(yl[~known]))[:5]} that are not in "
                                 f"classes_ {list(post.classes)}.")
            codes = np.searchsorted(post.classes, yl)
            enc, _ = self._encode_blocks(take_rows(X, lab), post)
            labelled = (enc, codes)
        if unl.size:
            unlabelled, _ = self._encode_blocks(take_rows(X, unl), post)
        return X, y, model_inputs(post, labelled, unlabelled, likelihood, n_components=C)

    def model_inputs(self, X, y=None, *, n_components=1, likelihood=None):
        """The NumPyro model of this estimator on ``X, y``, for your own NumPyro inference.

        ``make_model(spec)(priors, data)`` is the model :meth:`run_mcmc` samples (with
        ``data=None``, its prior); :func:`point_sites` and :func:`model_log_likelihood`
        evaluate it at a point (e.g. a :meth:`fit_latent_class` solution).

        Parameters
        ----------
        X, y, n_components, likelihood
            As in :meth:`run_mcmc`.

        Returns
        -------
        spec : ModelSpec
        priors : dict
        data : dict or None
        """
        C, likelihood = self._check_model_args(n_components, likelihood)
        return self._model_data(X, y, C, likelihood)[2]

    def run_mcmc(self, X, y=None, *, num_warmup=500, num_samples=1000, num_chains=1, random_state=None,
                 progress_bar=False, likelihood=None, chain_method=None, target_accept_prob=0.8,
                 n_components=1, init=None):
        """Sample the posterior of the same model with NumPyro's NUTS.

        The priors (and categories) are those of the fitted estimator; if it is not
        fitted yet, it is first fitted on the labelled rows of ``X, y``. To compare with
        :meth:`sample_posterior`, pass the training data.

        With ``n_components=C > 1`` the model is the latent-class model of
        :meth:`~bayesnb.generative.GenerativeMixin.fit_latent_class` (each class a
        mixture of ``C`` naive-Bayes components, component weights ``w[k] ~
        Dirichlet(1)``, every (class, component) pair with the block priors of its
        class), the component marginalised in every row (see :mod:`bayesnb.model`).
        Its components are exchangeable, so their labels may switch between chains:
        compare label-invariant quantities (e.g. through
        :meth:`~bayesnb.generative.GenerativeMixin.latent_class_draws`), not components.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are masked out of the likelihood (values unseen in fit, too).
        y : array-like of shape (n_samples,) or None
            Labels; missing labels (None, NaN, ``pd.NA``) make unlabelled rows, whose
            class is marginalised out (per-row likelihood with logsumexp); every other
            value, ``-1`` too, is a class. None: every row is unlabelled (the estimator
            must be fitted).
        num_warmup, num_samples, num_chains : int
        random_state : int, numpy Generator/RandomState or None
        progress_bar : bool, default=False
        likelihood : {"suffstats", "rows"} or None, default=None
            Labelled rows enter through their sufficient statistics (fast) or one
            factor per row in plate ``obs`` (the same posterior, slower). None:
            ``"suffstats"``, or ``"rows"`` (the only form) when ``n_components > 1``.
        chain_method : {"sequential", "parallel", "vectorized"} or None
            None: "parallel" when ``jax.local_device_count() >= num_chains`` (call
            ``numpyro.set_host_device_count`` yourself before importing JAX), else "sequential".
        target_accept_prob : float, default=0.8
        n_components : int, default=1
            Naive-Bayes components per class; > 1 samples the latent-class model.
        init : {"uniform", "em"}, LatentClassFit or None, default=None
            Where the chains start. ``"uniform"``: uniform in (-2, 2) on NUTS's
            unconstrained scale. ``"em"``: every chain at the plug-in of an EM solution
            -- the fitted posterior for ``n_components=1``, else
            ``fit_latent_class(X, y, n_components=n_components)``, which avoids
            starting a mixture in a poor local mode. A ``LatentClassFit`` with
            ``n_components`` components: start there. None: ``"uniform"`` for one
            component, ``"em"`` for more.

        Returns
        -------
        xarray.DataTree
            Groups ``posterior`` (same variables/dims/coords as :meth:`sample_posterior`;
            with ``n_components > 1`` a dim ``component`` after ``class`` and a variable
            ``w`` (class, component)) and ``sample_stats`` (``diverging``, ``tree_depth``,
            ``n_steps``, ``acceptance_rate``, ``lp``, ``energy``, ``step_size``). ``attrs``
            holds ``compile_seconds``, ``sampling_seconds``, ``cache_hit``,
            ``likelihood``, ``n_components`` and ``init``.

        Examples
        --------
        >>> from bayesnb import CategoricalNB
        >>> from bayesnb.datasets import load_house_votes
        >>> df = load_house_votes()
        >>> X, y = df.drop(columns="party"), df["party"]
        >>> clf = CategoricalNB().fit(X, y)
        >>> dt = clf.run_mcmc(X, y, n_components=2, num_warmup=100, num_samples=100,
        ...                   random_state=0)  # doctest: +SKIP
        >>> dt["posterior"]["w"].dims  # doctest: +SKIP
        ('chain', 'draw', 'class', 'component')
        """
        from .arviz import to_datatree
        from .generative import LatentClassFit

        who = self._who
        for name, v in (("num_warmup", num_warmup), ("num_samples", num_samples), ("num_chains", num_chains)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if name == "num_warmup" else 1):
                raise ValueError(f"{who}: {name} must be a {'non-negative' if name == 'num_warmup' else 'positive'} "
                                 f"integer; received {v!r}.")
        C, likelihood = self._check_model_args(n_components, likelihood)
        if init is None:
            init = "uniform" if C == 1 else "em"
        if isinstance(init, LatentClassFit):
            if init.n_components != C:
                raise ValueError(f"{who}: init has {init.n_components} components; n_components is {C}.")
        elif not isinstance(init, str) or init not in ("uniform", "em"):
            raise ValueError(f"{who}: init must be 'uniform', 'em', a LatentClassFit or None; received {init!r}.")
        X, y, (spec, priors, data) = self._model_data(X, y, C, likelihood)
        post = self.posterior_
        rng = as_generator(random_state)
        seed = rng.integers(2**31 - 1)
        init_sites = None
        if isinstance(init, LatentClassFit):
            init_sites = point_sites(init.posterior, spec)
        elif init == "em":
            if C == 1:
                init_sites = point_sites(post, spec)
            else:
                init_sites = point_sites(self.fit_latent_class(X, y, n_components=C, random_state=rng).posterior,
                                         spec)
        samples, extra, timing = run_nuts(spec, priors, data, num_warmup=num_warmup, num_samples=num_samples,
                                          num_chains=num_chains, chain_method=chain_method, seed=seed,
                                          progress_bar=progress_bar, target_accept_prob=target_accept_prob,
                                          init_sites=init_sites)
        attrs = {"inference": "NUTS (NumPyro)", "likelihood": likelihood, "estimator": who,
                 "num_warmup": int(num_warmup), "num_chains": int(num_chains), "n_components": C,
                 "init": init if isinstance(init, str) else "LatentClassFit",
                 "compile_seconds": timing["compile_seconds"], "sampling_seconds": timing["sampling_seconds"],
                 "total_seconds": timing["total_seconds"], "cache_hit": int(timing["cache_hit"])}
        return to_datatree(post, mcmc_draws(post, spec, samples), sample_stats_from_extra(extra), attrs=attrs,
                           n_components=C)

    # ------------------------------------------------------------------ p(y | x) uncertainty
    def _param_draws(self, n_draws, random_state):
        """Exact draws per block (family names) and of log pi: (list of dicts, (n_draws, K))."""
        post = self.posterior_
        rng = as_generator(random_state)
        if post.fixed_class_prior:
            log_pi = np.broadcast_to(post.class_log_prior, (n_draws, len(post.classes)))
        else:
            from .families._base import dirichlet_draws

            with np.errstate(divide="ignore"):
                log_pi = np.log(dirichlet_draws(post.class_concentration, n_draws, rng))
        blocks = [b.family.sample_params(b.posterior, n_draws, rng) for b in post.blocks]
        return blocks, log_pi

    def predict_proba_draws(self, X, n_draws=1000, random_state=None):
        """``p(y=k | x)`` under each of ``n_draws`` exact posterior draws of the parameters.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        ndarray of shape (n_draws, n_samples, n_classes)
            Its mean over draws is the exact posterior predictive ``predict_proba`` of
            ``predictive="marginal"`` only for single-row Multinomial/Gaussian blocks;
            for Categorical/Bernoulli blocks its mean over draws is E[p(y|x, theta)].
        """
        from sklearn.utils.validation import check_is_fitted

        from .posterior import normalise

        check_is_fitted(self, "posterior_")
        n_draws = self._check_n_draws(n_draws)
        X = self._check_X(X, reset=False)
        post = self.posterior_
        encoded, _ = self._encode_blocks(X, post)
        blocks, log_pi = self._param_draws(n_draws, random_state)
        mods = [b.family for b in post.blocks]
        out = np.empty((n_draws, X.shape[0], len(post.classes)))
        import warnings

        from ._utils import ZeroProbabilityWarning

        for s in range(n_draws):
            jll = log_pi[s][None, :].copy()
            for b, mod, draws, enc in zip(post.blocks, mods, blocks, encoded):
                fake = mod.posterior_from_params({k: v[s] for k, v in draws.items()})
                jll = jll + b.family.log_likelihood(b.prior, fake, enc)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ZeroProbabilityWarning)
                out[s] = np.exp(normalise(jll, log_pi[s], self._who))
        return out

    def predict_proba_interval(self, X, ci=0.94, n_draws=1000, random_state=None):
        """Equal-tailed credible interval of ``p(y=k | x)`` over exact posterior draws.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        ci : float in (0, 1), default=0.94
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        lower, upper : ndarray of shape (n_samples, n_classes)
        """
        ci = self._check_ci(ci)
        d = self.predict_proba_draws(X, n_draws=n_draws, random_state=random_state)
        q = (1 - ci) / 2
        return np.quantile(d, q, axis=0), np.quantile(d, 1 - q, axis=0)

    def _check_ci(self, ci):
        if not isinstance(ci, (float, int, np.floating)) or isinstance(ci, bool) or not 0 < ci < 1:
            raise ValueError(f"{self._who}: ci must be a probability in (0, 1); received {ci!r}.")
        return float(ci)

    # ------------------------------------------------------------------ linear-classifier view
    def _check_linear(self):
        from sklearn.exceptions import NotFittedError

        if not hasattr(self, "posterior_"):
            raise NotFittedError(f"This {self._who} instance is not fitted yet; call fit first.")
        post = self.posterior_
        if len(post.classes) != 2:
            raise NotLinearError(f"{self._who}: coef_/intercept_ exist only for binary problems (a linear "
                                 f"log-odds); this model has {len(post.classes)} classes.")
        bad = [b.family.name for b in post.blocks if b.family.linear_names(b.names, b.state) is None]
        if bad:
            raise NotLinearError(f"{self._who}: coef_/intercept_ need Bernoulli, Multinomial or Categorical "
                                 f"blocks (log-odds linear in the features); a {bad[0]} block's log-odds "
                                 "are quadratic.")
        return post

    def _linear(self, blocks, log_pi):
        """(coef (..., p), intercept (...)) from per-block params with leading axes."""
        post = self.posterior_
        ws = []
        b0 = log_pi[..., 1] - log_pi[..., 0]
        for b, par in zip(post.blocks, blocks):
            w, b_part = b.family.linear_terms(par["theta"], b.state)
            ws.append(w)
            with np.errstate(invalid="ignore"):
                b0 = b0 + b_part
        coef = np.concatenate(ws, axis=-1)
        undefined = np.isnan(coef).reshape(-1, coef.shape[-1]).any(axis=0)
        if undefined.any() or np.isnan(b0).any():
            names = [str(n) for n in np.asarray(self.coef_names_)[undefined][:5]]
            where = (f"the weight(s) of {names}{' ...' if undefined.sum() > 5 else ''}" if undefined.any()
                     else "the intercept")
            raise ValueError(
                f"{self._who}: the log-odds are undefined ({where}): a feature value has probability "
                "zero under both classes (alpha=0, a zero count in both), so log p(x|y=1) - log p(x|y=0) "
                "is -inf - (-inf). Use alpha > 0 to smooth.")
        return coef, b0

    @property
    def coef_names_(self):
        """Names of the ``coef_`` columns: feature names, or ``feature=value`` for categorical blocks."""
        post = self._check_linear()
        names = []
        for b in post.blocks:
            names += b.family.linear_names(b.names, b.state)
        return np.asarray(names, dtype=object)

    @property
    def coef_(self):
        """Log-odds weights ``log p(x|y=c1) - log p(x|y=c0)`` per feature at the posterior mean, (1, p).

        Bernoulli: ``logit theta_1j - logit theta_0j`` (the ``log(1-theta)`` terms go to
        ``intercept_``); Multinomial: ``log theta_1j - log theta_0j`` per count;
        Categorical: one weight per one-hot value (see ``coef_names_``). Binary problems
        with Bernoulli/Multinomial/Categorical blocks only. With complete rows,
        ``x @ coef_.T + intercept_`` is the log-odds of ``predict_joint_log_proba``.
        """
        return self._linear_mean()[0][None, :]

    @property
    def intercept_(self):
        """``log pi_1 - log pi_0`` (+ Bernoulli ``sum log(1-theta_1j) - log(1-theta_0j)``), shape (1,)."""
        return np.atleast_1d(self._linear_mean()[1])

    def _linear_mean(self):
        post = self._check_linear()
        blocks = [{"theta": b.family.posterior_moments(b.posterior)["theta"][0]} for b in post.blocks]
        return self._linear(blocks, post.class_log_prior)

    def coef_draws(self, n_draws=1000, random_state=None):
        """Exact posterior draws of the log-odds weights and intercept.

        Returns
        -------
        coef : ndarray of shape (n_draws, p)
        intercept : ndarray of shape (n_draws,)
        """
        self._check_linear()
        n_draws = self._check_n_draws(n_draws)
        blocks, log_pi = self._param_draws(n_draws, random_state)
        return self._linear(blocks, log_pi)

    def coef_interval(self, ci=0.94, n_draws=1000, random_state=None):
        """Equal-tailed credible intervals of ``coef_`` from exact posterior draws.

        Returns
        -------
        lower, upper : ndarray of shape (1, p)
            Columns as ``coef_`` (see ``coef_names_``); :meth:`coef_draws` also gives the intercept.
        """
        ci = self._check_ci(ci)
        w, _ = self.coef_draws(n_draws, random_state)
        q = (1 - ci) / 2
        return np.quantile(w, q, axis=0)[None, :], np.quantile(w, 1 - q, axis=0)[None, :]
