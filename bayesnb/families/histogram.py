"""Numeric features as histograms: a Dirichlet over bins fixed from the training quantiles
(nonparametric, conjugate, and every generated value is in the support).

For class ``k`` and feature ``j`` with bins ``b = 1..B_j`` of widths ``w_b``::

    theta[k, j, :]  ~ Dirichlet(alpha, ..., alpha)
    bin(x_ij) | y=k ~ Categorical(theta[k, j, :])
    x_ij | bin b    ~ uniform on the bin           (density 1 / w_b)

    posterior   Dirichlet(alpha + n[k, j, :])               (n: weighted counts of the bins)
    plug-in     p(x | k) = (n[k,j,b] + alpha) / (n[k,j] + B_j alpha) / w_b     (b = bin of x)
    exact       the same number (the predictive of one draw is the posterior mean)
    evidence    log B(alpha + n) - log B(alpha) - sum over observed cells of log w_(bin of the cell)

The log-likelihoods and the evidence are those of a piecewise-constant **density** of ``x``, so they compare
with Gaussian and LogNormal densities on the same column (choosing a family by evidence). For an
integer-valued column the edges are half-integers ``k + 0.5`` and ``w_b`` is the number of integers the bin
covers, so ``exp(log p(x | k))`` is the probability of that integer under a uniform spread within its bin. The
log width is the same for every class: it is the row term of :meth:`Histogram.log_likelihood_parts` and leaves
``predict_proba`` as a categorical model of the bins. **Support**: a whole-number column takes whole numbers
only, and one whose training values are also all ``>= 0`` (a count) no negative value
(:meth:`Histogram.out_of_support`): ``score_samples`` scores a fraction there, or a negative count, ``-inf``
(impossible), as Poisson does; a real column's support is the line.

Bins are fixed by the first encoding (``fit``, or the first batch of ``partial_fit``) from the quantiles of
the distinct observed values pooled over classes (:mod:`._histogram_bins`: distinct, so that a row's sample
weight and its repetition give the same edges; in a whole-number column a value held by at least ``1/B`` and
5% of the cells gets a unit bin of its own, a rule of cell counts). The edges are a function of each
column's table of distinct values and cell counts, which the state keeps, so the states of disjoint
partitions merge into the state of their rows together (:meth:`Histogram.merge_states`, a Dask fit); later
batches are binned with the same edges. A value beyond the first or last edge falls into the end bin, with
density the end bin's probability times ``1 / (n + 1)`` (the chance of exceeding the bin's ``n`` training cells)
spread as an exponential of scale ``s`` (the mean excess of the bin's distinct values over its inner edge, at
most its width). The encoding holds each cell's bin width only; the tail is costed once, where the likelihood is
assembled (``_histogram_bins.row_terms``), with ``n`` from the parameters:
``BinDirichlets.pooled``, the weighted training cells over every class and context, which draws keep. So
``tenure = 10000`` in a 0..72 column lowers ``log p(x)`` by thousands of nats, 10% of the range beyond a
bell-shaped column's edge by a few. The tail takes no mass from the bins (``p(x | k)`` integrates to at most
``1 + theta_first + theta_last``); a later ``partial_fit`` batch's cells beyond the range add their tail to the
evidence with ``n`` the cells the bins were made from (statistics have no parameters yet).
Generated values are drawn from the bins' empirical within-bin distributions: each is an observed training value.
"""

from __future__ import annotations

import numbers
from typing import ClassVar, NamedTuple

import numpy as np
from scipy.special import gammaln

from .._utils import nonfinite_error
from . import _categorical_encoding as _enc
from . import _histogram_bins as _bins
from . import _interval
from ._contract import Family
from .capabilities import SHARED, NumericNode
from ._histogram_bins import HistogramEncoding
from .numeric import MAX_ALPHA, dense_numbers, dirichlet_draws, draw_categories
from ._weighted_counts import code_counts, code_counts_columns
from .categorical import Categorical

__all__ = ["BinDirichlets", "Histogram", "HistogramBlock", "HistogramEncoding", "HistogramStats"]


