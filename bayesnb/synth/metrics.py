"""The metrics of :func:`bayesnb.synthetic_report`, one function each, on prepared columns.

A prepared column is ``(kind, real, synthetic)``: for ``"categorical"`` two object arrays
whose missing cells are the sentinel :data:`MISSING` (a category of its own); for
``"numeric"`` two float arrays with NaN for missing cells.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.linalg import qr
from threadpoolctl import threadpool_limits

__all__ = [
    "MISSING",
    "bin_codes",
    "category_codes",
    "cramers_v",
    "edge_codes",
    "ks_statistic",
    "hgb_classifier",
    "hgb_matrices",
    "macro_auc",
    "pmse",
    "pmse_null",
    "train_scores",
    "tvd",
]

#: the category that missing cells of a categorical column form
MISSING = "<missing>"


def category_codes(*arrays):
    """Integer codes of the values of ``arrays`` (object arrays), shared by all of them."""
    joined = np.concatenate([np.asarray(a, dtype=object) for a in arrays])
    codes, uniques = pd.factorize(pd.Series(joined, dtype=object), use_na_sentinel=False)
    return np.split(codes, np.cumsum([len(a) for a in arrays])[:-1]), len(uniques)


def tvd(real, synthetic):
    """Total variation distance ``0.5 * sum_v |p_real(v) - p_synth(v)|`` of two categorical columns."""
    (a, b), k = category_codes(real, synthetic)
    p = np.bincount(a, minlength=k) / len(a)
    q = np.bincount(b, minlength=k) / len(b)
    return float(0.5 * np.abs(p - q).sum())


def ks_statistic(real, synthetic):
    """Two-sample Kolmogorov-Smirnov statistic ``max_x |F_real(x) - F_synth(x)|`` (observed values)."""
    a = np.sort(real[~np.isnan(real)])
    b = np.sort(synthetic[~np.isnan(synthetic)])
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / len(a)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def bin_codes(real, synthetic, bins):
    """Bin a numeric column at the ``bins``-quantiles of its real values; missing is its own bin.

    Returns the integer codes of the real and synthetic values (values outside the real
    range fall into the end bins).
    """
    observed = real[~np.isnan(real)]
    edges = np.unique(np.quantile(observed, np.linspace(0, 1, bins + 1)[1:-1])) if observed.size else np.array([])
    return edge_codes(edges, real, synthetic)


def edge_codes(edges, *columns):
    """Each column's bin among the sorted inner ``edges`` (``len(edges) + 1`` for a missing cell)."""
    out = []
    for x in columns:
        c = np.searchsorted(edges, x, side="right")
        c[np.isnan(x)] = len(edges) + 1
        out.append(c)
    return tuple(out)


def cramers_v(a, b):
    """Cramér's V of two integer-coded columns (no bias correction, as scipy's ``association``).

    ``V = sqrt(chi2 / (n (min(r, c) - 1)))`` over the categories that occur; 0 when either
    column has a single category (no association can be measured).
    """
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    r, c = ai.max() + 1, bi.max() + 1
    if min(r, c) < 2:
        return 0.0
    table = np.zeros((r, c))
    np.add.at(table, (ai, bi), 1.0)
    n = table.sum()
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return float(np.sqrt(chi2 / (n * (min(r, c) - 1))))


def _design(columns, n_real):
    """Propensity-model design of real ∪ synthetic rows.

    One-hot categoricals (missing a category; the first level dropped), standardised
    numerics, and a missing indicator for a numeric column with missing cells (its
    missing cells set to 0, the mean).
    """
    parts = []
    for kind, real, synthetic in columns:
        if kind == "categorical":
            (codes,), k = category_codes(np.concatenate([real, synthetic]))
            parts.append(np.eye(k)[codes][:, 1:])
        else:
            x = np.concatenate([real, synthetic])
            miss = np.isnan(x)
            obs = x[~miss]
            sd = obs.std() if obs.size else 0.0
            z = np.zeros_like(x) if sd == 0 else np.where(miss, 0.0, (x - obs.mean()) / sd)
            parts.append(z[:, None])
            if miss.any() and not miss.all():
                parts.append(miss[:, None].astype(float))
    return np.hstack(parts) if parts else np.zeros((n_real, 0))


