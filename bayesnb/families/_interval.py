"""Interval masses and truncated means of the numeric families' predictives (``NumericNode.predictive_bins``).

For a one-column posterior over ``C`` contexts and sorted finite cut points ``e_1 < ... < e_m``,
the ``B = m + 1`` intervals are ``(-inf, e_1], (e_1, e_2], ..., (e_m, inf)``. Each function here
returns ``(log_mass, mean)``, both ``(C, B)``: ``log P(lo < X <= hi | context)`` under the
family's predictive and ``E[X | context, lo < X <= hi]`` (NaN where the interval has no mass).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _stats
from scipy.special import log_ndtr, ndtr, ndtri

__all__ = ["bounds", "continuous_bins", "continuous_mass", "count_bins", "count_mass", "histogram_bins",
           "log_interval_mass", "mixture_at", "nig_loc_scale", "truncated_normal", "truncnorm_mean"]


class _Params:
    """``dist`` with its parameters, as ``dist(*args, **kwds)`` (frozen) reads them, without freezing: scipy
    builds a new distribution, docstring included, for each frozen one (about 1 ms, most of an interval
    mass of a few contexts). ``median()``, ``logcdf(x)``, ... call ``dist``'s own method with the parameters."""

    def __init__(self, dist, *args, **kwds):
        self.dist, self.args, self.kwds = dist, args, kwds

    def __getattr__(self, name):
        method = getattr(self.dist, name)
        return lambda *a: method(*a, *self.args, **self.kwds)


class _Normal:
    """``scipy.stats.norm(loc, scale)``'s ``median``, ``logcdf`` and ``logsf``, bit for bit (both are
    ``scipy.special.log_ndtr`` of the standardised value), without scipy's per-call argument checks, which
    cost more than the functions on the small arrays of an EM step (NaN where ``scale <= 0``, as there)."""

    def __init__(self, loc=0.0, scale=1.0):
        self.loc, self.scale = np.asarray(loc, dtype=float), np.asarray(scale, dtype=float)

    def median(self):
        return np.where(self.scale > 0, self.loc, np.nan)

    def _z(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.scale > 0, (np.asarray(x, dtype=float) - self.loc) / self.scale, np.nan)

    def logcdf(self, x):
        return log_ndtr(self._z(x))

    def logsf(self, x):
        return log_ndtr(-self._z(x))


def _location_scale(nu, loc, scale):
    """The Normal (``nu`` None) or Student-t predictive of ``loc`` and ``scale``."""
    return _Normal(loc, scale) if nu is None else _Params(_stats.t, nu, loc=loc, scale=scale)


def bounds(edges):
    """``(lo, hi)`` of the intervals the cut points make, each (1, B)."""
    e = np.concatenate([[-np.inf], np.asarray(edges, dtype=float).ravel(), [np.inf]])
    return e[None, :-1], e[None, 1:]


def log_interval_mass(dist, lo, hi):
    """``log P(lo < X <= hi)`` elementwise, stable in both tails (CDF differences left of the
    median, survival-function differences right of it)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # (-inf + inf) / 2: one whole-line interval, left side
        right = (lo + hi) / 2 > dist.median()
        a = np.where(right, dist.logsf(lo), dist.logcdf(hi))
        b = np.where(right, dist.logsf(hi), dist.logcdf(lo))
        return np.where(a == -np.inf, -np.inf, a + np.log1p(-np.exp(np.minimum(b - a, 0.0))))


def _bounded(lo, hi, *params):
    """Bounds as arrays and each parameter (C,) reshaped to broadcast against them: (C,) for scalar
    bounds, (C, 1) for bounds of shape (m,)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    shape = (-1,) + (1,) * lo.ndim
    return lo, hi, [None if p is None else np.asarray(p, dtype=float).reshape(shape) for p in params]


def continuous_mass(loc, scale, nu, lo, hi, log_scale=False):
    """``log P(lo <= X <= hi)`` of Normal (``nu`` None) or Student-t predictives with ``loc``,
    ``scale`` (C,): (C,) for float bounds, (C, m) for bounds of shape (m,); with ``log_scale``
    those of ``log X`` (LogNormal: ``X <= 0`` has no mass)."""
    lo, hi, (loc, scale, nu) = _bounded(lo, hi, loc, scale, nu)
    if log_scale:
        with np.errstate(divide="ignore"):
            lo, hi = np.log(np.maximum(lo, 0.0)), np.log(np.maximum(hi, 0.0))
    empty = (lo > hi) | (hi == -np.inf)
    dist = _location_scale(nu, loc, scale)
    shape = np.broadcast_shapes(loc.shape, lo.shape)
    out = log_interval_mass(dist, np.broadcast_to(np.where(empty, -np.inf, lo), shape),
                            np.broadcast_to(np.where(empty, -np.inf, hi), shape))
    return np.where(empty, -np.inf, out)


