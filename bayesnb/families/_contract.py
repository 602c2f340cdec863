"""The contract every feature family follows.

A family is a small object that holds hyperparameters only (like a scikit-learn
estimator). Everything it learns lives in NamedTuples that its methods pass around::

    encode  : raw block -> encoded block (+ encoding state, e.g. categories)
    stats   : encoded block, responsibilities (n, K) -> sufficient statistics
    merge   : stats + stats -> stats                      (counts accumulate)
    make_prior : stats, state -> prior parameters          (resolves "auto")
    update  : prior, stats -> posterior parameters         (same type: conjugacy)
    log_likelihood : posterior, encoded block, predictive -> (n, K) log p(x | y=k)
    log_evidence   : prior, posterior -> (K,) log p(block | y) per class

then a parameter point (the posterior mean or one exact draw), value draws and imputation
(``gen_*``). The nine abstract methods (and ``log_likelihood``) are what a family must write
to be fitted, predict, sample and impute; the other hooks have defaults (some inherited from
the mixins of :mod:`.default_hooks`). The NumPyro model, named posterior draws, plot panels,
a private release, per-cell scores and the EM objective are capabilities beside the contract
(:mod:`.capabilities`), which a family registers by listing them among its bases. The package
calls nothing else on a family and never asks which family it holds, so a subclass (of
``Family`` or of a bayesnb family) works everywhere its capabilities allow
(docs/families/custom.md).

Missing cells are part of the contract: ``stats`` leaves them out, ``log_likelihood``
marginalises them (for Naive Bayes that drops the factor). ``encode`` finds them once, where it
reads the raw block, and the encoded block carries them as its ``missing`` field: None when no
cell is missing, else an (n, d) indicator (bool or 0/1, dense or sparse). Fit, predict, impute
and sample read that mask through :meth:`Family.gen_missing` / :meth:`Family.all_missing`;
nothing downstream re-derives it from values.

The leading axis ``K`` of every statistics and parameter array is a *context* axis: ``stats``
takes row weights per context, ``(n, K)``, and ``log_likelihood`` scores every row in every
context. Under the naive structure the contexts are the classes; EM's latent-class states
(class, component) and a tree structure's (class, parent value) are other contexts, served
by the same family code (tests/families/test_contract.py checks any number of contexts).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .._utils import dense
from .default_hooks import NodeDefaults, PartitionDefaults, SupportDefaults
from .capabilities import missing_capability

__all__ = ["Family"]


def _param_equal(a, b) -> bool:
    """Hyperparameters equal by value: arrays element by element, also inside dicts, lists and tuples."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_param_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_param_equal, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - exotic params
        return a is b


