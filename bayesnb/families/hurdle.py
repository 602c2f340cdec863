"""A hurdle wrapper: each cell is exactly ``at`` with probability ``pi``, else drawn from a base family.

For class ``k`` and feature ``j``::

    pi[k, j]        ~ Beta(alpha, alpha)
    x[i, j] | y=k   = at                        with probability pi[k, j]
                    ~ base family (y=k)         otherwise (the base puts no mass on ``at``)

    posterior   Beta(alpha + A[k,j], alpha + B[k,j])   (A: cells equal to ``at``, B: other observed cells)
    plug-in     pi = (alpha + A) / (2 alpha + A + B)   (also the exact predictive of "is at")
    evidence    sum_j [log B(a_n, b_n) - log B(alpha, alpha)] + the base's evidence of its cells

The base family (default :class:`~bayesnb.families.LogNormal`, whose support excludes 0) is
fitted on the cells other than ``at`` only: they are passed to it with the ``at`` cells set to
NaN, so the base treats them as missing. The base must put no mass on ``at`` (a LogNormal for
``at=0``; a Poisson or a Bernoulli with ``at=0`` would double-count the zeros) and must be a
numeric, column-by-column family: bases with raw values (Categorical) or joint columns
(Multinomial) are refused. Made for columns such as capital gains: many exact zeros, a
positive heavy tail.

The evidence is that of the sequence of cells (no binomial coefficient), so it is the
exact log marginal likelihood of the data the log-likelihood scores.
"""

from __future__ import annotations

import numbers
from collections import namedtuple
from typing import ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import betaln

from . import _interval
from ._contract import Family
from .capabilities import SHARED, NumericNode
from .numeric import MAX_ALPHA, dense_numbers, sample_class_feature
from .dp_release import noisy_pairs
from .lognormal import LogNormal

__all__ = ["Hurdle", "HurdleBlock", "HurdleParams", "HurdleStats"]

#: most fields a base's statistics or parameters may have (model files store them flattened)
BASE_FIELDS = 4
_TINY = np.finfo(float).tiny


def _flat_tuple(name, head, doc):
    """A NamedTuple of the hurdle's ``head`` fields then ``base_0..base_3`` (None by default)."""
    cls = namedtuple(name, [*head, *(f"base_{i}" for i in range(BASE_FIELDS))],
                     defaults=(None,) * BASE_FIELDS, module=__name__)
    cls.__doc__ = doc
    return cls


HurdleStats = _flat_tuple("HurdleStats", ("at_count", "other_count"), """Sufficient statistics, each (K, d).

    ``at_count``: weighted number of cells equal to ``at``; ``other_count``: weighted number of
    the other observed cells; ``base_0`` .. ``base_3``: the fields of the base's statistics in
    order (flattened: a model file holds arrays only), None past the base's number of fields.
    """)

HurdleParams = _flat_tuple("HurdleParams", ("a", "b"), """Beta(``a``, ``b``) of ``pi`` per (class,
    feature), then the base's parameter fields ``base_0`` .. ``base_3`` in order (None past them).

    A generative "point" holding one drawn ``pi`` stores it as ``(pi, 1 - pi)``.
    """)


class HurdleBlock(NamedTuple):
    """Encoded block: ``at`` (n, d) cells equal to ``at``, ``missing`` (n, d), the base's block."""

    at: np.ndarray
    missing: np.ndarray
    base: tuple


