"""The configurations :class:`~bayesnb.Imputer` and :func:`~bayesnb.impute_table` choose among, as fit and fill.

One fitted configuration (a *member*) is what :func:`fit_config` returns: a fitted
:class:`~bayesnb.NaiveBayes` (``"naive"``, ``"tan"``, ``"tan-mi"``), a pair ``(NaiveBayes, LatentClassFit)``
(``"latent"``) or an :class:`~bayesnb.impute.mvn.MVNFit` (``"mvn"``); :func:`fill_config` imputes
a table with it, or with the self-masking member (:class:`~bayesnb.impute.mnar_config.MNARMember`, ``"mnar"``),
which the evidence chooses rather than the selection. Also here: the selection's losses and the projection of fills onto the values a
column takes (:mod:`bayesnb.impute.table` describes the procedure).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._utils import as_generator, is_numeric_column, one_class_on_purpose
from ..inference.latent_pool import best_or_pooled, first_start
from ..generative.values import column_supports, median_filled, project
from .mnar_config import MNAR_CONFIGURATION, fill_mnar
from .mvn import draw_mvn, fill_mvn, fit_mvn

__all__ = ["CONFIGURATIONS", "SEARCH_ROWS", "TAN_EDGE_SCORES", "configuration_names", "fill_config", "fit_config",
           "latent_class_auto", "reading_model"]

#: The configurations :func:`~bayesnb.impute_table` chooses among (ties: the earlier).
CONFIGURATIONS = ("naive", "latent", "tan", "mvn", "tan-mi")

#: The configurations whose member is one fitted tree-augmented :class:`~bayesnb.NaiveBayes`, and its edge score
#: (None: the estimator's own).
TAN_EDGE_SCORES = {"tan": None, "tan-mi": "mi"}

#: Default number of rows the latent-class component search of :func:`~bayesnb.impute_table` runs on.
SEARCH_ROWS = 5000

#: Random starts of each count's EM in that search (the final fit at the chosen count keeps ``n_init=3``).
SEARCH_N_INIT = 1

#: Single-start EM fits of the ``"latent"`` configuration at its count, pooled into one mixture
#: (:func:`pooled_latent_fit`).
POOLED_STARTS = 3

#: EM tolerance of each count's fit in that search (the final fit at the chosen count keeps ``tol=1e-6``):
#: on the census table it halves the search's iterations and chose the same counts (docs/benchmarks.md).
SEARCH_TOL = 1e-5


def _check_search_rows(search_rows, who):
    if search_rows is not None and not (isinstance(search_rows, int | np.integer) and not isinstance(search_rows, bool)
                                        and search_rows >= 2):
        raise ValueError(f"{who}: search_rows must be None or a whole number >= 2; received {search_rows!r}.")


def configuration_names(configurations, who="impute_table", estimator=None):
    """``configurations`` (``"auto"``, a name or names) as a tuple of distinct names among
    :data:`CONFIGURATIONS`; a ValueError otherwise. ``"auto"`` leaves out ``"tan-mi"`` when the
    ``estimator`` template's own edge score is already ``"mi"`` (it would fit the same model as ``"tan"``)."""
    if isinstance(configurations, str) and configurations == "auto":
        own = getattr(estimator, "edge_score", None)
        return tuple(c for c in CONFIGURATIONS if not (own is not None and TAN_EDGE_SCORES.get(c) == own))
    configs = (configurations,) if isinstance(configurations, str) else tuple(configurations)
    bad = [c for c in configs if c not in CONFIGURATIONS]
    if not configs or bad or len(set(configs)) != len(configs):
        raise ValueError(f"{who}: configurations must be 'auto' or distinct names among {CONFIGURATIONS}; "
                         f"received {configurations!r}.")
    return configs


