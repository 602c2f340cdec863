"""Distance- and classifier-based metrics of :func:`bayesnb.synthetic_report`.

- :func:`encode`: rows of prepared columns as points (standardised numerics, scaled one-hot
  categoricals) for the distance metrics and the logistic detector;
- :func:`alpha_precision_beta_recall`: the k-NN version of Alaa et al.'s alpha-precision
  and beta-recall;
- :func:`integrated_alpha_beta`: their integrated forms, as synthcity's ``AlphaPrecision``
  ("naive" embedding, synthcity 0.2) computes them and TabSyn / TabDiff report them;
- :func:`dcr_share`: distance to closest record against a real holdout;
- :func:`detection_score`: a classifier two-sample test (C2ST) as SDMetrics' detection score.

Alaa, A., van Breugel, B., Saveliev, E. and van der Schaar, M. (2022). How faithful is your
synthetic data? Sample-level metrics for evaluating and auditing generative models.
*ICML 2022*, PMLR 162, 290-306.

Kynkäänniemi, T., Karras, T., Laine, S., Lehtinen, J. and Aila, T. (2019). Improved precision
and recall metric for assessing generative models. *NeurIPS 2019*.
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from .metrics import category_codes, hgb_classifier, hgb_matrices

__all__ = ["SLOW_METRICS", "alpha_precision_beta_recall", "dcr_share", "detection_score", "distance_metrics",
           "encode", "integrated_alpha_beta", "nearest_distances"]


def encode(columns, scale="standard"):
    """Points of the rows of each table: scaled numerics and one-hot categoricals.

    Parameters
    ----------
    columns : list of tuple
        Prepared columns ``(kind, real, other, ...)`` (see :mod:`bayesnb.synth.metrics`);
        the first table is the real one, whose values scale numerics.
    scale : {"standard", "minmax"}, default="standard"
        ``"standard"``: a numeric column is ``(x - mean_real) / sd_real`` (sd 0: 1) and a
        one-hot block is scaled by ``1 / sqrt(2)``, so that two different categories are at
        distance 1, as two numerics one real standard deviation apart. ``"minmax"``: a numeric
        column is ``(x - min_real) / (max_real - min_real)`` (range 0: 1) and one-hot blocks are
        0/1, the embedding synthcity's ``AlphaPrecision`` scores ("naive": scikit-learn's
        ``MinMaxScaler`` fitted on the real rows' numerics and one-hot columns).

    Returns
    -------
    list of ndarray of shape (n_rows_t, n_features)
        One matrix per table. A numeric missing cell is 0 with a 0/1 missing indicator beside
        it (when any table has one); a categorical column is one-hot over the categories of all
        tables (missing is a category).
    """
    if scale not in ("standard", "minmax"):
        raise ValueError(f"encode: scale must be 'standard' or 'minmax'; received {scale!r}.")
    n_tables = len(columns[0]) - 1 if columns else 0
    parts = [[] for _ in range(n_tables)]
    onehot = 1.0 / np.sqrt(2.0) if scale == "standard" else 1.0
    for kind, *arrays in columns:
        if kind == "categorical":
            codes, k = category_codes(*arrays)
            for out, c in zip(parts, codes):
                out.append(np.eye(k)[c] * onehot)
            continue
        observed = arrays[0][~np.isnan(arrays[0])]
        if not observed.size:
            origin, unit = 0.0, 1.0
        elif scale == "standard":
            origin, unit = observed.mean(), observed.std()
        else:
            origin, unit = observed.min(), observed.max() - observed.min()
        unit = unit if unit > 0 else 1.0
        indicator = any(np.isnan(a).any() for a in arrays)
        for out, a in zip(parts, arrays):
            miss = np.isnan(a)
            out.append(np.where(miss, 0.0, (a - origin) / unit)[:, None])
            if indicator:
                out.append(miss[:, None].astype(float))
    return [np.hstack(p) if p else np.zeros((len(columns[0][t + 1]) if columns else 0, 0))
            for t, p in enumerate(parts)]


def nearest_distances(points, reference, k=1, exclude_self=False, return_index=False):
    """Euclidean distance from each row of ``points`` to its ``k``-th nearest row of ``reference``.

    With ``exclude_self=True`` (``points`` is ``reference``) a row is not its own neighbour.
    Distances are rounded to 1e-9: on categorical columns many are exactly equal, and the
    k-NN search's floating-point error (which differs between scikit-learn releases) must
    not decide the ties that the radius quantiles and the DCR share count. With
    ``return_index``, also the position of that row in ``reference``: ``(distances, index)``.
    """
    from sklearn.neighbors import NearestNeighbors  # lazy: keeps `import bayesnb` light

    nn = NearestNeighbors(n_neighbors=k + int(exclude_self)).fit(reference)
    with threadpool_limits(1):
        d, idx = nn.kneighbors(points)
    d = np.round(d[:, -1], 9)
    return (d, idx[:, -1]) if return_index else d


def alpha_precision_beta_recall(real, synthetic, alpha=0.95, beta=0.95, k=5):
    """Alpha-precision and beta-recall (Alaa et al. 2022), estimated with k-NN balls.

    The alpha-support of the real data is estimated as the points within ``r_alpha`` of a
    real row, ``r_alpha`` the ``alpha``-quantile of the real rows' distances to their
    ``k``-th nearest other real row (so the most isolated ``1 - alpha`` of the real rows do
    not widen it); alpha-precision is the share of synthetic rows inside it. Beta-recall is
    the same with the tables' roles swapped: the share of real rows within ``r_beta`` (the
    ``beta``-quantile of the synthetic rows' k-NN distances) of a synthetic row.

    Parameters
    ----------
    real, synthetic : ndarray of shape (n_rows, n_features)
        Points (see :func:`encode`), at least 2 rows each.
    alpha, beta : float in (0, 1], default=0.95
    k : int, default=5
        Neighbour whose distance sets the scale (capped at the rows of the table minus one).

    Returns
    -------
    alpha_precision, beta_recall : float
        In [0, 1]; near 1 when each table lies where the other has mass.
    """
    def within(points, ref, q):
        kk = min(k, len(ref) - 1)
        radius = np.quantile(nearest_distances(ref, ref, kk, exclude_self=True), q)
        return float(np.mean(nearest_distances(points, ref) <= radius))

    return within(synthetic, real, alpha), within(real, synthetic, beta)


def integrated_alpha_beta(real, synthetic, n_steps=30):
    """Integrated alpha-precision and beta-recall (Alaa et al. 2022), as TabSyn and TabDiff report them.

    The curve forms of synthcity's ``AlphaPrecision`` on the "naive" embedding (the rows as
    points, no one-class network), the scores of TabSyn's ``eval_quality.py``. For each
    ``alpha`` of ``n_steps`` equally spaced in [0, 1]:

    - precision: the share of synthetic rows within the ``alpha``-quantile of the real rows'
      distances to the real rows' mean (a ball holding a share ``alpha`` of the real rows);
    - coverage: the share of real rows whose nearest synthetic row is nearer than their nearest
      other real row *and* lies within the ``alpha``-quantile of those nearest synthetic rows'
      distances to the synthetic rows' mean.

    Each score is ``1 - sum_alpha |alpha - curve(alpha)| / sum_alpha alpha`` (synthcity 0.2's
    normalisation): 1 when the curve is the diagonal. A generator whose rows crowd the real centre has a precision curve above the
    diagonal and is penalised, as one whose rows spread beyond the real ones. Rows from the real
    distribution itself reach about 0.5 in beta-recall (half of the real rows have a nearer
    real neighbour than their nearest synthetic one: a curve of ``alpha / 2``); a copy of the real
    rows reaches 1. (synthcity's loader also drops the table's last column, taken as a target;
    here every column counts.)

    Parameters
    ----------
    real, synthetic : ndarray of shape (n_rows, n_features)
        Points (:func:`encode` with ``scale="minmax"`` for synthcity's embedding), as many rows
        of each (synthcity requires it: the coverage compares nearest-neighbour distances
        within and across the tables), at least 2.
    n_steps : int, default=30
        Points of the alpha grid (synthcity's 30), at least 2.

    Returns
    -------
    alpha_precision, beta_recall : float
        At most 1 (the curve on the diagonal); 0 or less when the curve stays far from it.

    Raises
    ------
    ValueError
        The tables differ in rows or have fewer than 2, or ``n_steps < 2``.
    """
    if len(real) != len(synthetic) or len(real) < 2 or n_steps < 2:
        raise ValueError(f"integrated_alpha_beta: expected as many rows of each table (at least 2) and "
                         f"n_steps >= 2; received {len(real)} and {len(synthetic)} rows, n_steps={n_steps}.")
    alphas = np.linspace(0.0, 1.0, n_steps)
    center = real.mean(axis=0)
    radii = np.quantile(np.linalg.norm(real - center, axis=1), alphas)
    to_center = np.linalg.norm(synthetic - center, axis=1)
    precision = (to_center[None, :] <= radii[:, None]).mean(axis=1)
    real_to_real = nearest_distances(real, real, 1, exclude_self=True)
    real_to_synth, idx = nearest_distances(real, synthetic, return_index=True)
    closest = np.linalg.norm(synthetic[idx] - synthetic.mean(axis=0), axis=1)
    closest_radii = np.quantile(closest, alphas)
    nearer = real_to_synth <= real_to_real
    coverage = (nearer[None, :] & (closest[None, :] <= closest_radii[:, None])).mean(axis=1)
    return (float(1 - np.abs(alphas - precision).sum() / alphas.sum()),
            float(1 - np.abs(alphas - coverage).sum() / alphas.sum()))


def dcr_share(synthetic, train, holdout):
    """Distance-to-closest-record share: how often a synthetic row is closer to the training rows.

    Parameters
    ----------
    synthetic, train, holdout : ndarray of shape (n_rows, n_features)
        Points (see :func:`encode`); ``train`` the real rows the generator was fitted on,
        ``holdout`` real rows it never saw, as many as ``train``.

    Returns
    -------
    float
        The share of synthetic rows whose nearest training row is nearer than their nearest
        holdout row (a tie counts one half). 0.5 when the generator does not favour its
        training rows; near 1 when it copies them.
    """
    d_train, d_hold = nearest_distances(synthetic, train), nearest_distances(synthetic, holdout)
    return float(np.mean(d_train < d_hold) + 0.5 * np.mean(d_train == d_hold))


def detection_score(real, synthetic, make_model, random_state=None, n_splits=3):
    """SDMetrics' detection score of a classifier telling real rows from synthetic ones (C2ST).

    The rows are split into ``n_splits`` stratified folds (shuffled, seeded); for each, the
    model trained on the other folds scores the held-out rows and the ROC AUC is taken.
    The score is ``1 - mean_folds(2 * max(AUC, 0.5) - 1)``, as SDMetrics' ``LogisticDetection``.

    Parameters
    ----------
    real, synthetic : ndarray of shape (n_rows, n_features)
    make_model : callable
        Returns a fresh scikit-learn classifier with ``predict_proba``.
    random_state : int or None
    n_splits : int, default=3
        Folds (fewer when a table has fewer rows).

    Returns
    -------
    float
        1 when the classifier does no better than chance, 0 when it separates the tables.
    """
    from sklearn.metrics import roc_auc_score  # lazy: keeps `import bayesnb` light
    from sklearn.model_selection import StratifiedKFold

    X = np.vstack([real, synthetic])
    y = np.r_[np.ones(len(real)), np.zeros(len(synthetic))]
    folds = StratifiedKFold(n_splits=min(n_splits, len(real), len(synthetic)), shuffle=True,
                            random_state=random_state)
    scores = []
    with threadpool_limits(1):  # BLAS (logistic) and OpenMP (HGB): on small tables threads only contend
        for train, test in folds.split(X, y):
            model = make_model().fit(X[train], y[train])
            auc = roc_auc_score(y[test], model.predict_proba(X[test])[:, 1])
            scores.append(2.0 * max(auc, 0.5) - 1.0)
    return float(1.0 - np.mean(scores))


def _logistic():
    """The logistic detector: L2-penalised (C = 1, scikit-learn's default), Newton's method."""
    from sklearn.linear_model import LogisticRegression  # lazy: keeps `import bayesnb` light

    return LogisticRegression(solver="newton-cholesky", max_iter=1000)


#: the slower metrics that ``synthetic_report(metrics=...)`` chooses among
SLOW_METRICS = ("alpha_beta", "detection", "dcr")


def distance_metrics(columns, metrics=SLOW_METRICS, max_rows=5000, random_state=None):
    """The report's distance and detection metrics on subsamples of the tables.

    Parameters
    ----------
    columns : list of tuple
        Prepared columns ``(kind, real, synthetic)`` or ``(kind, real, synthetic, holdout)``.
    metrics : collection of str
        Which of :data:`SLOW_METRICS` to compute; ``"dcr"`` needs the holdout.
    max_rows : int
        Each table is subsampled (without replacement, seeded) to at most this many rows;
        for DCR, the real and holdout rows to the same number, ``min(n_real, n_holdout,
        max_rows)``, so that 0.5 is the share expected when nothing is copied.
    random_state : int or None

    Returns
    -------
    dict
        ``alpha_precision``, ``beta_recall``, ``alpha_precision_integrated``,
        ``beta_recall_integrated`` (``"alpha_beta"``), ``detection_logistic``,
        ``detection_gbm`` (``"detection"``) and ``dcr_share`` (``"dcr"``): None when not
        computed.
    """
    rng = np.random.default_rng(random_state)
    seed = int(rng.integers(2**31))

    def pick(n, m):
        return np.sort(rng.choice(n, m, replace=False)) if n > m else np.arange(n)

    points = encode(columns)
    real, syn = points[0], points[1]
    ir, js = pick(len(real), max_rows), pick(len(syn), max_rows)
    out = dict.fromkeys(("alpha_precision", "beta_recall", "alpha_precision_integrated", "beta_recall_integrated",
                         "detection_logistic", "detection_gbm", "dcr_share"))
    if "alpha_beta" in metrics:
        out["alpha_precision"], out["beta_recall"] = alpha_precision_beta_recall(real[ir], syn[js])
        m = min(len(ir), len(js))  # as many rows of each, drawn by a generator of their own
        own = np.random.default_rng([seed, 1])
        minmax = encode([c[:3] for c in columns], scale="minmax")
        out["alpha_precision_integrated"], out["beta_recall_integrated"] = integrated_alpha_beta(
            minmax[0][np.sort(own.choice(len(real), m, replace=False))],
            minmax[1][np.sort(own.choice(len(syn), m, replace=False))])
    if "detection" in metrics:
        out["detection_logistic"] = detection_score(real[ir], syn[js], _logistic,
                                                    seed)
        (hr, hs), mask = hgb_matrices([c[0] for c in columns], [c[1][ir] for c in columns],
                                      [c[2][js] for c in columns])
        out["detection_gbm"] = detection_score(hr, hs, lambda: hgb_classifier(mask, seed), seed)
    if "dcr" in metrics and len(points) > 2:
        n = min(len(real), len(points[2]), max_rows)
        out["dcr_share"] = dcr_share(syn[js], real[pick(len(real), n)], points[2][pick(len(points[2]), n)])
    return out