def count_mass(make, lo, hi, *params):
    """``log P(lo <= X <= hi)`` of whole-number predictives ``make(*params)`` (params (C,)): the whole
    numbers ``ceil(lo)..floor(hi)``; (C,) for float bounds, (C, m) for bounds of shape (m,)."""
    lo, hi, params = _bounded(lo, hi, *params)
    a, b = np.ceil(lo) - 1.0, np.floor(hi)
    empty = a >= b
    with np.errstate(invalid="ignore", divide="ignore"):
        dist = make(*params)
        shape = np.broadcast_shapes(params[0].shape, lo.shape)
        out = log_interval_mass(dist, np.broadcast_to(np.where(empty, 0.0, a), shape),
                                np.broadcast_to(np.where(empty, 1.0, b), shape))
    return np.where(empty, -np.inf, out)


def truncated_normal(m, s, lo, hi, rng):
    """Draws from ``Normal(m, s)`` (n,) truncated to ``[lo, hi]`` (floats or (n,)): the inverse CDF of a uniform
    draw between the bounds' CDFs, in the nearer tail's terms; scipy's truncnorm where even that underflows
    (a range beyond ~37 sd)."""
    a, b = np.broadcast_to((lo - m) / s, m.shape), np.broadcast_to((hi - m) / s, m.shape)
    flip = a > 0  # both bounds above the mean: work in the upper tail, -x
    pa, pb = ndtr(np.where(flip, -b, a)), ndtr(np.where(flip, -a, b))
    with np.errstate(invalid="ignore"):
        t = ndtri(pa + rng.random(m.shape) * (pb - pa))
    x = m + s * np.where(flip, -t, t)
    bad = ~(pb - pa > 1e-250) | ~np.isfinite(x)
    if bad.any():
        x[bad] = _stats.truncnorm.rvs(a[bad], b[bad], loc=m[bad], scale=s[bad], size=int(bad.sum()), random_state=rng)
    return x


def truncnorm_mean(a, b, loc, scale) -> np.ndarray:
    """``scipy.stats.truncnorm.mean(a, b, loc=loc, scale=scale)`` bit for bit, without its per-element loop.

    scipy computes all four moments of each element in a Python function (``np.vectorize``; ~0.4 ms an
    element); its mean is ``loc + scale (pdf(a) - pdf(b))`` with the truncated density's ``pdf``, vectorised
    here, NaN where ``a < b``, ``scale > 0`` or a finite ``loc`` fails as there.
    """
    a, b, loc, scale = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, loc, scale)))
    cond = (a < b) & (scale > 0) & (loc == loc)
    out = np.full(cond.shape, np.nan)
    if cond.any():
        ag, bg = a[cond], b[cond]
        pa, pb = _stats.truncnorm.pdf(np.stack([ag, bg]), ag, bg)  # one call: scipy's checks cost more than the pdf
        out[cond] = (pa - pb) * scale[cond] + loc[cond]
    return out


