"""A :class:`~bayesnb.NaiveBayes` fitted for imputation: ``fit(X, y, impute=...)`` and the ``impute`` it answers.

One imputer (issue 27): ``NaiveBayes(...).fit(X, y, impute=True)`` fits the classifier as ``fit`` does
and, on the same table, the :class:`~bayesnb.Imputer` of :func:`~bayesnb.impute_table` (a
configuration per column chosen on hidden observed cells: naive Bayes, latent-class mixture, TAN,
multivariate normal), with this estimator's parameters as the template of every configuration. The
fitted imputer is the model's ``imputer_``; the model's own :meth:`impute` then fills with it by
default, so ``model.impute(X)`` is ``impute_table(X, y, random_state=seed).table`` (the same code:
``Imputer.fit`` then ``Imputer.impute``), the model file keeps it, and ``bayesnb impute MODEL DATA``
uses it. What the model is asked explicitly (``strategy="mode"``/``"mean"``, ``latent=``,
``n_components``, ``parameter_uncertainty=False``) it answers with its own posterior, as any fitted
model does.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..io import dask_data as _dask

__all__ = ["imputer_for", "impute_with_imputer", "uses_imputer"]


def imputer_for(model, impute, X, sample_weight):
    """The unfitted :class:`~bayesnb.Imputer` that ``fit(X, y, impute=impute)`` fits, or None (checked first).

    Parameters
    ----------
    model : NaiveBayes
        The estimator being fitted (its parameters are the template of every configuration).
    impute : bool or Imputer
        ``False``: none; ``True``: ``Imputer()``; an unfitted ``Imputer``: its options (a copy of it
        is fitted; its ``estimator`` must be left None: the template is ``model``).
    X : the training table
    sample_weight : array-like or None

    Returns
    -------
    Imputer or None

    Raises
    ------
    ValueError
        With ``model.privacy`` set (the imputer would be fitted on the raw cells, outside the privacy
        budget), or with ``sample_weight``.
    TypeError
        A bad ``impute`` or ``X`` not a pandas DataFrame.
    """
    who = f"{type(model).__name__}.fit"
    if impute is False or impute is None:
        return None
    # bayesnb.impute.imputer imports the estimators, which import this module: the class comes through
    # the package's lazy table (loaded on first use)
    Imputer = sys.modules["bayesnb"].Imputer  # noqa: N806 - the class
    if impute is True:
        imp = Imputer()
    elif isinstance(impute, Imputer):
        if impute.estimator is not None:
            raise ValueError(f"{who}: impute=Imputer(estimator=...) is not taken: the template of every "
                             "configuration is the estimator being fitted; leave the Imputer's estimator None.")
        imp = clone(impute)
    else:
        raise TypeError(f"{who}: impute must be False, True or an unfitted bayesnb.Imputer (its options); "
                        f"received {type(impute).__name__}.")
    if model.privacy is not None:  # the imputer's selection and models would see the raw cells
        raise ValueError(f"{who}: impute= under privacy=DP(...) is not available: the imputer's configurations "
                         "and its selection on hidden cells are fitted on the raw table, not differentially "
                         "private. Fit without impute= and use the private model's own impute (post-processing).")
    if _dask.is_dask(X) or not isinstance(X, pd.DataFrame):
        raise TypeError(f"{who}: impute= needs X as a pandas DataFrame (one column per feature; the imputer "
                        f"chooses a model per column); received {type(X).__name__}.")
    if sample_weight is not None:
        raise ValueError(f"{who}: impute= does not take sample_weight (the imputer's selection counts rows); "
                         "fit without weights, or without impute=.")
    return imp.set_params(estimator=clone(model))


def uses_imputer(model, strategy, n_components, latent, parameter_uncertainty):
    """Whether ``model.impute(...)`` with these arguments is answered by ``model.imputer_``.

    The imputer answers the default point fill (``strategy="auto"``) and multiple imputation
    (``"draw"`` with parameter draws); an explicit model choice is the model's own. NumPy scalars
    count as the Python values they equal (``np.True_``, ``np.int64(1)``).

    Parameters
    ----------
    model : NaiveBayes
    strategy : str
    n_components : int or "auto"
    latent : LatentClassFit or None
    parameter_uncertainty : bool

    Returns
    -------
    bool
        True when ``model`` has ``imputer_``, ``strategy`` is ``"auto"`` or ``"draw"``, ``latent`` is
        None, ``parameter_uncertainty`` is true and ``n_components`` is 1.
    """
    whole = isinstance(n_components, int | np.integer) and not isinstance(n_components, bool | np.bool_)
    return (getattr(model, "imputer_", None) is not None and isinstance(strategy, str)
            and strategy in ("auto", "draw") and latent is None
            and isinstance(parameter_uncertainty, bool | np.bool_) and bool(parameter_uncertainty)
            and whole and int(n_components) == 1)


def impute_with_imputer(model, X, y, strategy, n_imputations, random_state):
    """``model.imputer_.impute(X, y, ...)``, warning when ``y`` is given to an imputer that does not use it.

    The imputer fills a pandas DataFrame with the fitted columns: ``X`` with those columns in another
    order is filled in the imputer's order and returned in its own; anything else (an array, a sparse
    matrix, a Dask collection, other columns) is refused, the error naming what to pass (the model's
    own posterior answers an explicit choice such as ``strategy="mode"``, for any input it takes).

    Parameters
    ----------
    model : NaiveBayes
        Fitted with ``fit(X, y, impute=...)`` (it has ``imputer_``).
    X : pandas.DataFrame
        Rows with the fitted columns (any order); missing cells NaN/None/``pd.NA``.
    y : array-like of shape (n_samples,) or None
        Known labels (used only by an imputer fitted with ``label_given=True``).
    strategy : {"auto", "draw"}
    n_imputations : int
    random_state : None, int or Generator

    Returns
    -------
    DataFrame, or a list of ``n_imputations`` of them (``"draw"``)

    Raises
    ------
    TypeError
        ``X`` not a pandas DataFrame.
    ValueError
        ``X``'s columns are not the fitted ones.
    """
    imp = model.imputer_
    who = f"{type(model).__name__}.impute"
    fitted = list(imp.columns_)
    shown = f"{fitted[:10]}{'...' if len(fitted) > 10 else ''}"
    if _dask.is_dask(X) or not isinstance(X, pd.DataFrame):
        raise TypeError(f"{who}: this model was fitted with impute= and fills with its imputer, which needs a "
                        f"pandas DataFrame with the fitted columns {shown}; received {type(X).__name__} "
                        "(pass pd.DataFrame(X, columns=model.feature_names_in_), or ask the model's own "
                        "posterior explicitly, e.g. strategy=\"mode\").")
    order = list(X.columns)
    if order != fitted:
        if set(order) != set(fitted) or len(set(order)) != len(order):
            raise ValueError(f"{who}: X must have the columns the model's imputer was fitted on {shown} "
                             f"(any order); received {order[:10]}{'...' if len(order) > 10 else ''}.")
        X = X[fitted]
    if y is not None and not imp.label_given:
        warnings.warn(f"{who}: y is not used: the model's imputer was fitted without "
                      "label_given (fit(X, y, impute=Imputer(label_given=True)) conditions each row's "
                      "imputation on its label).", UserWarning, stacklevel=3)
        y = None
    out = imp.impute(X, y, strategy=strategy, n_imputations=n_imputations, random_state=random_state)
    if order == fitted:
        return out
    return [t[order] for t in out] if isinstance(out, list) else out[order]