class HistogramBlock(NamedTuple):
    """An encoded block: ``X`` the values as given (NaN where missing), ``codes`` each cell's bin
    (-1 where missing), ``log_width`` the log width of that bin (0 where missing), each (n, d);
    ``state`` the bins it was encoded with (the within-bin values that imputation draws from); ``missing``
    the mask of missing cells (None when none is)."""

    X: np.ndarray
    codes: np.ndarray
    log_width: np.ndarray
    state: HistogramEncoding
    missing: np.ndarray | None


class HistogramStats(NamedTuple):
    """Sufficient statistics, one (K, B_j) array per feature in each field.

    Attributes
    ----------
    counts : tuple of ndarray
        Weighted number of observed cells in each bin.
    log_width : tuple of ndarray
        Weighted sum of the cells' ``log w_b`` (``counts * log w_b``): makes the evidence a density.
    """

    counts: tuple
    log_width: tuple


class BinDirichlets(NamedTuple):
    """Dirichlet per (class, feature) over the feature's bins: prior and posterior alike.

    Attributes
    ----------
    concentration : tuple of ndarray
        ``concentration[j]`` (K, B_j).
    log_width : tuple of ndarray or None
        Sums of ``log w_b`` over the cells the parameters were updated with (0 in a prior),
        carried for the evidence; None in a generative "point" or a point from parameters.
    pooled : tuple of ndarray or None
        ``pooled[j]`` (K, B_j): the weighted training cells of each bin over every class and context,
        the same on every row (``_histogram_bins.pooled_counts``): the end bins' ``n`` of the tails'
        share ``1 / (n + 1)``. None in a point from parameters and in model files written without it
        (then the cells the bins were made from: ``_histogram_bins.end_counts``).
    """

    concentration: tuple
    log_width: tuple | None = None
    pooled: tuple | None = None


def _check_bins(bins, who):
    if isinstance(bins, str) and bins == "auto":
        return bins
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool) and bins >= 1:
        return int(bins)
    raise ValueError(f"{who}: bins must be an int >= 1 or 'auto'; received {bins!r}.")


def _check_alpha(alpha, who):
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool) and 0 < alpha <= MAX_ALPHA:
        return float(alpha)
    raise ValueError(f"{who}: alpha must be a finite number > 0 and at most 2**53 (the Dirichlet pseudo-count of "
                     f"every bin); received {alpha!r}.")


