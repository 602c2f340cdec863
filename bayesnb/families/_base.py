"""The contract every feature family follows, and the helpers they share.

A family is a small object that holds hyperparameters only (like a scikit-learn
estimator). Everything it learns lives in NamedTuples that its pure functions pass
around::

    encode  : raw block -> encoded block (+ encoding state, e.g. categories)
    stats   : encoded block, responsibilities (n, K) -> sufficient statistics
    merge   : stats + stats -> stats                      (counts accumulate)
    make_prior : stats, state -> prior parameters          (resolves "auto")
    update  : prior, stats -> posterior parameters         (same type: conjugacy)
    log_likelihood : posterior, encoded block, predictive -> (n, K) log p(x | y=k)
    log_evidence   : prior, posterior -> (K,) log p(block | y) per class

Missing cells are part of the contract: ``stats`` leaves them out, ``log_likelihood``
marginalises them (for Naive Bayes that drops the factor).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import minimize_scalar

__all__ = ["Family", "check_alpha", "maximise_evidence", "class_sums", "log_dot", "dirichlet_draws",
           "draw_categories"]


class Family:
    """Base class of feature families (Categorical, Bernoulli, Multinomial, Gaussian).

    Subclasses list their hyperparameters in ``_param_names`` and implement the
    methods documented in this module's docstring.
    """

    _param_names: tuple = ()
    #: short name used in error messages and ArviZ variable names
    name = "family"
    #: whether the family accepts scipy.sparse blocks
    accepts_sparse = False
    #: whether the family takes raw values (any dtype, DataFrames as they are) rather
    #: than a float array; its encoded values are codes to decode back to values
    raw_values = False
    #: whether the block's columns share one probability vector (a row's cells are not
    #: independent given the class, so they are not held out or imputed one by one)
    joint_columns = False

    def get_params(self, deep: bool = True) -> dict:
        """Hyperparameters as a dict (scikit-learn convention)."""
        return {k: getattr(self, k) for k in self._param_names}

    def set_params(self, **params):
        """Set hyperparameters (scikit-learn convention); returns self."""
        for k, v in params.items():
            if k not in self._param_names:
                raise ValueError(f"{type(self).__name__} has no parameter {k!r}")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        a, b = self.get_params(), other.get_params()
        return all(_param_equal(a[k], b[k]) for k in a)

    __hash__ = object.__hash__

    def merge(self, a, b):
        """Combine statistics of two disjoint batches (default: add every field)."""
        return type(a)(*(x + y for x, y in zip(a, b)))

    def check_posterior(self, post, stats, names, classes, who="NaiveBayes"):
        """Raise where the posterior leaves a predictive undefined (default: never)."""

    def reindex_stats(self, stats, old_state, new_state):
        """Statistics of ``old_state``'s encoding moved onto ``new_state`` (default: unchanged).

        ``partial_fit`` calls this when a batch extends the encoding (new categories).
        """
        return stats

    def predict_cache(self, prior, post):
        """Tables computed once after fit and reused by every ``log_likelihood`` call.

        Returns None when the family has nothing worth caching.
        """
        return None

    # ------------------------------------------------------------------ generative hooks
    # Architecture v2 moves every distribution-specific operation onto the family class.
    # Until each family defines a hook itself, the hook finds the function of that name in
    # the module of the first class of the MRO that has it (a user subclass of a bayesnb
    # family inherits its parent's).
    def _hook(self, name):
        import sys

        for cls in type(self).__mro__:
            if cls is Family:
                break
            fn = getattr(sys.modules.get(cls.__module__), name, None)
            if fn is not None:
                return fn
        return None

    def _required(self, name):
        fn = self._hook(name)
        if fn is None:
            raise NotImplementedError(f"{type(self).__name__} does not implement {name}() of the Family contract.")
        return fn

    def gen_point(self, prior, post, rng=None):
        """Parameters in use for generation: the posterior mean (``rng`` None) or one exact draw.

        Parameters
        ----------
        prior, post : params NamedTuple
            The block's prior and posterior (of shape (K, ...)).
        rng : numpy.random.Generator or None

        Returns
        -------
        params NamedTuple
            A "point" that :meth:`gen_sample`, :meth:`gen_fill` and :meth:`gen_cell_log_lik` read.
        """
        return self._required("gen_point")(prior, post, rng)

    def gen_sample(self, point, z, rng, lengths=None):
        """Draw one row of the block per entry of ``z`` (class indices, shape (n,)).

        Parameters
        ----------
        point : params NamedTuple
            From :meth:`gen_point`.
        z : ndarray of int, shape (n,)
        rng : numpy.random.Generator
        lengths : ndarray of shape (n,), optional
            Row totals, for families with a length model (counts).

        Returns
        -------
        ndarray of shape (n, d)
            Encoded values (codes for raw-value families; see :meth:`gen_decode`).
        """
        return self._required("gen_sample")(point, z, rng, lengths)

    def gen_missing(self, block):
        """Bool (n, d): the missing cells of an encoded block (dense or sparse)."""
        return self._required("gen_missing")(block)

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Fill the missing cells of an encoded block; observed cells are never changed.

        Parameters
        ----------
        point : params NamedTuple
        block : encoded block
        resp : ndarray of shape (n, K)
            ``p(y | x_obs)`` per row.
        strategy : {"mode", "mean", "draw"}
        z : ndarray of int, shape (n,), optional
            Drawn classes (``strategy="draw"``).
        rng : numpy.random.Generator, optional
        rate : ndarray of shape (K,), optional
            Length model of the block (:meth:`gen_rate`).

        Returns
        -------
        ndarray of shape (n, d)
            Encoded values, missing cells filled.
        """
        return self._required("gen_fill")(point, block, resp, strategy, z, rng, rate)

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per-cell log-likelihood contributions of an encoded block, ``(n, d)``.

        Parameters
        ----------
        prior, point : params NamedTuple
        block : encoded block
        weights : ndarray of shape (n, K)
            Class responsibilities the contributions are averaged over.
        predictive : {"mean", "marginal"}

        Returns
        -------
        ndarray of shape (n, d)
        """
        return self._required("gen_cell_log_lik")(prior, point, block, weights, predictive)

    def gen_log_penalty(self, prior, point) -> float:
        """Log prior density term of ``point`` (the EM objective's penalty)."""
        return self._required("gen_log_penalty")(prior, point)

    def gen_rate(self, stats, class_count, rng=None):
        """Length model of the block: per-class rate (K,), or None for families without one."""
        fn = self._hook("gen_rate")
        return None if fn is None else fn(stats, class_count, rng)

    def gen_empty_columns(self, state):
        """Bool (d,): columns with no value to draw (default: none), or None."""
        fn = self._hook("gen_empty_columns")
        return None if fn is None else fn(state)

    def gen_decode(self, codes, state):
        """Values of the encoded ``codes`` (raw-value families), one object array per column."""
        return self._required("gen_decode")(codes, state)

    # --------------------------------------------------------- draws and NumPyro hooks
    @property
    def param_names(self) -> tuple:
        """Names of the parameter variables in draws and ArviZ output (``sample_params`` keys)."""
        names = self._hook("PARAM_NAMES")
        if names is None:
            raise NotImplementedError(f"{type(self).__name__} does not declare its parameter names.")
        return tuple(names)

    def sample_params(self, post, n_draws, rng) -> dict:
        """``n_draws`` exact posterior draws of every parameter, ``{name: (n_draws, K, ...)}``."""
        return self._required("sample_params")(post, n_draws, rng)

    def posterior_moments(self, post) -> dict:
        """``{name: (mean, sd)}`` of every parameter under the posterior."""
        return self._required("posterior_moments")(post)

    def posterior_from_params(self, params: dict):
        """A params NamedTuple whose plug-in is the given parameter values."""
        return self._required("posterior_from_params")(params)

    def numpyro_static(self, prior):
        """Hashable static structure of the block for the NumPyro model (shapes, groups)."""
        return self._required("numpyro_static")(prior)

    def numpyro_prior_args(self, prior) -> dict:
        """The prior's arrays, as passed to the compiled model."""
        return self._required("numpyro_prior_args")(prior)

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """Sample the block's parameter sites inside the NumPyro model; returns the parameters."""
        return self._required("numpyro_sample")(label, static, prior_args, feature_plate, class_plate)

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """Parameter arrays (``param_names``) from NumPyro site samples."""
        return self._required("params_from_sites")(label, static, samples)

    def point_params(self, post) -> dict:
        """Parameter arrays at the posterior plug-in."""
        return self._required("point_params")(post)

    def sites_from_params(self, label, static, params: dict) -> dict:
        """NumPyro site values (constrained) for the given parameter arrays."""
        return self._required("sites_from_params")(label, static, params)

    def numpyro_stats_args(self, stats) -> dict:
        """Sufficient statistics as arrays for the sufficient-statistics likelihood."""
        return self._required("numpyro_stats_args")(stats)

    def numpyro_suffstat_loglik(self, params, stats_args):
        """The block's log-likelihood from sufficient statistics (JAX)."""
        return self._required("numpyro_suffstat_loglik")(params, stats_args)

    def numpyro_row_args(self, block, static) -> dict:
        """Encoded rows as arrays for the per-row likelihood."""
        return self._required("numpyro_row_args")(block, static)

    def numpyro_row_loglik(self, params, row_args):
        """Per-row, per-class log-likelihood ``(n, K)`` of the block (JAX)."""
        return self._required("numpyro_row_loglik")(params, row_args)

    # ------------------------------------------------------------ linear form and display
    def linear_terms(self, theta, state):
        """``(w, b)`` with ``log p(x | y=k) = x @ w[k] + b[k]`` per class, or None (not linear)."""
        fn = self._hook("linear_terms")
        return None if fn is None else fn(theta, state)

    def linear_names(self, names, state):
        """Names of the columns of :meth:`linear_terms`' ``w``, or None (not linear)."""
        fn = self._hook("linear_names")
        return None if fn is None else fn(names, state)

    def value_labels(self, state):
        """The values of each column (a list per column) for a discrete-valued family, else None.

        ArviZ output gets one more dimension over these values.
        """
        cats = getattr(state, "categories", None)  # (moves onto Categorical)
        return None if cats is None else [list(c) for c in cats]

    def plot_panels(self, block, top=10) -> list:
        """Panels of :func:`bayesnb.plot.class_conditionals` for a block posterior.

        Parameters
        ----------
        block : BlockPosterior
        top : int
            Columns shown for a block whose columns share one distribution.

        Returns
        -------
        list of (title, kind, payload)
            ``kind="bars"``: payload ``(labels, p)`` with ``p`` of shape (K, len(labels));
            ``kind="density"``: payload ``(mu, sd)``, each of shape (K,).
        """
        return self._required("plot_panels")(block, top)


def _param_equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - exotic params
        return a is b


def check_alpha(alpha, who: str, allow_array: bool = True):
    """Validate a smoothing strength: ``"auto"``, a scalar >= 0, or an array >= 0.

    Parameters
    ----------
    alpha : {"auto", float, array-like}
    who : str
        Estimator/family name used in error messages.
    allow_array : bool
        Whether per-value arrays are accepted.

    Returns
    -------
    alpha : "auto", float or ndarray of float64
    """
    if isinstance(alpha, str):
        if alpha == "auto":
            return alpha
        raise ValueError(f"{who}: alpha must be a number >= 0 or 'auto'; received {alpha!r}.")
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
        a = float(alpha)
        if not np.isfinite(a) or a < 0:
            raise ValueError(f"{who}: alpha must be a finite number >= 0; received {alpha!r}.")
        return a
    if not allow_array:
        raise TypeError(f"{who}: alpha must be a number >= 0 or 'auto'; received {type(alpha).__name__}.")
    try:
        arr = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{who}: alpha must be a number >= 0, 'auto' or an array of numbers; "
            f"received {type(alpha).__name__}."
        ) from None
    if arr.ndim == 0:
        return check_alpha(float(arr), who, allow_array)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{who}: every alpha must be a finite number >= 0; received {arr!r}.")
    return arr


