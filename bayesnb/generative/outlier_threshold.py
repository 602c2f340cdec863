"""Outlier thresholds on ``log p(x)``, written once for :class:`~bayesnb.NBOutlierDetector` (and
through it ``bayesnb outliers``).

A row's outlier score is its log density under the posterior predictive, ``score_samples``
(higher = more typical). Fit cannot know how many outliers the rows hold, so the threshold
``offset_`` is the ``contamination`` quantile of the finite scores of rows the user passes,
as ``offset_`` of scikit-learn's novelty detectors; ``decision = score - offset_`` is
negative for outliers. A row with ``log p(x) = -inf`` (impossible under the model) is always
an outlier.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._utils import DataError

__all__ = ["AUTO_CONTAMINATION", "check_contamination", "outlier_offset"]

#: the share of training rows flagged when ``contamination="auto"`` (also the CLI's default)
AUTO_CONTAMINATION = 0.05


def check_contamination(contamination, who):
    """The contamination as a float in ``(0, 0.5]`` (``"auto"``: :data:`AUTO_CONTAMINATION`).

    Parameters
    ----------
    contamination : "auto" or float
    who : str
        Named in the error.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When it is neither ``"auto"`` nor a number in range.
    """
    if isinstance(contamination, str) and contamination == "auto":
        return AUTO_CONTAMINATION
    interval = "(0, 0.5]"  # scikit-learn's range for novelty detectors
    if isinstance(contamination, bool) or not isinstance(contamination, numbers.Real) or not 0 < contamination <= 0.5:
        raise ValueError(f"{who}: contamination must be 'auto' or a fraction in {interval}; "
                         f"received {contamination!r}.")
    return float(contamination)


def outlier_offset(scores, contamination, who, sample_weight=None):
    """The ``contamination`` quantile of the finite ``scores`` (log densities).

    The threshold is the lowest score whose (weighted) empirical CDF exceeds ``contamination``,
    a score of one of the rows: the rows strictly below it, the outliers, are
    ``floor(contamination * n)`` of ``n`` rows with distinct scores (as scikit-learn's checks of
    novelty detectors expect), and integer weights equal repeated rows.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        ``log p(x)`` of the calibration rows; ``-inf`` rows are left out of the quantile (they
        are outliers whatever the threshold).
    contamination : float
        Already checked (:func:`check_contamination`).
    who : str
        Named in the error.
    sample_weight : ndarray of shape (n_samples,), optional
        Row weights (those the model was fitted with).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When no score is finite (every row impossible under the model).
    """
    s = np.asarray(scores, dtype=float)
    keep = np.isfinite(s)
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=float)
        keep &= w > 0
        w = w[keep]
    if not keep.any():
        raise DataError(f"{who}: every row of X has log p(x) = -inf (or weight 0); no threshold can be set "
                        "(smooth with alpha > 0).")
    s = s[keep]
    w = np.ones(s.size) if w is None else w
    order = np.argsort(s, kind="stable")
    cum = np.cumsum(w[order])
    return float(s[order][np.searchsorted(cum, contamination * cum[-1], side="right")])