def _pi(params):
    """Plug-in ``pi = a / (a + b)`` with its logs ``log pi``, ``log(1 - pi)`` (clipped finite), (K, d)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = params.a / (params.a + params.b)
        return pi, np.log(np.maximum(pi, _TINY)), np.log(np.maximum(params.b / (params.a + params.b), _TINY))


def _rest(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "pi"}


_BASE_RULES = {f"base_{i}": "real or None" for i in range(BASE_FIELDS)}  # the base family's fields, any scale


class Hurdle(Family, NumericNode, *SHARED):
    """Hurdle block: a cell is exactly ``at`` with probability ``pi``, else a draw of the base family.

    Parameters
    ----------
    base : Family or None, default=None
        The family of the cells other than ``at`` (None: :class:`~bayesnb.families.LogNormal`).
        It must put no mass on ``at`` and be numeric and column by column (not raw values,
        not joint columns).
    at : float, default=0.0
        The value of the point mass.
    alpha : float, default=1.0
        Symmetric Beta(alpha, alpha) prior of each ``pi[k, j]`` (> 0).

    Notes
    -----
    ``param_names`` are ``("pi",)`` followed by the base's. Generation and imputation:
    ``"draw"`` is ``at`` with probability ``pi`` else a base draw; ``"mean"`` is the
    conditional mean ``sum_k r_k [pi_k at + (1 - pi_k) E_base_k[x]]`` (a value that may be
    neither ``at`` nor typical of the base); ``"mode"`` is ``at`` where its probability
    ``sum_k r_k pi_k`` is at least 1/2, else the base's mode under the row's class
    responsibilities (the point mass and the base's density cannot be compared directly).
    The statistics and parameters store the base's fields flattened after the hurdle's
    (model files hold arrays only), checked on load as finite; the posterior must still be
    the prior updated with the statistics bit for bit.
    """

    _param_names = ("base", "at", "alpha")
    name = "hurdle"
    stats_type = HurdleStats
    params_type = HurdleParams
    field_rules: ClassVar[dict] = {"HurdleStats": {"at_count": "count", "other_count": "count", **_BASE_RULES},
                                   "HurdleParams": {"a": "count", "b": "count", **_BASE_RULES}}

    def __init__(self, base=None, at=0.0, alpha=1.0):
        self.base = base
        self.at = at
        self.alpha = alpha

    @property
    def dp_statistics(self):
        """One statistic (the at / other counts) plus the base's: the weight of a column in the budget split."""
        return 1 + self._b.dp_statistics

    @property
    def default_fill(self):
        """The base family's fill for ``impute(strategy="auto")`` (a numeric base: "mean")."""
        return self._b.default_fill

    @property
    def ordered_support(self) -> bool:
        """Whether the cells lie on an ordered numeric scale: the base's (the point mass is one of its values)."""
        return self._b.ordered_support

    # ------------------------------------------------------------------ helpers
    @property
    def _b(self):
        """The base family, checked (LogNormal() when ``base`` is None)."""
        base = LogNormal() if self.base is None else self.base
        if not isinstance(base, Family):
            raise TypeError(f"Hurdle: base must be a Family instance or None; received {base!r}.")
        if base.raw_values or base.joint_columns:
            raise ValueError(f"Hurdle: the base {base!r} takes {'raw values' if base.raw_values else 'joint columns'}; "
                             "a hurdle needs a numeric family whose columns are independent given the class "
                             "(LogNormal, Gaussian, Poisson).")
        for t in (base.stats_type, base.params_type):
            if t is None or len(t._fields) > BASE_FIELDS:
                raise ValueError(f"Hurdle: the base {base!r} must declare stats_type and params_type of at "
                                 f"most {BASE_FIELDS} fields.")
        return base

    def _at(self, who="Hurdle"):
        at = self.at
        if not isinstance(at, numbers.Real) or isinstance(at, bool) or not np.isfinite(at):
            raise ValueError(f"{who}: at must be a finite number; received {at!r}.")
        return float(at)

    def _split(self, nt):
        """``(head, base NamedTuple)`` of a HurdleStats or HurdleParams."""
        base = self._b
        typ = base.stats_type if isinstance(nt, HurdleStats) else base.params_type
        return tuple(nt[:2]), typ(*nt[2:2 + len(typ._fields)])

    def _other(self, block):
        return ~block.at & ~block.missing

    @property
    def param_names(self) -> tuple:
        """``("pi",)`` and the base's parameter names."""
        return ("pi",) + tuple(self._b.param_names)

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Hurdle"):
        """Mark the cells equal to ``at`` and encode the others with the base (``at`` cells as NaN).

        The base validates the other cells; its error is raised with the hurdle named. Returns a
        :class:`HurdleBlock` and the base's state. ``X`` is never modified.
        """
        base, at = self._b, self._at(who)
        A = dense_numbers(X, who, "Hurdle features must be numbers")
        missing = np.isnan(A)
        is_at = ~missing & (A == at)
        try:
            bblock, state = base.encode(np.where(is_at, np.nan, A), state, extend=extend, who=who)
        except ValueError as e:
            raise ValueError(f"{e} (Hurdle(at={at!r}) passes every cell other than {at!r} to its base "
                             f"{base!r}.)") from None
        return HurdleBlock(is_at, missing, bblock), state

    def out_of_support(self, X, state=None):
        """Bool (n, d): cells other than ``at`` outside the base's support (None where the base has none)."""
        if sp.issparse(X):
            return None
        A = np.asarray(X, dtype=np.float64)
        return self._b.out_of_support(np.where(A == self._at("Hurdle"), np.nan, A), state)

    def empty_stats(self, state, K):
        """Zero statistics (K, d)."""
        inner = self._b.empty_stats(state, K)
        z = np.zeros(np.shape(inner[0]))
        return HurdleStats(z, z.copy(), *inner)

    def stats(self, block, resp, state):
        """Weighted counts of ``at`` cells and of other observed cells, then the base's statistics."""
        inner = self._b.stats(block.base, resp, state)
        at, other = block.at.astype(float), self._other(block).astype(float)
        return HurdleStats(resp.T @ at, resp.T @ other, *inner)

    def interval_stats(self, values, resp, state, who="Hurdle"):
        """As :meth:`stats`, with the cells other than ``at`` passed to the base's own ``interval_stats``."""
        A = np.asarray(values, dtype=float)
        missing = np.isnan(A)
        is_at = ~missing & (A == self._at(who))
        inner = self._b.interval_stats(np.where(is_at, np.nan, A), resp, state, who=who)
        at, other = is_at.astype(float), (~is_at & ~missing).astype(float)
        return HurdleStats(resp.T @ at, resp.T @ other, *inner)

    def dp_stats(self, block, resp, state, budget, bounds, names, who="Hurdle"):
        """The counts of ``at`` and other cells (L1 2 per column, as Bernoulli's), then the base's own
        release of its cells (its bounds, its sensitivity): the budget split 1 : the base's
        ``dp_statistics``, so every released statistic gets the same share."""
        b_at, b_base = budget.split([1, self._b.dp_statistics])
        head = noisy_pairs(resp.T @ block.at.astype(float), resp.T @ self._other(block).astype(float), b_at)
        inner = self._b.dp_stats(block.base, resp, state, b_base, bounds, names, who)
        return HurdleStats(*head, *inner)

    def merge(self, a, b):
        """Counts add; the base merges its own statistics."""
        (h1, i1), (h2, i2) = self._split(a), self._split(b)
        return HurdleStats(h1[0] + h2[0], h1[1] + h2[1], *self._b.merge(i1, i2))

    def merge_states(self, a, b):
        """The base's merge (the state is the base's)."""
        return self._b.merge_states(a, b)

    def reindex_stats(self, stats, old_state, new_state):
        """The base's reindexing of its statistics (counts unchanged)."""
        head, inner = self._split(stats)
        return HurdleStats(*head, *self._b.reindex_stats(inner, old_state, new_state))

    def state_shapes(self, state, K, d):
        """The base's check of the state."""
        return self._b.state_shapes(state, K, d)

    def make_prior(self, stats, state, who="Hurdle"):
        """Beta(alpha, alpha) for every (class, feature), then the base's prior from its statistics."""
        alpha = self.alpha
        if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or not 0 < alpha <= MAX_ALPHA:
            raise ValueError(f"{who}: alpha must be a finite number > 0 and at most 2**53; received {alpha!r}.")
        head, inner = self._split(stats)
        a = np.full(head[0].shape, float(alpha))
        return HurdleParams(a, a.copy(), *self._b.make_prior(inner, state, who))

    def observed_rows(self, stats):
        """Weighted number of observed cells per (class, column): at the hurdle or beyond it."""
        return stats.at_count + stats.other_count

    def update(self, prior, stats):
        """Beta(a + at_count, b + other_count); the base's conjugate update."""
        (p, pin), (s, sin) = self._split(prior), self._split(stats)
        return HurdleParams(p[0] + s[0], p[1] + s[1], *self._b.update(pin, sin))

    def check_posterior(self, post, stats, names, classes, who="Hurdle"):
        """The base's check (the Beta prior with alpha > 0 is always proper)."""
        self._b.check_posterior(self._split(post)[1], self._split(stats)[1], names, classes, who)

    def log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """``at`` cell: ``log pi``; other cell: ``log(1 - pi)`` plus the base's log density (its
        row term stays the row term). ``pi = a / (a + b)`` is the plug-in and the exact predictive."""
        base = self._b
        rel, row = base.log_likelihood_parts(self._split(prior)[1], self._split(post)[1], block.base, predictive)
        _, log_pi, log_q = _pi(post)
        rel = rel + block.at.astype(float) @ log_pi.T + self._other(block).astype(float) @ log_q.T
        return rel, row

    def log_evidence(self, prior, post):
        """``sum_j log B(a_n, b_n) - log B(a0, b0)`` (the cells' sequence) plus the base's evidence, (K,)."""
        (p, pin), (q, qin) = self._split(prior), self._split(post)
        return (betaln(q[0], q[1]) - betaln(p[0], p[1])).sum(axis=1) + self._b.log_evidence(pin, qin)

    def gen_values(self, block):
        """Values (n, d): ``at`` cells, the base's values elsewhere, NaN where missing."""
        return np.where(block.missing, np.nan, np.where(block.at, self._at(), self._b.gen_values(block.base)))

    def predictive_bins(self, prior, post, state, edges, predictive="mean"):
        """The point mass ``pi`` at ``at`` plus ``1 - pi`` times the base's interval masses and means."""
        logm, mean = self._b.predictive_bins(self._split(prior)[1], self._split(post)[1], state, edges, predictive)
        return _interval.mixture_at(_pi(post)[0], self._at(), logm, mean, edges)

    def round_fill(self, values, state):
        """As the base writes its values."""
        return self._b.round_fill(values, state)

    def point_masses(self, state):
        """``at``, and the base's own."""
        return np.union1d([self._at()], self._b.point_masses(state))

    def is_proper(self, prior):
        """The Beta prior is proper (a, b > 0) and so is the base's."""
        head, inner = self._split(prior)
        return bool(np.all(head[0] > 0) and np.all(head[1] > 0) and self._b.is_proper(inner))

    def density_cells(self, X) -> int:
        """The base's density cells among the cells other than ``at`` (``at`` has a mass)."""
        X = np.asarray(X, dtype=float)
        return self._b.density_cells(np.where(X == self._at(), np.nan, X))

    # ------------------------------------------------------------------ generative hooks
    def gen_point(self, prior, post, rng=None):
        """The posterior itself (``rng=None``), or one exact draw: ``pi ~ Beta(a, b)`` stored as
        ``(pi, 1 - pi)`` and the base's drawn point."""
        if rng is None:
            return post
        pin, (q, qin) = self._split(prior)[1], self._split(post)
        pi = rng.beta(q[0], q[1])
        return HurdleParams(pi, 1.0 - pi, *self._b.gen_point(pin, qin, rng))

    def gen_sample(self, point, z, rng, lengths=None):
        """``at`` with probability ``pi[z]``, else the base's draw, (n, d)."""
        vals = np.asarray(self._b.gen_sample(self._split(point)[1], z, rng, lengths), dtype=float)
        pi = _pi(point)[0][z]
        return np.where(rng.random(vals.shape) < pi, self._at(), vals)

    def gen_log_mass_between(self, prior, params, state, j, lo, hi, predictive="mean"):
        """``log P(lo <= x_j <= hi)`` per class: ``pi`` when ``at`` is in the range, plus ``1 - pi`` times
        the base's mass (``pi`` the plug-in, which is also the exact predictive)."""
        base = self._b.gen_log_mass_between(self._split(prior)[1], self._split(params)[1], state, j, lo, hi,
                                            predictive)
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        pi = _pi(params)[0][:, j].reshape((-1,) + (1,) * lo.ndim)
        with np.errstate(divide="ignore"):
            return np.log(pi * ((lo <= self._at()) & (self._at() <= hi)) + (1.0 - pi) * np.exp(base))

    def gen_sample_between(self, point, z, rng, j, lo, hi, state=None):
        """Column ``j`` within ``[lo, hi]``: ``at`` with its share of the range's mass, else the base's
        truncated draw (None when the base has none)."""
        pin = self._split(point)[1]
        base = self._b.gen_sample_between(pin, z, rng, j, lo, hi, state=state)
        if base is None:
            return None
        lo, hi = np.broadcast_to(lo, z.shape), np.broadcast_to(hi, z.shape)
        pi = _pi(point)[0][z, j] * ((lo <= self._at()) & (self._at() <= hi))
        with np.errstate(divide="ignore"):  # the base's prior is unused by its mass at a point
            mass = self._b.gen_log_mass_between(pin, pin, state, j, lo, hi)  # (C, n): each row's own bounds
            rest = (1.0 - _pi(point)[0][z, j]) * np.exp(mass[z, np.arange(z.shape[0])])
        with np.errstate(invalid="ignore"):
            at = rng.random(z.shape[0]) * (pi + rest) < pi
        return np.where(at, self._at(), np.asarray(base, dtype=float))

    def gen_outside_bounds(self, values, lo, hi):
        """The declared bounds are the base's (its release clips to them): ``at`` is inside whatever they are."""
        values = np.asarray(values, dtype=float)
        return (values != self._at()) & self._b.gen_outside_bounds(values, lo, hi)

    def gen_sample_in_bounds(self, point, z, rng, j, lo, hi, state=None):
        """A value outside is a base draw: the base's draw inside its bounds replaces it (``at`` keeps ``pi``)."""
        return self._b.gen_sample_in_bounds(self._split(point)[1], z, rng, j, lo, hi, state=state)

    def gen_decode(self, values, state):
        """Raw values per column of :meth:`gen_sample`'s draws: ``at`` cells stay ``at``, the base's
        draws go through the base's decoding (a Histogram base turns its encoded draws into training
        values), NaN stays NaN."""
        V = np.asarray(values, dtype=float)
        keep = np.isnan(V) | (V == self._at())
        decoded = self._b.gen_decode(np.where(keep, 0.0, V), state)
        return [np.where(keep[:, j], V[:, j], np.asarray(col, dtype=float)) for j, col in enumerate(decoded)]

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Values (n, d), missing cells filled; observed cells unchanged.

        ``"draw"``: ``at`` with probability ``pi[z]``, else the base's draw; ``"mean"``:
        ``sum_k resp[i,k] (pi_k at + (1 - pi_k) m_k)`` with ``m_k`` the base's mean fill in class
        ``k``; ``"mode"``: ``at`` where ``sum_k resp[i,k] pi_k >= 1/2``, else the base's mode fill.
        """
        base, at = self._b, self._at()
        inner = self._split(point)[1]
        pi = _pi(point)[0]
        filled = np.asarray(base.gen_fill(inner, block.base, resp, strategy, z, rng, rate), dtype=float)
        out = np.where(block.at, at, filled)
        rows, cols = np.nonzero(block.missing)
        if rows.size == 0:
            return out
        if strategy == "draw":
            hit = rng.random(rows.size) < pi[z[rows], cols]
            out[rows, cols] = np.where(hit, at, filled[rows, cols])
        elif strategy == "mean":
            value = np.zeros(rows.size)
            for k in range(resp.shape[1]):
                one = np.zeros_like(resp)
                one[:, k] = 1.0
                m = np.asarray(base.gen_fill(inner, block.base, one, "mean", rate=rate), dtype=float)
                value += resp[rows, k] * (pi[k, cols] * at + (1 - pi[k, cols]) * m[rows, cols])
            out[rows, cols] = value
        else:
            p_at = np.einsum("ik,ki->i", resp[rows], pi[:, cols])
            out[rows, cols] = np.where(p_at >= 0.5, at, filled[rows, cols])
        return out

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per cell ``sum_k weights[i,k]`` of ``log pi`` (``at`` cells) or ``log(1 - pi)`` plus the
        base's cell log density (other cells), (n, d); missing -> 0."""
        w = np.where(weights > 0, weights, 0.0)
        _, log_pi, log_q = _pi(point)
        cells = self._b.gen_cell_log_lik(self._split(prior)[1], self._split(point)[1], block.base, weights, predictive)
        return cells + np.where(block.at, w @ log_pi, 0.0) + np.where(self._other(block), w @ log_q, 0.0)

    def gen_log_penalty(self, prior, point) -> float:
        """``sum a0 log pi + b0 log(1 - pi)`` at the plug-in ``pi`` (whose MAP it makes the plug-in)
        plus the base's penalty."""
        (p, pin), inner = self._split(prior), self._split(point)[1]
        _, log_pi, log_q = _pi(point)
        return float((p[0] * log_pi + p[1] * log_q).sum()) + self._b.gen_log_penalty(pin, inner)

    def gen_rate(self, stats, class_count, rng=None):
        """The base's length model (None for the numeric families)."""
        return self._b.gen_rate(self._split(stats)[1], class_count, rng)

    def gen_empty_columns(self, state):
        """The base's."""
        return self._b.gen_empty_columns(state)

    # --------------------------------------------------------- draws and NumPyro hooks
    def sample_params(self, post, n_draws, rng) -> dict:
        """``{"pi": (n_draws, K, d)}`` from Beta(a, b) and the base's exact draws."""
        head, inner = self._split(post)
        pi = rng.beta(head[0], head[1], size=(n_draws,) + head[0].shape)
        return {"pi": pi, **self._b.sample_params(inner, n_draws, rng)}

    def posterior_moments(self, post) -> dict:
        """Beta mean and sd of ``pi`` and the base's moments."""
        (a, b), inner = self._split(post)
        n = a + b
        return {"pi": (a / n, np.sqrt(a * b / (n**2 * (n + 1)))), **self._b.posterior_moments(inner)}

    def posterior_from_params(self, params: dict):
        """``(pi, 1 - pi)`` and the base's posterior from its parameters."""
        pi = np.asarray(params["pi"], dtype=float)
        return HurdleParams(pi, 1.0 - pi, *self._b.posterior_from_params(_rest(params)))

    def point_params(self, post) -> dict:
        """``{"pi": a / (a + b)}`` and the base's plug-in parameters."""
        return {"pi": _pi(post)[0], **self._b.point_params(self._split(post)[1])}

    def numpyro_static(self, prior):
        """The base's type and static structure (a compiled model is reused only for the same base)."""
        return (type(self._b), self._b.numpyro_static(self._split(prior)[1]))

    def numpyro_prior_args(self, prior) -> dict:
        """``{"a", "b"}`` (float32, (K, d)) and the base's prior arguments under ``"base"``."""
        head, inner = self._split(prior)
        return {"a": head[0].astype(np.float32), "b": head[1].astype(np.float32),
                "base": self._b.numpyro_prior_args(inner)}

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """``pi_<label>`` ~ Beta(a, b) under plates ``class_plate`` x feature, and the base's sites
        under the label ``<label>_base``; returns ``{"pi", "log_pi", "log1m_pi", "base"}``."""
        import jax.numpy as jnp
        import numpyro.distributions as dist

        pi = sample_class_feature(f"pi_{label}", dist.Beta(prior_args["a"], prior_args["b"]), feature_plate,
                                  class_plate)
        tiny = jnp.finfo(pi.dtype).tiny
        inner = self._b.numpyro_sample(f"{label}_base", static[1], prior_args["base"], feature_plate, class_plate)
        return {"pi": pi, "log_pi": jnp.log(jnp.clip(pi, tiny)), "log1m_pi": jnp.log(jnp.clip(1 - pi, tiny)),
                "base": inner}

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """``{"pi"}`` from ``pi_<label>`` and the base's parameters from its sites."""
        return {"pi": np.asarray(samples[f"pi_{label}"], dtype=float),
                **self._b.params_from_sites(f"{label}_base", static[1], samples)}

    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """Inverse of :meth:`params_from_sites`."""
        return {f"pi_{label}": np.asarray(params["pi"]),
                **self._b.sites_from_params(f"{label}_base", static[1], _rest(params),
                                             None if prior_args is None else prior_args["base"])}

    def numpyro_stats_args(self, stats) -> dict:
        """``{"at", "other"}`` counts (float32) and the base's statistics under ``"base"``."""
        head, inner = self._split(stats)
        return {"at": head[0].astype(np.float32), "other": head[1].astype(np.float32),
                "base": self._b.numpyro_stats_args(inner)}

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum A log pi + B log(1 - pi)`` plus the base's likelihood from its statistics."""
        s = stats_args
        return ((s["at"] * params["log_pi"] + s["other"] * params["log1m_pi"]).sum()
                + self._b.numpyro_suffstat_loglik(params["base"], s["base"]))

    def numpyro_row_args(self, block, static) -> dict:
        """The ``at`` and other-observed masks (float32, (n, d)) and the base's row arguments."""
        return {"at": block.at.astype(np.float32), "other": self._other(block).astype(np.float32),
                "base": self._b.numpyro_row_args(block.base, static[1])}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(x_i | y=k)`` (n, K): the hurdle's terms plus the base's rows."""
        r = row_args
        return (r["at"] @ params["log_pi"].T + r["other"] @ params["log1m_pi"].T
                + self._b.numpyro_row_loglik(params["base"], r["base"]))

    # ------------------------------------------------------------ display
    def plot_panels(self, block, top=10) -> list:
        """One bar panel per feature, ``P(x = at)`` against ``P(x != at)`` per class, then the
        base's panels (of its own posterior)."""
        base = self._b
        pi = _pi(block.posterior)[0]
        at = self._at()
        panels = [(f"{name}: = {at:g}?", "bars", ([f"= {at:g}", "other"], np.stack([pi[:, j], 1 - pi[:, j]], 1)))
                  for j, name in enumerate(block.names)]
        inner = block._replace(family=base, stats=self._split(block.stats)[1], prior=self._split(block.prior)[1],
                               posterior=self._split(block.posterior)[1])
        return panels + base.plot_panels(inner, top)
