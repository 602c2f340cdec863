"""Argument checks of the generative methods (:mod:`bayesnb.generative.methods`).

What ``sample`` and ``impute`` accept, checked before anything reaches the posterior.
"""

from __future__ import annotations

import numpy as np

from ..inference.private_stats import block_bounds
from .given import given_columns
from .tables import label_codes

__all__ = ["check_dask_impute", "check_not_private", "check_prior_flag", "check_prior_options", "declared_bounds",
           "sample_request"]


def check_prior_flag(who, prior):
    """``sample``'s ``prior`` as a bool: True or False (a NumPy bool too); anything else a ``ValueError``.

    Parameters
    ----------
    who : str
        Name used in error messages.
    prior : object
        The ``prior`` argument of ``sample``.

    Returns
    -------
    bool
    """
    if not isinstance(prior, (bool, np.bool_)):
        raise ValueError(f"{who}.sample: prior must be True or False; received {prior!r}.")
    return bool(prior)


def check_prior_options(who, parameter_uncertainty, options):
    """Refuse what ``sample(prior=True)`` cannot honour.

    A prior predictive draw takes one draw of every parameter from its prior, so it accepts
    ``n_samples``, ``y``, ``random_state`` and ``length`` only.

    Parameters
    ----------
    who : str
        Name used in error messages.
    parameter_uncertainty : bool
        Must be True (the prior draw is the parameter uncertainty).
    options : dict
        The other keyword arguments of ``sample``: each must be None (or False).

    Raises
    ------
    ValueError
        Naming the options that were set.
    """
    odd = [k for k, v in options.items() if v is not None and v is not False]
    if not parameter_uncertainty:
        odd.append("parameter_uncertainty")
    if odd:
        raise ValueError(f"{who}.sample(prior=True) draws every parameter from its prior and takes only n_samples, "
                         f"y, random_state and length; received {', '.join(odd)}.")


def sample_request(classes, n_samples, y, given, n_features, feature_names, who):
    """The rows ``sample`` is asked for: their number, their classes and the given values.

    Parameters
    ----------
    classes : ndarray
        The estimator's ``classes_``.
    n_samples : int
        Number of rows (ignored when ``y`` is an array).
    y : label, array-like or None
        The rows' classes (one label for every row, or one per row), or None to draw them.
    given : dict, DataFrame or None
        Conditioning values (:func:`~bayesnb.generative.given.given_columns`).
    n_features : int
    feature_names : ndarray or None
    who : str
        Name used in error messages.

    Returns
    -------
    n : int
        The number of rows.
    z : ndarray of int, shape (n,), or None
        The rows' class codes when ``y`` is given.
    values, labels
        ``given``'s columns and their labels (:func:`given_columns`), or None without ``given``.

    Raises
    ------
    ValueError
        ``n_samples`` is negative, ``y`` holds a missing or unknown label, or ``given`` is malformed.
    """
    yy = None if y is None else np.asarray(y)
    n = int(n_samples) if yy is None or yy.ndim == 0 else yy.shape[0]
    if n < 0:
        raise ValueError(f"{who}: n_samples must be >= 0; received {n_samples}.")
    values = labels = None
    if given is not None:
        values, labels, n = given_columns(given, n, yy is not None and yy.ndim > 0, feature_names, n_features, who)
    z = None
    if yy is not None:
        z = label_codes(classes, yy if yy.ndim else np.full(n, yy.item(), dtype=object), n, who)
        if np.any(z < 0):
            raise ValueError(f"{who}: y must not contain missing labels when sampling.")
    return n, z, values, labels


def check_dask_impute(strategy, y, latent, n_components, who):
    """Refuse the ``impute`` options that a Dask collection, imputed partition by partition, cannot serve.

    Raises
    ------
    NotImplementedError
        ``strategy="draw"``, ``y``, ``latent`` or ``n_components != 1``: they need draws or a fit
        across partitions.
    """
    if strategy == "draw" or y is not None or latent is not None or n_components != 1:
        raise NotImplementedError(
            f"{who}.impute on a Dask collection fills each partition alone with a point estimate "
            f"(strategy 'auto', 'mode' or 'mean'); received strategy={strategy!r}, y, latent or "
            "n_components != 1, which need draws or a fit across partitions: compute X first.")


def check_not_private(estimator, method, how):
    """Refuse ``method`` on an estimator with ``privacy=``: ``how`` (it reads the raw rows) releases them.

    Raises
    ------
    ValueError
        The estimator has ``privacy`` set.
    """
    if getattr(estimator, "privacy", None) is not None:
        raise ValueError(f"{type(estimator).__name__}.{method} is not available with privacy=: {how} on the raw rows "
                         "without noise, so its result is not differentially private. Use fit.")


def declared_bounds(model):
    """``{column position: (lo, hi)}`` of a private model's ``DP(bounds=...)`` (None otherwise): the
    support its draws keep (:func:`~bayesnb.generative.functions.sample_rows`)."""
    dp = getattr(model, "privacy", None)
    if dp is None or not dp.bounds or not hasattr(model, "privacy_spent_"):
        return None
    specs = [(b.columns, b.family) for b in model.posterior_.blocks]
    per_block = block_bounds(dp, specs, getattr(model, "feature_names_in_", None), model._who)
    return {int(c): b for (cols, _), bs in zip(specs, per_block) for c, b in zip(cols, bs) if b is not None}
