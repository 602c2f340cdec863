"""Every input check of the estimators, as functions, and the declarative hyperparameter constraints.

Hyperparameters are declared in each estimator's ``_parameter_constraints`` (scikit-learn's
:mod:`sklearn.utils._param_validation` vocabulary) and checked by :func:`validate_params`
through scikit-learn's ``validate_parameter_constraints``. The constraints check types and
options; what needs the data (``class_alpha``/``class_prior`` against the number of classes)
is checked by :func:`check_class_params`, and a family's own parameters (``alpha``,
``binarize``, ``prior``, ...) by the family when the fit builds its prior. The functions take
``who``, the estimator's name, which starts every message.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from pandas.api.types import infer_dtype
from sklearn.utils._param_validation import (
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from .._utils import DataError, all_finite, is_arrow_text, is_frame, missing_mask, take_rows
from ..io.dask_data import is_dask
from ..privacy import DP
from ._text_labels import arrow_label_codes

#: The largest total ``sample_weight`` (per fit, or accumulated over partial_fit calls): float64
#: counts every integer up to 2**53 exactly; beyond it a row of weight 1 can vanish (c + 1 == c).
MAX_TOTAL_WEIGHT = float(2**53)

# ------------------------------------------------------------------ declarative constraints
#: The class-level hyperparameters every estimator has. The values of ``class_alpha`` and
#: ``class_prior`` (one per class, probabilities summing to 1) are checked once the classes are
#: known, by :func:`check_class_params`.
CLASS_CONSTRAINTS: dict = {
    "fit_prior": ["boolean"],
    "class_prior": ["array-like", None],
    "class_alpha": [Real, "array-like"],
    "predictive": [StrOptions({"mean", "marginal"})],
    "privacy": [DP, None],
}

#: Family hyperparameters as the estimators expose them: types and options here, values
#: (finite, >= 0, ...) checked by the family with its own messages.
FAMILY_CONSTRAINTS: dict = {
    "alpha": [Real, StrOptions({"auto"}), "array-like"],
    "binarize": [Real, None],
    "norm": ["boolean"],
    "categories": [StrOptions({"auto"}), "array-like"],
    "min_categories": [Integral, "array-like", None],
    "prior": [StrOptions({"auto", "reference"}), dict, None],
    "priors": ["array-like", None],
    "features": [StrOptions({"auto", "histogram"}), dict],
}

#: The messages the package gives (and its users match) where scikit-learn's would differ.
_MESSAGES = {
    "predictive": "expected predictive='mean' or 'marginal'; received {value!r}.",
    "features": "expected features='auto', 'histogram' or a dict mapping columns to families; received {value!r}.",
    "privacy": "expected privacy=None or a bayesnb.DP(epsilon, ...); received {value!r}.",
}


def check_private_fit(privacy, sample_weight, partial: bool, who: str) -> None:
    """Refuse what a differentially private fit cannot do (see docs/privacy.md).

    Parameters
    ----------
    privacy : DP or None
    sample_weight : array-like or None
    partial : bool
        Whether the call is ``partial_fit``.
    who : str
    """
    if privacy is None:
        return
    if partial:
        raise ValueError(f"{who}: partial_fit is not available with privacy=: each batch would spend the "
                         "budget again and no accounting across calls is kept. Fit all the rows at once.")
    if sample_weight is not None:
        raise ValueError(f"{who}: sample_weight is not available with privacy=: the sensitivities assume each "
                         "row counts once (a weight above 1 would multiply a row's influence).")
    if privacy.classes is None:
        raise ValueError(f"{who}: with privacy= the class labels must be declared: DP(classes=[...]). Read from "
                         "y, the set of labels would be released without noise (a label held by one row reveals "
                         "that row).")


def constraints(*names: str) -> dict:
    """The class constraints plus the named family constraints: an estimator's ``_parameter_constraints``."""
    return {**CLASS_CONSTRAINTS, **{name: FAMILY_CONSTRAINTS[name] for name in names}}


def validate_params(est, names=None) -> None:
    """Check ``est``'s hyperparameters against its ``_parameter_constraints``.

    Parameters
    ----------
    est : BaseNB
        The estimator.
    names : iterable of str, optional
        Only these parameters (default: every constrained one).

    Raises
    ------
    InvalidParameterError
        A ``ValueError`` and ``TypeError``: scikit-learn's message, or the package's own
        (starting with the estimator's name) where it has one.
    """
    who = type(est).__name__
    names = est._parameter_constraints if names is None else names
    params = {name: getattr(est, name) for name in names}
    for name in names:
        try:
            validate_parameter_constraints(est._parameter_constraints, {name: params[name]}, caller_name=who)
        except InvalidParameterError as e:
            if name not in _MESSAGES:
                raise
            raise InvalidParameterError(f"{who}: " + _MESSAGES[name].format(value=params[name])) from e


