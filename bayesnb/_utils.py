"""Small shared helpers: missing-value masks, label-free responsibilities, warnings.

Nothing here knows about a distribution; the families do.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import warnings
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ZeroProbabilityWarning",
    "AllMissingWarning",
    "SearchEdgeWarning",
    "missing_mask",
    "hard_labels",
]


class ZeroProbabilityWarning(UserWarning):
    """A row has probability zero under every class (the zero-frequency problem).

    Raised when smoothing is switched off (``alpha=0``): a feature value never seen
    with any class makes every class impossible. bayesnb then says so and falls
    back to the class prior for those rows instead of returning NaN.
    """


class UserError(Exception):
    """Base of the errors bayesnb raises for a mistake in what it was given, not in bayesnb itself.

    A wrong option or value, a table with bad values, a model file that does not load, a
    request the model cannot answer: the command line reports any of these in one line and
    exits with status 2; any other exception is a bug, reported as such (exit status 1).
    """


class DataError(UserError, ValueError, TypeError):
    """Values of the data given to an estimator that its families cannot read.

    A ``ValueError`` (a value out of a family's support, e.g. a negative count) and, where the
    values have the wrong type (text in a numeric block), a ``TypeError`` too.
    """


class TooLargeError(UserError, ValueError):
    """A result that cannot fit in this machine's memory, refused before any work (:func:`check_memory`)."""


class ZeroProbabilityCondition(UserError, ValueError):
    """A sampling condition (``given=``, ``forbid=``) that no row can meet: probability 0 under the model."""


class AllMissingWarning(UserWarning):
    """A feature had no observed value in the training data: its posterior is its prior."""


class FirstBatchFamilyWarning(UserWarning):
    """``NaiveBayes(features="auto").partial_fit`` chose numeric families on its first batch (not ``fit``'s choice)."""


class SearchEdgeWarning(UserWarning):
    """A search over a hyperparameter chose the largest value it was allowed to try."""


class OneClassWarning(UserWarning):
    """``fit`` was given labels of a single class: the classifier predicts that class for every row.

    Not raised where bayesnb fits one class on purpose (an outlier detector, imputation or
    a synthesizer without a target: :func:`one_class_on_purpose`).
    """


#: the package's folder: warnings that name the user's call skip its frames
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_one_class(classes, who: str) -> None:
    """Warn (:class:`OneClassWarning`) when the fitted ``classes`` hold a single class, naming it.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        The classes a ``fit`` found in the labels it was given.
    who : str
        The estimator's name.

    The warning points at the first frame outside the package (the user's ``fit`` call),
    however many of bayesnb's ``fit`` overrides lie between.
    """
    if len(classes) == 1:
        label = np.asarray(classes).tolist()[0]
        warnings.warn(f"{who}: every label given to fit is the class {label!r}: the model predicts that "
                      "class for every row (a classifier needs labels of at least two classes)",
                      OneClassWarning, skip_file_prefixes=(_PACKAGE_DIR,))


@contextlib.contextmanager
def one_class_on_purpose():
    """A context in which :class:`OneClassWarning` is silenced: bayesnb's own one-class fits.

    Yields
    ------
    None
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        yield


def missing_mask(values: np.ndarray) -> np.ndarray:
    """Boolean mask of missing cells (NaN, None, ``pd.NA``, ``NaT``).

    Parameters
    ----------
    values : ndarray
        Any-dtype array.

    Returns
    -------
    mask : ndarray of bool, same shape as ``values``
    """
    values = np.asarray(values)
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind in "biuUSb":
        return np.zeros(values.shape, dtype=bool)
    import pandas as pd  # object, datetime, ...: pandas knows every missing marker

    return np.asarray(pd.isna(values), dtype=bool)


class _LabelledRows(np.ndarray):
    """Responsibilities of labelled rows (:func:`one_hot`) that remember each row's class and weight.

    An ``ndarray`` like any other for every reader; :func:`hard_labels` reads the classes
    back instead of recovering them from the matrix. A view, a copy or a result computed
    from it (a sum, a product) is a plain array, or one that has forgotten them.
    """

    _hard = None

    def __array_wrap__(self, array, context=None, return_scalar=False):
        out = array.view(np.ndarray) if isinstance(array, np.ndarray) else array
        return out[()] if return_scalar else out


def one_hot(codes, weights, K: int) -> np.ndarray:
    """The (n, K) responsibilities of labelled rows: row ``i`` holds ``weights[i]`` in column ``codes[i]``.

    :func:`hard_labels` of the result returns ``codes`` and ``weights`` as given, without
    reading the matrix.

    Parameters
    ----------
    codes : ndarray of int, shape (n,)
        Each row's class, in ``0 .. K - 1``.
    weights : ndarray of float, shape (n,)
    K : int

    Returns
    -------
    ndarray of shape (n, K)
    """
    codes = np.asarray(codes, dtype=np.intp)
    weights = np.asarray(weights, dtype=float)
    resp = np.zeros((codes.shape[0], K)).view(_LabelledRows)
    resp[np.arange(codes.shape[0]), codes] = weights
    resp._hard = (codes, weights)
    resp.flags.writeable = False  # the remembered codes must stay the matrix's: no write can change one without the other
    return resp


def class_totals(resp: np.ndarray) -> np.ndarray:
    """Summed weight per class, ``resp.sum(axis=0)`` (of :func:`one_hot` responsibilities: one bincount).

    Parameters
    ----------
    resp : ndarray of shape (n_samples, n_classes)

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    if type(resp) is _LabelledRows and resp._hard is not None and resp._hard[0].shape[0] == resp.shape[0]:
        return np.bincount(resp._hard[0], weights=resp._hard[1], minlength=resp.shape[1]).astype(float)
    return np.asarray(resp.sum(axis=0), dtype=float)


def row_weights(resp: np.ndarray) -> np.ndarray:
    """Each row's total weight, ``resp.sum(axis=1)`` (of :func:`one_hot` responsibilities: its weights).

    Parameters
    ----------
    resp : ndarray of shape (n_samples, n_classes)

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    if type(resp) is _LabelledRows and resp._hard is not None and resp._hard[0].shape[0] == resp.shape[0]:
        return resp._hard[1]
    return np.asarray(resp.sum(axis=1), dtype=float)


def hard_labels(resp: np.ndarray):
    """Return ``(labels, weights)`` if each row of ``resp`` has at most one non-zero.

    Hard (labelled) responsibilities allow one ``bincount`` instead of a matrix
    product. Returns ``None`` for soft responsibilities (semi-supervised EM).
    Responsibilities made by :func:`one_hot` give back its codes and weights.

    Parameters
    ----------
    resp : ndarray of shape (n_samples, n_classes)

    Returns
    -------
    (labels, weights) : tuple of ndarray of shape (n_samples,), or None
    """
    if type(resp) is _LabelledRows and resp._hard is not None and resp._hard[0].shape[0] == resp.shape[0]:
        return resp._hard
    resp = np.asarray(resp)
    labels = np.argmax(resp, axis=1)
    weights = resp[np.arange(resp.shape[0]), labels]
    if np.count_nonzero(resp) != np.count_nonzero(weights):
        return None
    return labels, weights


def all_finite(values: np.ndarray) -> bool:
    """Whether every entry of a numeric array is finite (no NaN, no infinity); no full-size temporary.

    The sum of finite values is finite unless it overflows, so one reduction answers in
    the common case (as in scikit-learn); otherwise the cells are checked a chunk of rows
    at a time.

    Parameters
    ----------
    values : ndarray
        Any numeric dtype (integers and booleans are always finite).

    Returns
    -------
    bool
    """
    if values.dtype.kind not in "fc":
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(values.sum()):
            return True
    rows = values.reshape(values.shape[0], -1) if values.ndim > 1 else values.reshape(-1, 1)
    step = max(1, (1 << 18) // max(rows.shape[1], 1))
    return all(np.isfinite(rows[a:a + step]).all() for a in range(0, rows.shape[0], step))


class ColumnNames(Sequence):
    """Names of a block's columns, built on access (``"x<j>"`` for unnamed input).

    A vocabulary can have 10^5 columns: building every name string at fit time would
    cost more than the fit itself.

    Parameters
    ----------
    columns : ndarray of int
        Positions of the block's columns in the input table.
    names : sequence of str or None
        Names of all input columns (``feature_names_in_``), or None.
    """

    def __init__(self, columns, names=None):
        self.columns = np.asarray(columns)
        self.names = names

    def __len__(self):
        return len(self.columns)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        c = int(self.columns[i])
        return str(self.names[c]) if self.names is not None else f"x{c}"

    def __repr__(self):
        head = ", ".join(repr(self[j]) for j in range(min(len(self), 3)))
        return f"ColumnNames([{head}{', ...' if len(self) > 3 else ''}], n={len(self)})"


def nonfinite_error(who: str, what: str, values) -> ValueError:
    """A ValueError for infinite values, naming the estimator and the block."""
    return ValueError(
        f"{who}: {what} must be finite numbers or missing (NaN); "
        f"received {int(np.isinf(values).sum())} infinite value(s)."
    )


def warn_all_missing(who: str, names) -> None:
    """Warn that some features have no observed values (their posterior is the prior)."""
    warnings.warn(
        f"{who}: feature(s) {list(names)} have no observed (non-missing) value in the "
        "training data; their posterior is their prior and they do not affect predictions.",
        AllMissingWarning,
        stacklevel=4,
    )


def shown_list(values, limit=5) -> str:
    """A list for a message: its first ``limit`` items, then how many more (``['a', 'b'] and 3 more``).

    Parameters
    ----------
    values : iterable
    limit : int, default=5

    Returns
    -------
    str

    Examples
    --------
    >>> shown_list(["a", "b", "c"], limit=2)
    "['a', 'b'] and 1 more"
    """
    values = list(values)
    more = f" and {len(values) - limit} more" if len(values) > limit else ""
    return f"{values[:limit]}{more}"


def is_dtype(obj) -> bool:
    """True for a NumPy dtype or a pandas extension dtype (pandas imported only here)."""
    from pandas.api.extensions import ExtensionDtype

    return isinstance(obj, (np.dtype, ExtensionDtype))


def is_numeric_column(col) -> bool:
    """True for a numeric, non-boolean pandas column (Series or dtype; pandas imported only here)."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    return is_numeric_dtype(col) and not is_bool_dtype(col)


def is_arrow_text(dtype) -> bool:
    """True for the dtype of a pandas column of text stored by pyarrow.

    pandas' ``str`` (``StringDtype`` with pyarrow storage, what ``read_csv`` gives text in
    pandas 3), and ``pd.ArrowDtype`` of a string type or of a dictionary of strings. Its
    cells are observed strings (or missing), whatever the storage: a dictionary is an
    encoding, not a declaration of categories (unlike a pandas ``Categorical``).
    """
    import pandas as pd

    if isinstance(dtype, pd.StringDtype):
        return dtype.storage == "pyarrow"
    if not isinstance(dtype, pd.ArrowDtype):
        return False
    import pyarrow as pa

    t = dtype.pyarrow_dtype
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def arrow_factorize(values):
    """``(distinct strings, codes)`` of a pandas array of text stored by pyarrow (code ``-1``: missing).

    The column is dictionary-encoded by pyarrow (kept as it is where it is a dictionary
    already; the dictionaries of its chunks unified), so Python strings are made for its
    distinct values only. A dictionary may hold values that no cell uses (a slice of a longer
    column), missing values or repeats: the distinct strings returned are exactly the values
    of the cells, each once, in the dictionary's order, as ``pandas.factorize`` gives them.

    Parameters
    ----------
    values : pandas ExtensionArray
        Text stored by pyarrow (:func:`is_arrow_text` of its dtype).

    Returns
    -------
    distinct : ndarray of object, shape (m,)
        The distinct strings.
    codes : ndarray of int, shape (n,)
        Each cell's position in ``distinct``, ``-1`` where missing.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    data = values.__arrow_array__()
    if not pa.types.is_dictionary(data.type):
        data = pc.dictionary_encode(data)
    if isinstance(data, pa.ChunkedArray):
        data = data.combine_chunks() if data.num_chunks != 1 else data.chunk(0)
    indices = data.indices
    nulls = indices.null_count > 0
    codes = indices.cast(pa.int64()).fill_null(-1).to_numpy() if nulls else indices.to_numpy()
    # each dictionary entry's code among the distinct strings (a missing entry: -1), then
    # the entries no cell uses left out
    names = data.dictionary.to_numpy(zero_copy_only=False)
    if data.dictionary.null_count == 0 and len(set(names.tolist())) == len(names):  # (as a parser makes it)
        entry, distinct = np.arange(len(names)), names
    else:
        entry, distinct = pd.factorize(names, use_na_sentinel=True)
    entry = np.append(entry, -1).astype(np.intp)  # index -1 (a missing cell) -> -1
    cells = np.bincount(codes + 1, minlength=len(entry)) if nulls else \
        np.append(0, np.bincount(codes, minlength=len(entry) - 1))  # cells per entry (first: missing)
    used = np.zeros(len(distinct) + 1, dtype=bool)
    used[entry[np.flatnonzero(cells[1:])]] = True
    used = used[:-1]
    if not used.all():
        renumber = np.append(np.cumsum(used) - 1, -1)
        renumber[:-1][~used] = -1
        entry = renumber[entry]
        distinct = distinct[used]
    if np.array_equal(entry[:-1], np.arange(len(entry) - 1)):  # distinct values in the dictionary's order
        return np.asarray(distinct, dtype=object), codes
    return np.asarray(distinct, dtype=object), entry[codes]


def is_frame(X) -> bool:
    """True for pandas DataFrames (checked by duck typing: pandas is imported lazily)."""
    return hasattr(X, "iloc") and hasattr(X, "columns")


def as_generator(random_state) -> np.random.Generator:
    """A NumPy ``Generator`` from None, an int seed, a ``Generator`` or a ``RandomState``.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState

    Returns
    -------
    numpy.random.Generator
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1))
    return np.random.default_rng(random_state)