def _t_partial_mean(nu, a, b, std_mass):
    """``E[T | a < T <= b]`` of a standard Student-t with ``nu > 1`` degrees of freedom."""
    def g(t):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.where(np.isfinite(t), (nu + np.nan_to_num(t) ** 2) * _stats.t.pdf(t, nu), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (g(a) - g(b)) / ((nu - 1) * std_mass)


def continuous_bins(loc, scale, nu, edges, log_scale=False):
    """Normal (``nu`` None) or Student-t (``nu`` degrees of freedom) predictives, (C, 1) each.

    With ``log_scale`` the distribution is that of ``log x`` (LogNormal): the cut points are
    values of ``x`` (``x <= 0`` is ``log x = -inf``) and the means are means of ``x``, those of
    the Normal with the same location and scale (a log-Student-t has no mean).
    """
    lo_x, hi_x = lo, hi = bounds(edges)
    if log_scale:
        with np.errstate(divide="ignore", invalid="ignore"):
            lo, hi = np.log(np.maximum(lo, 0.0)), np.log(np.maximum(hi, 0.0))
    loc, scale = np.asarray(loc, dtype=float), np.asarray(scale, dtype=float)
    dist = _location_scale(nu, loc, scale)
    logm = log_interval_mass(dist, lo, hi)
    a, b = (lo - loc) / scale, (hi - loc) / scale
    if log_scale:  # E[e^L; a < L <= b] = e^{mu + s^2/2} P(a - s < Z <= b - s), Z standard normal
        shifted = log_interval_mass(_Normal(), a - scale, b - scale)
        with np.errstate(invalid="ignore", over="ignore"):
            mean = np.exp(loc + scale ** 2 / 2 + shifted - log_interval_mass(_Normal(), a, b))
    elif nu is None:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            mean = truncnorm_mean(a, b, loc, scale)
    else:
        mean = loc + scale * _t_partial_mean(nu, a, b, np.exp(logm))
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(mean) | (logm == -np.inf)
        return logm, np.where(bad, np.nan, np.clip(mean, lo_x, hi_x))


def count_bins(dist, dist_shifted, scale, edges):
    """Whole-number predictives: ``dist`` (C, 1) of ``X``; ``E[X; X <= m] = scale * P(X' <= m - 1)``
    with ``X' ~ dist_shifted`` (Poisson: the same; negative binomial ``NB(r, p)``: ``NB(r + 1, p)``)."""
    lo_x, hi_x = lo, hi = bounds(edges)
    # a node's state s holds the values in [e_(s-1), e_s) (``searchsorted(edges, x, side="right")``):
    # the whole numbers in [lo, hi) are those in (ceil lo - 1, ceil hi - 1]
    lo, hi = np.ceil(lo) - 1.0, np.ceil(hi) - 1.0
    logm = log_interval_mass(dist, lo, hi)
    part = np.exp(log_interval_mass(dist_shifted, lo - 1, hi - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = scale * part / np.exp(logm)
    return logm, np.where(np.isfinite(mean) & (logm > -np.inf), np.clip(mean, lo_x, hi_x), np.nan)


def histogram_bins(probs, hist_edges, integer, edges, bin_means=None):
    """A histogram predictive: bin ``b`` of ``hist_edges`` (B_h + 1,) has probability ``probs[:, b]``
    spread uniformly over it (over its whole numbers when ``integer``). The mean of the part of a bin
    in an interval is the part's midpoint, or ``bin_means[b]`` (B_h,) for a whole bin."""
    lo, hi = bounds(edges)
    h = np.asarray(hist_edges, dtype=float)
    a, b = h[:-1][:, None], h[1:][:, None]  # (B_h, 1)
    if integer:  # whole numbers in the state's [lo, hi) and in the bin [a, b) (half-integer edges)
        first, last = np.maximum(np.ceil(lo), np.ceil(a)), np.minimum(np.ceil(hi) - 1, np.ceil(b) - 1)
        n = np.maximum(last - first + 1, 0.0)
        frac = n / np.maximum(np.ceil(b) - np.ceil(a), 1.0)
        mid = np.where(n > 0, (first + last) / 2, 0.0)
    else:
        left, right = np.maximum(lo, a), np.minimum(hi, b)
        frac = np.maximum(right - left, 0.0) / np.maximum(b - a, np.finfo(float).tiny)
        mid = np.where(frac > 0, (left + right) / 2, 0.0)
    if bin_means is not None:
        whole = np.isclose(frac, 1.0) & np.isfinite(np.asarray(bin_means, dtype=float))[:, None]
        mid = np.where(whole, np.asarray(bin_means, dtype=float)[:, None], mid)
    mass = np.asarray(probs, dtype=float) @ frac  # (C, B)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (np.asarray(probs, dtype=float) @ (frac * mid)) / mass
        return np.log(mass), np.where(mass > 0, mean, np.nan)


def mixture_at(pi, at, base_logm, base_mean, edges):
    """A point mass ``pi`` (C, 1) at ``at`` and ``1 - pi`` times a base predictive (its bins' log
    masses and means)."""
    lo, hi = bounds(edges)
    inside = ((lo <= at) & (at < hi)).astype(float)  # the state [lo, hi) that holds the point
    q = np.exp(base_logm) * (1.0 - pi)
    mass = pi * inside + q
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (pi * inside * at + q * np.nan_to_num(base_mean)) / mass
        return np.log(mass), np.where(mass > 0, mean, np.nan)


def nig_loc_scale(post, predictive):
    """``(loc, scale, nu)`` of a Normal-Inverse-Gamma's predictive: Normal plug-in (``"mean"``, ``nu``
    None) or Student-t (``"marginal"``)."""
    mu, a, b, kappa = (np.asarray(f, dtype=float) for f in (post.mu, post.a, post.b, post.kappa))
    with np.errstate(invalid="ignore", divide="ignore"):
        if predictive == "marginal":
            return mu, np.sqrt(b * (kappa + 1) / (a * kappa)), 2 * a
        return mu, np.sqrt(b / a), None
