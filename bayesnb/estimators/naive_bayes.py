"""NaiveBayes: one block per group of columns, each with its own family (``features``)."""

from __future__ import annotations

import numbers
from typing import ClassVar

import numpy as np

from .._utils import is_frame, missing_mask
from ..families import Categorical, Gaussian
from ..families._base import Family
from . import _validation as _val
from ._base import BaseNB


class NaiveBayes(BaseNB):
    """Naive Bayes over a table that mixes feature families, one block per group of columns.

    Parameters
    ----------
    features : "auto" or dict, default="auto"
        Maps a column (name or position) or a tuple of columns to a family instance,
        e.g. ``{"dish": Categorical(), ("w1", "w2"): Multinomial(), "sleep": Gaussian()}``.
        Every column must be covered. ``"auto"`` chooses by dtype: strings, objects,
        categoricals and bools -> :class:`Categorical` (one block), numbers ->
        :class:`Gaussian` (one block).
    fit_prior, class_prior, class_alpha, predictive
        As in :class:`BaseNB`.

    Attributes
    ----------
    blocks_ : list of (list of str, Family)
        The resolved blocks: column names and family.
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.
    """

    _parameter_constraints: ClassVar[dict] = _val.constraints("features")
    _input_tags: ClassVar[dict] = {"categorical": True, "string": True}

    def __init__(self, features="auto", *, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean"):
        self.features = features
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive)

    def _accepts_sparse(self):
        feats = self.features
        return (isinstance(feats, dict) and len(feats) > 0
                and all(getattr(f, "accepts_sparse", False) for f in feats.values()))

    def _sparse_hint(self):
        if isinstance(self.features, dict):
            dense = sorted({type(f).__name__ for f in self.features.values()
                            if not getattr(f, "accepts_sparse", False)})
            return f"Its {dense} block(s) need dense data: convert with X.toarray()."
        return ("features='auto' chooses Categorical/Gaussian blocks, which need dense data: "
                "convert with X.toarray(), or map the columns to Multinomial()/Bernoulli() in features.")

    def _block_specs(self, X):
        """Resolve ``features`` to ``[(column positions, family), ...]`` covering every column once."""
        who = self._who
        n_cols = X.shape[1]
        names = list(X.columns) if is_frame(X) else None
        features = self.features
        if isinstance(features, str) and features == "auto":
            return auto_blocks(X)
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


def auto_blocks(X, categorical=None):
    """``features="auto"``: Categorical for non-numeric/bool columns, Gaussian for numeric ones.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
    categorical : Categorical, optional
        The family of the categorical block (default ``Categorical()``).

    Returns
    -------
    list of (list of int, Family)
        Column positions and family of each block.
    """
    if is_frame(X):
        import pandas as pd

        dtypes = [X.iloc[:, j].dtype for j in range(X.shape[1])]
        kinds = ["O" if isinstance(t, pd.CategoricalDtype) else getattr(t, "kind", "O") for t in dtypes]
    elif X.dtype.kind == "O":
        kinds = []
        for j in range(X.shape[1]):
            col = X[:, j][~missing_mask(X[:, j])]
            kinds.append("f" if col.size and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                                                 for v in col) else "O")
    else:
        kinds = [X.dtype.kind] * X.shape[1]
    cat = [j for j, k in enumerate(kinds) if k not in "iuf"]
    num = [j for j, k in enumerate(kinds) if k in "iuf"]
    specs = []
    if cat:
        specs.append((cat, Categorical() if categorical is None else categorical))
    if num:
        specs.append((num, Gaussian()))
    return specs
