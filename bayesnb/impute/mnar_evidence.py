"""Choose between MAR and self-masking MNAR missingness by BIC, both fitted by the same EM.

:func:`mnar_evidence` fits the selection models by :func:`~bayesnb.generative.mnar.fit_selection` on
the same naive model and variables (values and missingness indicators): MAR ties each missingness
node's bins (``tied=True``), MNAR does not (:func:`~bayesnb.impute_mnar`). MNAR is chosen when its log-likelihood
gain exceeds BIC's ``k/2 log n`` and its BIC is also below that of two more MAR models: MAR by state (one missingness
probability per column and state: missingness driven by the class or a latent component, which a column that drives
another's missingness shows through), and MAR given the observed columns (each column's missingness a logistic
regression on the fully observed columns, :mod:`bayesnb.impute.mar_observed`).
:func:`~bayesnb.impute_table` runs it over its latent-class model with ``missingness="auto"``
(:mod:`bayesnb.impute.mnar_config`); a mechanism the model cannot represent can look like self-masking
(docs/mnar.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from .._utils import as_generator
from ..generative.mnar import fit_selection, state_posterior_mnar
from ..inference.em import allowed_states
from .mar_observed import candidate_drivers, driver_design, screen_drivers, select_drivers
from .mvn import _check_table
from .selfmasking import _check_components, _check_em, _check_options, _fit

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
        ``k / 2 * log(n)``, and ``"MNAR"`` when ``loglik_mnar - loglik_mar`` exceeds it and the MNAR model
        also has the lower BIC against the MAR model by state (``loglik_mar_state``) and against MAR given the
        observed columns (``loglik_mar_observed``).
    fits : dict
        ``{"MAR": SelectionFit, "MAR by state": SelectionFit, "MNAR": SelectionFit}``
        (:class:`bayesnb.generative.mnar.SelectionFit`).
    loglik_mar_state, k_state : float, int
        The same log-likelihood under MAR with one missingness probability per (column, state): a column's
        missingness may depend on the row's class (and latent component), never on its own value; and that
        model's free selection parameters beyond the MNAR model's (negative when it has fewer).
    loglik_mar_observed, k_observed : float, int
        The same under MAR given the observed columns (:mod:`bayesnb.impute.mar_observed`): each column's
        missingness a logistic regression on the fully observed columns, its drivers chosen by BIC (a column
        without drivers keeps its one missing rate); and that model's free selection parameters beyond the MNAR
        model's (negative when it has fewer).
    drivers : dict
        ``{column name: tuple of driver names}`` of that model, for the columns with a missingness node.
    """

    loglik_mar: float
    loglik_mnar: float
    k: int
    n: int
    penalty: float
    choice: str
    fits: dict
    loglik_mar_state: float
    k_state: int
    loglik_mar_observed: float
    k_observed: int
    drivers: dict