def pmse(columns, n_real, n_synthetic):
    """Propensity-score mean squared error (Snoke et al. 2018) and the model's parameter count.

    A logistic regression (unpenalised, main effects; see :func:`_design`) predicts whether
    a row of real ∪ synthetic is synthetic; ``pMSE = mean_i (p_i - c)^2`` with ``c`` the
    synthetic share. Returns ``(pmse, k)``, ``k`` the rank of the design with intercept.
    """
    Z = _design(columns, n_real)
    label = np.r_[np.zeros(n_real), np.ones(n_synthetic)]
    c = n_synthetic / (n_real + n_synthetic)
    A = np.hstack([np.ones((Z.shape[0], 1)), Z])
    k = int(np.linalg.matrix_rank(A))
    if Z.shape[1] == 0 or k == 1:
        return 0.0, k
    # k independent columns of the design (pivoted QR) span the same space, so the fitted
    # probabilities are those of the full design, and Newton's method has a regular Hessian:
    # the same maximum-likelihood fit in a few dozen steps, where L-BFGS at this tolerance took
    # thousands (minutes on a 20,000-row, 100-column design)
    from sklearn.linear_model import LogisticRegression  # lazy: keeps `import bayesnb` light

    keep = np.sort(qr(A, mode="r", pivoting=True)[1][:k])
    with threadpool_limits(1):  # one BLAS thread: on a busy 2-core machine 2 made this fit 3-10x slower
        model = LogisticRegression(C=np.inf, solver="newton-cholesky", fit_intercept=False, tol=1e-10,
                                   max_iter=500).fit(A[:, keep], label)
    p = model.predict_proba(A[:, keep])[:, 1]
    return float(np.mean((p - c) ** 2)), k


def pmse_null(k, n_real, n_synthetic):
    """Expected pMSE of a logistic model with ``k`` parameters, ``(k - 1) (1 - c)^2 c / N``
    (Snoke et al. 2018), for synthetic rows from a correct model fitted to the real rows;
    independent samples of one distribution have ``1 / (1 - c)`` times this."""
    N = n_real + n_synthetic
    c = n_synthetic / N
    return (k - 1) * (1 - c) ** 2 * c / N


def hgb_matrices(kinds, *tables):
    """Feature matrices of prepared columns for ``HistGradientBoostingClassifier``.

    Parameters
    ----------
    kinds : list of str
        ``"categorical"`` or ``"numeric"``, one per column.
    *tables : lists of arrays
        Each a list of prepared columns (one array per column, in the order of ``kinds``).

    Returns
    -------
    matrices : list of ndarray of shape (n_rows_t, n_columns)
        One per table: numerics as they are (NaN for missing), categoricals as integer
        codes shared by all tables (missing is a category).
    categorical : ndarray of bool of shape (n_columns,)
        Which columns to pass as ``categorical_features`` (categoricals with fewer than
        255 categories; more are used as ordinal codes, as HistGradientBoosting bins at
        most 255).
    """
    columns, mask = [[] for _ in tables], []
    for j, kind in enumerate(kinds):
        arrays = [t[j] for t in tables]
        if kind == "categorical":
            arrays, k = category_codes(*arrays)
            arrays = [a.astype(float) for a in arrays]
        for out, a in zip(columns, arrays):
            out.append(a)
        mask.append(kind == "categorical" and k < 255)
    return [np.column_stack(c) for c in columns], np.array(mask, dtype=bool)


def hgb_classifier(categorical, random_state):
    """The ``HistGradientBoostingClassifier`` of the report (default settings, seeded)."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # lazy: keeps `import bayesnb` light

    return HistGradientBoostingClassifier(categorical_features=categorical if categorical.any() else None,
                                          random_state=random_state)


def macro_auc(y_true, classes, proba):
    """ROC AUC, macro-averaged one-vs-rest over the classes of ``y_true``.

    ``proba[:, i]`` scores class ``classes[i]``; a class of ``y_true`` that the model does
    not know scores 0. With two classes this is the binary ROC AUC (both one-vs-rest AUCs
    are equal). Returns None when ``y_true`` holds fewer than two classes.
    """
    from sklearn.metrics import roc_auc_score  # lazy: keeps `import bayesnb` light

    present = np.unique(y_true)
    if present.size < 2:
        return None
    index = {c: i for i, c in enumerate(classes)}
    aucs = [roc_auc_score(y_true == c, proba[:, index[c]] if c in index else np.zeros(len(y_true)))
            for c in present]
    return float(np.mean(aucs))


def train_scores(train, y_train, test, y_test, kinds, random_state):
    """Accuracy and ROC AUC on ``test`` of a HistGradientBoostingClassifier trained on ``train``.

    ``train`` and ``test`` are lists of prepared columns (one array per column; see
    :func:`hgb_matrices`). The AUC is :func:`macro_auc` (binary ROC AUC for two classes,
    macro one-vs-rest for more; None if the test rows hold one class). With a single class
    in ``y_train`` the model is that class (accuracy its share, AUC 0.5).

    Returns
    -------
    accuracy : float
    auc : float or None
    """
    (X_train, X_test), mask = hgb_matrices(kinds, train, test)
    classes = np.unique(y_train)
    if classes.size == 1:
        return float(np.mean(y_test == classes[0])), macro_auc(y_test, classes, np.ones((len(y_test), 1)))
    clf = hgb_classifier(mask, random_state)
    with threadpool_limits(1, user_api="openmp"):  # small tables: threads only contend (10x slower)
        clf.fit(X_train, y_train)
        proba = clf.predict_proba(X_test)
    accuracy = float(np.mean(clf.classes_[np.argmax(proba, axis=1)] == y_test))
    return accuracy, macro_auc(y_test, clf.classes_, proba)
