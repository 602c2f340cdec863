"""The one NumPyro model of bayesnb: every structure (naive, TAN, k-DB), assembled from the families' NumPyro pieces.

The model::

    pi               ~ Dirichlet(class_alpha)                   (absent if the class prior is fixed)
    w[k]             ~ Dirichlet(component_alpha[k])            (only with n_components = C > 1)
    theta_b[c]       ~ the family prior of block b, per context c    plates context_b x feature_b
    y[i] | labelled  : sum_k n_k log pi_k + block log-likelihoods on sufficient statistics
                       over their contexts (``likelihood="suffstats"``), or per row in plate
                       ``obs``: log pi_y + logsumexp_c (log w[y, c] + sum_b ll_b(x_i, ctx_b(i, y, c))) (``"rows"``)
    x[i] | unlabelled: logsumexp_k (log pi_k + the same row term under class k)   plate ``obs_unlabelled``

Every block is a family on its *context axis*. A block of the naive structure holds
features sharing a family and its contexts are the classes (plate ``class``), or the
(class, component) pairs of the latent-class model (plate ``class_component`` of size
``K * C``, pair ``k * C + c``, the state order of :class:`~bayesnb.generative.LatentClassFit`).
A node of a structure (TAN / k-DB) is one column (plate ``node_<j>`` of size 1, sites
labelled ``n<j>``) whose contexts are (class, [component,] parents' joint state),
``context_<j>`` of size ``K * C * prod_p B_p``; a row's context under class ``k`` and
component ``c`` is ``(k * C + c) * prod_p B_p + u_i`` (``u_i`` its parents' joint state),
and the node adds its row term only when all its parents are observed (``parents_seen``, the
exact fit's rule; a missing ``x_j`` is masked by the family). Its statistics are those
the exact fit counts (:func:`~bayesnb.structure.engine.node_stats`), so the closed-form
posterior of each context is the family's conjugate update, and NUTS samples the same posterior.

The family hooks (``numpyro_sample``, ``numpyro_suffstat_loglik``, ``numpyro_row_loglik``,
``params_from_sites`` ...) are the whole likelihood: nothing here knows which family it holds,
and the likelihood is never re-derived. The component is marginalised with logsumexp (rows
only: a row's component is never observed, so there are no sufficient statistics). Missing
cells are masked, not imputed. ``data=None`` (the default) leaves only the prior:
``numpyro.infer.Predictive(model, num_samples=...)`` then simulates parameters from the prior.

- :func:`estimator_inputs` -- ``(spec, priors, data)`` of a fitted estimator on ``X, y``
- :func:`model_inputs` -- ``(spec, priors, data)`` of a naive posterior and encoded rows
- :func:`structure_inputs` -- the same for a fitted structure (:class:`~bayesnb.structure.engine.MixedModel`)
- :func:`make_model` -- the model; :func:`point_sites`, :func:`model_log_likelihood` evaluate it

The estimator method that runs it (``run_mcmc``) is in :mod:`bayesnb.estimators._posterior_methods`
and :mod:`bayesnb.estimators._structured`. Both kinds of draws come back
as the same ArviZ ``DataTree`` (see :mod:`bayesnb.criticism.diagnostics`). JAX, NumPyro and ArviZ are
imported lazily; nothing here changes JAX's global settings (float32 is used;
``numpyro.set_host_device_count`` is left to the user).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..criticism.diagnostics import block_layouts
from ..families.fixed_norm import dirichlet_fixed_norm, lgamma32
from .nb_posterior import index_params
from ..structure import engine as _mx

__all__ = ["BlockSpec", "FamilyCode", "ModelSpec", "check_proper", "class_prior_args", "estimator_inputs", "make_model", "model_inputs",
           "model_log_likelihood", "point_sites", "structure_inputs"]


class BlockSpec(NamedTuple):
    """Static (hashable) structure of one block of the model.

    Attributes
    ----------
    code : FamilyCode
        The block's family.
    label : str
        Prefix of its sites (naive: the layout's label; a structure node ``n<j>``).
    static : object
        The family's ``numpyro_static`` of the block's prior.
    feature_plate, context_plate : str
        Its plates: features (naive: the layout's ``feature`` dim; a node ``node_<j>`` of size 1)
        and contexts (``class``, ``class_component``, or a node's ``context_<j>``).
    parent_states : int, default=0
        ``prod_p B_p`` of a node with parents: its row terms are taken at the row's
        context; 0: no parents (the contexts are the classes, or (class, component) pairs).
    """

    code: object
    label: str
    static: object
    feature_plate: str
    context_plate: str
    parent_states: int = 0


class ModelSpec(NamedTuple):
    """Static (hashable) structure of the NumPyro model: the key of the compiled sampler.

    Attributes
    ----------
    n_classes : int
    fixed_pi : bool
        The class prior is fixed (no ``pi`` site).
    blocks : tuple of BlockSpec
    likelihood : {"suffstats", "rows"}
        Form used for the labelled rows.
    n_components : int, default=1
        Components per class; > 1 is the latent-class model (site ``w`` of shape (K, C),
        block parameters over (class, component[, parents' states]) contexts).
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
        cls = type(self.family)
        return f"FamilyCode({cls.__module__}.{cls.__qualname__})"


def class_prior_args(fixed_class_prior, class_log_prior, class_prior_alpha) -> dict:
    """The class prior's NumPyro inputs: ``{"class_log_prior"}`` (fixed; ``-inf`` floored at ``-1e30``)
    or ``{"class_alpha", "class_log_norm"}`` (Dirichlet pseudo-counts and normaliser), float32."""
    if fixed_class_prior:
        return {"class_log_prior": np.maximum(np.asarray(class_log_prior, float), -1e30).astype(np.float32)}
    return {"class_alpha": np.asarray(class_prior_alpha, dtype=np.float32),
            "class_log_norm": _dirichlet_log_norm(class_prior_alpha)}


def sample_class_log_prior(priors, fixed_pi):
    """``log pi`` inside a NumPyro model: ``priors["class_log_prior"]`` when the class prior is
    fixed, else the log of the site ``pi ~ Dirichlet(priors["class_alpha"])`` (its normalising
    constant from ``priors["class_log_norm"]`` when given, :func:`dirichlet_fixed_norm`),
    clipped at the smallest positive float."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    if fixed_pi:
        return priors["class_log_prior"]
    pi = numpyro.sample("pi", dist.Dirichlet(priors["class_alpha"]) if "class_log_norm" not in priors
                        else dirichlet_fixed_norm(priors["class_alpha"], priors["class_log_norm"]))
    return jnp.log(jnp.clip(pi, jnp.finfo(pi.dtype).tiny))


def make_model(spec: ModelSpec):
    """The NumPyro model function ``model(priors, data=None)`` of a :class:`ModelSpec`.

    Parameters
    ----------
    spec : ModelSpec

    Returns
    -------
    callable
        ``priors`` holds the prior arrays (``"blocks"``: per block its family's prior args;
        the class prior; ``"component_alpha"`` (K, C) with ``n_components > 1``), ``data`` the
        observations: ``{"stats", "class_count"}`` (labelled, statistics over each block's
        contexts), ``{"rows", "y"}`` (labelled, per row) and/or ``{"unlabelled"}``. A row
        entry of a block with parents is ``{"x": row args, "u": (n,) parents' joint state,
        "seen": (n,) 1 when every parent is observed}``. With ``data=None`` only the prior is sampled.
    """
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist
    from jax.scipy.special import logsumexp as jlse

    mods = [b.code.family for b in spec.blocks]
    K, C = int(spec.n_classes), int(spec.n_components)
    pairs = np.arange(K * C, dtype=np.int32)[None, :]  # the (class, component) pairs, k * C + c

    def model(priors, data=None):
        log_pi = sample_class_log_prior(priors, spec.fixed_pi)
        if C > 1:
            with numpyro.plate("class", K, dim=-1):
                w = numpyro.sample("w", dist.Dirichlet(priors["component_alpha"]) if "component_log_norm" not in priors
                                   else dirichlet_fixed_norm(priors["component_alpha"], priors["component_log_norm"]))
            log_w = jnp.log(jnp.clip(w, jnp.finfo(w.dtype).tiny))
        params = [mod.numpyro_sample(b.label, b.static, priors["blocks"][i], b.feature_plate, b.context_plate)
                  for i, (mod, b) in enumerate(zip(mods, spec.blocks))]
        if data is None:
            return

        def class_loglik(rows):
            """``log p(x_i | y=k)`` (n, K): each block's row terms at the row's contexts, components marginalised."""
            ll = 0.0
            for i, (mod, b) in enumerate(zip(mods, spec.blocks)):
                if not b.parent_states:
                    ll = ll + mod.numpyro_row_loglik(params[i], rows[i])
                    continue
                r = rows[i]  # (n, contexts) -> the row's context under every pair (n, K * C)
                at = jnp.take_along_axis(mod.numpyro_row_loglik(params[i], r["x"]),
                                         pairs * b.parent_states + r["u"][:, None], axis=1)
                ll = ll + at * r["seen"][:, None]
            return ll if C == 1 else jlse(ll.reshape(ll.shape[0], K, C) + log_w, axis=-1)

        if "stats" in data:
            numpyro.factor("y", (data["class_count"] * log_pi).sum())
            for i, (mod, b) in enumerate(zip(mods, spec.blocks)):
                numpyro.factor(f"x_{b.label}", mod.numpyro_suffstat_loglik(params[i], data["stats"][i]))
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
    passed to the model so that no ``lgamma`` is compiled into the sampler (:mod:`..families.fixed_norm`)."""
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


def _check_form(likelihood, n_components):
    """Validated ``(likelihood, C)``."""
    if likelihood not in ("suffstats", "rows"):
        raise ValueError(f"likelihood must be 'suffstats' or 'rows'; received {likelihood!r}.")
    C = int(n_components)
    if C < 1:
        raise ValueError(f"n_components must be >= 1; received {n_components!r}.")
    if C > 1 and likelihood != "rows":
        raise ValueError("the latent-class model (n_components > 1) needs likelihood='rows': a row's "
                         "component is never observed, so there are no sufficient statistics.")
    return likelihood, C


def _spec_priors(post, blocks, likelihood, C, component_alpha):
    """``(spec, priors)`` of ``blocks``: per block ``(family, label, feature plate, context plate,
    parent states (0: none), prior, posterior)``, prior and posterior over (class, parents' states);
    with ``C > 1`` every (class, component) pair takes the prior of its class."""
    K = len(post.classes)
    specs, args = [], []
    for fam, label, fplate, cplate, P, prior, bpost in blocks:
        if C > 1:  # context (k, c, u) <- (k, u)
            group = (np.repeat(np.arange(K), C)[:, None] * max(P, 1) + np.arange(max(P, 1))[None, :]).ravel()
            prior, bpost = index_params(prior, group), index_params(bpost, group)
        specs.append(BlockSpec(FamilyCode(fam), label, fam.numpyro_static(prior), fplate, cplate, int(P)))
        args.append({**fam.numpyro_prior_args(prior), **fam.numpyro_sampler_args(prior, bpost)})
    priors = {"blocks": args, **class_prior_args(post.fixed_class_prior, post.class_log_prior, post.class_prior_alpha)}
    if C > 1:
        priors["component_alpha"] = np.full((K, C), float(component_alpha), dtype=np.float32)
        priors["component_log_norm"] = _dirichlet_log_norm(priors["component_alpha"])
    return ModelSpec(K, bool(post.fixed_class_prior), tuple(specs), likelihood, C), priors


def model_inputs(post, labelled=None, unlabelled=None, likelihood="suffstats", n_components=1, component_alpha=1.0):
    """Static spec and array inputs of the model for a fitted naive posterior and data.

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
    likelihood, C = _check_form(likelihood, n_components)
    K = len(post.classes)
    plate = "class" if C == 1 else "class_component"
    spec, priors = _spec_priors(post, [(b.family, lay.label, lay.feature_dim, plate, 0, b.prior, b.posterior)
                                       for b, lay in zip(post.blocks, block_layouts(post))], likelihood, C,
                                component_alpha)
    data = {}
    if labelled is not None:
        encoded, codes = labelled
        codes = np.asarray(codes, dtype=np.int64)
        if likelihood == "suffstats":
            resp = np.eye(K)[codes]
            data["class_count"] = resp.sum(0).astype(np.float32)
            data["stats"] = [b.family.numpyro_stats_args(b.family.stats(enc, resp, b.state))
                             for b, enc in zip(post.blocks, encoded)]
        else:
            data["y"] = codes.astype(np.int32)
            data["rows"] = [b.code.family.numpyro_row_args(enc, b.static) for b, enc in zip(spec.blocks, encoded)]
    if unlabelled is not None:
        data["unlabelled"] = [b.code.family.numpyro_row_args(enc, b.static) for b, enc in zip(spec.blocks, unlabelled)]
    return spec, priors, (data or None)


def estimator_inputs(estimator, X, y=None, *, n_components=1, likelihood=None):
    """The NumPyro model of a bayesnb estimator on ``X, y``, for your own NumPyro inference.

    ``make_model(spec)(priors, data)`` (:func:`make_model`) is the model the estimator's
    ``run_mcmc`` samples (with ``data=None``, its prior), under the naive structure or a fitted
    one (then one block per feature on its contexts, :func:`structure_inputs`);
    :func:`point_sites` and :func:`model_log_likelihood` evaluate it at a point (e.g. a
    ``fit_latent_class`` solution). Replaces the method ``estimator.model_inputs`` (0.1).

    Parameters
    ----------
    estimator : bayesnb estimator
        Fitted, or fitted here on the labelled rows of ``X, y`` (as ``run_mcmc`` does).
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or None
        Labels, missing ones (None, NaN) unlabelled rows; None: every row unlabelled.
    n_components : int, default=1
        Naive-Bayes components per class; > 1: the latent-class model.
    likelihood : {"suffstats", "rows"} or None, default=None
        As in ``run_mcmc``.

    Returns
    -------
    spec : ModelSpec
    priors : dict
    data : dict or None

    Examples
    --------
    >>> from bayesnb import CategoricalNB
    >>> from bayesnb.inference.numpyro_model import estimator_inputs, make_model
    >>> clf = CategoricalNB().fit([[0, 1], [1, 0], [1, 1]], [0, 1, 1])
    >>> spec, priors, data = estimator_inputs(clf, [[0, 1], [1, 0], [1, 1]], [0, 1, 1])
    >>> spec.n_classes
    2
    """
    build = getattr(estimator, "_model_inputs", None)
    if build is None:
        raise TypeError(f"estimator_inputs: expected a bayesnb estimator; received {type(estimator).__name__}.")
    return build(X, y, n_components=n_components, likelihood=likelihood)


def structure_inputs(post, model, data, ycodes, likelihood="suffstats", n_components=1, component_alpha=1.0):
    """Static spec and array inputs of the model for a fitted structure and its rows.

    Parameters
    ----------
    post : NBPosterior
        The estimator's posterior (its class prior).
    model : MixedModel
        The fitted structure: per node its family, parents, prior and posterior over its
        contexts (the posteriors only tune the sampler through ``numpyro_sampler_args``).
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows.
    ycodes : ndarray of int of shape (n,)
        Class codes, ``-1`` for an unlabelled row.
    likelihood, n_components, component_alpha
        As in :func:`model_inputs`.

    Returns
    -------
    spec : ModelSpec
    priors : dict
    data : dict or None
    """
    likelihood, C = _check_form(likelihood, n_components)
    K = len(post.classes)
    P = [_mx.n_parent_states(model.nodes, pa) if pa else 0 for pa in model.parents]
    blocks = [(nd.family, f"n{j}", f"node_{j}", f"context_{j}", P[j], pr, po)
              for j, (nd, pr, po) in enumerate(zip(model.nodes, model.priors, model.posteriors))]
    spec, priors = _spec_priors(post, blocks, likelihood, C, component_alpha)

    def rows(part):
        cols, miss, states = _mx.node_rows(data, part)
        out = []
        for j, (nd, pa, b) in enumerate(zip(model.nodes, model.parents, spec.blocks)):
            x = nd.family.numpyro_row_args(_mx.encode_values(nd, cols[j]) if nd.numeric else cols[j], b.static)
            out.append(x if not pa else {
                "x": x, "u": _mx.parent_index(model.nodes, pa, np.where(miss, 0, states)).astype(np.int32),
                "seen": (~miss[:, list(pa)].any(axis=1)).astype(np.float32)})
        return out

    ycodes = np.asarray(ycodes, dtype=np.int64)
    lab = ycodes >= 0
    out = {}
    if lab.any() and likelihood == "suffstats":
        out["class_count"] = np.bincount(ycodes[lab], minlength=K).astype(np.float32)
        stats = _mx.node_stats(model.nodes, data, np.maximum(ycodes, 0), lab.astype(float), K, model.parents)
        out["stats"] = [nd.family.numpyro_stats_args(s) for nd, s in zip(model.nodes, stats)]
    elif lab.any():
        out["y"], out["rows"] = ycodes[lab].astype(np.int32), rows(lab)
    if not lab.all():
        out["unlabelled"] = rows(~lab)
    return spec, priors, (out or None)


def point_sites(post, spec, priors=None, blocks=None) -> dict:
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
        By default they are those of the blocks.
    blocks : sequence of (family, prior, posterior), optional
        The blocks' own (default: ``post.blocks``; a structure's nodes, as ``zip(families,
        model.priors, model.posteriors)``).

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
    blocks = [(b.family, b.prior, b.posterior) for b in post.blocks] if blocks is None else blocks
    for i, ((fam, prior, bpost), b) in enumerate(zip(blocks, spec.blocks)):
        args = ({**fam.numpyro_prior_args(prior), **fam.numpyro_sampler_args(prior, bpost)}
                if priors is None else priors["blocks"][i])
        sites.update(fam.sites_from_params(b.label, b.static, fam.point_params(bpost), args))
    return {k: np.asarray(v, dtype=np.float32) for k, v in sites.items()}


def model_log_likelihood(spec, priors, data, sites) -> float:
    """The model's log-likelihood (its factors: every term but the priors) at ``sites``.

    Parameters
    ----------
    spec, priors, data
        As returned by :func:`model_inputs` or :func:`structure_inputs`.
    sites : dict
        Values of every latent site (constrained), e.g. from :func:`point_sites`.

    Returns
    -------
    float
    """
    return sum((float(np.asarray(lp).sum()) for lp in _log_probs(spec, priors, data, sites).values()), 0.0)


def _log_probs(spec, priors, data, sites):  # {observed site: log-probabilities}, jitted (op by op: ~100 compiles)
    import jax

    return jax.jit(_traced_log_probs, static_argnums=0)(spec, priors, data, sites)


def _traced_log_probs(spec, priors, data, sites):
    from numpyro import handlers
    tr = handlers.trace(handlers.substitute(make_model(spec), data=sites)).get_trace(priors, data)
    return {k: s["fn"].log_prob(s["value"]) for k, s in tr.items() if s["type"] == "sample" and s["is_observed"]}


def _unconstrained(spec, priors, data, sites):
    """Site values -> NUTS's unconstrained space (an initial point for every chain).

    Only the latent sample sites are kept (``sites`` may hold deterministic ones too). One jitted
    program: run op by op, the model's two passes compiled some hundred small programs."""
    import jax
    from numpyro import handlers
    from numpyro.infer.util import unconstrain_fn

    model = make_model(spec)

    def unconstrain(priors, data, sites):
        tr = handlers.trace(handlers.seed(handlers.substitute(model, data=sites), 0)).get_trace(priors, data)
        latent = {k: v for k, v in sites.items()
                  if k in tr and tr[k]["type"] == "sample" and not tr[k]["is_observed"]}
        return unconstrain_fn(model, (priors, data), {}, latent)

    z = jax.jit(unconstrain)(priors, data, sites)
    return {k: np.asarray(v, dtype=np.float32) for k, v in z.items()}