def evidence_fits(X, y, *, n_bins=5, alpha=1.0, estimator=None, tol=1e-6, max_iter=200, who="mnar_evidence",
                  n_components=1, rng=None, max_values=None):
    """``(result, encoded, model)``: :func:`mnar_evidence`'s result, the encoded rows (for its fits' fills) and the
    fitted naive model that encoded them; ``n_components`` (> 1: its latent-class model, fitted with ``rng``) is the
    model under the missingness nodes; ``max_values``: categorical columns with more values take no node."""
    y = _check_table(X, y, estimator, who)
    _check_options(n_bins, "mean", 1, 0.0, "value", alpha, False, who)
    _check_em(tol, max_iter, {}, who)
    model, encoded, mnar, codes, latent = _fit(X, y, who, estimator=estimator, n_bins=int(n_bins), alpha=float(alpha),
                                               tol=tol, max_iter=max_iter, by_class=False, n_components=n_components,
                                               rng=rng, max_values=max_values)
    allowed = allowed_states(mnar.group, codes)
    start, class_params = ((model.posterior_, (model.class_alpha, model.fit_prior, model.class_prior)) if latent is None
                           else (latent.posterior, (np.ones(latent.group.size), True, None)))  # as _fit's
    fits = {name: fit_selection(start, encoded, mnar.columns, mnar.group, allowed, np.ones(X.shape[0]), class_params,
                                alpha=float(alpha), tol=tol, max_iter=max_iter, tied=True, by_state=by_state)
            for name, by_state in (("MAR", False), ("MAR by state", True))}
    fits["MNAR"] = mnar
    l0, l2, l1 = (float(logsumexp(rel, axis=1).sum() + np.sum(row)) for rel, row in (
        state_posterior_mnar(f.posterior, encoded, f.columns, f.selection, allowed=allowed) for f in fits.values()))
    k = sum(r.shape[1] - 1 for r in mnar.selection)  # the selection is shared by the classes
    k_state = len(mnar.columns) * (mnar.group.size - 1) - k  # by state, tied: S - 1 more per column than shared
    log_n = float(np.log(X.shape[0]))
    penalty = 0.5 * k * log_n
    l3, k_obs, drivers = _mar_observed(X, fits["MAR"], l0, n_bins, log_n)
    k_obs -= k  # beyond the MNAR model's
    mnar_wins = (l1 - l0 > penalty and l1 - l2 > -0.5 * k_state * log_n  # the lowest BIC of the four models
                 and l1 - l3 > -0.5 * k_obs * log_n)
    return MNAREvidence(l0, l1, int(k), int(X.shape[0]), penalty, "MNAR" if mnar_wins else "MAR", fits, l2,
                        int(k_state), float(l3), int(k_obs), drivers), encoded, model


def _mar_observed(X, tied, loglik_tied, n_bins, log_n):
    """``(log-likelihood, driver weights, drivers)`` of MAR given the observed columns: the tied MAR fit's, each
    column's constant missing rate replaced by its regression on the drivers
    :func:`~bayesnb.impute.mar_observed.select_drivers` chooses among those
    :func:`~bayesnb.impute.mar_observed.screen_drivers` ranks first (the drivers are observed, so the missingness
    factor separates from the feature model; a column without drivers keeps the tied rate)."""
    candidates = candidate_drivers(X, n_bins)
    M = np.column_stack([sc.observed_bin < 0 for sc in tied.columns])
    picks = screen_drivers(X, candidates, M, n_bins)  # no candidate: no pick for any column
    total, k, drivers = float(loglik_tied), 0, {}
    for sc, rho, m, pick in zip(tied.columns, tied.selection, M.T, picks):
        designs = [(candidates[i].name, driver_design(X, candidates[i], n_bins)) for i in pick]
        ll, kj, names = select_drivers(m, designs, log_n)
        drivers[str(X.columns[sc.column])] = names
        if names:
            r = float(rho.flat[0])  # tied and shared: one probability
            total += ll - float(m.sum() * np.log(r) + (~m).sum() * np.log1p(-r))
            k += kj
    return total, k, drivers


def mnar_evidence(X, y=None, *, n_bins=5, alpha=1.0, estimator=None, tol=1e-6, max_iter=200, n_components=1,
                  random_state=None):
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
    n_components : int or "auto", default=1
        Components per class of the latent-class model under the missingness nodes (1: the naive model). The
        imputer's test (``Imputer(missingness="auto")``) uses the count its ``"latent"`` configuration chose: with
        the components the class has less to explain, which is what tells self-masking from "missing because of
        the class" on the bundled tables (docs/mnar.md).
    random_state : None, int or Generator
        Seeds the latent-class EM (``n_components`` other than 1).

    Returns
    -------
    MNAREvidence
        The four log-likelihoods, the parameter counts, ``n``, the penalty, the choice, the three EM fits and
        the drivers of MAR given the observed columns.

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
    >>> ev = mnar_evidence(pd.DataFrame({"x": np.where(hide, np.nan, x), "z": rng.normal(y, 1.0)}), y)
    >>> bool(ev.loglik_mnar - ev.loglik_mar > ev.penalty)  # self-masking beats one missing rate per column
    True
    >>> ev.choice  # but x's mean moves by 3 sds with the class: a missing rate per class explains it as well
    'MAR'
    """
    _check_components(n_components, "mnar_evidence")
    return evidence_fits(X, y, n_bins=n_bins, alpha=alpha, estimator=estimator, tol=tol, max_iter=max_iter,
                         n_components=n_components, rng=as_generator(random_state))[0]