def maximise_evidence(log_evidence_of_alpha, lo: float = 1e-4, hi: float = 1e4) -> float:
    """Empirical Bayes: the smoothing strength that maximises the closed-form evidence.

    Parameters
    ----------
    log_evidence_of_alpha : callable
        ``f(alpha) -> float``, the log marginal likelihood of the training data.
    lo, hi : float
        Search interval for alpha (searched on a log scale).

    Returns
    -------
    alpha : float
    """
    res = minimize_scalar(
        lambda t: -log_evidence_of_alpha(float(np.exp(t))),
        bounds=(np.log(lo), np.log(hi)),
        method="bounded",
        options={"xatol": 1e-4},
    )
    return float(np.exp(res.x))


def resolve_scalar_alpha(alpha, evidence_fn) -> float:
    """``alpha`` itself, or the evidence-maximising value when it is ``"auto"``."""
    if isinstance(alpha, str):  # "auto" (validated earlier)
        return maximise_evidence(evidence_fn)
    return alpha


def class_sums(X, resp: np.ndarray) -> np.ndarray:
    """``resp.T @ X``: weighted column sums per class, a dense (K, d) array.

    For labelled rows (each row of ``resp`` has one non-zero) and a CSR/CSC matrix
    this is one ``bincount`` over the stored entries, several times faster than the
    sparse matrix product on a vocabulary-sized matrix.

    Parameters
    ----------
    X : ndarray or CSR/CSC matrix of shape (n, d)
    resp : ndarray of shape (n, K)

    Returns
    -------
    ndarray of shape (K, d)
    """
    import scipy.sparse as sp

    from .._utils import hard_labels

    K = resp.shape[1]
    hard = hard_labels(resp) if sp.issparse(X) else None
    if hard is None:
        return np.asarray((X.T @ resp).T, dtype=float)
    labels, w = hard
    n, d = X.shape
    if X.format == "csr":  # key = class * d + column, built without a row-index array
        per_row = np.diff(X.indptr)
        key = np.repeat(labels.astype(np.int64) * d, per_row)
        key += X.indices
        vals = X.data if np.all(w == 1) else X.data * np.repeat(w, per_row)
    else:
        rows = X.indices
        cols = np.repeat(np.arange(d), np.diff(X.indptr))
        key = labels[rows].astype(np.int64) * d + cols
        vals = X.data if np.all(w == 1) else X.data * w[rows]
    # (float even with no stored entries, where bincount would give integers)
    return np.bincount(key, weights=vals, minlength=K * d).reshape(K, d).astype(np.float64, copy=False)