def check_class_params(class_alpha, fit_prior, class_prior, K: int, who: str):
    """Validate ``class_alpha`` and ``class_prior`` for ``K`` classes.

    Returns ``(class_alpha as an array, fit_prior, class_prior)``.
    """
    try:
        a = np.asarray(class_alpha, dtype=float)
    except (TypeError, ValueError):
        a = np.array(np.nan)
    if a.ndim > 1 or (a.ndim == 1 and a.shape[0] != K) or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(
            f"{who}: expected class_alpha to be a number >= 0 or {K} of them (one per class); "
            f"received {class_alpha!r}."
        )
    if class_prior is not None:
        try:
            p = np.asarray(class_prior, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{who}: expected class_prior of numbers; received {class_prior!r}.") from None
        if p.shape != (K,):
            raise ValueError(
                f"{who}: expected class_prior with one probability per class ({K}); "
                f"received {p.size} value(s) (shape {p.shape})."
            )
        if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError(
                f"{who}: expected class_prior of probabilities >= 0 summing to 1; "
                f"received {p.tolist()} (sum {p.sum():g})."
            )
    return a, fit_prior, class_prior


def merge_priors(priors, class_prior, who: str):
    """GaussianNB's ``priors`` (scikit-learn's name) and ``class_prior`` are one setting: at most one given."""
    if priors is not None and class_prior is not None:
        raise ValueError(
            f"{who}: expected either priors or class_prior (the same thing), not both; "
            f"received priors={priors!r} and class_prior={class_prior!r}."
        )
    return class_prior if class_prior is not None else priors


# ---------------------------------------------------------------------------------- X
def check_X(est, X, reset: bool):
    """Validate ``X`` at the boundary: type, shape, column names, infinite values.

    DataFrames and object arrays are kept as they are (their columns may hold strings and
    missing values). ``X`` is never modified in place. With ``reset`` the estimator records
    ``n_features_in_``, ``feature_names_in_`` and, for a DataFrame, ``feature_dtypes_``.
    """
    who = type(est).__name__
    if is_dask(X):  # a method that maps partitions never gets here with the whole collection
        raise TypeError(f"{who}: this method needs in-memory data; received a Dask collection "
                        f"({type(X).__name__}). Call X.compute() first (docs/dask.md lists the methods that "
                        "take Dask input).")
    sparse_ok = est._accepts_sparse()
    if sp.issparse(X) and not sparse_ok:
        raise TypeError(
            f"{who}: expected a dense array or DataFrame; received a sparse matrix "
            f"({type(X).__name__}, format {X.format!r}). {est._sparse_hint()}"
        )
    if is_frame(X):
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise DataError(
                f"{who}: expected X with at least one row and one column; received an empty "
                f"DataFrame of shape {X.shape}."
            )
        try:
            validate_data(est, X, skip_check_array=True, reset=reset)
        except ValueError as e:  # scikit-learn's feature-name check does not name the estimator
            raise DataError(str(e) if who in str(e) else f"{who}: {e}") from None
        if reset:  # what sample() needs to give back the training frame's dtypes
            est.feature_dtypes_ = np.asarray(list(X.dtypes), dtype=object)
    else:
        if reset:
            est.__dict__.pop("feature_dtypes_", None)
        X = validate_data(
            est, X, reset=reset, accept_sparse=["csr", "csc"] if sparse_ok else False,
            dtype=None, ensure_all_finite=False,
        )
    if reset:  # sample() of a model fitted on a sparse matrix returns one (not persisted: dense after load)
        est._fitted_sparse = sp.issparse(X)
    check_no_infinity(X, who, getattr(est, "feature_names_in_", None))
    return X


#: pandas ``infer_dtype`` results of object data that may hold a float infinity
_MAY_HOLD_FLOATS = frozenset({"floating", "mixed-integer-float", "mixed", "mixed-integer", "decimal"})


def infinite(values: np.ndarray) -> np.ndarray:
    """Bool mask of the infinite cells of an array of any dtype (strings are never infinite)."""
    if values.dtype.kind == "f":
        return np.isinf(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape, dtype=bool)
    flat = values.ravel()
    if infer_dtype(flat, skipna=True) not in _MAY_HOLD_FLOATS:  # e.g. all strings: no Python loop
        return np.zeros(values.shape, dtype=bool)
    mask = np.fromiter(
        (isinstance(v, (float, np.floating)) and math.isinf(v) for v in flat), dtype=bool, count=flat.size
    )
    return mask.reshape(values.shape)


def check_no_infinity(X, who: str, names=None) -> None:
    """Raise a ValueError naming the columns of ``X`` that hold +-inf (NaN is missing, allowed)."""
    if sp.issparse(X):
        if X.dtype.kind != "f" or not np.isinf(X.data).any():
            return
        coo = X.tocoo()
        bad = np.isinf(coo.data)
        count, cols = int(bad.sum()), np.unique(coo.col[bad])
    elif is_frame(X):
        kinds = set(X.dtypes)
        one = kinds.pop() if len(kinds) == 1 else None
        if (isinstance(one, np.dtype) and one.kind == "f" and getattr(getattr(X, "_mgr", None), "nblocks", 0) == 1
                and all_finite(X.to_numpy())):  # one float block: one sum over its array (columns may be strided)
            return
        per_col = np.zeros(X.shape[1], dtype=np.int64)
        kinds = np.array([getattr(t, "kind", "O") for t in X.dtypes])
        floats = np.flatnonzero(kinds == "f")
        for j in floats:  # a column whose sum is finite holds no infinity (one reduction, no copy)
            s = X.iloc[:, j]  # a NumPy float column read in place (NaN is its missing value); pd.NA converted
            col = s.to_numpy() if isinstance(s.dtype, np.dtype) else s.to_numpy(dtype=np.float64, na_value=np.nan)
            with np.errstate(over="ignore", invalid="ignore"):
                if not np.isfinite(col.sum()):  # NaN (missing), infinity or an overflow: count
                    per_col[j] = np.isinf(col).sum()
        for j in np.flatnonzero(kinds == "O"):
            if is_arrow_text(X.dtypes.iloc[j]):  # strings stored by pyarrow: never infinite
                continue
            per_col[j] = infinite(np.asarray(X.iloc[:, j].to_numpy(dtype=object))).sum()
        count, cols = int(per_col.sum()), np.flatnonzero(per_col)
    else:
        if isinstance(X, np.ndarray) and X.dtype.kind == "f" and all_finite(X):  # one pass, no mask
            return
        mask = infinite(X)
        if not mask.any():
            return
        count, cols = int(mask.sum()), np.flatnonzero(mask.any(axis=0))
    if count:
        shown = [str(names[c]) for c in cols[:5]] if names is not None else [int(c) for c in cols[:5]]
        raise DataError(
            f"{who}: expected finite values in X (missing values may be NaN, None or pd.NA); "
            f"received {count} infinite value(s) in column(s) {shown}{' ...' if len(cols) > 5 else ''}."
        )


# ----------------------------------------------------------------------------- labels
#: what ``fit`` suggests for missing labels
FIT_REMEDY = ("Leave those rows out, or call fit_semi_supervised(X, y) to learn from the unlabelled rows too "
              "(semi-supervised EM).")


def check_labelled(y, who: str, remedy: str = FIT_REMEDY) -> None:
    """Refuse labels with missing values (None/NaN/pd.NA), in a ``ValueError`` saying ``remedy``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels (a list is looked at as Python objects, before NumPy coerces it; text stored by
        pyarrow through its own missing marks, without a Python string per label).
    who : str
        The function or method, for the message.
    remedy : str
        What the caller can do instead (the message's last sentence).

    Raises
    ------
    ValueError
        Some label is missing.
    """
    y = np.asarray(y, dtype=object) if not hasattr(y, "dtype") else y
    missing = np.asarray(y.isna()) if is_arrow_text(y.dtype) else missing_mask(np.asarray(y))
    if missing.any():
        rows = np.flatnonzero(missing)
        raise DataError(
            f"{who}: expected a label for every row; y contains {rows.size} missing label(s) (None/NaN/pd.NA), "
            f"at row(s) {rows[:5].tolist()}{' ...' if rows.size > 5 else ''}. {remedy}"
        )


def check_y(y, n: int, who: str, arrow: bool = False):
    """Validate the labels: one per row, none missing or infinite, all of one type (``arrow``: text
    stored by pyarrow kept as a pandas array, :mod:`._text_labels`)."""
    if y is None:
        raise DataError(f"{who} requires y to be passed, but the target y is None.")
    text = arrow and is_arrow_text(getattr(y, "dtype", None))
    # Look at a list's Python objects before NumPy coerces them (["a", 1] would become strings).
    from_list = not hasattr(y, "dtype")
    if text:  # kept as a pandas array, coded through its distinct values (:mod:`._text_labels`)
        y = getattr(y, "array", y)
    else:
        y = np.asarray(y, dtype=object) if from_list else np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)  # DataConversionWarning, as scikit-learn
        if y.ndim != 1:
            raise DataError(f"{who}: y should be a 1d array (one label per row); received shape {y.shape}.")
    if len(y) != n:
        raise DataError(f"{who}: expected one label per row of X ({n}); received {len(y)} labels.")
    check_labelled(y, who)
    if text:
        return y
    inf = infinite(y)
    if inf.any():
        raise DataError(f"{who}: expected class labels; y contains {int(inf.sum())} infinite value(s).")
    if y.dtype == object:
        if infer_dtype(y, skipna=False) in ("mixed", "mixed-integer"):
            kinds = sorted({type(v).__name__ for v in y})
            raise DataError(f"{who}: expected labels of one type; y mixes {kinds}.")
        if from_list:
            y = np.asarray(y.tolist())  # the dtype NumPy gives the list (as scikit-learn)
    if y.dtype.kind in "USiub":  # strings and integers (1-d) are always class labels (np.unique is not cheap)
        return y
    try:
        check_classification_targets(y)
    except ValueError as e:
        raise DataError(f"{who}: expected class labels; {e}") from None
    return y


