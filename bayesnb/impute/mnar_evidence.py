"""Choose between MAR and self-masking MNAR missingness by BIC, both fitted by the same EM.

:func:`mnar_evidence` fits both selection models by :func:`~bayesnb.generative.mnar.fit_selection` on
the same naive model and variables (values and missingness indicators): MAR ties each missingness
node's bins (``tied=True``), MNAR does not (:func:`~bayesnb.impute_mnar`). MNAR is chosen when its log-likelihood gain exceeds BIC's ``k/2 log n``.
Opt-in (:func:`~bayesnb.impute_table` assumes MAR); a mechanism the naive model cannot represent can
look like self-masking (docs/mnar.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from ..generative.mnar import fit_selection, state_posterior_mnar
from ..inference.em import allowed_states
from .mvn import _check_table
from .selfmasking import _check_em, _check_options, _fit

__all__ = ["MNAREvidence", "mnar_evidence"]


class MNAREvidence(NamedTuple):
    """The result of :func:`mnar_evidence`.

    Attributes
    ----------
    loglik_mar, loglik_mnar : float
        ``log p(x_obs, m | y, theta)`` summed over the rows, at each model's fitted parameters.
    k, n : int
        The MNAR model's free selection parameters beyond the MAR model's, and the rows.
    penalty, choice : float, {"MAR", "MNAR"}
        ``k / 2 * log(n)``, and ``"MNAR"`` when ``loglik_mnar - loglik_mar`` exceeds it.
    fits : dict
        ``{"MAR": SelectionFit, "MNAR": SelectionFit}`` (:class:`bayesnb.generative.mnar.SelectionFit`).
    """

    loglik_mar: float
    loglik_mnar: float
    k: int
    n: int
    penalty: float
    choice: str
    fits: dict


def evidence_fits(X, y, *, n_bins=5, alpha=1.0, estimator=None, tol=1e-6, max_iter=200, who="mnar_evidence"):
    """``(result, encoded)``: :func:`mnar_evidence`'s result and the encoded rows (for its fits' fills)."""
    y = _check_table(X, y, estimator, who)
    _check_options(n_bins, "mean", 1, 0.0, "value", alpha, False, who)
    _check_em(tol, max_iter, {}, who)
    model, encoded, mnar, codes, _ = _fit(X, y, who, estimator=estimator, n_bins=int(n_bins), alpha=float(alpha),
                                         tol=tol, max_iter=max_iter, by_class=False, n_components=1, rng=None)
    allowed = allowed_states(mnar.group, codes)
    mar = fit_selection(model.posterior_, encoded, mnar.columns, mnar.group, allowed, np.ones(X.shape[0]),
                        (model.class_alpha, model.fit_prior, model.class_prior), alpha=float(alpha), tol=tol,
                        max_iter=max_iter, tied=True)
    l0, l1 = (float(logsumexp(rel, axis=1).sum() + np.sum(row)) for rel, row in (
        state_posterior_mnar(f.posterior, encoded, f.columns, f.selection, allowed=allowed) for f in (mar, mnar)))
    k = sum(r.shape[1] - 1 for r in mnar.selection)  # the selection is shared by the classes
    penalty = 0.5 * k * float(np.log(X.shape[0]))
    return MNAREvidence(l0, l1, int(k), int(X.shape[0]), penalty, "MNAR" if l1 - l0 > penalty else "MAR",
                        {"MAR": mar, "MNAR": mnar}), encoded


def mnar_evidence(X, y=None, *, n_bins=5, alpha=1.0, estimator=None, tol=1e-6, max_iter=200):
    """Choose between MAR and self-masking MNAR missingness by BIC, both fitted by the same EM.

    Parameters
    ----------
    X : DataFrame of shape (n, d)
        The table, with missing cells.
    y : array-like of shape (n,), optional
        Class labels (None: one class).
    n_bins, alpha, estimator, tol, max_iter
        As in :func:`~bayesnb.impute_mnar` (its naive model, selection shared by the classes, categorical
        columns included).

    Returns
    -------
    MNAREvidence
        Both log-likelihoods, ``k``, ``n``, the penalty, the choice and both fits.

    Raises
    ------
    ValueError, TypeError
        As :func:`~bayesnb.impute_mnar`: bad options, or no column that can take a missingness node.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayesnb.impute.mnar_evidence import mnar_evidence
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 600)
    >>> x = rng.normal(3.0 * y, 1.0)
    >>> hide = (x > np.quantile(x, 0.6)) & (rng.random(600) < 0.8)
    >>> mnar_evidence(pd.DataFrame({"x": np.where(hide, np.nan, x), "z": rng.normal(y, 1.0)}), y).choice
    'MNAR'
    """
    return evidence_fits(X, y, n_bins=n_bins, alpha=alpha, estimator=estimator, tol=tol, max_iter=max_iter)[0]