def log_dot(X, L_T: np.ndarray, offset=None, has_neg_inf=None) -> np.ndarray:
    """``X @ L_T (+ offset)`` for log-probability tables with ``0 * log 0 = 0``.

    With ``alpha=0`` a table can hold ``-inf`` (a zero probability); a cell with count 0
    must then add 0, not NaN. The finite part is one (sparse) matrix product, and the
    ``-inf`` entries are found by a second product with their indicator, so sparse
    input is never densified.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
        Non-negative counts or 0/1 indicators.
    L_T : ndarray of shape (d, K)
        Log probabilities (finite or ``-inf``).
    offset : ndarray of shape (n, K), optional
        Added to the finite part before ``-inf`` rows are set.
    has_neg_inf : bool, optional
        Whether ``L_T`` holds ``-inf`` (saves a pass over a large table when known).

    Returns
    -------
    ndarray of shape (n, K)
    """
    if has_neg_inf is None:
        has_neg_inf = bool(np.isneginf(L_T).any())
    if not has_neg_inf:
        out = np.asarray(X @ L_T)
        return out if offset is None else out + offset
    neg_inf = np.isneginf(L_T)
    out = np.asarray(X @ np.where(neg_inf, 0.0, L_T))
    if offset is not None:
        out = out + offset
    hits = np.asarray(X @ neg_inf.astype(float))
    out[hits > 0] = -np.inf
    return out