def unique_labels(y, who: str):
    """Sorted unique labels; a clear TypeError when they cannot be compared.

    Integers spanning at most as many values as there are labels are counted (one bincount),
    not hashed or sorted.
    """
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.ndim == 1 and y.size:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo <= max(y.size, 1024) and hi <= np.iinfo(np.intp).max:
            seen = np.flatnonzero(np.bincount(np.subtract(y, lo, dtype=np.intp), minlength=hi - lo + 1))
            return (seen + lo).astype(y.dtype)
    try:
        return np.unique(y)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in np.ravel(y)})
        raise DataError(f"{who}: expected labels of one type; received a mix of {kinds}.") from None


def check_partial_fit_classes(classes, fitted_classes, who: str) -> None:
    """``classes`` is required on the first partial_fit call and, when given later, equals ``classes_``."""
    if fitted_classes is None and classes is None:
        raise DataError(
            f"{who}: expected classes= (every class label) on the first call to partial_fit; "
            "received classes=None."
        )
    if fitted_classes is not None and classes is not None:
        given = unique_labels(np.asarray(classes), who)
        if given.shape != fitted_classes.shape or not np.all(given == fitted_classes):
            raise DataError(
                f"{who}: expected classes={fitted_classes.tolist()} as in the first call to "
                f"partial_fit; received classes={given.tolist()}."
            )


