"""The ``"mnar"`` member of :class:`~bayesnb.Imputer`: self-masking missingness, used where the evidence says so.

``Imputer(missingness="auto")`` (the default; also ``impute_table``) fits, on the training table, the
selection model of :func:`~bayesnb.impute_mnar` over the latent-class model whose component count the
``"latent"`` configuration chose (one component when it is not among the configurations), and the
same model with each missingness node tied across its column's values (MAR), shared by the states or one per
state, by the same EM (:func:`~bayesnb.impute.mnar_evidence.evidence_fits`), and MAR given the fully observed
columns (:mod:`bayesnb.impute.mar_observed`). When the self-masking model has the lowest BIC of the four, the
columns it can fill are filled from it (a numeric column where the model
under the nodes imputed its hidden cells best, a categorical one with at most as many values as classes
(:func:`identified_values`) unless it imputed them clearly worse): each missing cell's
predictive *given that it is missing*. The per-column selection on hidden observed cells cannot make this
choice: a hidden cell was observed, so it carries the observed cells' distribution, not the missing
ones' (docs/mnar.md). ``missingness="mnar"`` uses the self-masking model without the test, ``"mar"``
never fits it.

The member (:class:`MNARMember`) keeps the model that reads the rows, the fitted selection model and the
evidence; it fills the training table or new rows (their missingness read through the same bins).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..generative.mnar import SelectionFit
from ..generative.mnar_bins import own_bins
from ..generative.mnar_values import own_values
from ..inference.em import allowed_states
from .mnar_evidence import evidence_fits
from .selfmasking import NoSelectionColumn, _complete

__all__ = ["EVIDENCE_FIELDS", "EVIDENCE_SINCE_OBSERVED", "MISSINGNESS", "MNAR_CONFIGURATION", "MNARMember", "fill_mnar",
           "fit_mnar_member", "rebin"]

#: The values of ``Imputer(missingness=)``.
MISSINGNESS = ("auto", "mar", "mnar")

#: The test's figures kept in ``MNARMember.evidence`` and ``Imputer.missingness_``, and their types (the model file
#: checks them): :class:`~bayesnb.impute.mnar_evidence.MNAREvidence`'s, and ``n_components``.
EVIDENCE_FIELDS = {"loglik_mar": float, "loglik_mnar": float, "k": int, "n": int, "penalty": float, "choice": str,
                   "loglik_mar_state": float, "k_state": int, "loglik_mar_observed": float, "k_observed": int,
                   "n_components": int}

#: The fields a model file written before the test had its fourth model (MAR given the observed columns) lacks.
EVIDENCE_SINCE_OBSERVED = ("loglik_mar_observed", "k_observed")

#: EM tolerance and iteration cap of the three fits the test compares (and of the self-masking model used): looser
#: than :func:`~bayesnb.impute_mnar`'s (1e-6, 200), which on a 30-column numeric table took three times as long
#: and moved the log-likelihood difference by about 1 nat (docs/mnar.md).
EVIDENCE_TOL, EVIDENCE_ITER = 1e-5, 100

#: The configuration name of the self-masking member in ``Imputer.chosen_`` and ``models_``.
MNAR_CONFIGURATION = "mnar"


class MNARMember(NamedTuple):
    """The fitted ``"mnar"`` configuration.

    Attributes
    ----------
    model : NaiveBayes
        The naive model fitted on the training table (MAR): it reads (encodes) rows for the selection model.
    fit : SelectionFit
        The selection model (:class:`bayesnb.generative.mnar.SelectionFit`), over the latent states.
    n_components : int
        Components per class under the missingness nodes.
    evidence : dict
        ``loglik_mar``, ``loglik_mnar``, ``k``, ``n``, ``penalty`` and ``choice`` of the test
        (:class:`~bayesnb.impute.mnar_evidence.MNAREvidence`, without its fits).
    """

    model: object
    fit: SelectionFit
    n_components: int
    evidence: dict


def rebin(fit, post, encoded):
    """``fit`` with each selection column's ``observed_bin`` read from ``encoded`` rows (other rows than the
    training table's), through the same bins (its edges; a categorical column: its values).

    Parameters
    ----------
    fit : SelectionFit
    post : NBPosterior
        The posterior whose blocks encoded the rows.
    encoded : list
        Encoded blocks of the rows.

    Returns
    -------
    SelectionFit
    """
    cols = []
    for sc in fit.columns:
        b, e = post.blocks[sc.block], encoded[sc.block]
        ob = (own_values(b, e, sc.col, sc.values) if sc.values is not None
              else own_bins(np.asarray(b.family.gen_values(e), dtype=float)[:, sc.col], sc.edges))
        cols.append(sc._replace(observed_bin=np.asarray(ob, dtype=np.int64)))
    return fit._replace(columns=tuple(cols))


def _encode(member, X):
    model = member.model
    return model._encode_blocks(model._check_X(X, reset=False), model.posterior_)[0]


def _allowed(member, given, n):
    """The states each row may take given its label (None: every state, the class inferred)."""
    if given is None:
        return None
    known = ~np.asarray(pd.isna(given), dtype=bool)
    codes = np.full(n, -1, dtype=np.int64)
    codes[known] = pd.Index(member.model.classes_).get_indexer(np.asarray(given, dtype=object)[known])
    return allowed_states(np.asarray(member.fit.group), codes)


def fill_mnar(member, X, given, rng, strategy="auto", n_imputations=1, who="Imputer"):
    """Completed tables of ``X`` by the self-masking model: a list of ``n_imputations`` DataFrames.

    Parameters
    ----------
    member : MNARMember
    X : DataFrame
        Rows with the training columns.
    given : array-like or None
        Labels to condition on (None or NaN where unknown: inferred from the observed cells and missingness).
    rng : Generator
    strategy : {"auto", "draw"}
        ``"auto"``: each missing cell's mean (numeric) or most probable value (categorical) given that it is
        missing; ``"draw"``: draws, one posterior draw of every parameter per table.
    n_imputations : int
    who : str

    Returns
    -------
    list of DataFrame
    """
    encoded = _encode(member, X)
    fit = rebin(member.fit, member.model.posterior_, encoded)
    allowed = _allowed(member, given, X.shape[0])
    how = "draw" if strategy == "draw" else "mean"
    return [_complete(X, fit, encoded, allowed, how, rng, 0.0, "value", who) for _ in range(int(n_imputations))]


def identified_values(y):
    """The most values a categorical column may have to take a self-masking node: the number of classes.

    The node's selection probabilities (one per value) are identified only through states whose distributions
    of the column differ, at least as many states as values (:mod:`bayesnb.generative.mnar_values`). The classes
    are such states; latent components are fitted together with the selection and do not pin it down. On the
    census table (two classes, 5,000 rows, the benchmark's MNAR mask: each column's most frequent value hidden
    with probability 0.45, the others with 0.15) the nodes of its 5-, 7- and 39-valued columns put the missing
    cells on rare values (the most frequent country's selection 0.002, the other countries' median 0.87), and
    the categorical accuracy fell from 0.80 to 0.58; its yes/no column was fitted right (0.45 and 0.14).
    """
    return 1 if y is None else len(pd.unique(np.asarray(y, dtype=object)))


def fit_mnar_member(X, y, estimator, n_components, missingness, rng, who):
    """The ``"mnar"`` member for ``X`` when ``missingness`` asks for it and (``"auto"``) the evidence favours it.

    Parameters
    ----------
    X : DataFrame
        The training table.
    y : array-like or None
        Its labels (None: one class).
    estimator : NaiveBayes
        The template.
    n_components : int
        Components per class of the model under the missingness nodes.
    missingness : {"auto", "mnar"}
    rng : Generator
    who : str

    Returns
    -------
    (MNARMember or None, dict or None)
        The member (None: MAR stays), and the evidence (None when no column can take a node; under ``"mnar"``
        that raises instead).

    Warns
    -----
    UserWarning
        ``"auto"`` chose self-masking but its fills of ``X`` diverged (MAR is kept).
    """
    try:
        ev, _, model = evidence_fits(X, y, estimator=estimator, who=who, n_components=int(n_components), rng=rng,
                                     tol=EVIDENCE_TOL, max_iter=EVIDENCE_ITER, max_values=identified_values(y))
    except NoSelectionColumn:
        if missingness == "mnar":
            raise
        return None, None
    evidence = {k: int(n_components) if k == "n_components" else getattr(ev, k) for k in EVIDENCE_FIELDS}
    if missingness == "auto" and ev.choice == "MAR":
        return None, evidence
    member = MNARMember(model, ev.fits["MNAR"], int(n_components), evidence)
    if missingness == "auto":
        try:  # a fit whose fills of the training table diverge is not used (impute_mnar raises)
            fill_mnar(member, X, None, np.random.default_rng(0), who=who)
        except ValueError as e:
            warnings.warn(f"{who}: the evidence favoured self-masking missingness, but its fills diverged ({e}); "
                          "the table is imputed as missing at random.", UserWarning, stacklevel=4)
            return None, {**evidence, "choice": "MAR", "diverged": True}
    return member, evidence