class Histogram(Family, NumericNode, *SHARED):
    """Numeric block: each column a histogram with a Dirichlet(alpha) prior over its bins per class.

    Parameters
    ----------
    bins : int or "auto", default="auto"
        Number of quantile bins of each column (at most: equal quantiles and bins without a
        training value merge). ``"auto"`` uses ``min(20, max(2, round(sqrt(u))))``, ``u`` the
        number of distinct observed values of the column (1 bin for a constant column); a
        whole-number column with at most 20 distinct values gets one bin per value, and a
        whole number held by at least ``1/B`` and 5% of the cells a bin ``[v - 0.5, v + 0.5]``.
    alpha : float, default=1.0
        Dirichlet pseudo-count of every bin (> 0); 1 is Laplace smoothing.
    hierarchical : bool, default=False
        Each (class, parents) context's Dirichlet over the bins is centred on its parent
        context's bin probabilities, one concentration per level fitted by evidence, up to the
        context of all classes with ``Dirichlet(alpha)`` (:mod:`bayesnb.structure.hierarchical`);
        without parents (the naive model) each class is centred on the all-classes estimate, the
        same prior as a structure's node without parents. k-DB switches its Histogram nodes to it
        when the estimator's ``alpha`` is unset.

    Notes
    -----
    The encoding state is a :class:`HistogramEncoding` (edges, integer flags, and each bin's
    distinct training values with their counts, stored flat with offsets). Real columns
    span ``[min, max]`` of the training values (a constant column one bin of width 1 around
    its value); integer columns ``[min - 0.5, max + 0.5]`` with half-integer edges. A column
    missing in every training row has one bin ``[0, 1)`` and nothing to generate (NaN).
    Prior, posterior and points are :class:`BinDirichlets`; draws and the NumPyro model use
    ``theta`` (K, d, B_max), the bin probabilities, NaN-padded. Imputation: ``"mean"`` is
    ``sum_b p(b | x_obs) * (mean of the bin's training values)`` (rounded in an integer
    column), ``"mode"`` the most frequent training value of the bin of highest density
    ``p(b | x_obs) / w_b``, ``"draw"`` a bin and then one of its training values.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb import NaiveBayes
    >>> X = np.column_stack([np.arange(40.0), np.arange(40) % 7])
    >>> model = NaiveBayes(features={(0, 1): Histogram(bins=4)}).fit(X, np.arange(40) >= 20)
    >>> model.predict(np.array([[3.0, 1.0], [35.0, 2.0]])).tolist()
    [False, True]
    """

    _param_names = ("bins", "alpha", "hierarchical")
    name = "histogram"
    density = ordered_support = True
    default_fill = "mean"  # the posterior-predictive mean (rounded in whole-number columns)
    param_names = ("theta",)
    stats_type = HistogramStats
    params_type = BinDirichlets
    state_types = (HistogramEncoding,)
    field_rules: ClassVar[dict] = {"HistogramStats": {"counts": "count", "log_width": "finite"},
                                   "BinDirichlets": {"concentration": "count", "log_width": "finite or None",
                                                     "pooled": "count or None"}}

    def __init__(self, bins="auto", alpha=1.0, hierarchical=False):
        self.bins = bins
        self.alpha = alpha
        self.hierarchical = hierarchical

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Histogram"):
        """Validate finite numbers (NaN = missing) and bin them; never modifies ``X``.

        Parameters
        ----------
        X : array-like of shape (n, d)
        state : HistogramEncoding or None
            None fixes the bins from ``X`` (fit); otherwise ``X`` is binned with them
            (``extend`` is unused: the bins never change after fit).
        extend : bool
        who : str

        Returns
        -------
        block : HistogramBlock
        state : HistogramEncoding
        """
        bins = _check_bins(self.bins, who)
        A = dense_numbers(X, who, "Histogram features must be numbers",
                          "Use .toarray(); strings belong in a Categorical block.")
        if A.ndim != 2:
            raise ValueError(f"{who}: Histogram features must be a 2-D block; received shape {A.shape}.")
        if np.isinf(A).any():
            raise nonfinite_error(who, "Histogram features", A)
        if state is None:
            state = _bins.build_state(A, bins)
        elif len(state.edges) != A.shape[1]:
            raise ValueError(f"{who}: the block has {A.shape[1]} columns; the histogram was fitted on "
                             f"{len(state.edges)}.")
        codes, lw = _bins.bin_codes(A, state)
        missing = codes < 0
        return HistogramBlock(A, codes, lw, state, missing if missing.any() else None), state

    def out_of_support(self, X, state=None):
        """Bool (n, d): fractions in a whole-number column; negatives in one whose values were all ``>= 0``."""
        return None if state is None else _bins.outside_support(state, X)

    def merge_states(self, a, b):
        """The bins of two disjoint batches' rows together: their tables of distinct values and cell
        counts added, the edges made again from the sum (exactly ``encode`` of the rows together)."""
        return _bins.merge_states(a, b, _check_bins(self.bins, "Histogram"))

    def empty_stats(self, state, K):
        """Zero statistics, (K, B_j) per feature."""
        z = tuple(np.zeros((K, e.size - 1)) for e in state.edges)
        return HistogramStats(z, tuple(a.copy() for a in z))

    def stats(self, block, resp, state):
        """Weighted bin counts per (class, feature) and their sums of ``log w_b``."""
        every = code_counts_columns(block.codes, resp, [e.size - 1 for e in state.edges])  # one product, O(n K d)
        lws = []
        for j, (e, c) in enumerate(zip(state.edges, every)):  # c: weighted bin counts per class
            rows = np.flatnonzero(block.codes[:, j] >= 0)
            lw = c * np.log(np.diff(e))[None, :]
            tail = _bins.tail_costs(state, j, block.X[rows, j])  # a later batch's cells beyond the range
            if np.any(tail > 0):  # (n: the cells the bins were made from; statistics have no parameters)
                lw = lw + code_counts(block.codes[rows, j], resp[rows] * tail[:, None], e.size - 1)
            lws.append(lw)
        return HistogramStats(tuple(every), tuple(lws))

    def merge(self, a, b):
        """Add counts and log-width sums feature by feature."""
        return HistogramStats(*(tuple(x + y for x, y in zip(u, v)) for u, v in zip(a, b)))

    def dp_stats(self, block, resp, state, budget, bounds, names, who="Histogram"):
        """Refused: the bins are data-derived (quantiles) and the state holds training values."""
        raise NotImplementedError(f"{who}: a Histogram block has no differentially private release: its bin edges "
                                  "are quantiles of the data and its state stores the training values that sampling "
                                  "draws from, both of which reveal rows. Use a Gaussian, LogNormal or Poisson block "
                                  "with declared bounds, or bin the column yourself with declared edges into a "
                                  "Categorical block with declared categories.")

    def make_prior(self, stats, state, who="Histogram"):
        """Dirichlet(alpha) over the bins of every (class, feature), no log widths yet; with
        ``hierarchical=True`` the class level of :meth:`context_prior` (each class centred on the
        all-classes estimate: the naive model is a structure without parents)."""
        K = stats.counts[0].shape[0] if stats.counts else 1
        return self.context_prior(stats, state, (K,), who=who)

    def hierarchical_variant(self):
        """This family with ``hierarchical=True`` (:meth:`Family.hierarchical_variant`), bins and alpha kept."""
        return Histogram(bins=self.bins, alpha=self.alpha, hierarchical=True)

    def context_prior(self, stats, state, contexts, who="Histogram", naive_prior=None, class_level=None, noise_var=0.0):
        """The prior over a structure node's contexts ``(K, B_1, ..., B_m)`` (:meth:`Family.context_prior`).

        With ``hierarchical=True`` each context's Dirichlet over the bins is centred on its parent
        context's estimate, up to the class level and the all-classes context's
        ``Dirichlet(alpha)``, as :func:`bayesnb.structure.hierarchical.hierarchical_prior` does for
        a categorical node (``naive_prior`` unused: the hierarchy holds its own class level, the
        naive model's at ``contexts = (K,)``): the bin widths are constants of the density and
        cancel in each concentration's evidence; down to ``class_level`` when given (a latent
        model's per-class prior, :meth:`Family.component_prior`). Otherwise ``naive_prior`` (or ``Dirichlet(alpha)``),
        the same in every context of a class.
        """
        if not isinstance(self.hierarchical, (bool, np.bool_)):
            raise ValueError(f"{who}: hierarchical must be True or False; received {self.hierarchical!r}.")
        if not self.hierarchical and naive_prior is not None:
            return naive_prior
        a = _check_alpha(self.alpha, who)
        if self.hierarchical:
            fixed = None if class_level is None else class_level.concentration
            conc = _enc.hierarchical_alphas(stats.counts, contexts, [a] * len(stats.counts), fixed)
        else:  # Dirichlet(alpha) over the bins of every context
            conc = tuple(np.full(c.shape, a) for c in stats.counts)
        zeros = tuple(np.zeros(c.shape) for c in stats.counts)
        return BinDirichlets(conc, zeros, _bins.pooled_counts(stats.counts))

    observed_rows = Categorical.observed_rows  # each feature's bin counts summed

    def update(self, prior, stats):
        """Conjugate update: concentration + counts (the log-width sums accumulated, the prior's ``pooled`` kept)."""
        return BinDirichlets(tuple(a + n for a, n in zip(prior.concentration, stats.counts)),
                             tuple(p + s for p, s in zip(prior.log_width, stats.log_width)), prior.pooled)

    def log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """``log p(bin | y=k)`` summed over the observed cells (relative), and ``-sum log w`` and tails (row)."""
        if predictive not in ("mean", "marginal"):
            raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
        codes, K = block.codes, post.concentration[0].shape[0] if post.concentration else 0
        rel = np.zeros((codes.shape[0], K))
        for j, lp in enumerate(_enc.log_probs(post)):
            table = np.concatenate([lp, np.zeros((K, 1))], axis=1).T.copy()  # code -1 (missing) picks 0
            rel += table[codes[:, j]]  # rows of a (bins + 1, K) table: the same values, gathered contiguously
        return rel, -_bins.row_terms(block, prior, post).sum(axis=1)

    def log_evidence(self, prior, post):
        """Closed-form ``log p(x_block | y)`` per class (K,): Dirichlet-multinomial minus ``sum log w``."""
        total = 0.0
        for a0, a, l0, l in zip(prior.concentration, post.concentration, prior.log_width, post.log_width):
            total = total + (gammaln(a0.sum(1)) - gammaln(a.sum(1)) + (gammaln(a) - gammaln(a0)).sum(1)
                             - (l - l0).sum(1))
        return np.asarray(total) * np.ones(post.concentration[0].shape[0] if post.concentration else 0)

    is_proper = Categorical.is_proper  # every prior pseudo-count > 0 (always, as ``alpha > 0``)

    def state_shapes(self, state, K, d):
        """Check a :class:`HistogramEncoding` read from a model file; ``(K, B_j)`` per column."""
        return [(K, B) for B in _bins.check_state(state, d)]

    # ---------------- generative hooks: a "point" is a BinDirichlets whose normalised rows are the bin probabilities
    def gen_point(self, prior, post, rng=None):
        """Plug-in (``rng=None``: the posterior itself) or one exact Dirichlet draw per (class, feature)."""
        if rng is None:
            return post
        return BinDirichlets(tuple(dirichlet_draws(a, 1, rng)[0] for a in post.concentration), None, post.pooled)

    gen_observed_support = Categorical.gen_observed_support  # each context's bin counts where it has data, else its prior

    def gen_sample(self, point, z, rng, lengths=None):
        """Encoded values (n, d): ``b + u``, a bin ``b`` drawn from ``theta[z]`` and ``u ~ Uniform(0, 1)``
        that :meth:`gen_decode` turns into one of the bin's training values (``lengths`` unused)."""
        P = _enc.probs(point)
        out = np.empty((z.shape[0], len(P)))
        for j, Pj in enumerate(P):
            out[:, j] = draw_categories(Pj[z], rng.random(z.shape[0])) + rng.random(z.shape[0])
        return out

    def gen_decode(self, values, state):
        """Values per column from :meth:`gen_sample`'s ``b + u``: the training value of bin ``b`` at
        quantile ``u`` of the bin's empirical distribution (NaN for a column with no training value)."""
        V = np.asarray(values, dtype=float)
        bins = [np.clip(np.floor(v).astype(np.int64), 0, e.size - 2)
                for v, e in zip(V.T, state.edges)]
        return [_bins.draw_within(state, j, b, V[:, j] - b) for j, b in enumerate(bins)]

    def gen_values(self, block):
        """Values (n, d), NaN where missing."""
        return np.where(block.codes >= 0, block.X, np.nan)

    def gen_log_mass_between(self, prior, params, state, j, lo, hi, predictive="mean"):
        """``log P(lo <= x_j <= hi)`` per class under the law draws follow: each bin's probability (the
        posterior mean, the predictive of either kind) times the share of its training cells in the range."""
        frac = _bins.range_fractions(state, j, lo, hi)[0]
        with np.errstate(divide="ignore"):
            return np.log(_enc.probs(params)[j] @ frac.T)

    def gen_sample_between(self, point, z, rng, j, lo, hi, state=None):
        """Column ``j`` within ``[lo, hi]``: a bin from ``theta[z]`` weighted by its share of training cells in the
        range, then one of those cells' values (the within-bin draw restricted to the range); needs ``state``.
        Bounds may be one per row (rows sharing bounds are drawn together). None without ``state``."""
        if state is None:
            return None
        (ulo, ilo), (uhi, ihi) = (np.unique(np.broadcast_to(v, z.shape), return_inverse=True) for v in (lo, hi))
        keys, which = np.unique(ilo.ravel() * uhi.size + ihi.ravel(), return_inverse=True)
        out = np.empty(z.shape[0])
        for i, (a, b) in enumerate(zip(ulo[keys // uhi.size], uhi[keys % uhi.size])):
            r = np.flatnonzero(which.ravel() == i)
            frac, inside = _bins.range_fractions(state, j, a, b)
            w = _enc.probs(point)[j][z[r]] * frac[None, :]
            with np.errstate(invalid="ignore"):
                bins = draw_categories(w / w.sum(axis=1, keepdims=True), rng.random(r.size))
            out[r] = _bins.draw_within(state, j, bins, rng.random(r.size), counts=inside)
        return out

    def predictive_bins(self, prior, post, state, edges, predictive="mean"):
        """Each histogram bin's probability (the posterior mean: the predictive of either kind) spread
        uniformly over the bin (over its whole numbers in an integer column), as the density scores
        values; the mean of a bin wholly inside an interval is its training values' mean, as
        imputation writes it, that of a part of a bin the part's midpoint. One-column ``state``."""
        return _interval.histogram_bins(_enc.probs(post)[0], state.edges[0], bool(state.integer[0]), edges,
                                        _bins.within_means(state, 0))

    def param_value_labels(self, state):
        """Each bin of each column as the interval it covers: ``"[30.1, 35.25)"`` (the last bin closed),
        ``"3..5"`` or ``"4"`` (the whole numbers of a bin of an integer column)."""
        return [_bins.bin_labels(e, bool(whole)) for e, whole in zip(state.edges, state.integer)]

    def round_fill(self, values, state):
        """Whole numbers in the integer columns (``values`` (n, d))."""
        v = np.asarray(values, dtype=float)
        return np.where(np.asarray(state.integer, dtype=bool)[None, :], np.round(v), v)

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Values (n, d) with the missing cells filled (observed cells unchanged; see the class Notes)."""
        state = block.state
        X = block.X.copy()
        for j, Pj in enumerate(_enc.probs(point)):
            rows = np.flatnonzero(block.codes[:, j] < 0)
            if rows.size == 0:
                continue
            if strategy == "draw":
                b = draw_categories(Pj[z[rows]], rng.random(rows.size))
                X[rows, j] = _bins.draw_within(state, j, b, rng.random(rows.size))
                continue
            mix = resp[rows] @ Pj  # p(bin | x_obs), (rows, B)
            if strategy == "mean":
                v = mix @ _bins.within_means(state, j) / mix.sum(axis=1)
                X[rows, j] = np.round(v) if state.integer[j] else v
            else:
                b = np.argmax(mix / np.diff(state.edges[j])[None, :], axis=1)
                X[rows, j] = _bins.within_modes(state, j)[b]
        return X

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per-cell ``sum_k weights[i, k] log p(x_ij | y=k)`` (densities, ``-log w`` included), (n, d)."""
        out, row = np.zeros(block.codes.shape), _bins.row_terms(block, prior, point)
        for j, lp in enumerate(_enc.log_probs(point)):
            obs = block.codes[:, j] >= 0
            vals = lp[:, np.where(obs, block.codes[:, j], 0)].T - row[:, j:j + 1]
            with np.errstate(invalid="ignore"):
                out[:, j] = np.where(obs, np.where(weights > 0, weights * vals, 0.0).sum(axis=1), 0.0)
        return out

    def gen_log_penalty(self, prior, point) -> float:
        """``sum alpha log theta``: the log prior whose MAP is the posterior mean (EM objective)."""
        return float(sum((a0 * lp).sum() for lp, a0 in zip(_enc.log_probs(point), prior.concentration)))

    def gen_empty_columns(self, state):
        """Bool (d,): columns with no training value (nothing to draw: NaN)."""
        return np.array([v.size == 0 for v in state.values], dtype=bool)

    # --------------------------------------------------------- draws and NumPyro hooks
    # ``theta`` (K, d, B_max): the bin probabilities, NaN where feature j has fewer bins.
    # the bins' Dirichlets are Categorical's over values: its draws, moments and inverse
    sample_params = Categorical.sample_params  # exact draws, (n_draws, K, d, B_max) NaN-padded
    posterior_moments = Categorical.posterior_moments  # closed-form mean and sd, each (K, d, B_max)

    def posterior_from_params(self, params: dict):
        """A BinDirichlets whose plug-in equals the given ``theta`` (K, d, B_max) (one draw)."""
        theta = np.asarray(params["theta"], dtype=float)
        return BinDirichlets(Categorical().posterior_from_params({"theta": theta}).concentration)

    point_params = Categorical.point_params  # the posterior mean, (K, d, B_max) NaN-padded

    def numpyro_static(self, prior):
        """Each feature's number of bins, carrying the tails' end-bin ``n`` outside equality (``_bins.BinShapes``)."""
        return _bins.BinShapes((int(a.shape[1]) for a in prior.concentration), _bins.end_counts(prior))

    def numpyro_prior_args(self, prior) -> dict:
        """Prior pseudo-counts as one padded (K, d, B_max) float32 array (pads = 1, unused)."""
        return Categorical().numpyro_prior_args(prior)

    def numpyro_sampler_args(self, prior, posterior) -> dict:
        """As :meth:`Categorical.numpyro_sampler_args <bayesnb.families.Categorical.numpyro_sampler_args>`, over bins."""
        return Categorical().numpyro_sampler_args(prior, posterior)

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """``theta`` from the Dirichlet prior under plates ``class_plate`` x feature, one site for the
        block, padded to the most bins; Categorical's ``{"log_theta", "site", ...}`` (K, d, B_max)."""
        return Categorical().numpyro_sample(label, tuple(static), prior_args, feature_plate, class_plate)

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """MCMC samples -> ``{"theta": (..., K, d, B_max)}``, NaN-padded."""
        return Categorical().params_from_sites(label, tuple(static), samples)

    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """Inverse of :meth:`params_from_sites`."""
        return Categorical().sites_from_params(label, tuple(static), params, prior_args)

    def numpyro_stats_args(self, stats) -> dict:
        """Bin counts as :meth:`Categorical.numpyro_stats_args` and the labelled cells' ``sum log w``, float32."""
        return {**Categorical().numpyro_stats_args(stats),
                "log_width": np.float32(sum(lw.sum() for lw in stats.log_width))}

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum n[k,j,b] log theta[k,j,b] - sum log w``: the labelled-data log density."""
        return Categorical().numpyro_suffstat_loglik(params, stats_args) - stats_args["log_width"]

    def numpyro_row_args(self, block, static) -> dict:
        """Bin codes as int32 (n, d), an observed mask and each row's ``sum_j log w`` (tails included)."""
        ok = block.codes >= 0
        row = block.log_width + _bins.cell_tail_costs(block.state, block.X, static.ends)
        return {"codes": np.where(ok, block.codes, 0).astype(np.int32), "mask": ok.astype(np.float32),
                "log_width": row.sum(axis=1).astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(x_i | y=k)`` per row and class, (n, K): Categorical's over the bins minus each
        row's ``sum_j log w``; missing cells add 0."""
        return Categorical().numpyro_row_loglik(params, row_args) - row_args["log_width"][:, None]

    # ------------------------------------------------------------ display
    def plot_panels(self, block, top=10) -> list:
        """One bar panel per feature: ``p(bin | y=k)`` (posterior mean), bars labelled by their edges (``top`` unused)."""
        return [(str(name), "bars", ([f"[{a:.4g}, {b:.4g})" for a, b in zip(e[:-1], e[1:])], P))
                for name, P, e in zip(block.names, _enc.probs(block.posterior), block.state.edges)]
