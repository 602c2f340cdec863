"""Categorical features with a Dirichlet prior (Dirichlet-categorical).

For class ``k`` and feature ``j`` with values ``v = 1..V_j``::

    theta[k, j, :] ~ Dirichlet(alpha_j)            alpha_j[v] > 0 (or 0: maximum likelihood)
    x[i, j] | y=k  ~ Categorical(theta[k, j, :])

    posterior     Dirichlet(alpha_j + n[k, j, :])
    plug-in       p(v | k) = (n[k,j,v] + alpha_j[v]) / (n[k,j] + sum(alpha_j))   (additive smoothing)
    exact         the same number (the posterior predictive of one draw is the posterior mean)
    evidence      log B(alpha + n) - log B(alpha)      with B the multivariate Beta function

Values may be strings, ints, bools, floats or pandas categoricals. The categories of
a feature are the values seen in training (sorted), the declared ``categories``, or a
pandas categorical's declared categories. A value never seen in training gets the
probability of a zero-count value, ``a / (n[k,j] + sum(alpha_j) + a)`` with ``a`` the
mean prior pseudo-count of the feature: the predictive it would have had if it had
been listed as a category all along. The m-estimate of the lecture notes,
``(n_c + m p) / (n + m)``, is ``alpha_j[v] = m * p[v]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from .._utils import missing_mask
from ._base import Family, check_alpha, dirichlet_draws, draw_categories, maximise_evidence

__all__ = [
    "Categorical",
    "CategoricalEncoding",
    "CategoricalStats",
    "Dirichlets",
    "encode",
    "suff_stats",
    "update",
    "log_likelihood",
    "log_evidence",
]


class CategoricalEncoding(NamedTuple):
    """Learned category lists.

    Attributes
    ----------
    categories : tuple of ndarray
        ``categories[j]`` has shape (V_j,): the values of feature ``j``; position = code.
    declared : tuple of bool
        Whether feature ``j``'s categories were declared (kept in the given order).
    """

    categories: tuple
    declared: tuple


class CategoricalStats(NamedTuple):
    """Sufficient statistics.

    Attributes
    ----------
    counts : tuple of ndarray
        ``counts[j]`` has shape (K, V_j): weighted count of value ``v`` of feature
        ``j`` among rows of class ``k`` (missing cells left out).
    """

    counts: tuple


class Dirichlets(NamedTuple):
    """Dirichlet parameters, one Dirichlet per (class, feature): prior and posterior alike.

    Attributes
    ----------
    concentration : tuple of ndarray
        ``concentration[j]`` has shape (K, V_j).
    """

    concentration: tuple


# --------------------------------------------------------------------------- encoding
def _columns(X):
    """Yield ``(name, values (n,), declared categories or None)`` for each column."""
    if hasattr(X, "iloc"):
        import pandas as pd

        for name in X.columns:
            s = X[name]
            declared = None
            if isinstance(s.dtype, pd.CategoricalDtype):
                declared = np.asarray(s.cat.categories.to_numpy())
            yield name, s.to_numpy(dtype=object) if s.dtype.kind not in "biufcU" else s.to_numpy(), declared
    else:
        X = np.asarray(X)
        for j in range(X.shape[1]):
            yield j, X[:, j], None


def _sorted_unique(values, who, name):
    import pandas as pd

    uniq = pd.unique(values) if values.dtype == object else np.unique(values)
    try:
        return np.asarray(np.sort(uniq), dtype=values.dtype if values.dtype != object else object)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniq})
        raise TypeError(
            f"{who}: feature {name!r} mixes value types {kinds}; a categorical feature "
            "expects values of one type (e.g. all strings or all integers)."
        ) from None


def _indexer(categories, values):
    import pandas as pd

    return pd.Index(categories).get_indexer(values)


def encode(X, state=None, *, categories="auto", min_categories=None, extend=False, who="Categorical"):
    """Map a block of categorical values to integer codes.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
    state : CategoricalEncoding or None
        None learns the categories (fit). Otherwise values are coded against it.
    categories : "auto", list, or list of lists
        Declared categories: one list shared by every feature, or one per feature.
    min_categories : int, array-like or None
        scikit-learn's CategoricalNB option: integer features get at least the
        categories ``0 .. min_categories - 1``.
    extend : bool
        With a ``state``: add values not seen before as new categories (partial_fit).
    who : str

    Returns
    -------
    codes : ndarray of int64, shape (n_samples, n_features)
        ``-1`` marks a missing cell, ``V_j`` a value not among the categories.
    state : CategoricalEncoding
    """
    cols = list(_columns(X))
    n = len(cols[0][1]) if cols else 0
    codes = np.empty((n, len(cols)), dtype=np.int64)
    new_cats, new_decl = [], []
    for j, (name, values, pd_declared) in enumerate(cols):
        miss = missing_mask(values)
        observed = values[~miss]
        if state is None or extend:
            declared = _declared(categories, min_categories, j, len(cols), pd_declared, who)
            if declared is not None:
                cats, is_decl = declared, True
            else:
                seen = _sorted_unique(observed, who, name) if observed.size else np.array([], dtype=object)
                if state is not None:
                    old = state.categories[j]
                    if state.declared[j]:
                        cats, is_decl = old, True
                    else:
                        both = np.concatenate([np.asarray(old, dtype=object), np.asarray(seen, dtype=object)])
                        cats, is_decl = _sorted_unique(both, who, name), False
                else:
                    cats, is_decl = seen, False
            if min_categories is not None and not is_decl:
                cats = _with_min_categories(cats, min_categories, j, who)
        else:
            cats, is_decl = state.categories[j], state.declared[j]
        idx = _indexer(cats, observed) if observed.size else np.array([], dtype=np.int64)
        if (state is None or extend) and is_decl and np.any(idx < 0):
            bad = observed[idx < 0][:5]
            raise ValueError(
                f"{who}: feature {name!r} has value(s) {list(bad)} that are not among its "
                f"declared categories {list(cats)}."
            )
        col = np.full(n, -1, dtype=np.int64)
        col[~miss] = np.where(idx < 0, len(cats), idx)
        codes[:, j] = col
        new_cats.append(cats)
        new_decl.append(is_decl)
    return codes, CategoricalEncoding(tuple(new_cats), tuple(new_decl))


def _declared(categories, min_categories, j, d, pd_declared, who):
    if isinstance(categories, str):
        if categories != "auto":
            raise ValueError(f"{who}: categories must be 'auto' or a list; received {categories!r}.")
        return pd_declared
    cats = list(categories)
    if cats and all(isinstance(c, (list, tuple, np.ndarray)) for c in cats):
        if len(cats) != d:
            raise ValueError(
                f"{who}: categories has {len(cats)} lists but the block has {d} feature(s)."
            )
        return np.asarray(cats[j], dtype=object)
    return np.asarray(cats, dtype=object)


def _with_min_categories(cats, min_categories, j, who):
    m = np.asarray(min_categories)
    m = int(m if m.ndim == 0 else m[j])
    if m < 0:
        raise ValueError(f"{who}: min_categories must be >= 0; received {m}.")
    values = list(cats)
    if cats.size and any(isinstance(c, (bool, np.bool_)) for c in values):
        if not all(isinstance(c, (bool, np.bool_, int, np.integer)) for c in values):
            return cats
        # booleans keep their type: False and True stand for 0 and 1 (as in scikit-learn,
        # which casts them), and categories 2 .. m-1 are added as integers; casting the
        # categories to 0/1 would leave every True/False value unmatched (no training data)
        bools = [b for b in (False, True) if b in values or int(b) < m]
        ints = sorted({int(c) for c in values if not isinstance(c, (bool, np.bool_))} | set(range(2, m)))
        return np.array(bools + ints, dtype=object)
    if cats.size and cats.dtype.kind not in "iu" and not (
        cats.dtype == object and all(isinstance(c, (int, np.integer)) for c in cats)
    ):
        return cats
    full = np.union1d(np.asarray(cats, dtype=np.int64), np.arange(m, dtype=np.int64))
    return full


def reindex_stats(stats: CategoricalStats, old: CategoricalEncoding, new: CategoricalEncoding):
    """Move statistics coded against ``old`` categories onto ``new`` (a superset)."""
    out = []
    for c, oc, nc in zip(stats.counts, old.categories, new.categories):
        moved = np.zeros((c.shape[0], len(nc)))
        if len(oc):
            moved[:, _indexer(nc, oc)] = c
        out.append(moved)
    return CategoricalStats(tuple(out))


# --------------------------------------------------------------------- statistics
def suff_stats(codes: np.ndarray, resp: np.ndarray, state: CategoricalEncoding) -> CategoricalStats:
    """Weighted category counts per class.

    Parameters
    ----------
    codes : ndarray of int64, shape (n, d)
        From :func:`encode`; ``-1`` (missing) and ``V_j`` (unseen) are left out.
    resp : ndarray of shape (n, K)
        Class responsibilities (one-hot labels times sample weights, or EM weights).
    state : CategoricalEncoding

    Returns
    -------
    CategoricalStats
    """
    K = resp.shape[1]
    counts = []
    for j, cats in enumerate(state.categories):
        V = len(cats)
        c = codes[:, j]
        ok = (c >= 0) & (c < V)
        cj = np.empty((K, V))
        for k in range(K):
            cj[k] = np.bincount(c[ok], weights=resp[ok, k], minlength=V)
        counts.append(cj)
    return CategoricalStats(tuple(counts))


def prior_concentration(alpha, state: CategoricalEncoding, K: int, who: str) -> Dirichlets:
    """Broadcast ``alpha`` (scalar, per-value array, per-feature list or dict) to (K, V_j)."""
    out = []
    d = len(state.categories)
    for j, cats in enumerate(state.categories):
        V = len(cats)
        if isinstance(alpha, dict):
            try:
                a = np.array([alpha[c] for c in cats], dtype=float)
            except KeyError as e:
                raise ValueError(f"{who}: alpha has no entry for category {e.args[0]!r}.") from None
        elif isinstance(alpha, (list, tuple)) and len(alpha) == d and np.ndim(alpha[0]) == 1:
            a = np.asarray(alpha[j], dtype=float)
        else:
            a = np.asarray(alpha, dtype=float)
        if a.ndim == 0:
            a = np.full(V, float(a))
        if a.shape != (V,):
            raise ValueError(
                f"{who}: feature {j} has {V} categories {list(cats)[:10]} but its alpha has "
                f"shape {a.shape}; give one alpha per category (in category order)."
            )
        if np.any(a < 0) or not np.all(np.isfinite(a)):
            raise ValueError(f"{who}: alpha must be finite and >= 0; received {a!r}.")
        out.append(np.broadcast_to(a, (K, V)).copy())
    return Dirichlets(tuple(out))


def update(prior: Dirichlets, stats: CategoricalStats) -> Dirichlets:
    """Conjugate update: posterior concentration = prior + counts (the only smoothing)."""
    return Dirichlets(tuple(a + n for a, n in zip(prior.concentration, stats.counts)))


def log_probs(post: Dirichlets):
    """Posterior-mean log probabilities, one (K, V_j) array per feature.

    A (class, feature) with no data and an improper prior (alpha=0) has no defined
    probabilities; its row is set to 0 (the factor is dropped) rather than NaN.
    """
    out = []
    for a in post.concentration:
        tot = a.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.log(a) - np.log(tot)
        lp[np.broadcast_to(tot == 0, lp.shape)] = 0.0
        out.append(lp)
    return out


def log_likelihood(prior: Dirichlets, post: Dirichlets, codes: np.ndarray) -> np.ndarray:
    """``log p(x_block | y=k)`` under the posterior predictive (= posterior mean).

    Missing cells contribute 0 (marginalised). Values never seen in training get the
    probability of a zero-count category with pseudo-count ``mean(alpha_j)``.

    Returns
    -------
    ndarray of shape (n, K)
    """
    n = codes.shape[0]
    K = post.concentration[0].shape[0] if post.concentration else 0
    out = np.zeros((n, K))
    for j, table in enumerate(code_log_tables(prior, post)):
        out += table[:, codes[:, j]].T  # code -1 (missing) picks the last column, 0
    return out


def code_log_tables(prior: Dirichlets, post: Dirichlets):
    """Per feature, a (K, V_j + 2) table of ``log p(code | y=k)`` indexed by code.

    Columns ``0..V_j-1`` are the categories, column ``V_j`` a value unseen in training
    (pseudo-count ``mean(alpha_j)``), and the last column (code ``-1``: missing) is 0.
    """
    tables = []
    for lp, a, a0 in zip(log_probs(post), post.concentration, prior.concentration):
        K, V = a.shape
        tot = a.sum(axis=1)
        a_new = a0.mean(axis=1) if V else np.ones(K)
        with np.errstate(divide="ignore", invalid="ignore"):
            unseen = np.log(a_new) - np.log(tot + a_new)
        unseen[tot + a_new == 0] = 0.0  # no data, alpha=0: the factor is dropped, as in log_probs
        tables.append(np.concatenate([lp, unseen[:, None], np.zeros((K, 1))], axis=1))
    return tables


def log_evidence(prior: Dirichlets, post: Dirichlets) -> np.ndarray:
    """Closed-form ``log p(x_block | y)`` of the training data, per class, shape (K,).

    Undefined (NaN) when a prior pseudo-count is 0; callers check :func:`is_proper`.
    """
    total = 0.0
    for a0, a in zip(prior.concentration, post.concentration):
        if a.shape[1] == 0:  # no category at all (an all-missing feature): nothing observed, log 1
            continue
        total = total + (
            gammaln(a0.sum(1)) - gammaln(a.sum(1)) + (gammaln(a) - gammaln(a0)).sum(1)
        )
    return np.asarray(total) * np.ones(post.concentration[0].shape[0] if post.concentration else 0)


def is_proper(prior: Dirichlets) -> bool:
    """True when every prior pseudo-count is > 0 (so the evidence is defined)."""
    return all(np.all(a > 0) for a in prior.concentration)


# ------------------------------------------------------------------------ family
class Categorical(Family):
    """Categorical feature block with a Dirichlet prior per (class, feature).

    Parameters
    ----------
    alpha : float, "auto", array-like or dict, default=1.0
        Dirichlet pseudo-count per value. 1 is Laplace smoothing, 0.5 Jeffreys, 0
        maximum likelihood (the zero-frequency problem is then reported, never NaN).
        An array gives one pseudo-count per category (in category order), a dict maps
        category -> pseudo-count, a list of arrays gives one array per feature.
        ``"auto"`` picks the scalar that maximises the closed-form evidence.
    categories : "auto" or list or list of lists, default="auto"
        Declared categories (shared, or one list per feature). Declared categories may
        include values never seen in training; values outside them are an error in fit.
    m, p : float and float/array/dict, optional
        The m-estimate ``(n_c + m p) / (n + m)``: sets ``alpha = m * p``. ``p`` defaults
        to uniform ``1 / V_j``. Leave ``alpha`` at its default when using ``m``.
    min_categories : int or array-like, optional
        As scikit-learn's CategoricalNB, for integer-coded features.

    Examples
    --------
    >>> Categorical.m_estimate(m=3, p=1/3)
    Categorical(alpha=1.0, categories='auto', m=3, p=0.3333333333333333, min_categories=None)
    """

    _param_names = ("alpha", "categories", "m", "p", "min_categories")
    name = "categorical"
    raw_values = True

    def __init__(self, alpha=1.0, *, categories="auto", m=None, p=None, min_categories=None):
        self.alpha = alpha
        self.categories = categories
        self.m = m
        self.p = p
        self.min_categories = min_categories

    @classmethod
    def m_estimate(cls, m, p=None, **kwargs):
        """The m-estimate ``(n_c + m p) / (n + m)`` as a Dirichlet prior ``alpha = m * p``.

        Parameters
        ----------
        m : float
            Equivalent sample size (number of virtual samples).
        p : float, array-like or dict, optional
            Prior estimate of each value's probability; uniform ``1/V`` by default.
        """
        return cls(m=m, p=p, **kwargs)

    # -- contract
    def encode(self, X, state=None, *, extend=False, who="Categorical"):
        """See :func:`encode`."""
        return encode(
            X, state, categories=self.categories, min_categories=self.min_categories,
            extend=extend, who=who,
        )

    def empty_stats(self, state, K):
        """Zero statistics for ``K`` classes."""
        return CategoricalStats(tuple(np.zeros((K, len(c))) for c in state.categories))

    def stats(self, codes, resp, state):
        """See :func:`suff_stats`."""
        return suff_stats(codes, resp, state)

    def reindex_stats(self, stats, old_state, new_state):
        """See :func:`reindex_stats`."""
        return reindex_stats(stats, old_state, new_state)

    def merge(self, a, b):
        """Add counts feature by feature."""
        return CategoricalStats(tuple(x + y for x, y in zip(a.counts, b.counts)))

    def _alpha_spec(self, who):
        if self.m is None:
            if isinstance(self.alpha, (list, tuple)) and self.alpha and all(np.ndim(a) == 1 for a in self.alpha):
                return [check_alpha(a, who) for a in self.alpha]  # one array per feature (ragged)
            return check_alpha(self.alpha, who) if not isinstance(self.alpha, dict) else self.alpha
        if not (isinstance(self.alpha, (int, float)) and self.alpha == 1.0):
            raise ValueError(f"{who}: give either alpha or the m-estimate (m, p), not both.")
        m = float(self.m)
        if not np.isfinite(m) or m < 0:
            raise ValueError(f"{who}: m must be a finite number >= 0; received {self.m!r}.")
        return ("m", m, self.p)

    def make_prior(self, stats, state, who="Categorical"):
        """Prior Dirichlets for the block (resolving ``"auto"`` and the m-estimate)."""
        K = stats.counts[0].shape[0] if stats.counts else 1
        spec = self._alpha_spec(who)
        if isinstance(spec, tuple):
            _, m, p = spec
            if p is None:
                alpha = [np.full(len(c), m / max(len(c), 1)) for c in state.categories]
                return Dirichlets(tuple(np.broadcast_to(a, (K, len(a))).copy() for a in alpha))
            if isinstance(p, dict):
                return prior_concentration({k: m * float(v) for k, v in p.items()}, state, K, who)
            return prior_concentration(m * np.asarray(p, dtype=float), state, K, who)
        if isinstance(spec, str):  # "auto"
            def ev(a):
                pr = prior_concentration(a, state, K, who)
                return float(log_evidence(pr, update(pr, stats)).sum())

            spec = maximise_evidence(ev)
        return prior_concentration(spec, state, K, who)

    def update(self, prior, stats):
        """See :func:`update`."""
        return update(prior, stats)

    def log_likelihood(self, prior, post, codes, predictive="mean"):
        """See :func:`log_likelihood` (``"mean"`` and ``"marginal"`` coincide)."""
        return log_likelihood(prior, post, codes)

    def log_evidence(self, prior, post):
        """See :func:`log_evidence`."""
        return log_evidence(prior, post)

    def is_proper(self, prior):
        """See :func:`is_proper`."""
        return is_proper(prior)

    def all_missing(self, codes):
        """Columns missing in every row, bool (d,)."""
        return (codes < 0).all(axis=0) if codes.shape[0] else np.zeros(codes.shape[1], bool)


# ---- generative pieces (generative.py) ----
# A "point" is a Dirichlets whose normalised rows are the probabilities in use: the
# posterior itself (plug-in = posterior mean) or one exact draw (parameter uncertainty).
def gen_point(prior: Dirichlets, post: Dirichlets, rng=None) -> Dirichlets:
    """Plug-in (``rng=None``: the posterior itself) or one exact Dirichlet draw per (class, feature).

    ``post`` may be the prior for prior-predictive draws. A row with no mass (alpha=0
    and no data) stays all-zero (its factor is dropped, as in :func:`log_likelihood`).
    """
    if rng is None:
        return post
    return Dirichlets(tuple(dirichlet_draws(a, 1, rng)[0] for a in post.concentration))


def gen_probs(point: Dirichlets):
    """Normalised probabilities, one (K, V_j) array per feature (uniform for empty rows)."""
    out = []
    for a in point.concentration:
        tot = a.sum(axis=1, keepdims=True)
        V = a.shape[1]
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(tot > 0, a / np.where(tot > 0, tot, 1.0), 1.0 / max(V, 1)))
    return out


def gen_sample(point: Dirichlets, z: np.ndarray, rng, lengths=None) -> np.ndarray:
    """Codes (n, d) drawn from ``x_j | y = z[i]`` (categories by position)."""
    P = gen_probs(point)
    out = np.empty((z.shape[0], len(P)), dtype=np.int64)
    for j, Pj in enumerate(P):
        out[:, j] = draw_categories(Pj[z], rng.random(z.shape[0])) if Pj.shape[1] else -1
    return out


def gen_missing(codes: np.ndarray) -> np.ndarray:
    """Bool (n, d) mask of missing cells."""
    return codes < 0


def gen_fill(point: Dirichlets, codes, resp, strategy, z=None, rng=None, rate=None):
    """Codes with the missing cells filled; observed cells are returned unchanged.

    ``strategy="mode"`` (or ``"mean"``, which has no meaning for unordered values and
    also takes the most probable value of ``sum_k resp[i, k] p(v | k)``) or ``"draw"``
    (from ``p(v | y = z[i])``).
    """
    out = codes.copy()
    P = gen_probs(point)
    for j, Pj in enumerate(P):
        rows = np.flatnonzero(codes[:, j] < 0)
        if rows.size == 0 or Pj.shape[1] == 0:
            continue
        if strategy == "draw":
            out[rows, j] = draw_categories(Pj[z[rows]], rng.random(rows.size))
        else:
            out[rows, j] = np.argmax(resp[rows] @ Pj, axis=1)
    return out


def gen_cell_log_lik(prior: Dirichlets, point: Dirichlets, codes, weights, predictive="mean") -> np.ndarray:
    """Per-feature ``sum_k weights[i, k] log p(x_ij | y=k)``, shape (n, d); missing -> 0."""
    n, d = codes.shape
    out = np.zeros((n, d))
    for j, table in enumerate(code_log_tables(prior, point)):
        vals = table[:, codes[:, j]].T  # (n, K); missing (code -1) -> 0
        with np.errstate(invalid="ignore"):
            out[:, j] = np.where(weights > 0, weights * vals, 0.0).sum(axis=1)
    return out


def gen_log_penalty(prior: Dirichlets, point: Dirichlets) -> float:
    """``sum alpha log theta``: the log prior whose MAP is the posterior mean (EM objective)."""
    total = 0.0
    for lp, a0 in zip(log_probs(point), prior.concentration):
        with np.errstate(invalid="ignore"):
            total += float(np.where(a0 > 0, a0 * lp, 0.0).sum())
    return total


def gen_empty_columns(state: CategoricalEncoding) -> np.ndarray:
    """Bool (d,): features with no category at all (missing in every training row, none
    declared). Their posterior is the prior over zero values: nothing can be drawn, so
    sampling and imputation leave their cells missing (None)."""
    return np.array([len(c) == 0 for c in state.categories], dtype=bool)


def gen_decode(codes: np.ndarray, state: CategoricalEncoding):
    """Category values per column (a list of object arrays); -1 -> None."""
    out = []
    for j, cats in enumerate(state.categories):
        c = codes[:, j]
        col = np.empty(c.shape[0], dtype=object)
        ok = (c >= 0) & (c < len(cats))
        col[ok] = np.asarray(cats, dtype=object)[c[ok]]
        col[~ok] = None
        out.append(col)
    return out


# ---- posterior draws and NumPyro pieces (model.py) ----
#: names of the parameter variables in draws and ArviZ output (``sample_params`` keys)
PARAM_NAMES = ("theta",)
# Exact conjugate draws (NumPy) and the pieces model.py assembles into the one NumPyro
# model. Parameterisation shared by both: ``theta`` of shape (K, d, V_max), the
# probabilities of each value, NaN where feature j has fewer than V_max values.


def _pad(arrays, fill):
    """Stack (..., V_j) arrays along a new feature axis, padded to V_max with ``fill``."""
    vmax = max((a.shape[-1] for a in arrays), default=0)
    lead = arrays[0].shape[:-1] if arrays else ()
    out = np.full(lead + (len(arrays), vmax), fill, dtype=float)
    for j, a in enumerate(arrays):
        out[..., j, : a.shape[-1]] = a
    return out


def sample_params(post: Dirichlets, n_draws: int, rng) -> dict:
    """Exact posterior draws: ``{"theta": (n_draws, K, d, V_max)}``, NaN-padded."""
    draws = [dirichlet_draws(a, n_draws, rng) for a in post.concentration]
    return {"theta": _pad(draws, np.nan)}


def posterior_moments(post: Dirichlets) -> dict:
    """Closed-form posterior mean and sd: ``{"theta": (mean, sd)}``, each (K, d, V_max)."""
    means, sds = [], []
    for a in post.concentration:
        a0 = a.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = a / a0
            sds.append(np.sqrt(m * (1 - m) / (a0 + 1)))
        means.append(m)
    return {"theta": (_pad(means, np.nan), _pad(sds, np.nan))}


def posterior_from_params(params: dict) -> Dirichlets:
    """A posterior whose plug-in equals the given ``theta`` (K, d, V_max) (one draw)."""
    theta = params["theta"]
    out = []
    for j in range(theta.shape[1]):
        t = theta[:, j]
        out.append(t[:, ~np.isnan(t).any(axis=0)])
    return Dirichlets(tuple(out))


def numpyro_static(prior: Dirichlets):
    """Hashable structure: the number of values of each feature."""
    return tuple(int(a.shape[1]) for a in prior.concentration)


def numpyro_prior_args(prior: Dirichlets) -> dict:
    """Prior pseudo-counts as one padded (K, d, V_max) float32 array (pads = 1, unused)."""
    return {"alpha": _pad(list(prior.concentration), 1.0).astype(np.float32)}


def _groups(static):
    """Features grouped by their number of values: {V: indices}."""
    groups = {}
    for j, V in enumerate(static):
        groups.setdefault(V, []).append(j)
    return groups


def numpyro_sample(label, static, prior_args, feature_plate, class_plate="class"):
    """Sample ``theta`` from the Dirichlet prior under plates ``class_plate`` x feature.

    One sample site per distinct number of values (``theta_<label>`` when all features
    have the same number). Returns ``{"log_theta": (K, d, V_max)}`` with pads at 0.
    """
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    alpha = prior_args["alpha"]
    K, d, vmax = alpha.shape
    groups = _groups(static)
    log_theta = jnp.zeros((K, d, vmax))
    for V, idx in groups.items():
        site = f"theta_{label}" if len(groups) == 1 else f"theta_{label}__V{V}"
        plate = feature_plate if len(groups) == 1 else f"{feature_plate}__V{V}"
        idx = np.asarray(idx)
        with numpyro.plate(class_plate, K, dim=-2), numpyro.plate(plate, len(idx), dim=-1):
            th = numpyro.sample(site, dist.Dirichlet(alpha[:, idx, :V]))
        log_theta = log_theta.at[:, idx, :V].set(jnp.log(jnp.clip(th, jnp.finfo(th.dtype).tiny)))
    return {"log_theta": log_theta}


def params_from_sites(label, static, samples: dict) -> dict:
    """MCMC samples (leading sample axes) -> ``{"theta": (..., K, d, V_max)}``, NaN-padded."""
    groups = _groups(static)
    d, vmax = len(static), max(static, default=0)
    first = next(iter(samples.values()))
    out = None
    for V, idx in groups.items():
        site = f"theta_{label}" if len(groups) == 1 else f"theta_{label}__V{V}"
        s = np.asarray(samples[site], dtype=float)
        if out is None:
            out = np.full(s.shape[:-2] + (d, vmax), np.nan)
        out[..., idx, :V] = s
    if out is None:  # no features
        out = np.zeros(np.shape(first)[:2] + (0, d, vmax))
    return {"theta": out}


def point_params(post: Dirichlets) -> dict:
    """The parameters the plug-in (``"mean"``) predictive uses: ``{"theta": (K, d, V_max)}``,
    NaN-padded. Inverse of :func:`posterior_from_params` (same plug-in)."""
    return {"theta": posterior_moments(post)["theta"][0]}


def sites_from_params(label, static, params: dict) -> dict:
    """Inverse of :func:`params_from_sites`: NumPyro site values from ``theta`` (..., K, d, V_max)."""
    theta = np.asarray(params["theta"])
    groups = _groups(static)
    out = {}
    for V, idx in groups.items():
        site = f"theta_{label}" if len(groups) == 1 else f"theta_{label}__V{V}"
        out[site] = theta[..., np.asarray(idx), :V]
    return out


def numpyro_stats_args(stats: CategoricalStats) -> dict:
    """Counts as one padded (K, d, V_max) float32 array."""
    return {"counts": _pad(list(stats.counts), 0.0).astype(np.float32)}


def numpyro_suffstat_loglik(params, stats_args):
    """``sum_{k,j,v} n[k,j,v] log theta[k,j,v]``: the labelled-data log-likelihood."""
    return (stats_args["counts"] * params["log_theta"]).sum()


def numpyro_row_args(codes: np.ndarray, static) -> dict:
    """Codes as int32 (n, d) and an observed mask; missing / unseen values are masked."""
    V = np.asarray(static, dtype=np.int64)
    ok = (codes >= 0) & (codes < V[None, :]) if len(V) else np.zeros(codes.shape, bool)
    return {"codes": np.where(ok, codes, 0).astype(np.int32), "mask": ok.astype(np.float32)}


def numpyro_row_loglik(params, row_args):
    """``log p(x_i | y=k)`` per row and class, shape (n, K); masked cells add 0."""
    import jax.numpy as jnp

    lt = params["log_theta"]  # (K, d, V)
    codes, mask = row_args["codes"], row_args["mask"]
    d = lt.shape[1]
    g = lt[:, jnp.arange(d)[None, :], codes]  # (K, n, d)
    return (g * mask[None]).sum(-1).T


# ---- linear-classifier view (model.py coef_) ----
def linear_terms(theta, state: CategoricalEncoding):
    """Binary log-odds pieces from ``theta`` (..., 2, d, V_max): one weight per (feature, value)
    of the one-hot encoding, padding dropped; no intercept part."""
    with np.errstate(divide="ignore", invalid="ignore"):  # alpha=0: NaN where undefined, see model._linear
        lt = np.log(theta)
        w = lt[..., 1, :, :] - lt[..., 0, :, :]
    valid = np.zeros(w.shape[-2:], bool)
    for j, c in enumerate(state.categories):
        valid[j, : len(c)] = True
    return w[..., valid], np.zeros(theta.shape[:-3])


def linear_names(names, state: CategoricalEncoding):
    """Names of the :func:`linear_terms` weights: ``feature=value``."""
    return [f"{n}={v}" for n, cats in zip(names, state.categories) for v in cats]


def plot_panels(block, top=10) -> list:
    """One bar panel per feature: ``p(value | y=k)`` under the posterior mean."""
    out = []
    for j, name in enumerate(block.names):
        a = block.posterior.concentration[j]
        with np.errstate(invalid="ignore", divide="ignore"):
            p = a / a.sum(axis=1, keepdims=True)
        out.append((str(name), "bars", ([str(v) for v in block.state.categories[j]], p)))
    return out