def latent_class_auto(model, X, y=None, *, search_rows=SEARCH_ROWS, random_state=None, search_n_init=SEARCH_N_INIT,
                      search_tol=SEARCH_TOL, n_init=3):
    """A fitted model's latent-class model with the component count chosen on at most ``search_rows`` rows.

    ``model.fit_latent_class(X, y, n_components="auto")`` when ``X`` has at most
    ``search_rows`` rows (or ``search_rows`` is None); otherwise the same search on a random
    subsample of ``search_rows`` rows, then ``fit_latent_class`` with the chosen count on every
    row. The returned fit's ``selection`` holds the subsample's scores. Each count tried in the search
    is fitted from ``search_n_init`` random starts (``fit_latent_class(search_n_init=)``) to the EM tolerance
    ``search_tol``, the chosen count from ``n_init`` (``fit_latent_class``'s three) to its tolerance (``1e-6``).

    Parameters
    ----------
    model : NaiveBayes
        Fitted.
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Labels passed to ``fit_latent_class`` (None: inferred).
    search_rows : int or None, default=SEARCH_ROWS
        Rows the component search runs on (>= 2); None: every row.
    random_state : None, int or Generator
    search_n_init : int or None, default=SEARCH_N_INIT
        Random starts per count tried in the search (None: ``fit_latent_class``'s ``n_init``, 3).
    search_tol : float or None, default=SEARCH_TOL
        EM tolerance of each count's fit in the search (None: ``fit_latent_class``'s ``tol``, 1e-6).
    n_init : int, default=3
        Random starts of the fit at the chosen count (the best objective wins).

    Returns
    -------
    LatentClassFit
    """
    _check_search_rows(search_rows, "latent_class_auto")
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"latent_class_auto: X must be a pandas DataFrame; received {type(X).__name__}.")
    rng = as_generator(random_state)
    n = X.shape[0]
    if search_rows is None or n <= search_rows:
        return model.fit_latent_class(X, y, n_components="auto", random_state=rng, search_n_init=search_n_init,
                                      search_tol=search_tol, n_init=n_init)
    rows = np.sort(rng.choice(n, size=search_rows, replace=False))
    sub = model.fit_latent_class(X.iloc[rows], None if y is None else np.asarray(y)[rows], n_components="auto",
                                 random_state=rng, search_n_init=search_n_init, search_tol=search_tol)
    fit = model.fit_latent_class(X, y, n_components=sub.n_components, random_state=rng, n_init=n_init)
    return fit._replace(selection=sub.selection)


def fit_config(config, estimator, X, y, label_given, rng, search_rows, n_components=None):
    """Fit ``config`` on ``X`` (labels ``y``): ``(member, latent components or None)``.

    ``"latent"`` searches its component count (:func:`latent_class_auto`) unless ``n_components``
    is given, and fits it from :data:`POOLED_STARTS` starts pooled into one mixture (:func:`pooled_latent_fit`;
    the count returned is the per-start count); its EM is fitted with the labels only when ``label_given``.
    """
    if config == "mvn":
        return fit_mvn(X, y, estimator=estimator), None
    model = clone(estimator)
    if config in TAN_EDGE_SCORES:
        score = TAN_EDGE_SCORES[config]  # (the template is a NaiveBayes: _check_table)
        model.set_params(structure="tan", **({} if score is None else {"edge_score": score}))
    with one_class_on_purpose():  # y=None: every row one class (imputation, not classification)
        model.fit(X, y)
    if config != "latent":
        return model, None
    given = y if label_given else None
    first = None
    if n_components is None:  # the count searched; the fit at it is the first of the pooled starts
        first = latent_class_auto(model, X, given, search_rows=search_rows, random_state=rng, n_init=1)
        n_components = first.n_components
    return (model, pooled_latent_fit(model, X, given, n_components, rng, first)), n_components


def pooled_latent_fit(model, X, y, n_components, rng, first=None):
    """The ``"latent"`` configuration's fit at ``n_components``: :data:`POOLED_STARTS` single-start EM fits
    pooled into one mixture, each start weighted equally (:func:`bayesnb.inference.latent_pool.best_or_pooled`).

    On UCI mushroom (MCAR 30%, seed 0) single starts at the searched count imputed 0.776 to 0.786, and
    keeping the start of the best objective is no better than a random one; the pooled fit averages the
    starts' predictives (docs/benchmarks.md, "Pooling the latent-class starts"). It costs what the best of
    three starts cost. One component (every start the same), a structured estimator (its latent
    fit is not a naive mixture) and other state-weight priors keep the start with the best objective.

    Parameters
    ----------
    model : NaiveBayes
        Fitted.
    X : DataFrame
    y : array-like or None
        Labels the EM conditions on.
    n_components : int
    rng : numpy.random.Generator
    first : LatentClassFit, optional
        A single-start fit at ``n_components`` already made (the count search's), counted as a start.

    Returns
    -------
    LatentClassFit
        With ``POOLED_STARTS * n_components`` components per class when pooled.
    """
    fits = [] if first is None else [first]
    while len(fits) < (POOLED_STARTS if n_components > 1 else 1):
        fits.append(model.fit_latent_class(X, y, n_components=n_components, random_state=rng, n_init=1))
    return best_or_pooled(fits)


