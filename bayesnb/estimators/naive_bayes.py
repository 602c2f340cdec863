"""NaiveBayes: one block per group of columns, each with its own family (``features``)."""

from __future__ import annotations

import numbers
import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions

from ..io import dask_data as _dask
from ..impute.fitted import imputer_for
from .._utils import FirstBatchFamilyWarning, is_frame
from ..families import Categorical, Family
from . import _dask_auto
from . import validation as _val
from .auto_features import MODES, auto_blocks, column_kinds
from ._basenb import BaseNB
from ._structured import STRUCTURE_CONSTRAINTS, StructureMixin


class NaiveBayes(StructureMixin, BaseNB):
    """Naive Bayes over a table that mixes feature families, one block per group of columns.

    Parameters
    ----------
    features : "auto", "histogram" or dict, default="auto"
        Maps a column (name or position) or a tuple of columns to a family instance,
        e.g. ``{"dish": Categorical(), ("w1", "w2"): Multinomial(), "sleep": Gaussian()}``.
        Every column must be covered. ``"auto"``: strings, objects, categoricals and bools
        form one :class:`Categorical` block; each numeric column gets the family with the
        highest closed-form evidence among those that respect its support (whole numbers
        >= 0: Poisson or Histogram; positive reals: LogNormal or Histogram; reals >= 0
        with exact zeros: Hurdle(LogNormal) or Histogram; other reals: Gaussian or
        Histogram; other whole numbers: Histogram), compared at the data's resolution
        (see :mod:`bayesnb.estimators.auto_features`), and the columns that chose one family form
        one block. ``"histogram"``: as ``"auto"``, but every numeric column a Histogram, its
        bins and alpha chosen by the evidence (a nonparametric model of each column; the
        default of :class:`~bayesnb.Synthesizer`). ``partial_fit`` on an unfitted ``"auto"`` or
        ``"histogram"`` model chooses on the first batch and warns when ``X`` has a numeric
        column (see :meth:`partial_fit`). Below, ``features="auto"`` stands for both.
    alpha : float, "auto" or "hierarchical", optional
        The smoothing of the Categorical block that ``features="auto"`` makes. With a
        features dict, set it on the families instead. ``"hierarchical"`` centres each
        categorical node's (class, parents) Dirichlet on its parent context's estimate
        (docs/structure.md, "Hierarchical smoothing"), and each Histogram node's Dirichlet over
        its bins likewise (``Histogram(hierarchical=True)``), up to the context of all classes
        (``Dirichlet(1)``, a Histogram's own alpha); with no parents (``structure="naive"``)
        each class is centred on the all-classes estimate, as a structure's node without
        parents. None (unset) is each structure's default: ``alpha=1`` for naive and TAN,
        ``"hierarchical"`` for k-DB; ``structure="auto"`` then compares both smoothings of
        naive, TAN and k-DB.
    fit_prior, class_prior, class_alpha, predictive, privacy
        As in :class:`BaseNB` (``privacy`` needs a features dict; with ``structure="tan"``/``"kdb"``/``"auto"``
        the structure is selected privately, docs/privacy.md "Private structure").
    structure : {"naive", "tan", "kdb", "auto"}, default="naive"
        Which features each feature is conditioned on besides the class (docs/structure.md,
        "Mixed tables"): ``"tan"`` (Chow-Liu tree), ``"kdb"`` (``k`` parents each), or
        ``"auto"``, the one of the three with the highest closed-form evidence. Other than
        ``"naive"`` it needs ``features="auto"``, whose blocks are then the categorical
        columns (Categorical) and each numeric column in the family its evidence chooses
        (``family_scores_``): a numeric feature keeps that family, one posterior per (class,
        parents' states). Numeric columns are
        discretised internally into (at most) 5 quantile bins of their training values, for
        the mutual informations and as parents; their own values are never discretised.
    k : int, default=2
        Number of parents per feature under ``structure="kdb"`` (and ``"auto"``'s k-DB).
    auto_cv : bool, default=True
        With ``structure="auto"``: check the evidence's choice against naive by 5-fold
        cross-validated log loss, and keep naive when the choice is worse by more than one
        standard error (docs/structure.md, "The candidates, and the cross-validation check").
        False skips it.
    forbidden_edges : list of (feature, feature) pairs, optional
        Structure constraints: neither feature of a pair is ever a parent of the other under
        ``"tan"``, ``"kdb"`` or ``"auto"`` (features by name when fitted on a DataFrame, else by
        position). None: every edge may be learned.
    edge_score : {"bdeu", "hierarchical", "mi"}, default="bdeu"
        The edge weights TAN and k-DB learn their parents from (also in ``"auto"``'s CV folds):
        BDeu log Bayes factors, or their hierarchical-prior version
        (:mod:`bayesnb.structure.hier_edges`, docs/structure.md "hierarchical edge score"), or the
        conditional mutual information ``I(X_i; X_j | Y)`` (``"mi"``: TAN is the Chow-Liu spanning
        tree, every feature linked; the ``"tan"`` configuration of :func:`~bayesnb.impute_table`).

    Attributes
    ----------
    blocks_ : list of (list of str, Family)
        The resolved blocks: column names and family.
    family_scores_ : DataFrame or None
        With ``features="auto"``: one row per (numeric column, candidate family), with
        ``column``, ``family``, ``log_evidence`` (the column's log evidence given the
        labels, discretised at ``resolution``) and ``chosen``. Histogram candidates are
        labelled with their bins and Dirichlet alpha (``"Histogram(bins=32, alpha=0.3)"``;
        ``bayesnb.estimators.auto_features.candidate_family`` turns a label back into the family).
        None with a features dict.
    structure_kind_ : str
        The structure in use (``"naive"``, ``"tan"`` or ``"kdb"``).
    structure_ : dict
        Feature name -> tuple of parent feature names.
    structure_hierarchical_ : bool
        Whether the structure's categorical and Histogram nodes use hierarchical smoothing because
        ``alpha`` was left unset (k-DB's default, or ``"auto"``'s hierarchical candidates, naive's included).
    structure_scores_ : DataFrame
        Only with ``structure="auto"``: ``structure``, ``log_evidence`` (``log p(y) + sum_j log p(x_j |
        y, pa_j)``, feature ``j`` on the rows where it and every parent it has in any candidate are
        observed, the same cells for every candidate; ``log p(X, y)`` when no cell is missing),
        ``n_cells`` (how many cells that is), ``cv_log_loss`` and ``cv_diff_se``
        (the cross-validation check of ``auto_cv``), ``chosen``.
    imputer_ : Imputer
        Only after ``fit(X, y, impute=...)``: the fitted :class:`~bayesnb.Imputer` (a configuration per
        column, chosen on hidden cells of the training table) that :meth:`impute` fills with by default.
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.
    """

    _parameter_constraints: ClassVar[dict] = {**_val.constraints("features"),
                                              "alpha": [Real, StrOptions({"auto", "hierarchical"}), None],
                                              "edge_score": [StrOptions({"bdeu", "hierarchical", "mi"})],
                                              **STRUCTURE_CONSTRAINTS}
    _input_tags: ClassVar[dict] = {"categorical": True, "string": True}

    def __init__(self, features="auto", *, alpha=None, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean", structure="naive", k=2, auto_cv=True, forbidden_edges=None, privacy=None,
                 edge_score="bdeu"):
        self.features = features
        self.alpha = alpha
        self.structure = structure
        self.k = k
        self.auto_cv = auto_cv
        self.forbidden_edges = forbidden_edges
        self.edge_score = edge_score
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive,
                         privacy=privacy)

    def fit(self, X, y, sample_weight=None, *, impute=False):
        """Fit the posterior (and the structure) to labelled data; with ``impute=``, also the table's imputer.

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`bayesnb.estimators._basenb.BaseNB.fit`.
        impute : bool or Imputer, default=False
            Fit the model for imputation: ``True`` (``Imputer()``'s options) or an unfitted
            :class:`~bayesnb.Imputer` (its options: ``random_state``, ``configurations``,
            ``label_given``, ...; its ``estimator`` left None) also fits, on ``X`` and ``y``, the
            imputer :func:`~bayesnb.impute_table` fits, with this estimator's parameters as the template
            of every configuration, and keeps it as ``imputer_`` (saved with the model). Then
            :meth:`impute` (``strategy="auto"`` or ``"draw"``) fills with it, so
            ``NaiveBayes().fit(X, y, impute=Imputer(random_state=0)).impute(X)`` is
            ``impute_table(X, y, random_state=0).table`` (:mod:`bayesnb.impute.fitted`). Needs ``X`` as
            a DataFrame and no ``sample_weight``; costs the imputer's search (seconds to minutes).
            That :meth:`impute` then takes a DataFrame with the fitted columns (any order; returned in
            the caller's); an array or a Dask collection is refused with an error saying so (an explicit
            ``strategy="mode"``/``"mean"`` is the model's own and takes any input). Refused under
            ``privacy`` (the imputer would see the raw cells).

        Returns
        -------
        self : object
        """
        imputer = imputer_for(self, impute, X, sample_weight)  # checked before anything is fitted
        super().fit(X, y, sample_weight)
        if imputer is not None:
            self.imputer_ = imputer.fit(X, y)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data to the posterior (counts accumulate).

        On an unfitted ``NaiveBayes(features="auto")`` whose ``X`` has a numeric column, the
        first call warns (:class:`~bayesnb.FirstBatchFamilyWarning`, naming the columns):
        ``"auto"`` chooses each numeric column's family (and a Histogram's bins) by its
        evidence on the data it sees, so the first batch fixes a choice that one ``fit`` on all
        the rows need not make, and the batches need not add up to ``fit`` (joint log
        probabilities off by ``log 2`` where a Histogram's bins differ, or a later batch refused
        by a family ``fit`` would not have chosen). It is a warning, not a refusal, because
        scikit-learn's estimator contract has an unfitted clone ``partial_fit`` numeric data.
        To make the choice yourself, fit the first batch with :meth:`fit` and continue with
        ``partial_fit``, or give the families:
        ``NaiveBayes(features={tuple(cols): fam for cols, fam in first.blocks_})``. A
        Histogram's bins are fixed by the batch it is first fitted on even with a features
        dict, so there ``partial_fit`` equals ``fit`` only when that batch sets the same bins;
        the other families' statistics add up exactly. A table of categorical columns only
        partial_fits to ``fit`` (categories grow with the batches). A Dask ``X`` is one batch (its
        families chosen over all its partitions) and warns when a column's dtype is numeric.

        Parameters
        ----------
        X, y, classes, sample_weight
            As in :meth:`bayesnb.estimators._basenb.BaseNB.partial_fit`.

        Returns
        -------
        self : object
        """
        if not hasattr(self, "posterior_") and isinstance(self.features, str) and self.features in MODES:
            self._warn_first_batch_families(X)
        super().partial_fit(X, y, classes, sample_weight)  # a refused batch keeps the model and its imputer
        if self.__dict__.pop("imputer_", None) is not None:  # fitted on the rows before this batch
            warnings.warn(f"{self._who}.partial_fit: the imputer fitted by fit(..., impute=) is dropped (it saw only "
                          "the earlier rows); impute now uses the model itself. Refit with impute= to keep one.",
                          UserWarning, stacklevel=2)
        return self

    def _warn_first_batch_families(self, X):
        """Warn, naming ``X``'s numeric columns, that their families are chosen on this first batch."""
        if _dask.is_dask(X):  # the kinds its dtypes tell (an object array's columns are not read here)
            X = X._meta if is_frame(X._meta) else np.empty((0, X.shape[1]) if X.ndim == 2 else 0, X.dtype)
        if sp.issparse(X) or not (is_frame(X) or np.ndim(X) == 2):
            return  # refused with their own message by fit's checks
        frame = X if is_frame(X) else np.asarray(X)
        names = list(frame.columns) if is_frame(frame) else list(range(frame.shape[1]))
        numeric = [names[j] for j, k in enumerate(column_kinds(frame)) if k == "numeric"]
        if numeric:
            warnings.warn(
                f"{self._who}: partial_fit on an unfitted NaiveBayes(features={self.features!r}) chooses the family of "
                f"numeric column(s) {numeric[:10]}{' ...' if len(numeric) > 10 else ''} (and a Histogram's bins) "
                "by the evidence of this first batch, so the batches need not add up to one fit. To choose "
                "yourself: fit the first batch with fit(X, y) and continue with partial_fit, or give the "
                "families, NaiveBayes(features={tuple(cols): fam for cols, fam in first.blocks_}).",
                FirstBatchFamilyWarning, stacklevel=3)

    def _accepts_sparse(self):
        feats = self.features
        return (isinstance(feats, dict) and len(feats) > 0
                and all(getattr(f, "accepts_sparse", False) for f in feats.values()))

    def _dask_specs(self, head, light, parts, classes_of):
        """The blocks of a Dask fit: with ``features="auto"`` each numeric column's family chosen over
        every partition (:mod:`._dask_auto`: the in-memory choice, from summed statistics)."""
        def choose(categorical, mode):
            return _dask_auto.auto_blocks(light, parts, head, classes_of, categorical, mode)

        return self._resolve_specs(head, None, choose=choose)

    def _sparse_hint(self):
        if isinstance(self.features, dict):
            dense = sorted({type(f).__name__ for f in self.features.values()
                            if not getattr(f, "accepts_sparse", False)})
            return f"Its {dense} block(s) need dense data: convert with X.toarray()."
        return ("features='auto' chooses Categorical/Gaussian blocks, which need dense data: "
                "convert with X.toarray(), or map the columns to Multinomial()/Bernoulli() in features.")

    def _block_specs(self, X, resp=None, choose=None):
        """Resolve ``features`` to ``[(column positions, family), ...]`` covering every column once.

        ``resp`` (row weights per class) lets ``features="auto"`` choose each numeric
        column's family by evidence; the scores go to ``family_scores_``. ``choose(categorical, mode)``,
        if given, makes that choice instead (a Dask fit: over all partitions, ``X`` the first).
        """
        who = self._who
        n_cols = X.shape[1]
        names = list(X.columns) if is_frame(X) else None
        features = self.features
        self.family_scores_ = None
        structured = self.structure != "naive"
        if isinstance(features, str) and features in MODES:
            if self.privacy is not None:
                raise ValueError(f"{who}: features={features!r} chooses each column's family by its evidence on "
                                 "the raw data, which is not differentially private; with privacy= give a features "
                                 "dict (e.g. {'a': Categorical(categories=[...]), 'x': Gaussian()}).")
            cat = None if self.alpha is None else Categorical(alpha=self.alpha)
            # the same families under every structure: each numeric column's chosen by its evidence
            specs, self.family_scores_ = (auto_blocks(X, cat, resp=resp, mode=features) if choose is None
                                          else choose(cat, features))
            if isinstance(self.alpha, str) and self.alpha == "hierarchical":  # the numeric blocks' too (Histogram)
                specs = [(cols, fam if (h := fam.hierarchical_variant()) is None else h) for cols, fam in specs]
            return specs
        if structured and self.privacy is None:  # (a private structure takes the declared families)
            raise ValueError(f"{who}: structure={self.structure!r} needs features='auto' (categorical columns "
                             f"Categorical, numeric columns the family their evidence chooses); received a features dict.")
        if self.alpha is not None:
            raise ValueError(f"{who}: alpha applies to the Categorical block of features='auto'; with a "
                             f"features dict set it on the families instead (received alpha={self.alpha!r}).")
        shown_columns = names if names is not None else f"positions 0..{n_cols - 1}"

        def position(key):
            if names is not None and key in names:
                return names.index(key)
            if isinstance(key, numbers.Integral) and not isinstance(key, bool) and -n_cols <= key < n_cols:
                return int(key) % n_cols
            raise ValueError(
                f"{who}: features names column {key!r}, which is not in X; expected one of the "
                f"columns of X ({shown_columns})."
            )

        specs, owner = [], {}
        for key, fam in features.items():
            if not isinstance(fam, Family):
                got = (f"the class {fam.__name__} (instantiate it: {fam.__name__}())"
                       if isinstance(fam, type) else f"{type(fam).__name__} {fam!r}")
                raise TypeError(
                    f"{who}: features[{key!r}] must be a family instance such as Categorical(), "
                    f"Gaussian(), Multinomial() or Bernoulli(); received {got}."
                )
            keys = list(key) if isinstance(key, (tuple, list)) else [key]
            if not keys:
                raise ValueError(f"{who}: features key {key!r} names no column; expected at least one.")
            cols = [position(k) for k in keys]
            for c in cols:
                if c in owner:
                    label = c if names is None else names[c]
                    raise ValueError(
                        f"{who}: expected each column in exactly one block; column {label!r} is "
                        f"assigned twice (in features[{owner[c]!r}] and features[{key!r}])."
                    )
                owner[c] = key
            specs.append((cols, fam))
        unassigned = [c for c in range(n_cols) if c not in owner]
        if unassigned:
            shown = unassigned if names is None else [names[c] for c in unassigned]
            raise ValueError(
                f"{who}: expected every column of X in features; column(s) {shown} are not "
                "assigned a family (map them, or use features='auto')."
            )
        return specs

    def _set_attributes(self):
        super()._set_attributes()
        self.blocks_ = [(list(b.names), b.family) for b in self.posterior_.blocks]