def check_known_labels(y, classes, who: str) -> None:
    """Every label of ``y`` is one of ``classes``."""
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise DataError(
            f"{who}: expected labels among classes={classes.tolist()}; received label(s) "
            f"{unique_labels(y[unknown], who)[:5].tolist()} that are not in classes."
        )


def label_codes(y, classes, who: str, check: bool = True):
    """Position of each label of ``y`` among the sorted ``classes``.

    Labels in a NumPy ``str`` array are compared with the classes as ``str`` too (object
    classes of Python strings are cast once: K values), so the n labels are never turned
    into Python objects.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Validated labels (:func:`check_y`).
    classes : ndarray of shape (K,)
        Sorted classes.
    who : str
        The estimator's name, for the error.
    check : bool
        Refuse a label that is not among ``classes`` (the ValueError of :func:`check_known_labels`).

    Returns
    -------
    codes : ndarray of int, shape (n,)
        Zeros when there is one class.
    """
    if is_arrow_text(y.dtype):  # (check_y with arrow=True)
        return arrow_label_codes(y, classes, who, check)
    K = len(classes)
    cl = classes
    if y.dtype.kind == "U" and classes.dtype == object and K and all(type(c) is str for c in classes):
        text = classes.astype(str)
        cl = text if text.tolist() == classes.tolist() else classes  # (a trailing NUL would be lost)
    if cl.dtype.kind != "U" or y.dtype.kind != "U":
        if check:
            check_known_labels(y, classes, who)
        return np.searchsorted(classes, y) if K > 1 else np.zeros(len(y), dtype=int)
    pos = np.searchsorted(cl, y) if K else np.zeros(len(y), dtype=np.intp)
    if check and (not K or (cl[np.minimum(pos, K - 1)] != y).any()):
        check_known_labels(y, classes, who)  # raises, naming the labels
    return pos if K > 1 else np.zeros(len(y), dtype=int)

