"""Strictly positive real features whose logarithm is Gaussian (log-normal), with the
Gaussian family's Normal-Inverse-Gamma prior on the log scale.

For class ``k`` and feature ``j``::

    log x[i, j] | y=k  ~ Normal(mu[k, j], sigma2[k, j])      (mu, sigma2 ~ NIG, as Gaussian)
    log p(x | y=k)     = log p_Normal(log x | y=k) - log x   (change of variable: Jacobian 1/x)

Everything conjugate (statistics, prior, update, draws) is :class:`~bayesnb.families.Gaussian`'s
applied to ``log x``; ``prior=`` takes the same values ("auto", None, "reference", a dict), and
they describe ``log x``. Every log density this family returns (plug-in and exact
log-likelihoods, evidence, per-cell log-likelihoods, the NumPyro likelihoods) is a density
of ``x`` itself: the Jacobian ``-sum log x`` is included, so LogNormal scores are comparable
with Gaussian ones on the same column. The Jacobian is the same for every class, so it is
the row term of :meth:`LogNormal.log_likelihood_parts` and leaves ``predict_proba`` as
Gaussian's on ``log x``.

Generated and imputed values are on the ``x`` scale (positive).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from . import _interval
from ._gaussian_cells import mixture_mode, usable_plug_in
from .numeric import dense_numbers
from .gaussian import Gaussian

__all__ = ["LogNormal", "LogNormalBlock"]


class LogNormalBlock(NamedTuple):
    """Encoded block: ``X`` holds ``log x`` (0 where missing), ``x`` the values as given, ``missing``
    the mask of missing cells (None when none is), ``observed`` its complement."""

    X: np.ndarray
    observed: np.ndarray
    x: np.ndarray
    missing: np.ndarray | None


def _log_x_sums(block) -> np.ndarray:
    """``sum_j log x_ij`` over the observed cells of each row, shape (n,)."""
    return np.where(block.observed, block.X, 0.0).sum(axis=1)


class LogNormal(Gaussian):
    """Strictly positive real block: ``log x`` Normal with a Normal-Inverse-Gamma prior.

    Parameters
    ----------
    prior : {"auto", None, "reference"} or dict, default="auto"
        As :class:`~bayesnb.families.Gaussian`'s, applied to ``log x``.

    Notes
    -----
    ``param_names`` are ``("mu", "sigma2")``, the mean and variance of ``log x`` (so the
    median of ``x`` is ``exp(mu)``). Log-likelihoods and evidence are densities of ``x``
    (Jacobian ``-log x`` included). Sampling and imputation give values of ``x``:
    ``"mean"`` the mean of ``x``, ``exp(mu + sigma2 / 2)``; ``"mode"`` the mode of ``x``,
    ``exp(mu - sigma2)``; ``"draw"`` ``exp`` of a Normal draw of ``log x``.
    """

    name = "lognormal"

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="LogNormal"):
        """Validate strictly positive finite values (NaN = missing) and encode ``log x``.

        Zero, negative and infinite values raise a ValueError naming them; ``X`` is never
        modified. Returns a :class:`LogNormalBlock` and the number of features ``d``.
        """
        A = dense_numbers(X, who, "LogNormal features must be strictly positive finite numbers")
        observed = ~np.isnan(A)
        bad = observed & ~(np.isfinite(A) & (A > 0))
        if bad.any():
            n_inf, n_nonpos = int(np.isinf(A).sum()), int((np.isfinite(A) & (A <= 0)).sum())
            found = " and ".join(f"{n} {what}" for n, what in ((n_nonpos, "value(s) <= 0"), (n_inf, "infinite value(s)"))
                                 if n)
            raise ValueError(
                f"{who}: LogNormal features must be strictly positive finite numbers or missing (NaN); "
                f"received {found} (e.g. {float(A[bad][0])!r}). Use Gaussian for real values that can be "
                "zero or negative."
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            logs = np.log(np.where(observed, A, np.nan))
        block, d = super().encode(logs, state, extend=extend, who=who)
        return LogNormalBlock(block.X, block.observed, np.where(observed, A, 0.0), block.missing), d

    def out_of_support(self, X, state=None):
        """Bool (n, d): finite cells <= 0 (probability 0 under a log-normal)."""
        if sp.issparse(X):
            return None
        A = np.asarray(X, dtype=np.float64)
        return np.isfinite(A) & (A <= 0)

    def dp_stats(self, block, resp, state, budget, bounds, names, who="LogNormal"):
        """Gaussian's release of ``log x``, clipped to the logs of the declared bounds ``0 < lo < hi`` of ``x``."""
        bad = [names[j] for j, b in enumerate(bounds) if b is not None and b[0] <= 0]
        if bad:
            raise ValueError(f"{who}: the privacy bounds of a LogNormal column are values of x > 0 (lo > 0); "
                             f"column(s) {bad} have lo <= 0.")
        log_bounds = [None if b is None else (float(np.log(b[0])), float(np.log(b[1]))) for b in bounds]
        return super().dp_stats(block, resp, state, budget, log_bounds, names, who)

    def log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """Gaussian's parts on ``log x``, with the Jacobian ``-sum_j log x_ij`` added to the row
        term (it is the same for every class)."""
        rel, row = super().log_likelihood_parts(prior, post, block, predictive, cache)
        return rel, row - _log_x_sums(block)

    def log_evidence(self, prior, post):
        """Gaussian's evidence of ``log x`` minus ``sum log x`` per context, shape (K,).

        ``sum log x = n * mean(log x)`` per (context, feature) is read back from the conjugate
        update: ``n xbar = n mu0 + kappa_n (mu_n - mu0)``.
        """
        n = post.kappa - prior.kappa
        sum_log_x = n * prior.mu + post.kappa * (post.mu - prior.mu)
        return super().log_evidence(prior, post) - sum_log_x.sum(axis=1)

    def gen_values(self, block):
        """Values of ``x`` (n, d), NaN where missing."""
        return np.where(block.observed, block.x, np.nan)

    def predictive_bins(self, prior, post, state, edges, predictive="mean"):
        """Masses of the intervals of ``x`` under the predictive of ``log x``; means of ``x`` under the
        Normal of ``log x`` with the predictive's location and scale (a log-Student-t has no mean)."""
        return _interval.continuous_bins(*_interval.nig_loc_scale(post, predictive), edges, log_scale=True)

    # ------------------------------------------------------------------ generative hooks
    def gen_sample(self, point, z, rng, lengths=None):
        """Values of ``x`` (n, d): ``exp`` of Normal draws of ``log x`` (``lengths`` unused)."""
        return np.exp(super().gen_sample(point, z, rng, lengths))

    def gen_log_mass_between(self, prior, params, state, j, lo, hi, predictive="mean"):
        """``log P(lo <= x_j <= hi)`` per class under the predictive of ``log x`` (Normal or Student-t)."""
        loc, scale, nu = _interval.nig_loc_scale(params, predictive)
        return _interval.continuous_mass(loc[:, j], scale[:, j], None if nu is None else nu[:, j], lo, hi,
                                         log_scale=True)

    def gen_sample_between(self, point, z, rng, j, lo, hi, state=None):
        """Column ``j`` of ``x`` between ``lo`` and ``hi``: ``log x`` from its Normal truncated to ``[log lo, log hi]``."""
        with np.errstate(divide="ignore"):
            return np.exp(super().gen_sample_between(point, z, rng, j, np.log(np.maximum(lo, 0.0)),
                                                     np.log(np.maximum(hi, 0.0))))

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Values of ``x`` (n, d), missing cells filled; observed cells are the values given.

        ``"mean"``: ``sum_k resp[i,k] exp(mu_k + s2_k / 2)``, the conditional mean of ``x``;
        ``"mode"``: of the class modes ``exp(mu_k - s2_k)``, the one where the mixture density
        of ``x`` is highest (as Gaussian's, on the ``x`` scale); ``"draw"``: ``exp`` of a
        Normal draw of ``log x`` given ``z``. ``rate`` is unused.
        """
        out = block.x.copy()
        miss = self.gen_missing(block)
        if not miss.any():
            return out
        rows, cols = np.nonzero(miss)
        mu, var = usable_plug_in(point)
        if strategy == "draw":
            out[rows, cols] = np.exp(rng.normal(mu[z[rows], cols], np.sqrt(var[z[rows], cols])))
        elif strategy == "mean":
            out[rows, cols] = np.einsum("ik,ki->i", resp[rows], np.exp(mu + var / 2)[:, cols])
        else:
            m, v = mu[:, cols].T, var[:, cols].T  # (cells, K)
            out[rows, cols] = np.exp(mixture_mode(resp[rows], m, v, m - v, log_x=True))  # of the class modes of x
        return out

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Gaussian's per-cell ``sum_k weights[i,k] log p(log x_ij | y=k)`` plus the Jacobian
        ``-log x_ij`` times the weights it is averaged over, (n, d); missing -> 0."""
        out = super().gen_cell_log_lik(prior, point, block, weights, predictive)
        w = np.where(weights > 0, weights, 0.0).sum(axis=1, keepdims=True)
        return out - np.where(block.observed, w * block.X, 0.0)

    # --------------------------------------------------------- NumPyro hooks
    # The Jacobian depends on the data only: it is summed once here, not at every NUTS step.
    def numpyro_stats_args(self, stats) -> dict:
        """Gaussian's, plus ``log_x_total``: the sum of ``log x`` over the labelled cells."""
        return {**super().numpyro_stats_args(stats), "log_x_total": np.float32((stats.n * stats.mean).sum())}

    def numpyro_suffstat_loglik(self, params, stats_args):
        """Gaussian's on ``log x`` minus ``sum log x`` (the Jacobian)."""
        return super().numpyro_suffstat_loglik(params, stats_args) - stats_args["log_x_total"]

    def numpyro_row_args(self, block, static) -> dict:
        """Gaussian's, plus ``log_x_sum``: each row's ``sum_j log x_ij`` over its observed cells."""
        return {**super().numpyro_row_args(block, static), "log_x_sum": _log_x_sums(block).astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """Gaussian's on ``log x`` minus each row's ``sum_j log x_ij`` (observed cells), (n, K)."""
        return super().numpyro_row_loglik(params, row_args) - row_args["log_x_sum"][:, None]

    # ------------------------------------------------------------ display
    def plot_panels(self, block, top=10) -> list:
        """One density panel per feature on the log scale: the plug-in Normal of ``log x`` of
        each class, titled ``log(<name>)`` (``top`` unused)."""
        return [(f"log({title})", kind, payload) for title, kind, payload in super().plot_panels(block, top)]