class Family(PartitionDefaults, NodeDefaults, SupportDefaults, ABC):
    """Base class of feature families (Categorical, Bernoulli, Multinomial, Gaussian, LogNormal, Poisson).

    Subclasses list their hyperparameters in ``_param_names``, set the class attributes
    below and implement every abstract method (and :meth:`log_likelihood` or
    :meth:`log_likelihood_parts`); capabilities (:mod:`bayesnb.families.capabilities`) are
    registered by listing them among the bases. Encoded blocks, statistics and parameters
    are the family's own NamedTuples; the package only passes them back to the family.
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
    #: the fill that ``impute(strategy="auto")`` uses: the best point estimate of a cell
    #: for its loss -- "mode" (0-1 loss: categories, binary values) or "mean" (squared
    #: loss: the posterior-predictive mean of a numeric value)
    default_fill = "mode"
    #: NamedTuple type of the sufficient statistics (model files: what may be read back)
    stats_type: type = None
    #: NamedTuple type of the prior and posterior parameters
    params_type: type = None
    #: NamedTuple types the encoding state may hold (besides ints and arrays)
    state_types: tuple = ()
    #: per NamedTuple name, the rule of each field when a model file is read (see
    #: :mod:`bayesnb.io.loadcheck`): "count" (a number of rows or pseudo-rows: 0 to 2**53 in
    #: statistics, 2**54 in a prior or posterior), "a" (a count from -0.5), "sum" (finite, >= 0:
    #: a sum of values or squares), "finite" (a mean: magnitude at most 1e154, as a fit's data),
    #: "real" (any finite number); " or None" when the field may be None
    field_rules: dict = {}  # noqa: RUF012 - read-only, overridden per family
    #: whether :meth:`log_likelihood` scores an observed cell with a log density (True)
    #: rather than a log probability mass (False); see :meth:`density_cells`
    density = False
    #: whether an observed cell is a number on an ordered scale that can lie beyond the training
    #: values (Gaussian, LogNormal, Histogram, Poisson), not a category, a binary value or a token
    #: count of a row's vector: the columns an outlier score's range tails cost
    #: (:mod:`bayesnb.generative.range_tails`)
    ordered_support = False

    # the scikit-learn hyperparameter protocol, from the names in ``_param_names``: two families are
    # equal when they are of the same type with equal hyperparameters (arrays compared element by
    # element); the hash stays the object's identity
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

    def __getattr__(self, name):
        """Called only for a name the family lacks: a capability's hook raises a clear error.

        A hook of a capability the family does not register (:mod:`bayesnb.families.capabilities`)
        raises :class:`~bayesnb.families.capabilities.MissingCapability` naming the family, the
        capability and the hook; any other name, a plain ``AttributeError``. A name the class does
        define (a property whose getter raised ``AttributeError``) is looked up again, so the getter's
        own error reaches the caller rather than one about the property's name.
        """
        if name.startswith("__"):
            raise AttributeError(name)
        if any(name in vars(k) for k in type(self).__mro__):
            return object.__getattribute__(self, name)  # re-raises the getter's own error
        raise missing_capability(self, name)

    # ------------------------------------------------------------------ conjugate core
    @abstractmethod
    def encode(self, X, state=None, *, extend=False, who="NaiveBayes"):
        """Encode a raw block.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
            The block's columns as the user gave them (already column-selected).
        state : object, optional
            The encoding state of an earlier fit; None encodes afresh.
        extend : bool
            With a state, whether new values may extend it (``partial_fit``) rather than be
            refused or treated as unseen.
        who : str
            Name used in error messages.

        Returns
        -------
        block : NamedTuple
            The encoded block (missing cells marked, as the family keeps them).
        state : object
            The encoding state (the number of columns, categories, ...).
        """

    @abstractmethod
    def empty_stats(self, state, K):
        """Sufficient statistics of no rows for ``K`` classes."""

    @abstractmethod
    def stats(self, block, resp, state):
        """Sufficient statistics of an encoded block weighted by ``resp`` (n, K).

        ``resp`` holds one-hot labels times sample weights in supervised fitting and class
        responsibilities in EM. Missing cells are left out.
        """

    @abstractmethod
    def make_prior(self, stats, state, who="NaiveBayes"):
        """The prior's parameters (a params NamedTuple of shape (K, ...)); resolves ``"auto"``."""

    @abstractmethod
    def update(self, prior, stats):
        """The conjugate posterior: ``prior`` updated by ``stats`` (same NamedTuple type)."""

    def observed_rows(self, stats):
        """Weighted number of rows each (class, column) of ``stats`` counts, or None.

        A row counts once per column it observes, so no entry can exceed its class's count;
        loading a model file checks that. None (the default) where the statistics do not count
        rows (a multinomial block counts words).

        Parameters
        ----------
        stats : stats NamedTuple

        Returns
        -------
        ndarray of shape (K, d) or None
        """
        return None

    def log_likelihood(self, prior, post, block, predictive="mean", cache=None):
        """``log p(x_i | y=k)`` of every row of an encoded block, shape (n, K).

        A family writes this or :meth:`log_likelihood_parts` (or both); the default adds up
        the parts.

        Parameters
        ----------
        prior, post : params NamedTuple
        block : encoded block
        predictive : {"mean", "marginal"}
            ``"mean"``: the plug-in of the posterior mean (additive smoothing);
            ``"marginal"``: the exact posterior predictive.
        cache : object, optional
            What :meth:`predict_cache` returned for this posterior.

        Returns
        -------
        ndarray of shape (n, K)
            Missing cells marginalised (they add nothing).
        """
        if type(self).log_likelihood_parts is Family.log_likelihood_parts:
            raise NotImplementedError(f"{type(self).__name__} implements neither log_likelihood nor "
                                      "log_likelihood_parts of the Family contract.")
        rel, row = self.log_likelihood_parts(prior, post, block, predictive, cache)
        return rel + row[:, None]

    def log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """:meth:`log_likelihood` as a class-relative part and a class-independent row term.

        ``rel[:, k] + row`` is ``log p(x_i | y=k)``; ``row`` (n,) holds what every class
        shares, so that ``p(y | x)`` is computed from ``rel`` alone without the cancellation
        of large common terms (e.g. a feature constant in training, scored far from its
        value). The default has no row term: :meth:`log_likelihood` is the relative part.

        Returns
        -------
        rel : ndarray of shape (n, K)
            A new array, the caller's to write into (the scores of several blocks and the
            class prior are added into it in place).
        row : ndarray of shape (n,)
            Read-only (it may be a broadcast of one value).
        """
        kw = {} if cache is None else {"cache": cache}
        ll = self.log_likelihood(prior, post, block, predictive, **kw)
        return ll, np.broadcast_to(np.float64(0.0), ll.shape[:1])  # zeros that take no memory (read-only)

    def classify_log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """The block's class scores for ``predict*``, as ``(rel, row)`` like :meth:`log_likelihood_parts`.

        The default is :meth:`log_likelihood_parts`: a family classifies by its generative
        likelihood. A family whose decision rule is another score (Complement's complement
        weights) overrides it; the generative methods (``score_samples``, ``sample``,
        ``impute``, EM) keep using :meth:`log_likelihood`.
        """
        return self.log_likelihood_parts(prior, post, block, predictive, cache)

    def class_prior_in_classify(self, K: int) -> bool:
        """Whether ``predict*`` adds the class log prior to this block's scores (default: True).

        ``predict*`` adds it only when every block says True for the ``K`` classes
        (scikit-learn's ComplementNB adds it only with one class).
        """
        return True

    @abstractmethod
    def log_evidence(self, prior, post):
        """Log marginal likelihood of the block's data per class, shape (K,)."""

    def is_proper(self, prior):
        """Whether the prior is proper (the evidence is then defined); the default says it is.

        A family whose prior can be improper (a pseudo-count of 0) says when.
        """
        return True

    def all_missing(self, block):
        """Bool (d,): the columns of an encoded block whose every cell is missing, read from the
        block's ``missing`` mask (see :meth:`gen_missing`)."""
        m = block.missing
        n, d = block.X.shape if m is None else m.shape
        return np.zeros(d, dtype=bool) if m is None or n == 0 else np.asarray(m.sum(axis=0)).ravel() >= n

    def out_of_support(self, X, state=None):
        """Bool (n, d): the cells of a raw block outside the family's support, or None.

        A cell outside the support (a negative or fractional count under Poisson, a value
        <= 0 under LogNormal, 34 in a 0/1 Bernoulli column) has probability 0 under the
        family: :meth:`encode` refuses it, while ``score_samples`` scores its row ``-inf``
        and ``feature_log_contributions`` its cell. The default, None, says that every value
        ``encode`` accepts is in the support (malformed input still makes ``encode`` raise).

        Parameters
        ----------
        X : array-like of shape (n, d)
            The block as :meth:`encode` receives it.
        state : object, optional
            The fitted encoding state.
        """
        return None

    def density_cells(self, X) -> int:
        """Number of observed cells of a raw numeric block that the likelihood scores with a density.

        Densities and masses become comparable once the data are read at a resolution
        ``h`` (the grid the values are recorded on): a cell scored by a density ``f`` has
        probability ``f(x) h`` of its grid cell, one scored by a mass keeps its mass. So
        ``log_evidence + density_cells(X) * log h`` is the log probability of the
        discretised data under any family (``features="auto"`` compares families by it).

        Parameters
        ----------
        X : ndarray of shape (n, d)
            The raw numeric block (NaN = missing).

        Returns
        -------
        int
            The default: every finite cell if :attr:`density`, else 0.
        """
        return int(np.isfinite(np.asarray(X, dtype=float)).sum()) if self.density else 0

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

    def state_shapes(self, state, K, d):
        """Check an encoding state read from a model file; the shapes of the parameter arrays.

        Parameters
        ----------
        state : object
            The block's encoding state as loaded (untrusted).
        K, d : int
            Number of classes and of the block's columns.

        Returns
        -------
        tuple or list of tuple
            ``(K, d)``, or one ``(K, V_j)`` per column for a family whose parameters are
            per value (the shapes every array of its NamedTuples must have).

        Raises
        ------
        ValueError
            The state is not one this family could have made for ``d`` columns.
        """
        if not isinstance(state, int) or isinstance(state, bool) or state != d:
            raise ValueError(f"its state must be its number of columns ({d}); the file holds {str(state)[:60]}")
        return (K, d)

    # ------------------------------------------------------------------ generative hooks
    @abstractmethod
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
            A "point" that :meth:`gen_sample`, :meth:`gen_fill` and :meth:`gen_cell_log_lik` read; a
            draw may instead be an object (not a tuple) whose attributes are the params fields, read
            lazily (:class:`~bayesnb.families._dirichlet_rows.PolyaDraw`).
        """

    @abstractmethod
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

    def gen_missing(self, block):
        """Bool (n, d), dense: the missing cells of an encoded block, read from its ``missing`` field
        (None: no cell is missing; else an (n, d) indicator, dense or sparse, built by :meth:`encode`).

        A family overrides it (with :meth:`all_missing`) only where its block holds the mask otherwise.
        """
        m = block.missing
        return np.zeros(block.X.shape, dtype=bool) if m is None else dense(m) != 0

    @abstractmethod
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

    def gen_rate(self, stats, class_count, rng=None):
        """Length model of the block: per-class rate (K,), or None for families without one."""
        return None

    def gen_empty_columns(self, state):
        """Bool (d,): columns with no value to draw (default: none), or None."""
        return None

    def gen_decode(self, values, state):
        """Raw values of an encoded (n, d) array, one array per column.

        The default returns the columns as float arrays (numeric families); a family whose
        encoded values are codes (``raw_values``) returns the values they stand for.
        """
        V = np.asarray(dense(values), dtype=float)
        return [V[:, j] for j in range(V.shape[1])]

    # ------------------------------------------------------------------------ display
    def value_labels(self, state):
        """The values of each column (a list per column) for a discrete-valued family, else None.

        ArviZ output gets one more dimension over these values.
        """
        columns = self.value_columns(state)
        return None if columns is None else [list(values) for values, _ in columns]

    def value_columns(self, state):
        """Per column, ``(values, declared)`` for a family with a finite set of values, else None.

        ``values`` is the array of the column's values in code order; ``declared`` says the
        user declared them (a pandas ``Categorical`` column, or ``categories=``), so generated
        and imputed DataFrames give the column that categorical dtype back.
        """
        return None
