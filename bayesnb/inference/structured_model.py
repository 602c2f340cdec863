"""Exact draws and the NumPyro model of a structured categorical model (TAN, k-DB).

The model (see :mod:`bayesnb.structured`)::

    pi             ~ Dirichlet(class_alpha)                   (absent if the class prior is fixed)
    theta_j[k, u]  ~ Dirichlet(alpha_j)    one per context: class k, parent values u
    y, x           : sum_k n_k log pi_k + sum_j sum_{k,u,v} n_j[k, u, v] log theta_j[k, u, v]

``n_j[k, u, v]`` are the weighted counts of feature ``j``'s table: the rows where ``x_j``
and every parent of ``j`` are observed (the fitting rule of the structured model), so the
closed-form posterior is ``Dirichlet(alpha_j + n_j[k, u])`` per context, and NUTS on this
model samples the same posterior.

Layout of the draws (exact and NUTS alike, one ArviZ ``DataTree``):

====================  ==============================================================
variable              dims
====================  ==============================================================
``pi``                (class,)
``theta_<feature>``   (class, ``<parent>_state`` for each parent, ``<feature>_category``)
====================  ==============================================================

with coords the class labels and the real category names (a parent's ``_state`` dim has
the parent's categories). A feature without parents has dims (class, ``<feature>_category``).
A ``/`` in a feature name becomes ``_`` (ArviZ's ``DataTree`` refuses it in names); names
made equal by that get their feature position appended (``<name>_<j>``).

- :func:`structured_layout` -- variable names, dims and coords
- :func:`structured_draws` / :func:`structured_moments` -- exact draws / closed-form mean and sd
- :func:`make_structured_model` -- the NumPyro model ``model(priors, data=None)``
- :func:`structured_inputs` -- its prior and data arrays from fitted tables and counts
- :func:`run_structured_nuts` -- NUTS on it (the project's cached, chunked :func:`~bayesnb.inference.nuts.run_nuts`), draws in the same layout

JAX and NumPyro are imported lazily.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from ..diagnostics import _coord_values
from ..families._numeric import dirichlet_draws
from .numpyro_model import sample_class_log_prior
from .nuts import run_nuts, sample_stats_from_extra

__all__ = ["StructuredLayout", "StructuredSpec", "class_prior_args", "make_structured_model", "run_structured_nuts", "structured_draws",
           "structured_inputs", "structured_layout", "structured_moments"]

_EXTRA = ("diverging", "num_steps", "accept_prob", "potential_energy", "energy", "adapt_state.step_size")


class StructuredLayout(NamedTuple):
    """Names, dims and coords of the draws of a structured model.

    Attributes
    ----------
    variables : tuple of str
        ``theta_<feature>`` per feature (feature order).
    dims : dict
        ``{variable: [dim, ...]}`` without ``chain``/``draw`` (``pi`` included unless the class prior is fixed).
    coords : dict
        ``{dim: values}``.
    shapes : tuple of tuple of int
        Per feature, ``(K, V_p1, ..., V_j)``.
    """

    variables: tuple
    dims: dict
    coords: dict
    shapes: tuple


def structured_layout(tables, classes, names, categories, fixed_class_prior=False) -> StructuredLayout:
    """The layout of :func:`structured_draws` (see the module docstring).

    Parameters
    ----------
    tables : StructuredTables
        The fitted tables (:func:`bayesnb.structured.fit_tables`).
    classes : array-like of shape (K,)
    names : sequence of str
        Feature names.
    categories : sequence of sequences
        The category values of each feature (code order).
    fixed_class_prior : bool, default=False
        No ``pi`` variable.

    Returns
    -------
    StructuredLayout
    """
    names = [str(n).replace("/", "_") for n in names]  # DataTree names cannot hold "/"
    if len(set(names)) != len(names):  # made equal by that: the position tells them apart
        names = [f"{n}_{j}" for j, n in enumerate(names)]
    dims, coords = {}, {"class": _coord_values(list(classes))}
    if not fixed_class_prior:
        dims["pi"] = ["class"]
    variables, shapes = [], []
    for j, pa in enumerate(tables.parents):
        var = f"theta_{names[j]}"
        own = f"{names[j]}_category"
        dims[var] = ["class", *(f"{names[p]}_state" for p in pa), own]
        coords[own] = _coord_values(list(categories[j]))
        for p in pa:
            coords[f"{names[p]}_state"] = _coord_values(list(categories[p]))
        variables.append(var)
        shapes.append((len(classes), *(int(tables.n_values[p]) for p in pa), int(tables.n_values[j])))
    return StructuredLayout(tuple(variables), dims, coords, tuple(shapes))


def structured_draws(tables, class_concentration, layout, n_draws, rng) -> dict:
    """Exact conjugate draws ``{variable: (n_draws, ...)}``: one Dirichlet per context (and ``pi``).

    ``class_concentration`` is the Dirichlet of the class proportions (None: fixed prior, no ``pi``).
    """
    out = {}
    if class_concentration is not None:
        out["pi"] = dirichlet_draws(np.asarray(class_concentration, float), n_draws, rng)
    for j, var in enumerate(layout.variables):
        (conc,) = tables.posteriors[j].concentration
        out[var] = dirichlet_draws(conc, n_draws, rng).reshape((n_draws, *layout.shapes[j]))
    return out


def structured_moments(tables, class_concentration, layout) -> dict:
    """Closed-form posterior mean and sd ``{variable: (mean, sd)}`` (for :func:`~bayesnb.compare_posteriors`)."""
    out = {}

    def moments(a):
        a0 = a.sum(axis=-1, keepdims=True)
        m = a / a0
        return m, np.sqrt(m * (1 - m) / (a0 + 1))

    if class_concentration is not None:
        out["pi"] = moments(np.asarray(class_concentration, float))
    for j, var in enumerate(layout.variables):
        m, s = moments(tables.posteriors[j].concentration[0])
        out[var] = (m.reshape(layout.shapes[j]), s.reshape(layout.shapes[j]))
    return out


def make_structured_model(shapes, fixed_pi: bool):
    """The NumPyro model ``model(priors, data=None)`` of a structure.

    Parameters
    ----------
    shapes : tuple of (int, int)
        Per feature, ``(number of contexts, V_j)``.
    fixed_pi : bool
        The class prior is fixed (``priors["class_log_prior"]``), else ``pi ~ Dirichlet(priors["class_alpha"])``.

    Returns
    -------
    callable
        Sites ``pi`` and ``theta_<j>`` (feature position ``j``, shape (contexts, V_j)) under
        plates ``context_<j>``; ``data = {"class_count": (K,), "counts": [(contexts, V_j), ...]}``
        adds the labelled-data factors; ``data=None`` leaves the prior.
    """
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    def model(priors, data=None):
        log_pi = sample_class_log_prior(priors, fixed_pi)
        log_theta = []
        for j, (C, _) in enumerate(shapes):
            with numpyro.plate(f"context_{j}", C):
                th = numpyro.sample(f"theta_{j}", dist.Dirichlet(priors["alpha"][j]))
            log_theta.append(jnp.log(jnp.clip(th, jnp.finfo(th.dtype).tiny)))
        if data is None:
            return
        numpyro.factor("y", (data["class_count"] * log_pi).sum())
        for j, lt in enumerate(log_theta):
            numpyro.factor(f"x_{j}", (data["counts"][j] * lt).sum())

    return model


def class_prior_args(fixed_class_prior, class_log_prior, class_prior_alpha) -> dict:
    """The class prior's NumPyro inputs: ``{"class_log_prior"}`` (fixed; ``-inf`` floored at ``-1e30``)
    or ``{"class_alpha"}`` (Dirichlet pseudo-counts), float32."""
    if fixed_class_prior:
        return {"class_log_prior": np.maximum(np.asarray(class_log_prior, float), -1e30).astype(np.float32)}
    return {"class_alpha": np.asarray(class_prior_alpha, dtype=np.float32)}


def structured_inputs(tables, class_prior_alpha, class_log_prior, fixed_class_prior, class_count, stats):
    """``(shapes, priors, data)`` of :func:`make_structured_model`.

    Parameters
    ----------
    tables : StructuredTables
        Supplies the priors of every table (those of the fitted model).
    class_prior_alpha, class_log_prior : ndarray of shape (K,)
        The class prior's Dirichlet pseudo-counts / fixed log probabilities.
    fixed_class_prior : bool
    class_count : ndarray of shape (K,)
        Weighted class counts of the data.
    stats : sequence
        Per feature, the family's statistics of the data over its contexts (``stats[j].counts[0]``).
    """
    alphas = [np.asarray(p.concentration[0], dtype=np.float32) for p in tables.priors]
    shapes = tuple((int(a.shape[0]), int(a.shape[1])) for a in alphas)
    priors = {"alpha": alphas, **class_prior_args(fixed_class_prior, class_log_prior, class_prior_alpha)}
    data = {"class_count": np.asarray(class_count, dtype=np.float32),
            "counts": [np.asarray(s.counts[0], dtype=np.float32) for s in stats]}
    return shapes, priors, data


class StructuredSpec(NamedTuple):
    """Hashable structure of :func:`make_structured_model` (the key of the compiled sampler in
    :func:`~bayesnb.inference.nuts.run_nuts`)."""

    shapes: tuple
    fixed_pi: bool

    def make_model(self):
        """The NumPyro model of this structure (:func:`make_structured_model`)."""
        return make_structured_model(self.shapes, self.fixed_pi)


def run_structured_nuts(shapes, priors, data, layout, *, fixed_pi=False, num_warmup=500, num_samples=1000,
                        num_chains=1, seed=0, progress_bar=False, target_accept_prob=0.8):
    """NUTS on :func:`make_structured_model`, chains one after another, through
    :func:`~bayesnb.inference.nuts.run_nuts`: the compiled sampler is cached (in process and in
    JAX's persistent cache) per shapes and warmup, and draws come in fixed-size chunks, so a new
    ``num_samples``, seed, data or prior does not recompile.

    Returns
    -------
    draws : dict
        ``{variable: (chain, draw, ...)}`` named and shaped as :func:`structured_draws`.
    sample_stats : dict
        ArviZ ``sample_stats`` (``diverging``, ``tree_depth``, ...).
    seconds : float
        Wall time of the run (compilation included).
    """
    t0 = time.perf_counter()
    samples, extra, _ = run_nuts(StructuredSpec(tuple(shapes), bool(fixed_pi)), priors, data,
                                 num_warmup=int(num_warmup), num_samples=int(num_samples),
                                 num_chains=int(num_chains), chain_method="sequential", seed=int(seed),
                                 progress_bar=bool(progress_bar), target_accept_prob=target_accept_prob)
    samples = {k: np.asarray(v, dtype=float) for k, v in samples.items()}
    draws = {} if fixed_pi else {"pi": samples["pi"]}
    for j, var in enumerate(layout.variables):
        s = samples[f"theta_{j}"]
        draws[var] = s.reshape(s.shape[:2] + layout.shapes[j])
    return draws, sample_stats_from_extra(extra), time.perf_counter() - t0