def dense(M) -> np.ndarray:
    """``M`` as a dense ndarray (sparse matrices are densified; use on small blocks only)."""
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def take_rows(X, rows):
    """The rows of ``X`` (array, sparse matrix or DataFrame) selected by ``rows`` (mask or indices)."""
    return X.iloc[rows] if is_frame(X) else X[rows]


def physical_memory() -> float:
    """Bytes of physical memory of this machine (``inf`` where the platform does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return float("inf")


def check_memory(n_values, what: str, who: str) -> None:
    """Refuse a result that cannot fit in memory, before any work (a size guard).

    Parameters
    ----------
    n_values : int or float
        How many float64 values (8 bytes each) the result holds (rows x columns x ...).
    what : str
        What is asked for, e.g. ``"sample(n_samples=1000000000)"``.
    who : str
        The estimator's name.

    Raises
    ------
    TooLargeError
        A ``ValueError``: when ``8 * n_values`` bytes exceed the machine's physical memory.
    """
    need, have = float(n_values) * 8, physical_memory()
    if need > have:
        raise TooLargeError(f"{who}: {what} would hold {float(n_values):.3g} values, about {need / 2**30:,.1f} GiB, "
                         f"more than this machine's {have / 2**30:,.1f} GiB of memory; ask for fewer (in batches).")


def lazy_exports(package: str, homes: dict):
    """``(__getattr__, __dir__)`` of a module whose public names live in other modules, imported on first use.

    A wing's ``__init__`` lists where each of its public names lives and imports that
    submodule only when the name is first used (PEP 562), so importing one module of the
    wing never loads the others. A module may list the modules it uses only on some calls the
    same way (``{"engine": "..structure"}``, then ``on_call.engine.fit(...)``).

    Parameters
    ----------
    package : str
        The ``__name__`` of the module declaring the table (a package's ``__init__`` or a module).
    homes : dict
        ``{name: home}``: the name is what ``from <home> import <name>`` written in that module
        would give, a bare home being a sibling module (``{"load": "persistence"}`` is
        ``from .persistence import load``; ``{"engine": "..structure"}`` is ``from ..structure
        import engine``, a submodule), imported on first use.

    Returns
    -------
    tuple of callables
        The module-level ``__getattr__`` and ``__dir__``.
    """

    def __getattr__(name):
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        home = homes[name] if homes[name].startswith(".") else f".{homes[name]}"
        module = importlib.import_module(home, sys.modules[package].__package__)
        try:  # looked up on every use (not kept), so the home's current attribute is the one given
            return getattr(module, name)
        except AttributeError:  # ``from pkg import sub``: a submodule not imported yet
            return importlib.import_module(f"{module.__name__}.{name}")

    def __dir__():
        return sorted(set(homes) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__