# ---------------------------------------------------------------------------- weights
def check_weights(sample_weight, n: int, who: str):
    """Non-negative finite weights of shape (n,), not all zero, none subnormal, total <= 2**53 (ones when None)."""
    if sample_weight is None:
        return np.ones(n)
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{who}: expected numeric sample_weight; received {type(sample_weight).__name__}."
        ) from None
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise ValueError(f"{who}: expected sample_weight of shape ({n},); received shape {w.shape}.")
    if not np.all(np.isfinite(w)):
        raise ValueError(
            f"{who}: expected finite sample_weight; received {int((~np.isfinite(w)).sum())} "
            "non-finite weight(s)."
        )
    if np.any(w < 0):
        raise ValueError(
            f"{who}: expected sample_weight >= 0; received {int((w < 0).sum())} negative weight(s), "
            f"e.g. {float(w[w < 0][0])}."
        )
    if not w.any():
        raise ValueError(f"{who}: expected at least one positive sample_weight; received only zeros.")
    tiny = (w > 0) & (w < np.finfo(float).tiny)
    if tiny.any():
        raise ValueError(
            f"{who}: expected sample_weight of 0 or at least {np.finfo(float).tiny:.3g}; received "
            f"{int(tiny.sum())} subnormal weight(s), e.g. {float(w[tiny][0]):.3g}, too small for float64 to "
            "hold the weighted statistics precisely. Use 0 to leave a row out (a weight such as 1e-300 "
            "is accepted: it means almost no data)."
        )
    check_total_weight(w, 0.0, who)
    return w


def check_total_weight(w, already: float, who: str) -> None:
    """The total weight (plus ``already`` counted by earlier partial_fit calls) is at most 2**53."""
    with np.errstate(over="ignore"):
        total = float(np.sum(w)) + already
    if not total <= MAX_TOTAL_WEIGHT:
        got = "overflows float64" if not np.isfinite(total) else f"is {total:.3g}"
        earlier = f" (with {already:.3g} from earlier partial_fit calls)" if already else ""
        raise ValueError(
            f"{who}: expected sample_weight summing to at most 2**53 ({MAX_TOTAL_WEIGHT:.3g}), the "
            f"largest total that float64 counts exactly; the total weight{earlier} {got}. Weights are "
            "counts (a weight of 2 is a duplicated row), so they are never rescaled: divide them by a "
            "constant yourself if their scale means nothing (it sets how much the data outweigh the prior)."
        )


def locate_bad_cells(encode, block):
    """Which rows and columns of a block make its family's ``encode`` raise ValueError.

    Called only after ``encode(block)`` failed, so a whole batch's error can name where the odd
    cells are: rows are found by bisection (encoding row subsets with the same state: every
    family encodes rows independently), columns by replacing, in the first bad row, one cell
    at a time with a good row's cell.

    Parameters
    ----------
    encode : callable
        ``encode(sub_block)``; raises ValueError for a bad cell.
    block : ndarray, sparse matrix or DataFrame of shape (n, d)
        The block as the family receives it.

    Returns
    -------
    rows : list of int
        The first (at most 5) rows that fail on their own.
    columns : list of int
        Block positions whose cell alone makes the first bad row fail (empty when not isolated:
        a sparse block, no good row, or several odd cells in that row).
    """
    def fails(rows):
        try:
            encode(take_rows(block, rows))
        except ValueError:
            return True
        return False

    bad, todo = [], [np.arange(block.shape[0])]
    while todo and len(bad) < 5:
        rows = todo.pop(0)
        if rows.size == 0 or not fails(rows):
            continue
        if rows.size == 1:
            bad.append(int(rows[0]))
        else:
            todo[:0] = [rows[: rows.size // 2], rows[rows.size // 2:]]
    good = next((r for r in range(min(block.shape[0], 64)) if r not in bad and not fails([r])), None)
    if not bad or good is None or sp.issparse(block):
        return bad, []
    columns = []
    for c in range(block.shape[1]):
        row = take_rows(block, [bad[0]]).copy()
        if is_frame(row):
            row = row.astype(object)
            row.iloc[0, c] = block.iloc[good, c]
        else:
            row = row.astype(object) if row.dtype != block.dtype else row
            row[0, c] = block[good, c]
        try:
            encode(row)
        except (ValueError, TypeError):
            continue
        columns.append(c)
    return bad, columns