def fill_config(config, member, X, given, rng, strategy="auto", n_imputations=1, cells=None):
    """The completed tables of ``X`` by a fitted configuration: a list of ``n_imputations`` DataFrames.

    ``given``: the rows' labels to condition on (None: inferred from the observed cells). ``cells``: a bool
    (n, d) mask of the missing cells that will be used (None: all): the conditional medians of median-filled
    columns (``"auto"``, :func:`~bayesnb.generative.values.keep_cells`) are drawn for these cells only,
    the other cells of those columns get their projected mean (cheap; not used).
    """
    if config == MNAR_CONFIGURATION:
        return fill_mnar(member, X, given, rng, strategy, n_imputations)
    if config == "mvn":
        if strategy == "draw":
            return draw_mvn(member, X, given, label_given=given is not None, n_imputations=n_imputations,
                            random_state=rng)
        return [fill_mvn(member, X, given, label_given=given is not None)]
    model, latent = (member[0], member[1]) if config == "latent" else (member, None)
    if latent is not None and strategy == "draw":  # a pooled fit's best start (first_start says why)
        latent = first_start(latent)
    out = model._impute(X, y=given, strategy=strategy, n_imputations=n_imputations, random_state=rng,
                        parameter_uncertainty=True, n_components=1, latent=latent, median_cells=cells)
    return out if isinstance(out, list) else [out]


def reading_model(model):
    """The :class:`~bayesnb.NaiveBayes` that reads a table for ``model``: itself, or for an
    :class:`~bayesnb.Imputer` the model of its first fitted configuration (every one is fitted on the
    same columns with the same template)."""
    members = getattr(model, "models_", None)
    if members is None:
        return model
    config, member = next(iter(members.items()))
    return member[0] if config == "latent" else member.model if config in ("mvn", MNAR_CONFIGURATION) else member


def project_fills(table, X, supports):
    """``table`` with the imputed cells of each numeric column (those missing in ``X``) moved to the nearest
    value that column takes (``supports``, :func:`~bayesnb.generative.values.column_supports` of the training
    table: its observed range, its codes, its point masses)."""
    for j, c in enumerate(X.columns):
        miss = X[c].isna().to_numpy()
        if j in supports and miss.any():
            table.loc[miss, c] = project(table.loc[miss, c].to_numpy(dtype=float, na_value=np.nan), supports[j])
    return table


def cell_losses(truth, filled, kind):
    """Each cell's share of :func:`loss` (their mean is the loss): ``"squared"`` error over the variance of
    ``truth``, ``"absolute"`` error over its mean absolute deviation from the median, or ``"error"`` (0 or 1)."""
    if kind == "error":
        return (np.asarray(filled, dtype=object) != np.asarray(truth, dtype=object)).astype(float)
    t, v = np.asarray(truth, dtype=float), np.asarray(filled, dtype=float)
    if kind == "absolute":
        scale = np.mean(np.abs(t - np.median(t))) if t.size else 0.0
        return np.abs(v - t) / (scale if scale > 0 else 1.0)
    var = np.var(t) if t.size else 0.0
    return (v - t) ** 2 / (var if var > 0 else 1.0)


def loss(truth, filled, kind):
    """The loss of ``filled`` against ``truth``: ``"squared"`` (NRMSE squared), ``"absolute"`` (mean absolute
    error over the mean absolute deviation from the median) or ``"error"`` (error rate)."""
    return float(np.mean(cell_losses(truth, filled, kind)))


def clearly_worse(truth, filled, best, kind):
    """Whether ``filled`` imputes ``truth`` worse than ``best`` by more than two standard errors of the mean
    paired difference of their cell losses (:func:`cell_losses`)."""
    d = cell_losses(truth, filled, kind) - cell_losses(truth, best, kind)
    return bool(d.size and d.mean() > 2.0 * d.std(ddof=1 if d.size > 1 else 0) / np.sqrt(d.size))


