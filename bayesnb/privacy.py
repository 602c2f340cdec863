"""Differential privacy: the :class:`DP` setting and the noise mechanisms of a private fit.

A private fit releases the sufficient statistics (class counts and each block's statistics)
with calibrated noise, then does the one conjugate update on the noisy statistics; the
posterior, predictions, samples and imputations are post-processing of that release.

Neighbouring datasets differ in **one row replaced** by any other row (same number of rows
``n``, which is therefore public). Each family states the sensitivity of its statistics
(:meth:`bayesnb.families.capabilities.PrivateRelease.dp_stats`); this module holds what they share:
:class:`DP` (what the user asks for), :class:`Budget` (one share of it, able to draw noise)
and the analytic Gaussian calibration (Balle & Wang, 2018). docs/privacy.md explains it all.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

__all__ = ["DP", "Budget", "analytic_gaussian_sigma", "gaussian_mu", "gdp_epsilon", "project_rows", "project_simplex"]


_MECHANISMS = ("laplace", "gaussian")
_ROW_NORMS = ("l1", "l2")


@dataclass(frozen=True)
class DP:
    """An (epsilon, delta)-differential-privacy setting for fitting (``privacy=`` of every estimator).

    Parameters
    ----------
    epsilon : float
        The privacy budget, ``> 0`` and finite.
    delta : float, default=0.0
        ``0 <= delta < 1``; must be 0 with ``mechanism="laplace"`` (pure DP) and ``> 0``
        with ``mechanism="gaussian"``.
    bounds : dict, optional
        ``{column: (lo, hi)}`` (column name or position), declared without looking at the
        data: a numeric column's values are clipped to ``[lo, hi]``. Required for every
        column of a Gaussian, LogNormal or Poisson block.
    row_length : float, optional
        The largest total count ``L > 0`` of one row of a count block (Multinomial,
        Complement), declared without looking at the data: a longer row is scaled down to
        total ``L`` (its proportions kept). Required for those blocks. With ``row_norm="l2"``,
        the largest Euclidean norm of a row instead.
    mechanism : {"laplace", "gaussian"}, default="laplace"
        Laplace noise calibrated to the L1 sensitivity (pure epsilon-DP), or Gaussian noise
        calibrated to the L2 sensitivity with the analytic calibration ((epsilon, delta)-DP).
        The statistics' shares compose by basic composition under Laplace and exactly, by
        Gaussian DP, under the Gaussian mechanism (:meth:`Budget.split`), so a count's noise sd
        grows as ``sqrt(S)`` with the number ``S`` of statistics released, against ``S`` under
        Laplace: for tables of many columns the Gaussian adds less noise at a small delta.
    random_state : int, numpy.random.Generator or None
        Seed of the noise. Leave None in real use: a seed known to anyone voids the guarantee.
    classes : array-like
        The class labels, declared (required to fit: read from ``y``, a label that only one
        row has would be revealed; None is refused with a clear error).
    row_norm : {"l1", "l2"}, default="l1"
        Which norm of a count block's row ``row_length`` bounds. ``"l1"``: its total count
        (Laplace or Gaussian noise). ``"l2"``: its Euclidean norm, a row above it scaled down to
        norm ``row_length``; L2 sensitivity ``sqrt(2) * row_length`` whatever the number of
        columns, so the noise per cell does not grow with the vocabulary; needs
        ``mechanism="gaussian"`` (the L1 sensitivity of such rows grows with the number of columns).
    noise_prior : float, default=0.0
        Noise-aware smoothing of a count block: ``noise_prior`` noise standard deviations of
        pseudo-count added to every released cell (post-processing; ``>= 0``). A cell within a
        few noise sds of 0 cannot be told from 0; the pseudo-count keeps such cells from swinging
        ``log theta`` and vanishes as epsilon grows.
    class_share : float, optional
        The fraction ``0 < s < 1`` of the budget (of epsilon; of ``mu**2`` under the Gaussian
        mechanism, :meth:`Budget.split`) spent on the class counts; the rest is
        split over the blocks as usual. None: one share like every other statistic. A count
        block is one statistic, so by default the class counts take half the budget of a text
        model; they only set the class prior, and a small share (e.g. 0.05) leaves the rest to
        the word counts.

    Examples
    --------
    >>> DP(1.0, delta=1e-5, mechanism="gaussian", row_length=1.0, row_norm="l2").row_norm
    'l2'
    """

    epsilon: float
    delta: float = 0.0
    bounds: Any = None
    mechanism: str = "laplace"
    random_state: Any = None
    classes: Any = None
    row_length: Any = None
    row_norm: str = "l1"
    noise_prior: float = 0.0
    class_share: Any = None

    def __post_init__(self):
        eps, delta = self.epsilon, self.delta
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not math.isfinite(eps) or eps <= 0:
            raise ValueError(f"DP: epsilon must be a finite number > 0; received {eps!r}.")
        if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0 <= delta < 1:
            raise ValueError(f"DP: delta must be a number with 0 <= delta < 1; received {delta!r}.")
        if self.mechanism not in _MECHANISMS:
            raise ValueError(f"DP: mechanism must be 'laplace' or 'gaussian'; received {self.mechanism!r}.")
        if self.mechanism == "laplace" and delta != 0:
            raise ValueError(f"DP: the Laplace mechanism is pure epsilon-DP: delta must be 0; received {delta!r} "
                             "(use mechanism='gaussian' for (epsilon, delta)-DP).")
        if self.mechanism == "gaussian" and delta == 0:
            raise ValueError("DP: the Gaussian mechanism needs delta > 0 (e.g. 1e-6, well below 1/n); "
                             "received delta=0.")
        L = self.row_length
        if L is not None and (isinstance(L, bool) or not isinstance(L, numbers.Real) or not math.isfinite(L)
                              or L <= 0):
            raise ValueError(f"DP: row_length must be a finite number > 0 (the largest total count of a row of "
                             f"a count block) or None; received {L!r}.")
        self._check_count_settings()
        if self.bounds is not None:
            if not isinstance(self.bounds, dict):
                raise TypeError(f"DP: bounds must be a dict {{column: (lo, hi)}} or None; received "
                                f"{type(self.bounds).__name__}.")
            for key, b in self.bounds.items():
                ok = isinstance(b, (tuple, list)) and len(b) == 2 and all(
                    isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in b)
                if not ok or not b[0] < b[1]:
                    raise ValueError(f"DP: bounds[{key!r}] must be a pair of finite numbers (lo, hi) with "
                                     f"lo < hi; received {b!r}.")

    def _check_count_settings(self):
        if self.row_norm not in _ROW_NORMS:
            raise ValueError(f"DP: row_norm must be 'l1' or 'l2'; received {self.row_norm!r}.")
        if self.row_norm == "l2" and self.mechanism != "gaussian":
            raise ValueError("DP: row_norm='l2' bounds a row's Euclidean norm, which bounds only the L2 "
                             "sensitivity: it needs mechanism='gaussian' (with delta > 0); the Laplace mechanism "
                             "needs row_norm='l1'.")
        c = self.noise_prior
        if isinstance(c, bool) or not isinstance(c, numbers.Real) or not math.isfinite(c) or c < 0:
            raise ValueError(f"DP: noise_prior must be a finite number >= 0 (noise sds of pseudo-count); "
                             f"received {c!r}.")
        s = self.class_share
        if s is not None and (isinstance(s, bool) or not isinstance(s, numbers.Real) or not 0 < s < 1):
            raise ValueError(f"DP: class_share must be a number with 0 < class_share < 1, or None; received {s!r}.")

    def budget(self) -> Budget:
        """The whole budget, with its noise generator."""
        return Budget(float(self.epsilon), float(self.delta), self.mechanism,
                      np.random.default_rng(self.random_state))

    def as_dict(self) -> dict:
        """The setting as plain values (model files); ``DP(**d)`` rebuilds it."""
        bounds = None if self.bounds is None else {k: (float(v[0]), float(v[1])) for k, v in self.bounds.items()}
        rs = self.random_state if isinstance(self.random_state, numbers.Integral) else None
        classes = None if self.classes is None else list(np.asarray(self.classes).tolist())
        return {"epsilon": float(self.epsilon), "delta": float(self.delta), "bounds": bounds,
                "mechanism": self.mechanism, "random_state": rs, "classes": classes,
                "row_length": None if self.row_length is None else float(self.row_length),
                "row_norm": self.row_norm, "noise_prior": float(self.noise_prior),
                "class_share": None if self.class_share is None else float(self.class_share)}


@dataclass(frozen=True)
class Budget:
    """One share of a privacy budget, able to add noise calibrated to a query's sensitivity.

    Parameters
    ----------
    epsilon, delta : float
        The share.
    mechanism : {"laplace", "gaussian"}
    rng : numpy.random.Generator
    mu : float, optional
        Gaussian only: the share's ``L2 / sigma``, set by :meth:`split` (the noise then reads it
        directly); None: the ``mu`` of (epsilon, delta), :func:`gaussian_mu`.
    """

    epsilon: float
    delta: float
    mechanism: str
    rng: Any
    mu: Any = None

    def split(self, weights) -> list:
        """Shares in proportion to ``weights``, composing back to this budget.

        Laplace: basic composition, the epsilons add up. Gaussian: the composition of Gaussian
        mechanisms is exact in Gaussian differential privacy (Dong, Roth & Su 2022, Corollary 3.3):
        mechanisms of ``mu_i = L2_i / sigma_i`` compose to ``mu = sqrt(sum mu_i**2)``, and the
        budget's ``mu`` is the one whose privacy profile meets (epsilon, delta) (:func:`gaussian_mu`).
        Share ``i`` gets ``mu_i**2 = w_i mu**2`` (its :meth:`scale` is ``L2 / mu_i``) and is stated
        as the (epsilon_i, delta_i) that a ``mu_i``-GDP mechanism meets exactly, ``delta_i = w_i delta``
        (less where ``w_i delta`` exceeds half of ``mu_i``'s delta at epsilon 0). The epsilons of
        Gaussian shares do not add up, and one may exceed the whole budget's when delta is large.
        """
        w = np.asarray(weights, dtype=float)
        if not (w > 0).all():
            raise ValueError(f"Budget.split: every weight must be > 0; received {w.tolist()}.")
        w = w / w.sum()
        if self.mechanism == "laplace":
            return [Budget(self.epsilon * f, self.delta * f, self.mechanism, self.rng) for f in w]
        mu = self.mu if self.mu is not None else gaussian_mu(self.epsilon, self.delta)
        out = []
        for f in w:
            m = mu * math.sqrt(f)  # sum m**2 = mu**2: the noise reads m itself (scale)
            d = min(self.delta * f, 0.5 * _gdp_delta(m, 0.0))  # > 0: the share's epsilon is then > 0
            if not d > 0:
                raise ValueError(f"DP: a Gaussian share of mu={m:.3g} is too small to state as (epsilon, delta) "
                                 f"(epsilon={self.epsilon:g} split {len(w)} ways); give a larger epsilon.")
            out.append(Budget(gdp_epsilon(m, d), d, self.mechanism, self.rng, m))
        return out

    def scale(self, l1: float, l2: float) -> float:
        """The noise scale for a query of L1 sensitivity ``l1`` and L2 sensitivity ``l2``.

        Laplace: ``b = l1 / epsilon``; Gaussian: ``l2 / mu`` (the analytic ``sigma`` for ``l2``).
        """
        if self.mechanism == "laplace":
            return l1 / self.epsilon
        return l2 / self.mu if self.mu is not None else analytic_gaussian_sigma(l2, self.epsilon, self.delta)

    def count_scale(self, n_shares: int = 1) -> float:
        """The noise scale of one released count (L1 sensitivity 2, L2 ``sqrt(2)``: a replaced row moves one
        unit out of a cell and into another) drawn with one of ``n_shares`` equal shares of this budget."""
        share = self.split([1.0, n_shares - 1.0])[0] if n_shares > 1 else self
        return share.scale(2.0, math.sqrt(2.0))

    def noise_variance(self, l1: float, l2: float) -> float:
        """The variance of the noise :meth:`noisy` adds per entry: ``2 b**2`` (Laplace), ``sigma**2`` (Gaussian).

        A function of the public setting and the sensitivities only, so anything computed from it and
        the released values is post-processing.
        """
        s = self.scale(l1, l2)
        return 2.0 * s * s if self.mechanism == "laplace" else s * s

    def noisy(self, values, l1: float, l2: float) -> np.ndarray:
        """``values`` plus noise calibrated to the sensitivities of the whole array (a new array)."""
        values = np.asarray(values, dtype=float)
        s = self.scale(l1, l2)
        if self.mechanism == "laplace":
            return values + self.rng.laplace(0.0, s, size=values.shape)
        return values + self.rng.normal(0.0, s, size=values.shape)


def analytic_gaussian_sigma(l2: float, epsilon: float, delta: float) -> float:
    """The smallest noise sd making the Gaussian mechanism (epsilon, delta)-DP (Balle & Wang 2018).

    Solves ``Phi(D/(2s) - e s/D) - exp(e) Phi(-D/(2s) - e s/D) = delta`` for ``s`` (the exact
    privacy profile of the Gaussian mechanism), valid for every ``epsilon > 0``.

    Parameters
    ----------
    l2 : float
        L2 sensitivity ``D`` of the query.
    epsilon, delta : float

    Returns
    -------
    float
    """
    if l2 <= 0:
        return 0.0

    def excess(s):
        return _gdp_delta(l2 / s, epsilon) - delta

    hi = l2
    while excess(hi) > 0:
        hi *= 2
    lo = hi
    while excess(lo) <= 0 and lo > 1e-12 * l2:
        lo /= 2
    s = float(brentq(excess, lo, hi, xtol=1e-12 * l2, rtol=1e-14))
    step = 1e-13
    while excess(s) > 0:  # the root's safe side: never a delta above the one asked
        s, step = s * (1.0 + step), 2.0 * step
    return s


def _gdp_delta(mu: float, epsilon: float) -> float:
    """The privacy profile of a ``mu``-GDP mechanism (a Gaussian of ``L2 / sigma = mu``): the smallest delta
    with which it is (epsilon, delta)-DP (Balle & Wang 2018, Theorem 8). ``exp(epsilon) Phi(.)`` in log
    space: no overflow at a large epsilon."""
    a, b = mu / 2.0, epsilon / mu
    return float(ndtr(a - b) - math.exp(min(epsilon + log_ndtr(-a - b), 700.0)))


def gaussian_mu(epsilon: float, delta: float) -> float:
    """The ``mu`` of the Gaussian mechanism that is exactly (epsilon, delta)-DP: ``1 / sigma`` for L2 sensitivity 1.

    Parameters
    ----------
    epsilon, delta : float
        ``epsilon > 0``, ``0 < delta < 1``.

    Returns
    -------
    float
        ``L2 / sigma`` of :func:`analytic_gaussian_sigma`.
    """
    return 1.0 / analytic_gaussian_sigma(1.0, epsilon, delta)


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest epsilon with which a ``mu``-GDP mechanism is (epsilon, delta)-DP (the inverse of its profile).

    Parameters
    ----------
    mu : float
        ``> 0``.
    delta : float
        ``0 < delta < 2 Phi(mu / 2) - 1`` (above it, epsilon 0 already holds).

    Returns
    -------
    float
    """
    if not 0.0 < delta < _gdp_delta(mu, 0.0):
        raise ValueError(f"gdp_epsilon: need 0 < delta < {_gdp_delta(mu, 0.0):.3g} for mu={mu:g}; received {delta!r}.")
    hi = max(mu, 1.0)
    while _gdp_delta(mu, hi) > delta:
        hi *= 2.0
    return float(brentq(lambda e: _gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-15, rtol=1e-14))


def project_simplex(v, total: float) -> np.ndarray:
    """The Euclidean projection of ``v`` onto ``{x >= 0, sum(x) = total}``.

    Parameters
    ----------
    v : array-like of shape (K,)
    total : float, >= 0

    Returns
    -------
    ndarray of shape (K,)
    """
    return project_rows(np.asarray(v, dtype=float)[None, :], [total])[0]


def project_rows(v, totals=None) -> np.ndarray:
    """Each row of ``v`` projected (Euclidean) onto ``{x >= 0, sum(x) = total}`` (:func:`project_simplex` is one row).

    Parameters
    ----------
    v : array-like of shape (m, V)
    totals : array-like of shape (m,), optional
        The rows' totals; default: each row's own sum, floored at 0 (for released counts with
        noise: the total keeps its unbiased sum, and the projection only lowers cells, by one
        common amount per row, zeroing those under it; clipping each cell at 0 instead adds the
        positive part of the noise of every empty cell to the row).

    Returns
    -------
    ndarray of shape (m, V)
    """
    v = np.asarray(v, dtype=float)
    if v.size == 0:
        return v.copy()
    t = np.maximum(v.sum(axis=1) if totals is None else np.asarray(totals, dtype=float), 0.0)
    u = -np.sort(-v, axis=1)
    css = np.cumsum(u, axis=1) - t[:, None]
    idx = np.arange(1, v.shape[1] + 1)
    rho = np.sum(u - css / idx > 0, axis=1)  # the condition holds on a prefix: its length
    rho = np.maximum(rho, 1)
    tau = css[np.arange(len(v)), rho - 1] / rho
    out = np.maximum(v - tau[:, None], 0.0)
    out[t <= 0] = 0.0
    return out