def _log_gamma_draws(conc, size, rng):
    """``log`` of Gamma(conc, 1) draws, stable for tiny concentrations.

    Uses ``G(a) = G(a + 1) * U ** (1 / a)`` so that small pseudo-counts do not
    underflow to 0 (a zero concentration gives ``-inf``: that value has probability 0).
    """
    conc = np.asarray(conc, dtype=float)
    g = rng.standard_gamma(conc + 1.0, size=size)
    u = rng.random(size)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(g) + np.log(u) / conc


def dirichlet_draws(conc, n_draws, rng) -> np.ndarray:
    """Exact draws from Dirichlet(conc) over the last axis, in NumPy.

    The one Dirichlet sampler of the package (Beta draws are its two-category case).
    Stable for tiny concentrations (log-space Gamma draws); a row whose concentrations
    are all 0 (maximum likelihood without data) comes back as zeros, not NaN.

    Parameters
    ----------
    conc : array-like of shape (..., V)
    n_draws : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_draws, ..., V)
    """
    conc = np.asarray(conc, dtype=float)
    if conc.shape[-1] == 0:  # no category at all (an all-missing feature): nothing to draw
        return np.zeros((n_draws,) + conc.shape)
    lg = _log_gamma_draws(conc, (n_draws,) + conc.shape, rng)
    top = lg.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        w = np.exp(lg - np.where(np.isfinite(top), top, 0.0))
        tot = w.sum(axis=-1, keepdims=True)
        return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), 0.0)


def draw_categories(P: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-cdf draw: row ``i`` takes the category of ``u[i]`` under probabilities ``P[i]``.

    Parameters
    ----------
    P : ndarray of shape (n, V)
        Rows of probabilities.
    u : ndarray of shape (n,)
        Uniform(0, 1) numbers.

    Returns
    -------
    ndarray of int, shape (n,)
    """
    cdf = np.cumsum(P, axis=1)
    cdf[:, -1] = np.inf
    return (u[:, None] >= cdf).sum(axis=1)