#: The fewest categorical columns with hidden cells over which :func:`shrunk_losses` pools the configurations'
#: differences (with fewer, the spread between columns cannot be estimated and each column keeps its own losses).
SHRINK_MIN_COLUMNS = 3


def _random_effects(d, s2):
    """The DerSimonian-Laird random-effects mean and between-column variance of estimates ``d`` with
    sampling variances ``s2``: ``(mu, tau2)``."""
    w = 1.0 / s2
    fixed = np.sum(w * d) / w.sum()
    q, spread = np.sum(w * (d - fixed) ** 2), w.sum() - np.sum(w ** 2) / w.sum()
    tau2 = max(0.0, (q - (d.size - 1)) / spread) if d.size > 1 and spread > 0 else 0.0
    w = 1.0 / (s2 + tau2)
    return float(np.sum(w * d) / w.sum()), tau2


def shrunk_losses(cells, kinds, configs):
    """Each column's loss per configuration, the categorical columns' shrunk toward what the table says.

    A categorical column's hidden cells are few (a few dozen on a table of a few hundred rows), so its
    error rates differ between configurations by chance as much as by merit, and the lowest picks the noise.
    The categorical columns are pooled instead (an empirical-Bayes random-effects model). The reference is the
    configuration with the fewest errors over all of them. For each other configuration ``k``, column ``j``'s
    paired difference ``d_jk`` (its error rate minus the reference's on the same cells) has sampling variance
    ``s2_jk`` (the paired differences' variance over the cells). Across columns the true differences are
    taken as ``N(mu_k, tau2_k)``, with ``mu_k`` and ``tau2_k`` estimated by DerSimonian and Laird's method
    of moments. The shrunk difference is the posterior mean
    ``mu_k + tau2_k / (tau2_k + s2_jk) * (d_jk - mu_k)``, added to the reference's loss.

    So where the columns disagree about which configuration is better (``tau2`` large) each keeps its own
    losses, and where they agree a column leaves the table's choice only on evidence that outweighs
    the spread. A column whose hidden cells do not tell two configurations apart (the same fills) weighs
    heavily in ``mu_k`` (its variance is floored at one cell's worth), and its own shrunk difference is
    about ``mu_k``: there the table's evidence decides, not the order of ``configs``. Numeric columns
    keep their own losses: their losses are continuous and already informative, and pooling squared
    errors of differently shaped columns cost them in trials (docs/benchmarks.md). So do tables with
    fewer than :data:`SHRINK_MIN_COLUMNS` categorical columns.

    Parameters
    ----------
    cells : dict
        Column -> {configuration: each hidden cell's loss, :func:`cell_losses`}.
    kinds : dict
        Column -> its loss kind (:func:`loss_kinds`).
    configs : sequence of str
        The configurations, in the order that breaks ties.

    Returns
    -------
    dict
        Column -> {configuration: loss}: the mean cell loss, shrunk for the pooled categorical columns.
    """
    out = {c: {k: float(np.mean(v[k])) for k in configs} for c, v in cells.items()}
    pooled = [c for c in cells if kinds[c] == "error"]
    if len(pooled) < SHRINK_MIN_COLUMNS or len(configs) < 2:
        return out
    errors = {k: sum(float(cells[c][k].sum()) for c in pooled) for k in configs}
    ref = min(configs, key=lambda k: errors[k])
    for k in configs:
        if k == ref:
            continue
        diffs = [cells[c][k] - cells[c][ref] for c in pooled]
        d = np.array([x.mean() for x in diffs])
        # a floor of one cell's worth: a column whose two fills agree on every hidden cell has variance 0
        s2 = np.array([max(x.var(ddof=1) / x.size if x.size > 1 else 1.0, 1.0 / x.size ** 2) for x in diffs])
        mu, tau2 = _random_effects(d, s2)
        for c, dj, sj in zip(pooled, d, s2):
            out[c][k] = float(out[c][ref] + mu + tau2 / (tau2 + sj) * (dj - mu))
    return out


def loss_kinds(X):
    """Per column of ``X``, the loss its fill minimises (see :func:`loss`): the median's for a numeric column
    whose point masses hold at least half of its cells (:func:`~bayesnb.generative.values.median_filled`),
    the mean's for the other numeric columns."""
    supports = column_supports(X)
    return ["error" if not is_numeric_column(X[c]) else "absolute" if median_filled(supports.get(j))
            else "squared" for j, c in enumerate(X.columns)]
