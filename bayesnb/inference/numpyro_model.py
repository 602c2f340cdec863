"""The one NumPyro plate model of Naive Bayes, assembled from the families' NumPyro pieces.

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
(rows only: a row's component is never observed, so there are no sufficient statistics).
Missing cells are masked, not imputed. ``data=None`` (the default) leaves only the prior:
``numpyro.infer.Predictive(model, num_samples=...)`` then simulates parameters from the prior.

The estimator methods that build and run it (``model_inputs``, ``run_mcmc``) are in
:mod:`bayesnb.model`. Both kinds of draws come back as the same ArviZ ``DataTree`` (see
:mod:`bayesnb.diagnostics`). JAX, NumPyro and ArviZ are imported lazily; nothing here changes JAX's global settings
(float32 is used; ``numpyro.set_host_device_count`` is left to the user).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..diagnostics import block_layouts
from ..families._fixed_norm import dirichlet_fixed_norm, lgamma32
from ..posterior import index_params

__all__ = ["FamilyCode", "ModelSpec", "check_proper", "class_prior_args", "make_model", "model_inputs", "model_log_likelihood", "point_sites"]


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


def class_prior_args(fixed_class_prior, class_log_prior, class_prior_alpha) -> dict:
    """The class prior's NumPyro inputs: ``{"class_log_prior"}`` (fixed; ``-inf`` floored at ``-1e30``)
    or ``{"class_alpha"}`` (Dirichlet pseudo-counts), float32."""
    if fixed_class_prior:
        return {"class_log_prior": np.maximum(np.asarray(class_log_prior, float), -1e30).astype(np.float32)}
    return {"class_alpha": np.asarray(class_prior_alpha, dtype=np.float32)}


def sample_class_log_prior(priors, fixed_pi):
    """``log pi`` inside a NumPyro model: ``priors["class_log_prior"]`` when the class prior is
    fixed, else the log of the site ``pi ~ Dirichlet(priors["class_alpha"])`` (its normalising
    constant from ``priors["class_log_norm"]`` when given, :func:`dirichlet_fixed_norm`),
    clipped at the smallest positive float. Every model (naive, structured, mixed structured)
    samples its class prior here."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    if fixed_pi:
        return priors["class_log_prior"]
    pi = numpyro.sample("pi", dist.Dirichlet(priors["class_alpha"]) if "class_log_norm" not in priors
                        else dirichlet_fixed_norm(priors["class_alpha"], priors["class_log_norm"]))
    return jnp.log(jnp.clip(pi, jnp.finfo(pi.dtype).tiny))


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
        log_pi = sample_class_log_prior(priors, spec.fixed_pi)
        if C > 1:
            with numpyro.plate("class", K, dim=-1):
                w = numpyro.sample("w", dist.Dirichlet(priors["component_alpha"]) if "component_log_norm" not in priors
                                   else dirichlet_fixed_norm(priors["component_alpha"], priors["component_log_norm"]))
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


def _dirichlet_log_norm(alpha):
    """``lgamma(sum alpha) - sum lgamma(alpha)`` over the last axis, float32 (computed in float64):
    passed to the model so that no ``lgamma`` is compiled into the sampler (:mod:`..families._fixed_norm`)."""
    alpha = np.asarray(alpha, dtype=float)
    return lgamma32(alpha.sum(-1)) - lgamma32(alpha).sum(-1)


def check_proper(post, who):
    """Raise a ValueError naming the block when a prior of ``post`` is improper (NUTS needs proper ones)."""
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
    block_priors = [b.prior if C == 1 else index_params(b.prior, group) for b in post.blocks]
    blocks = tuple((FamilyCode(b.family), lay.label, mod.numpyro_static(pr), lay.feature_dim)
                   for b, pr, lay, mod in zip(post.blocks, block_priors, layouts, mods))
    spec = ModelSpec(K, bool(post.fixed_class_prior), blocks, likelihood, C)
    block_posts = [b.posterior if C == 1 else index_params(b.posterior, group) for b in post.blocks]
    priors = {"blocks": [{**mod.numpyro_prior_args(pr), **mod.numpyro_sampler_args(pr, po)}
                         for pr, po, mod in zip(block_priors, block_posts, mods)]}
    if C > 1:
        priors["component_alpha"] = np.full((K, C), float(component_alpha), dtype=np.float32)
        priors["component_log_norm"] = _dirichlet_log_norm(priors["component_alpha"])
    priors.update(class_prior_args(post.fixed_class_prior, post.class_log_prior, post.class_prior_alpha))
    if not post.fixed_class_prior:
        priors["class_log_norm"] = _dirichlet_log_norm(post.class_prior_alpha)
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


def point_sites(post, spec, priors=None) -> dict:
    """NumPyro site values (constrained) at the plug-in of a posterior.

    Parameters
    ----------
    post : NBPosterior
        For ``spec.n_components == 1`` a fitted estimator's posterior; for ``C > 1`` the
        posterior of a :class:`~bayesnb.generative.LatentClassFit` (its ``K * C`` state
        weights give ``pi[k] = sum_c p(k, c)`` and ``w[k, c] = p(k, c) / pi[k]``).
    spec : ModelSpec
    priors : dict, optional
        The model's prior arguments (from :func:`model_inputs`); they fix the
        reparametrisation of a block's sample sites (the Gaussian's standardised scale).
        By default they are those of ``post``'s blocks.

    Returns
    -------
    dict
        ``{site: ndarray}`` (``pi``, ``w``, every block's sample and deterministic sites), e.g. for
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
    for i, (b, (_, label, static, _)) in enumerate(zip(post.blocks, spec.blocks)):
        mod = b.family
        args = ({**mod.numpyro_prior_args(b.prior), **mod.numpyro_sampler_args(b.prior, b.posterior)}
                if priors is None else priors["blocks"][i])
        sites.update(mod.sites_from_params(label, static, mod.point_params(b.posterior), args))
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
    """Site values -> NUTS's unconstrained space (an initial point for every chain).

    Only the latent sample sites are kept (``sites`` may hold deterministic ones too)."""
    from numpyro import handlers
    from numpyro.infer.util import unconstrain_fn

    model = make_model(spec)
    tr = handlers.trace(handlers.seed(handlers.substitute(model, data=sites), 0)).get_trace(priors, data)
    latent = {k: v for k, v in sites.items()
              if k in tr and tr[k]["type"] == "sample" and not tr[k]["is_observed"]}
    z = unconstrain_fn(model, (priors, data), {}, latent)
    return {k: np.asarray(v, dtype=np.float32) for k, v in z.items()}
