"""Count features (bag of words) with a Dirichlet prior over the block's columns.

For class ``k``, the ``d`` columns of the block share one probability vector::

    theta[k, :]   ~ Dirichlet(alpha, ..., alpha)
    tokens of row i | y=k  ~ iid Categorical(theta[k, :])      (counts x[i, :])

    posterior     Dirichlet(alpha + n[k, :])
    plug-in       theta[k, j] = (n[k,j] + alpha) / (n[k] + d alpha)     (scikit-learn MultinomialNB)
    exact         Dirichlet-multinomial (Polya) predictive of the row's tokens
    evidence      log B(alpha + n[k]) - log B(alpha)

Log probabilities are those of the row's token sequence given its length (the
multinomial coefficient ``L! / prod x_j!`` is left out: it does not depend on the
class, exactly as in scikit-learn). Dense or scipy.sparse (CSR/CSC) input, never
densified. Fractional counts (tf-idf) are accepted as in scikit-learn: the plug-in
uses them as weights, and the exact predictive extends the factorials with the
gamma function (a smooth interpolation, not the probability of any count vector).

Missing cells (NaN) are marginalised exactly in prediction: a row's observed tokens are
scored by the distribution renormalised over its observed columns, which equals the
model fitted without those columns. In fitting, a row with a missing cell in the block
is left out of the block's counts (complete cases; see :meth:`Multinomial.stats`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._utils import dense
from . import dp_release
from ._contract import Family
from .capabilities import SHARED
from ._dirichlet_rows import (DirichletRows, PolyaDraw, _evidence_scalar_alpha, inverse_cdf,
                              log_observed_mass, log_theta, polya_cell_log_lik, polya_log_lik,
                              sample_polya, split_counts, tally, with_missing_columns)
from .default_hooks import SingleSite
from .numeric import (check_alpha, class_sums, dirichlet_draws, dirichlet_moments, log_dot,
                      resolve_scalar_alpha, row_probs)

__all__ = ["DirichletRows", "Multinomial", "MultinomialStats"]


class MultinomialStats(NamedTuple):
    """Sufficient statistics.

    Attributes
    ----------
    counts : ndarray of shape (K, d)
        Weighted total count of column ``j`` among rows of class ``k`` (the rows that
        count: see :meth:`Multinomial.stats`).
    pending : ndarray of shape (K, d) or None
        The part of ``counts`` from rows with a missing cell in a column that no training
        row has observed yet. Such rows count as complete; if a later ``partial_fit``
        batch observes one of those columns they become partial rows, and this part is
        taken out again (:meth:`Multinomial.reindex_stats`), so that any batching gives
        the statistics of one fit. None: no such rows.
    """

    counts: np.ndarray
    pending: object = None


class MultinomialBlock(NamedTuple):
    """An encoded count block.

    Attributes
    ----------
    X : ndarray or CSR/CSC matrix of shape (n, d)
        Counts, missing cells set to 0 (the input itself when nothing is missing).
    missing : ndarray, sparse matrix of shape (n, d), or None
        1 where a cell is marginalised: missing in the input, or in a column never
        observed in training (see :func:`with_missing_columns`).
    raw : MultinomialBlock or None
        The block as encoded from the input, before never-observed columns were marked
        missing (None: this block is it). Imputation fills only the cells missing in
        ``raw`` and keeps every observed count, whatever the model knows of its column.
    """

    X: object
    missing: object
    raw: object = None


class Multinomial(SingleSite, Family, *SHARED):
    """Count block (e.g. word counts) with a symmetric Dirichlet prior per class.

    Parameters
    ----------
    alpha : float, "auto" or array-like of shape (d,), default=1.0
        Dirichlet pseudo-count per column (1 = Laplace, 0 = maximum likelihood).
        ``"auto"`` picks the scalar that maximises the closed-form evidence.

    Notes
    -----
    The encoding state is a bool (d,) array: the columns observed in some training row.
    Prior, posterior and generative "points" are :class:`DirichletRows` of shape (K, d);
    the parameter of draws and of the NumPyro model is ``theta`` (K, d), each row on the
    simplex (the block's columns share it).
    """

    _param_names = ("alpha",)
    name = "multinomial"
    # default_fill stays "mode" (whole counts, the column dtype kept): "mean" writes fractional counts
    accepts_sparse = True
    joint_columns = True
    stats_type = MultinomialStats
    params_type = DirichletRows
    field_rules = {"MultinomialStats": {"counts": "count", "pending": "count or None"},
                   "DirichletRows": {"concentration": "count"}}

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Multinomial"):
        """Validate non-negative finite counts and separate missing cells (never in place).

        Columns never observed in training carry no information on theta beyond the prior,
        which is the same for every class, so at prediction time they are marginalised like
        missing cells (see :func:`with_missing_columns`).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
            NaN marks a missing cell. Sparse input stays sparse (CSR/CSC); integer
            counts are not copied when nothing is missing.
        state : ndarray of bool, shape (d,), or None
            Columns observed in training (None: learn it from ``X``).
        extend : bool
            Add the columns observed in ``X`` to ``state`` (``partial_fit``).
        who : str
            Name used in error messages.

        Returns
        -------
        block : MultinomialBlock
        state : ndarray of bool, shape (d,)
        """
        block = MultinomialBlock(*split_counts(X, who))
        if state is None or extend:
            seen = ~self.all_missing(block) if block.X.shape[0] else np.zeros(X.shape[1], bool)
            return block, seen if state is None else (np.asarray(state) | seen)
        never = ~np.asarray(state, dtype=bool)
        return (with_missing_columns(block, never) if never.any() else block), state

    def merge_states(self, a, b):
        """Columns observed in either batch (bool (d,))."""
        return np.asarray(a, dtype=bool) | np.asarray(b, dtype=bool)

    def state_shapes(self, state, K, d):
        """Check a loaded state (which of the ``d`` columns were ever observed); ``(K, d)``."""
        if not isinstance(state, np.ndarray) or state.dtype != bool or state.shape != (d,):
            got = f"{state.dtype} of shape {state.shape}" if isinstance(state, np.ndarray) else type(state).__name__
            raise ValueError(f"its state must be a bool array of shape ({d},); the file holds {got}")
        return (K, d)

    def empty_stats(self, state, K):
        """Zero statistics, (K, d)."""
        return MultinomialStats(np.zeros((K, len(state))))

    def stats(self, block, resp, state):
        """Weighted counts per (class, column); one ``bincount`` for labelled sparse data.

        Rows with a missing cell in the block are left out of the block's statistics
        (complete cases): counting their observed cells alone would bias theta towards the
        observed columns, and the exact posterior given a partial row is not a Dirichlet.
        Under missing-completely-at-random this is unbiased; ``run_mcmc(likelihood="rows")``
        samples the exact posterior that also uses the partial rows. Completeness is judged
        on the columns observed in training (``state``): a row missing only columns that no
        row has observed counts in full, its part kept in ``pending``.

        Returns
        -------
        MultinomialStats
            ``counts`` (K, d) and ``pending`` (K, d) or None.
        """
        pending = None
        if block.missing is not None:
            M = block.missing
            has_missing = np.asarray(M.sum(axis=1)).ravel() > 0
            observed = np.asarray(state, dtype=bool)
            if not observed.all():  # never-observed columns do not make a row partial
                M = M[:, np.flatnonzero(observed)]
            partial = np.asarray(M.sum(axis=1)).ravel() > 0
            if partial.any():
                resp = np.where(partial[:, None], 0.0, resp)
            waiting = has_missing & ~partial  # missing only where no row has observed a value yet
            if waiting.any():
                pending = class_sums(block.X, np.where(waiting[:, None], resp, 0.0))
        return MultinomialStats(class_sums(block.X, resp), pending)

    def merge(self, a, b):
        """Add the statistics of two disjoint batches (``pending`` None stays None)."""
        if a.pending is None or b.pending is None:
            pending = b.pending if a.pending is None else a.pending
        else:
            pending = a.pending + b.pending
        return MultinomialStats(a.counts + b.counts, pending)

    def reindex_stats(self, stats, old_state, new_state):
        """Statistics of earlier batches under the columns observed up to this batch.

        Rows counted while missing a column that no row had observed are partial rows once
        a batch observes one of those columns (:meth:`stats` leaves partial rows out),
        so their part (``stats.pending``) is taken out of the counts.
        """
        newly = np.asarray(new_state, dtype=bool) & ~np.asarray(old_state, dtype=bool)
        if stats.pending is None or not newly.any():
            return stats
        return MultinomialStats(np.maximum(stats.counts - stats.pending, 0.0), None)

    def dp_stats(self, block, resp, state, budget, bounds, names, who="Multinomial"):
        """Counts of rows scaled to length <= L, noised (:func:`.dp_release.row_counts_release`)."""
        return MultinomialStats(dp_release.row_counts_release(self, block, resp, state, budget, bounds, names, who))

    def dp_public_rows(self, block, bounds):
        """Public rows scaled to the declared row bound, as the release scales a private row (no noise)."""
        return dp_release.public_rows(block, bounds)

    def dp_mass(self, stats):
        """The total count (released noise floor included)."""
        return float(stats.counts.sum())

    def make_prior(self, stats, state, who="Multinomial"):
        """Dirichlet(alpha) per class; ``"auto"`` by evidence."""
        alpha = check_alpha(self.alpha, who)
        K, d = stats.counts.shape
        a = resolve_scalar_alpha(alpha, lambda t: _evidence_scalar_alpha(t, stats.counts))
        a = np.asarray(a, dtype=float)
        if a.ndim == 1 and a.shape != (d,):
            raise ValueError(f"{who}: alpha has shape {a.shape}; expected a scalar or ({d},).")
        return DirichletRows(np.broadcast_to(a, (K, d)))  # read-only view: no K x d copy

    def update(self, prior, stats):
        """Conjugate update: concentration = alpha + counts (the only smoothing)."""
        return DirichletRows(prior.concentration + stats.counts)

    def predict_cache(self, prior, post):
        """``(log theta transposed, C-contiguous (d, K); whether it holds -inf)``."""
        # -inf needs a zero pseudo-count (alpha=0) and a zero count; the prior rows are equal
        neg_inf = not np.all(np.asarray(prior.concentration[0]) > 0) and bool((post.concentration == 0).any())
        return log_theta(post.concentration).T, neg_inf

    def log_likelihood(self, prior, post, block, predictive="mean", cache=None):
        """``log p(tokens of the row | y=k)``, shape (n, K).

        Parameters
        ----------
        prior, post : DirichletRows
        block : MultinomialBlock
        predictive : {"mean", "marginal"}
            ``"mean"``: multinomial with the posterior-mean theta (scikit-learn's score).
            ``"marginal"``: Dirichlet-multinomial, the exact posterior predictive.
        cache : tuple, optional
            :meth:`predict_cache` of ``post`` (saves work on big vocabularies).
        """
        X, M = block.X, block.missing
        if predictive == "mean":
            if cache is None:
                # alpha=0: 0 * log 0 stays 0 (-inf only where a concentration is exactly 0)
                lt_T, neg_inf = log_theta(post.concentration).T, bool((post.concentration == 0).any())
            else:
                lt_T, neg_inf = cache
            jll = log_dot(X, lt_T, neg_inf)
            if M is not None:
                lm = log_observed_mass(post.concentration, M)
                length = np.asarray(X.sum(axis=1)).reshape(-1, 1)
                # a row's tokens lie in its observed columns: a zero observed mass means a
                # zero-probability row, already -inf in jll (never -inf - -inf)
                with np.errstate(invalid="ignore"):
                    jll = jll - np.where((length > 0) & np.isfinite(lm), length * lm, 0.0)
            return jll
        if predictive != "marginal":
            raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
        return polya_log_lik(post.concentration, X, M)

    def log_evidence(self, prior, post):
        """Closed-form ``log p(tokens | y)`` of the training data per class, shape (K,).

        Columns without counts contribute exactly 0, so only the non-zero counts are
        evaluated (a vocabulary is mostly zeros).
        """
        a0, a = prior.concentration, post.concentration
        rows, cols = np.nonzero(a != a0)
        terms = np.bincount(rows, weights=gammaln(a[rows, cols]) - gammaln(a0[rows, cols]), minlength=a.shape[0])
        return gammaln(a0.sum(1)) - gammaln(a.sum(1)) + terms

    def is_proper(self, prior):
        """True when every pseudo-count is > 0."""
        return bool(np.all(prior.concentration > 0))

    # ------------------------------------------------------------------ generative hooks
    # A "point" is a DirichletRows whose normalised rows are the theta in use: the posterior
    # itself (plug-in) or one exact Dirichlet draw. Document lengths are modelled for
    # generation only: L | y=k ~ Poisson(rate[k]), rate[k] the mean training length of class
    # k (total counts / class count, both sufficient statistics). With that length model the
    # counts are independent Poisson(rate[k] * theta[k, j]) (Poisson splitting), which is how
    # missing count cells are imputed.
    def gen_point(self, prior, post, rng=None):
        """Plug-in (``rng=None``: the posterior itself) or one exact Dirichlet draw of theta per class.

        The draw is a :class:`~bayesnb.families._dirichlet_rows.PolyaDraw` on a child of
        ``rng``: theta (K, d) is drawn when its ``concentration`` is first read, and tokens
        sampled before that (:meth:`gen_sample`) come from the Polya urn with theta integrated
        out, the same law in memory that follows the tokens instead of K x d.

        Returns
        -------
        DirichletRows or PolyaDraw
            The posterior, or one draw of theta whose ``concentration`` is theta.
        """
        if rng is None:
            return post
        return PolyaDraw(post.concentration, np.random.default_rng(rng.integers(0, 2**63, size=2)))

    def gen_rate(self, stats, class_count, rng=None):
        """Poisson rate of the document length per class, (K,).

        Plug-in: mean length ``T_k / n_k``; with ``rng``, a draw from its posterior
        ``Gamma(T_k + 1/2, n_k + 1/(2 m))`` under a half-document prior ``Gamma(1/2, 1/(2 m))``
        centred on the overall mean length ``m``: proper, so a class with almost no weight
        (``sample_weight`` 1e-300) draws lengths near ``m`` instead of astronomically long
        documents, and negligible next to any real class count. Classes without rows get ``m``.
        """
        T = stats.counts.sum(axis=1)
        n = np.asarray(class_count, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            overall = T.sum() / n.sum() if n.sum() > 0 else 1.0
            overall = overall if np.isfinite(overall) else 1.0
            rate = np.where(n > 0, T / np.where(n > 0, n, 1.0), overall)
        if rng is not None and overall > 0:
            ok = n > 0
            with np.errstate(over="ignore"):  # a subnormal mean length: a prior rate of inf, draws of 0
                draw = rng.standard_gamma(np.where(ok, T + 0.5, 1.0)) / (n + 0.5 / overall)
            rate = np.where(ok, draw, rate)
        return rate

    def gen_sample(self, point, z, rng, lengths=None):
        """Counts, a CSR matrix (n, d): row i has ``lengths[i]`` tokens drawn from theta[z[i]].

        Theta is uniform where undefined. Each token is drawn by inverse CDF (one uniform
        and a binary search in its class's cumulative theta) and a row's counts are the
        tallies of its tokens: exactly ``Multinomial(lengths[i], theta[z[i]])``, in time
        ``O(d K + T log d)`` and memory that follows the ``T`` tokens (drawn at most about
        2**22 at a time), never ``n x d``. From a draw not yet materialised
        (:meth:`gen_point`) the tokens of each class are its Polya urn's
        (:func:`~bayesnb.families._dirichlet_rows.polya_tokens`): the same joint law with
        theta integrated out, in memory ``O(d + T)``, never K x d.
        """
        if isinstance(point, PolyaDraw) and not point.materialised:
            return sample_polya(point, z, lengths, rng)
        # one class's cumulative sum at a time, never a normalised K x d copy of theta
        conc = point.concentration
        n, d = z.shape[0], conc.shape[1]
        lengths = np.asarray(lengths, dtype=np.int64)
        rows_out, cols_out = [], []
        for k in np.unique(z):
            cdf = np.cumsum(conc[k], dtype=float)
            if not cdf[-1] > 0:  # theta undefined: uniform
                cdf = np.arange(1.0, d + 1.0)
            rows = np.flatnonzero(z == k)
            ends = np.cumsum(lengths[rows])
            start = 0
            while start < rows.size:
                stop = max(start + 1, int(np.searchsorted(ends, ends[start] - lengths[rows[start]] + 2**22, "right")))
                chunk = rows[start:stop]
                rows_out.append(np.repeat(chunk, lengths[chunk]))
                cols_out.append(inverse_cdf(cdf, rng.random(int(lengths[chunk].sum()))))
                start = stop
        return tally(rows_out, cols_out, n, d)

    def gen_missing(self, block):
        """Bool CSR matrix (n, d) of the cells missing in the input: only those are stored.

        Overrides the contract's accessor for two reasons: a count block can be too wide to
        densify, and after :func:`with_missing_columns` the block's ``missing`` also marks the
        cells of a column never observed in training, marginalised in scoring but not missing
        (observed counts, never imputed); the input's own mask is then ``raw.missing``.
        """
        if block.raw is not None:
            block = block.raw
        if block.missing is None:
            return sp.csr_matrix(block.X.shape, dtype=bool)
        M = sp.csr_matrix(block.missing)
        M.eliminate_zeros()
        return M > 0

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Counts with missing cells filled from ``Poisson(rate[k] theta[k, j])``.

        ``"mean"``: the mixture mean; ``"mode"``: its floor (the Poisson mode of the mean);
        ``"draw"``: a Poisson draw given classes ``z``. Sparse input stays sparse (CSR).
        Only the cells missing in the input are filled; every observed count is returned
        as given, also in a column never observed in training (``block.raw``).
        """
        if block.raw is not None:
            block = block.raw
        if block.missing is None:
            return block.X
        theta = row_probs(point.concentration)
        M = block.missing.tocoo() if sp.issparse(block.missing) else sp.coo_matrix(block.missing)
        rows, cols = M.row, M.col
        if strategy == "draw":
            vals = rng.poisson(rate[z[rows]] * theta[z[rows], cols]).astype(float)
        else:
            vals = np.einsum("ik,ki->i", resp[rows], rate[:, None] * theta[:, cols])
            if strategy == "mode":
                vals = np.floor(vals)
        if sp.issparse(block.X):
            fill = sp.csr_matrix((vals, (rows, cols)), shape=block.X.shape)
            return (block.X.tocsr() + fill).tocsr()
        X = np.array(block.X, dtype=float)
        X[rows, cols] = vals
        return X

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per-column contributions ``sum_k weights[i,k] c_ijk`` of the row's ``log p(tokens | y=k)``.

        They add up exactly to :meth:`log_likelihood`: ``x_ij log(theta_kj / m_ik)``
        (``m_ik`` the mass of the observed columns) for ``"mean"``; for ``"marginal"`` the
        Polya terms ``log G(a_kj + x_ij) - log G(a_kj)`` plus the row term
        ``log G(A) - log G(A + L)`` shared out in proportion ``x_ij / L``.

        Returns
        -------
        CSR matrix for sparse input, else ndarray, of shape (n, d)
        """
        return polya_cell_log_lik(point.concentration, block.X, block.missing, weights, predictive)

    def gen_log_penalty(self, prior, point) -> float:
        """``sum alpha log theta``: the log prior whose MAP is the posterior mean."""
        lt = log_theta(point.concentration)
        with np.errstate(invalid="ignore"):
            return float(np.where(prior.concentration > 0, prior.concentration * lt, 0.0).sum())

    # --------------------------------------------------------- draws and NumPyro hooks
    # Exact conjugate draws (NumPy) and the pieces model.py assembles into the one NumPyro
    # model. Parameterisation shared by both: ``theta`` (K, d), each row on the simplex.
    def sample_params(self, post, n_draws, rng) -> dict:
        """Exact posterior draws: ``{"theta": (n_draws, K, d)}`` (memory: n_draws * K * d)."""
        return {"theta": dirichlet_draws(post.concentration, n_draws, rng)}

    def posterior_moments(self, post) -> dict:
        """Closed-form posterior mean and sd: ``{"theta": (mean, sd)}``, each (K, d)."""
        return {"theta": dirichlet_moments(post.concentration, post.concentration.sum(axis=1, keepdims=True))}

    def posterior_from_params(self, params: dict):
        """A :class:`DirichletRows` whose plug-in equals the given ``theta`` (K, d) (one draw)."""
        return DirichletRows(np.asarray(params["theta"], dtype=float))

    def numpyro_prior_args(self, prior) -> dict:
        """Dirichlet pseudo-counts ``{"alpha"}`` as a float32 (K, d) array."""
        return {"alpha": prior.concentration.astype(np.float32)}

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """``theta_<label>`` ~ Dirichlet(alpha) under plate ``class_plate`` (event over the columns).

        Returns
        -------
        dict
            ``{"theta", "log_theta"}``, each (K, d); ``log_theta`` clipped at the dtype's
            smallest normal number.
        """
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        alpha = prior_args["alpha"]
        with numpyro.plate(class_plate, alpha.shape[0], dim=-1):
            th = numpyro.sample(f"theta_{label}", dist.Dirichlet(alpha))
        return {"theta": th, "log_theta": jnp.log(jnp.clip(th, jnp.finfo(th.dtype).tiny))}

    def numpyro_stats_args(self, stats) -> dict:
        """Counts ``{"counts"}`` per (class, column), float32 (K, d)."""
        return {"counts": stats.counts.astype(np.float32)}

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum_{k,j} n[k,j] log theta[k,j]``: the labelled-data log-likelihood."""
        return (stats_args["counts"] * params["log_theta"]).sum()

    def numpyro_row_args(self, block, static) -> dict:
        """Dense float32 counts ``"X"`` and missing mask ``"missing"`` (n, d), row lengths ``"length"`` (n,).

        Sparse input is densified.
        """
        X = dense(block.X)
        M = np.zeros(X.shape) if block.missing is None else dense(block.missing)
        return {"X": X.astype(np.float32), "missing": M.astype(np.float32),
                "length": X.sum(axis=1).astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(tokens_i | y=k)`` per row and class, (n, K), renormalised over observed columns."""
        import jax.numpy as jnp

        ll = row_args["X"] @ params["log_theta"].T
        observed_mass = jnp.clip(1.0 - row_args["missing"] @ params["theta"].T, jnp.finfo(ll.dtype).tiny)
        return ll - row_args["length"][:, None] * jnp.log(observed_mass)

    # ------------------------------------------------------------ linear form and display
    def linear_terms(self, theta, state):
        """Binary log-odds pieces from ``theta`` (..., 2, d): ``log theta_1j - log theta_0j`` per count.

        The intercept part is 0 (``(...)``). NaN where undefined (alpha=0).
        """
        with np.errstate(divide="ignore", invalid="ignore"):  # alpha=0: NaN where undefined, see model._linear
            lt = np.log(theta)
            return lt[..., 1, :] - lt[..., 0, :], np.zeros(theta.shape[:-2])

    def linear_names(self, names, state):
        """Names of the :meth:`linear_terms` weights: the column names."""
        return list(names)

    def plot_panels(self, block, top=10) -> list:
        """One bar panel for the block: its ``top`` most probable columns per class (posterior mean)."""
        names = [str(n) for n in block.names]
        a = block.posterior.concentration
        p = a / a.sum(axis=1, keepdims=True)
        idx = np.argsort(-p.max(axis=0))[:top]
        return [(f"{len(names)} count columns (top {len(idx)})", "bars", ([names[i] for i in idx], p[:, idx]))]
