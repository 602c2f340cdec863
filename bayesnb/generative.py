"""Generative uses of the fitted posterior: sampling, imputation, outlier scores, EM.

Every method here is added to every bayesnb estimator through :class:`GenerativeMixin`
and works on whatever blocks the estimator has (categorical, Bernoulli, multinomial,
Gaussian, mixed): the distribution-specific pieces live in each family module, in its
section ``# ---- generative pieces (generative.py) ----`` (``gen_point`` draws or
plugs in parameters, ``gen_sample`` draws features given a class, ``gen_fill`` fills
missing cells, ``gen_cell_log_lik`` gives per-feature log-likelihood contributions,
``gen_log_penalty`` the log prior term of the EM objective).

=================================  ==========================================================
method                             what it does
=================================  ==========================================================
``sample``                         ancestral draws from the posterior predictive (class, then x)
``sample_prior_predictive``        the same from the prior (prior predictive checks)
``impute``                         fill missing cells from p(x_miss | x_obs) (mode/mean/draws)
``fit_latent_class``               each class a mixture of naive-Bayes components (EM), for
                                   imputation that sees dependence between features
``latent_class_draws``             one plug-in latent-class model per NUTS draw of
                                   ``run_mcmc(..., n_components=C)`` (the same model by MCMC)
``score_samples``                  log p(x), missing cells marginalised
``feature_log_contributions``      which features make a row unusual
``set_outlier_threshold`` ...      novelty detection at a training-quantile contamination
``fit_semi_supervised``            EM with unlabelled rows (Nigam et al. 2000), only when asked:
                                   ``fit`` is always supervised
=================================  ==========================================================

Parameter uncertainty
---------------------
With ``parameter_uncertainty=True`` one exact conjugate draw of every parameter (class
proportions, per-class feature parameters, document-length rates) is made **per call
of** :meth:`~GenerativeMixin.sample` and **per imputed dataset** of
:meth:`~GenerativeMixin.impute`: rows of one dataset share the draw, as in a replicated
dataset of a posterior predictive check and in Rubin's proper multiple imputation.
With ``False`` the posterior-mean plug-in is used.

Document lengths (multinomial blocks)
-------------------------------------
Fit cannot learn more than its sufficient statistics, and they already hold a length
model: ``L | y=k ~ Poisson(rate_k)`` with ``rate_k`` = total counts of class k / rows of
class k (its posterior ``Gamma(T_k + 1/2, n_k)`` gives the draws). ``sample(length=...)``
overrides it with a fixed length or one length per row. Under this model the counts
of a class are independent ``Poisson(rate_k theta_kj)``, which is how missing count
cells are imputed.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from ._utils import AllMissingWarning, as_generator, is_frame, missing_mask
from .diagnostics import variable_layout
from .families._numeric import dirichlet_draws, draw_categories
from .posterior import BlockPosterior, NBPosterior, class_posterior, index_params

__all__ = ["GenerativeMixin", "LatentClassFit", "missing_labels"]


# =========================================================================== helpers


def _is_missing_value(v) -> bool:
    """Whether ``v`` is a missing-value marker (None, NaN, ``pd.NA``, ``NaT``)."""
    return bool(np.ndim(v) == 0 and missing_mask(np.asarray([v], dtype=object))[0])


def _integer_labels(y, miss) -> bool:
    """Whether the present labels of ``y`` are integers (not bools, floats or strings)."""
    if y.dtype.kind in "iu":
        return True
    if y.dtype != object or miss.all():
        return False
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in y[~miss])


def missing_labels(y, unlabeled="auto", *, who="missing_labels") -> np.ndarray:
    """Bool mask of the unlabelled rows of ``y`` (see :meth:`~GenerativeMixin.fit_semi_supervised`).

    A missing value (``None``, ``NaN``, ``pd.NA``) is never a class, so it always marks an
    unlabelled row; ``unlabeled`` names one more marker.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels.
    unlabeled : object, default="auto"
        ``"auto"``: ``-1`` also marks unlabelled rows when the labels are integers
        (scikit-learn's ``semi_supervised`` convention); for float, string or other
        labels only missing values do. ``None`` (or ``NaN``, ``pd.NA``): only missing
        values. Any other value (e.g. ``-1`` or ``"?"``): labels equal to it, too.
    who : str, default="missing_labels"
        Name used in error messages.

    Returns
    -------
    mask : ndarray of bool of shape (n_samples,)
        True for the unlabelled rows.

    Raises
    ------
    ValueError
        With ``unlabeled="auto"`` and integer labels, when ``y`` holds both ``-1`` and
        missing values: ``-1`` may then be a class or a marker, so say which.

    Examples
    --------
    >>> from bayesnb import missing_labels
    >>> missing_labels([1, -1, 0]).tolist()
    [False, True, False]
    >>> missing_labels([1, -1, 0], unlabeled=None).tolist()
    [False, False, False]
    >>> missing_labels(["a", "?", None], unlabeled="?").tolist()
    [False, True, True]
    """
    y = np.asarray(y, dtype=object) if not hasattr(y, "dtype") else np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    miss = missing_mask(y)
    auto = isinstance(unlabeled, str) and unlabeled == "auto"
    if auto:
        if not _integer_labels(y, miss):
            return miss
        marker = -1
    elif _is_missing_value(unlabeled):
        return miss
    else:
        marker = unlabeled
    if y.dtype.kind in "iufb" and not isinstance(marker, (str, bytes)):
        hit = y == marker
    else:
        hit = np.fromiter((not m and type(v) is not bool and v == marker for v, m in zip(y.tolist(), miss)),
                          dtype=bool, count=y.shape[0])
    hit = np.asarray(hit, dtype=bool) & ~miss
    if auto and hit.any() and miss.any():
        raise ValueError(
            f"{who}: y holds both the label -1 ({int(hit.sum())} row(s)) and {int(miss.sum())} missing "
            "value(s) (None/NaN/pd.NA). With integer labels, -1 marks an unlabelled row by default "
            "(unlabeled='auto'), so it is unclear whether -1 is a class: pass unlabeled=None if -1 is "
            "a class (only missing values mark unlabelled rows), or unlabeled=-1 if it marks unlabelled rows."
        )
    return miss | hit


def _states(a, S, C):
    """(K, [C,] ...) parameters of one draw -> (S, ...) over the (class, component) states."""
    return a.reshape((S,) + a.shape[1 + (C > 1):])


def _draw_index(P, rng):
    """One category per row of probabilities ``P`` (n, K)."""
    return draw_categories(P, rng.random(P.shape[0]))


def _dirichlet_log(conc, rng):
    """log of one Dirichlet draw (-inf where the concentration is 0)."""
    with np.errstate(divide="ignore"):
        return np.log(dirichlet_draws(conc, 1, rng)[0])


class _Model(NamedTuple):
    """An NBPosterior over latent states and the class of each state (identity for NB)."""

    post: object
    group: np.ndarray
    point: bool = False


class LatentClassFit(NamedTuple):
    """A latent-class (mixture-of-naive-Bayes) model fitted by EM.

    Attributes
    ----------
    posterior : NBPosterior
        Posterior over the ``n_classes * n_components`` latent states (state
        ``k * n_components + c`` is component ``c`` of class ``k``); its ``classes``
        are the state indices.
    group : ndarray of int, shape (n_states,)
        Class index of each state.
    n_components : int
    em_objective : list of float
        Log posterior (up to a constant) after each EM iteration; never decreases
        (empty for a model made from an MCMC draw).
    selection : dict or None
        ``{n_components: held-out log-likelihood}`` when the count was chosen.
    point : bool, default=False
        True for a model made from one MCMC draw (:meth:`GenerativeMixin.latent_class_draws`):
        its parameters are that draw, used as they are (``parameter_uncertainty`` is
        ignored: the uncertainty is in the set of draws).
    """

    posterior: object
    group: np.ndarray
    n_components: int
    em_objective: list
    selection: dict | None
    point: bool = False


# ============================================================== model-level functions
def _points(post, rng=None, use_prior=False):
    """Per-block parameters in use: plug-in (``rng=None``) or one exact draw."""
    return [b.family.gen_point(b.prior, b.prior if use_prior else b.posterior, rng)
            for b in post.blocks]


def _class_logw(post, rng=None, use_prior=False):
    """log class (state) probabilities: plug-in, or a Dirichlet draw."""
    if post.fixed_class_prior:
        return post.class_log_prior
    conc = post.class_prior_alpha if use_prior else post.class_concentration
    if rng is None:
        if not use_prior:
            return post.class_log_prior
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(conc) - np.log(conc.sum())
    if use_prior and np.any(conc <= 0):
        raise ValueError("prior predictive: the class prior is improper (class_alpha=0); use class_alpha > 0.")
    return _dirichlet_log(conc, rng)


def _rates(post, rng=None):
    # a family with a length model (counts) gives a rate per class; the others give None
    return [b.family.gen_rate(b.stats, post.class_count, rng)
            for b in post.blocks]


def _joint(post, points, encoded, logw, predictive="mean"):
    """``log p(x, state)`` (n, S) under the given per-block parameters."""
    jll = None
    for b, p, e in zip(post.blocks, points, encoded):
        ll = b.family.log_likelihood(b.prior, p, e, predictive)
        jll = ll if jll is None else jll + ll
    return jll + logw


def _normalise(jll, fallback=None, who="NaiveBayes"):
    """Responsibilities ``p(state | x)`` (n, S) from the joint; never NaN.

    Rows impossible under every state (alpha=0) get ``fallback`` (the log class
    weights, (S,) or (n, S)) with a :class:`ZeroProbabilityWarning`, the rule of
    ``predict_proba``; without a fallback (EM), uniform weights.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        lse = logsumexp(jll, axis=1, keepdims=True)
        r = np.exp(jll - lse)
    dead = ~np.isfinite(lse[:, 0])
    if dead.any():
        r[dead] = 1.0 / jll.shape[1]
        if fallback is not None:
            from .posterior import warn_zero_probability

            warn_zero_probability(dead, who, stacklevel=4)
            fb = np.broadcast_to(fallback, jll.shape)[dead]
            with np.errstate(invalid="ignore", divide="ignore"):
                lf = logsumexp(fb, axis=1, keepdims=True)
                pf = np.exp(fb - lf)
            ok = np.isfinite(lf[:, 0])
            r[np.flatnonzero(dead)[ok]] = pf[ok]
    return r


def _allowed(group, y_codes):
    """(n, S) bool: state allowed for a row (its class's states; all if the label is unknown)."""
    S = group.shape[0]
    allowed = np.ones((y_codes.shape[0], S), dtype=bool)
    known = y_codes >= 0
    allowed[known] = group[None, :] == y_codes[known, None]
    return allowed


def _log_penalty(post):
    """Log prior (up to a constant) whose MAP is the posterior-mean plug-in."""
    total = 0.0
    for b in post.blocks:
        total += b.family.gen_log_penalty(b.prior, b.posterior)
    if not post.fixed_class_prior:
        a = post.class_prior_alpha
        with np.errstate(invalid="ignore"):
            total += float(np.where(a > 0, a * post.class_log_prior, 0.0).sum())
    return total


def _m_step(meta, encoded, resp, class_params, classes):
    """Closed-form conjugate M-step: statistics of the responsibilities + fixed prior."""

    class_alpha, fit_prior, class_prior = class_params
    class_count = resp.sum(0)
    alpha, conc, logp, fixed = class_posterior(class_count, class_alpha, fit_prior, class_prior)
    blocks = []
    for (fam, cols, names, state, prior), e in zip(meta, encoded):
        stats = fam.stats(e, resp, state)
        blocks.append(BlockPosterior(fam, cols, names, state, stats, prior, fam.update(prior, stats)))
    return NBPosterior(np.asarray(classes), class_count, alpha, conc, logp, fixed, tuple(blocks))


def _em(post, meta, encoded, allowed, rw, class_params, classes, tol, max_iter):
    """EM from ``post``: E-step (plug-in), objective, M-step; returns (post, history, converged, resp)."""
    history = []
    converged = False
    resp = None
    for _ in range(max_iter + 1):
        jll = _joint(post, [b.posterior for b in post.blocks], encoded, post.class_log_prior)
        jll = np.where(allowed, jll, -np.inf)
        with np.errstate(invalid="ignore", divide="ignore"):
            ll = logsumexp(jll, axis=1)
        ok = rw > 0
        obj = float((rw[ok] * ll[ok]).sum()) + _log_penalty(post)
        history.append(obj)
        resp = _normalise(jll) * rw[:, None]
        if len(history) > 1 and abs(history[-1] - history[-2]) <= tol * max(1.0, abs(history[-1])):
            converged = True
            break
        if len(history) > max_iter:
            break
        post = _m_step(meta, encoded, resp, class_params, classes)
    return post, history, converged, resp


# ================================================================== the mixin
class GenerativeMixin:
    """Generative methods shared by every bayesnb estimator.

    Sampling and imputation return data in the form the estimator was given: a
    DataFrame with the same columns, dtypes and categories (for :meth:`sample`, those of
    the training frame, recorded in ``feature_dtypes_``, wherever the values fit them), a
    NumPy array, or for :meth:`impute` a sparse matrix.
    """

    # ------------------------------------------------------------- internal helpers
    def _gen_model(self, latent=None):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "posterior_")
        if latent is not None:
            return _Model(latent.posterior, latent.group, bool(latent.point))
        return _Model(self.posterior_, np.arange(len(self.classes_)))

    def _gen_encode(self, X):
        X = self._check_X(X, reset=False)
        encoded, _ = self._encode_blocks(X, self.posterior_)
        return X, encoded

    def _y_codes(self, y, n):
        """Class index per row (-1 for a missing label); validates the labels."""
        y = np.asarray(y, dtype=object if np.asarray(y).dtype == object else None)
        if y.ndim == 0:
            y = np.full(n, y.item(), dtype=object)
        if y.shape != (n,):
            raise ValueError(f"{self._who}: y has shape {y.shape}; expected ({n},).")
        miss = missing_labels(y, unlabeled=None)  # -1 is a label here (classes_ may hold it)
        codes = np.full(n, -1, dtype=np.int64)
        if (~miss).any():
            import pandas as pd

            idx = pd.Index(self.classes_).get_indexer(y[~miss])
            if np.any(idx < 0):
                bad = list(pd.unique(y[~miss][idx < 0]))[:5]
                raise ValueError(f"{self._who}: y has label(s) {bad} that are not among classes_ {list(self.classes_)}.")
            codes[~miss] = idx
        return codes

    def _n_columns(self):
        return int(self.n_features_in_)

    def _decode(self, block, values):
        """Encoded block values (n, d_block) -> list of raw column arrays."""
        return block.family.gen_decode(values, block.state)

    def _assemble(self, columns, n):
        """Raw columns (global order) -> DataFrame (fitted on one) or ndarray."""
        post = self.posterior_
        declared = {}
        for b in post.blocks:
            for c, values in zip(b.columns, b.family.value_columns(b.state) or ()):
                declared[int(c)] = values
        if hasattr(self, "feature_names_in_"):
            import pandas as pd

            data = {}
            dtypes = getattr(self, "feature_dtypes_", None)
            for j, name in enumerate(self.feature_names_in_):
                col = columns[j]
                if j in declared:
                    cats, decl = declared[j]
                    col = (pd.Categorical(col, categories=cats) if decl
                           else pd.array(col, dtype=np.asarray(cats).dtype if np.asarray(cats).dtype != object else object))
                if dtypes is not None and len(dtypes) == len(columns):
                    col = _restore_dtype(col, dtypes[j])
                data[name] = col
            return pd.DataFrame(data, index=pd.RangeIndex(n))
        if declared:
            kinds = {np.asarray(declared[j][0]).dtype for j in declared}
            if len(declared) == len(columns) and len(kinds) == 1 and next(iter(kinds)) != object:
                return np.column_stack([np.asarray(c, dtype=next(iter(kinds))) for c in columns])
            out = np.empty((n, len(columns)), dtype=object)
            for j, c in enumerate(columns):
                out[:, j] = c
            return out
        return np.column_stack(columns) if columns else np.empty((n, 0))

    def _lengths(self, length, rates_k, z, rng, n):
        if length is None:
            return rng.poisson(rates_k[z])
        L = np.asarray(length)
        if L.ndim == 0:
            L = np.full(n, int(L))
        if L.shape != (n,) or np.any(L < 0):
            raise ValueError(f"{self._who}: length must be an int >= 0 or {n} of them; received shape {L.shape}.")
        return L.astype(np.int64)

    def _warn_empty_columns(self, post, what, missing=None, stacklevel=3):
        """Warn about features with no value to draw (a family's ``gen_empty_columns``):
        their cells are left missing (None). ``missing``: encoded blocks of the input, to
        warn only where such a feature has a missing cell to fill."""
        names = []
        for i, b in enumerate(post.blocks):
            empty = b.family.gen_empty_columns(b.state)
            if empty is None:
                continue
            flags = np.asarray(empty, dtype=bool)
            if missing is not None:
                flags = flags & np.asarray(b.family.gen_missing(missing[i]).any(axis=0)).ravel()
            names += [b.names[j] for j in np.flatnonzero(flags)]
        if names:
            warnings.warn(
                f"{self._who}: feature(s) {names} have no known category (missing in every training "
                f"row, and none declared with categories= or min_categories=), so {what} leaves "
                "their cells missing (None).",
                AllMissingWarning,
                stacklevel=stacklevel,
            )

    def _draw_rows(self, post, points, logw, rates, n_samples, y, rng, length):
        if y is None:
            n = int(n_samples)
            if n < 0:
                raise ValueError(f"{self._who}: n_samples must be >= 0; received {n_samples}.")
            z = _draw_index(np.broadcast_to(np.exp(logw), (n, logw.shape[0])), rng) if n else np.zeros(0, int)
        else:
            yy = np.asarray(y, dtype=object if np.asarray(y).dtype == object else None)
            n = int(n_samples) if yy.ndim == 0 else yy.shape[0]
            z = self._y_codes(yy if yy.ndim else np.full(n, yy.item(), dtype=object), n)
            if np.any(z < 0):
                raise ValueError(f"{self._who}: y must not contain missing labels when sampling.")
        columns = [None] * self._n_columns()
        if n:
            self._warn_empty_columns(post, "sampling", stacklevel=4)
        for b, p, r in zip(post.blocks, points, rates):
            lengths = self._lengths(length, r, z, rng, n) if r is not None else None
            vals = b.family.gen_sample(p, z, rng, lengths)
            for c, col in zip(b.columns, self._decode(b, vals)):
                columns[int(c)] = col
        return self._assemble(columns, n), self.classes_[z]

    # ------------------------------------------------------------------- sampling
    def sample(self, n_samples=1, *, y=None, random_state=None, parameter_uncertainty=True, length=None):
        """Draw synthetic rows ``(x, y)`` from the posterior predictive.

        Ancestral sampling: a class from the class proportions, then every feature
        from its class-conditional distribution. A categorical feature with no known
        category (missing in every training row, none declared) is sampled as missing
        (None), with an :class:`~bayesnb.AllMissingWarning`.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows (ignored when ``y`` is an array).
        y : label or array-like of shape (n_samples,), optional
            Draw the features for these classes instead of drawing the classes.
        random_state : None, int, numpy Generator or RandomState
        parameter_uncertainty : bool, default=True
            True: one exact draw of all parameters from the posterior, shared by the rows
            of this call (a replicated dataset); the rows' marginal distribution is the
            exact posterior predictive. False: the posterior-mean plug-in.
        length : int or array-like of int, optional
            Number of tokens of each row of a multinomial block. Default: drawn from
            ``Poisson(rate_k)``, the per-class mean training length (see module docs).

        Returns
        -------
        X : ndarray or DataFrame of shape (n_samples, n_features)
            A DataFrame with the training columns when the model was fitted on one, in
            the training dtypes (``feature_dtypes_``: integer counts, bool/0-1, the same
            ``CategoricalDtype``...) wherever the values fit them exactly; Gaussian draws
            of an integer column stay float.
        y : ndarray of shape (n_samples,)
        """
        rng = as_generator(random_state)
        post = self._gen_model().post
        r = rng if parameter_uncertainty else None
        return self._draw_rows(post, _points(post, r), _class_logw(post, r), _rates(post, r),
                               n_samples, y, rng, length)

    def sample_prior_predictive(self, n_samples=1, *, y=None, random_state=None, length=None):
        """Draw rows from the prior predictive (prior predictive checks).

        One draw of every parameter from its (resolved) prior, shared by the rows, then
        ancestral sampling as in :meth:`sample`. ``"auto"`` priors are the values
        resolved at fit. Document lengths use the training mean lengths unless ``length``
        is given. Raises ``ValueError`` for an improper prior.

        Returns
        -------
        X, y
            As in :meth:`sample`.
        """
        rng = as_generator(random_state)
        post = self._gen_model().post
        for b in post.blocks:
            if not b.family.is_proper(b.prior):
                raise ValueError(f"{self._who}: block {b.family.name} has an improper prior "
                                 "(alpha=0 or a maximum-likelihood Gaussian); it cannot be sampled.")
        return self._draw_rows(post, _points(post, rng, use_prior=True), _class_logw(post, rng, use_prior=True),
                               _rates(post, None), n_samples, y, rng, length)

    # ------------------------------------------------------------------- imputation
    def impute(self, X, *, strategy="mode", n_imputations=1, random_state=None, parameter_uncertainty=True,
               y=None, n_components=1, latent=None):
        """Fill missing cells from ``p(x_miss | x_obs) = sum_y p(y | x_obs) p(x_miss | y)``.

        Observed cells are never changed. A categorical feature missing in every training
        row has its prior as posterior: over its declared categories (``categories=``,
        ``min_categories``) when there are some; with none it has nothing to draw from and
        its cells stay missing (None), with an :class:`~bayesnb.AllMissingWarning`. A row
        impossible under every class (only with ``alpha=0``) uses the class prior for
        ``p(y | x_obs)``, with a :class:`ZeroProbabilityWarning`, as :meth:`predict_proba`
        does.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        strategy : {"mode", "mean", "draw"}, default="mode"
            ``"mode"``: most probable value of each cell's conditional distribution
            (categorical/Bernoulli; the highest mixture density among the class means for
            Gaussian; the floor of the mean for counts). ``"mean"``: its mean (a
            probability for Bernoulli cells, the mode for unordered categories).
            ``"draw"``: draws (multiple imputation).
        n_imputations : int, default=1
            Number of completed datasets (``strategy="draw"`` only).
        random_state : None, int or Generator
        parameter_uncertainty : bool, default=True
            With ``"draw"``: one exact posterior draw of the parameters per completed
            dataset (proper multiple imputation). False: the plug-in.
        y : array-like of shape (n_samples,), optional
            Known labels of the rows (None/NaN/``pd.NA`` where unknown; ``-1`` is a
            label like any other): use ``p(x_miss | x_obs, y)`` for those rows.
        n_components : int or "auto", default=1
            >1 or "auto": impute with a latent-class model fitted on ``X`` by
            :meth:`fit_latent_class` (each class a mixture of naive-Bayes components).
        latent : LatentClassFit, optional
            A model from :meth:`fit_latent_class` (or one MCMC draw of it from
            :meth:`latent_class_draws`) to use (overrides ``n_components``).

        Returns
        -------
        X_imputed : same type as X, or a list of ``n_imputations`` of them
        """
        if strategy not in ("mode", "mean", "draw"):
            raise ValueError(f"{self._who}: strategy must be 'mode', 'mean' or 'draw'; received {strategy!r}.")
        m = int(n_imputations)
        if m < 1 or (m > 1 and strategy != "draw"):
            raise ValueError(f"{self._who}: n_imputations must be >= 1, and > 1 only with strategy='draw'; "
                             f"received {n_imputations!r} with strategy={strategy!r}.")
        rng = as_generator(random_state)
        if latent is None and (n_components == "auto" or int(n_components) > 1):
            latent = self.fit_latent_class(X, y, n_components=n_components, random_state=rng)
        model = self._gen_model(latent)
        X, encoded = self._gen_encode(X)
        n = X.shape[0]
        allowed = None if y is None else _allowed(model.group, self._y_codes(y, n))
        post = model.post
        self._warn_empty_columns(post, "impute", encoded)
        outs = []
        for _ in range(m):
            r = rng if (strategy == "draw" and parameter_uncertainty and not model.point) else None
            points = _points(post, r)
            logw = _class_logw(post, r)
            rates = _rates(post, r)
            jll = _joint(post, points, encoded, logw)
            fallback = logw
            if allowed is not None:
                jll = np.where(allowed, jll, -np.inf)
                fallback = np.where(allowed, logw, -np.inf)
            resp = _normalise(jll, fallback, self._who)
            z = _draw_index(resp, rng) if strategy == "draw" else None
            cells = []
            for b, p, e, rt in zip(post.blocks, points, encoded, rates):
                miss = b.family.gen_missing(e)
                if not miss.any():
                    continue
                filled = b.family.gen_fill(p, e, resp, strategy, z, rng, rate=rt)
                rows, cols = np.nonzero(miss)
                if sp.issparse(filled):
                    vals = np.asarray(filled.tocsr()[rows, cols]).ravel()
                    cells.append((rows, b.columns[cols], vals))
                    continue
                filled = np.asarray(filled)
                sub = filled[rows, cols]
                if b.family.raw_values:  # codes -> values (a code with no value stays None)
                    decoded = b.family.gen_decode(filled, b.state)
                    vals = np.empty(rows.size, dtype=object)
                    for jj in np.unique(cols):
                        sel = cols == jj
                        vals[sel] = decoded[jj][rows[sel]]
                else:
                    vals = sub.astype(float)
                cells.append((rows, b.columns[cols], vals))
            outs.append(_write_cells(X, cells))
        return outs[0] if m == 1 else outs

    # ------------------------------------------------------------------ latent class
    def fit_latent_class(self, X, y=None, *, n_components=2, candidates=(1, 2, 3, 4, 6, 8), holdout=0.1,
                         n_init=3, tol=1e-6, max_iter=200, random_state=None):
        """Fit a latent-class model on ``X``: each class a mixture of naive-Bayes components.

        The latent states are (class, component) pairs; every state has the estimator's
        blocks with the priors resolved at fit, the state weights a symmetric Dirichlet(1)
        prior. EM with the closed-form conjugate M-step (MAP, posterior-mean form) from
        ``n_init`` random starts (the class part initialised from ``y`` or from the
        fitted classifier's ``predict_proba``); the best final objective wins.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to model (usually the table being imputed); missing cells marginalised.
        y : array-like of shape (n_samples,), optional
            Labels (None/NaN/``pd.NA`` where unknown; ``-1`` is a label like any other);
            rows with a label only use their class's components.
        n_components : int or "auto", default=2
            Components per class. ``"auto"`` picks among ``candidates`` by the held-out
            log-likelihood of a random ``holdout`` fraction of the observed cells
            (fit on the rest, score ``log p(x_hidden | x_rest)``), then refits on all cells.

        Returns
        -------
        LatentClassFit
        """
        rng = as_generator(random_state)
        self._gen_model()
        X = self._check_X(X, reset=False)
        n = X.shape[0]
        y_codes = np.full(n, -1, dtype=np.int64) if y is None else self._y_codes(y, n)
        if isinstance(n_components, str):
            if n_components != "auto":
                raise ValueError(f"{self._who}: n_components must be an int >= 1 or 'auto'.")
            if sp.issparse(X):
                raise TypeError(f"{self._who}: n_components='auto' needs dense X.")
            scores = self._latent_holdout_scores(X, y_codes, candidates, holdout, n_init, tol, max_iter, rng)
            best = max(scores, key=scores.get)
            fit = self._fit_latent(X, y_codes, best, n_init, tol, max_iter, rng)
            return fit._replace(selection=scores)
        C = int(n_components)
        if C < 1:
            raise ValueError(f"{self._who}: n_components must be >= 1; received {n_components!r}.")
        return self._fit_latent(X, y_codes, C, n_init, tol, max_iter, rng)

    def _fit_latent(self, X, y_codes, C, n_init, tol, max_iter, rng):
        base = self.posterior_
        K = len(self.classes_)
        S = K * C
        group = np.repeat(np.arange(K), C)
        encoded, _ = self._encode_blocks(X, base)
        meta = [(b.family, b.columns, b.names, b.state, index_params(b.prior, group)) for b in base.blocks]
        n = X.shape[0]
        allowed = _allowed(group, y_codes)
        class_part = np.zeros((n, K))
        known = y_codes >= 0
        class_part[known, y_codes[known]] = 1.0
        if (~known).any():
            class_part[~known] = self.predict_proba(X[~known] if not is_frame(X) else X.iloc[np.flatnonzero(~known)])
        params = (np.ones(S), True, None)
        best = None
        for _ in range(max(1, int(n_init) if C > 1 else 1)):
            comp = rng.dirichlet(np.ones(C), size=n)
            resp = (class_part[:, :, None] * comp[:, None, :]).reshape(n, S) * allowed
            post0 = _m_step(meta, encoded, resp, params, np.arange(S))
            post, hist, _, _ = _em(post0, meta, encoded, allowed, np.ones(n), params, np.arange(S), tol, max_iter)
            if best is None or hist[-1] > best[1][-1]:
                best = (post, hist)
        return LatentClassFit(best[0], group, C, best[1], None)

    def _latent_holdout_scores(self, X, y_codes, candidates, holdout, n_init, tol, max_iter, rng):
        obs = ~_missing_cells(X)
        for b in self.posterior_.blocks:  # count blocks are not held out cell by cell
            if b.family.joint_columns:
                obs[:, b.columns] = False
        rows, cols = np.nonzero(obs)
        pick = rng.random(rows.size) < holdout
        Xtr = _mask_cells(X, rows[pick], cols[pick])
        enc_full, _ = self._encode_blocks(X, self.posterior_)
        enc_tr, _ = self._encode_blocks(Xtr, self.posterior_)
        hit = np.unique(rows[pick])
        scores = {}
        for C in candidates:
            fit = self._fit_latent(Xtr, y_codes, int(C), n_init, tol, max_iter, rng)
            p = fit.posterior
            pts = [b.posterior for b in p.blocks]
            allowed = _allowed(fit.group, y_codes)
            full = np.where(allowed, _joint(p, pts, enc_full, p.class_log_prior), -np.inf)
            part = np.where(allowed, _joint(p, pts, enc_tr, p.class_log_prior), -np.inf)
            scores[int(C)] = float((logsumexp(full[hit], axis=1) - logsumexp(part[hit], axis=1)).sum())
        return scores

    def latent_class_draws(self, idata, *, n_draws=None, random_state=None):
        """One plug-in latent-class model per posterior draw of :meth:`run_mcmc`.

        Turns the NUTS draws of ``run_mcmc(X, y, n_components=C)`` (the latent-class
        model, component marginalised) into :class:`LatentClassFit` objects that
        :meth:`impute` (``latent=``) and :meth:`score_samples` (``latent=``) accept:
        imputing once per draw (``strategy="draw"``) is multiple imputation from the
        MCMC posterior, and ``logsumexp`` of the per-draw scores minus ``log(n_draws)``
        is the posterior-predictive ``log p(x)``. These quantities are invariant to the
        components' labels, which may switch between chains.

        Parameters
        ----------
        idata : xarray.DataTree
            The result of this estimator's :meth:`run_mcmc` (any ``n_components``).
        n_draws : int or None, default=None
            Number of draws to use, taken at random without replacement over chains
            and draws; None: all of them, in (chain, draw) order.
        random_state : None, int or Generator

        Returns
        -------
        list of LatentClassFit
            With ``point=True`` and an empty ``em_objective``; state ``k * C + c`` is
            component ``c`` of class ``k``. (Document-length rates of multinomial blocks,
            which the model does not sample, are the class's training mean length.)
        """
        from sklearn.utils.validation import check_is_fitted


        check_is_fitted(self, "posterior_")
        base = self.posterior_
        try:
            ds = idata["posterior"]
            names = set(ds.data_vars)
        except (KeyError, TypeError, AttributeError):
            raise TypeError(f"{self._who}: idata must be the DataTree returned by run_mcmc.") from None
        C = int(ds["w"].shape[-1]) if "w" in names else 1
        dims, coords, _, layouts = variable_layout(base, C)
        if names != set(dims) or any(ds[v].shape[2:] != tuple(len(coords[d]) for d in dims[v]) for v in dims):
            raise ValueError(f"{self._who}: idata does not match this estimator's model (variables "
                             f"{sorted(names)}; expected {sorted(dims)}): pass the result of its run_mcmc.")
        K = len(base.classes)
        S = K * C
        group = np.repeat(np.arange(K), C)
        chains, draws = ds[next(iter(dims))].shape[:2]
        pick = np.arange(chains * draws)
        if n_draws is not None:
            n = int(n_draws)
            if n < 1 or n > pick.size:
                raise ValueError(f"{self._who}: n_draws must be in [1, {pick.size}]; received {n_draws!r}.")
            pick = as_generator(random_state).choice(pick.size, size=n, replace=False)
        values = {v: np.asarray(ds[v].values, dtype=float).reshape((chains * draws,) + ds[v].shape[2:]) for v in dims}
        class_count = base.class_count[group]
        blocks = []
        for b, lay in zip(base.blocks, layouts):
            params = list(b.family.point_params(b.posterior))
            blocks.append((b, params, lay.label, index_params(b.stats, group), index_params(b.prior, group)))
        out = []
        for i in pick:
            with np.errstate(divide="ignore"):
                log_pi = np.log(values["pi"][i]) if "pi" in values else base.class_log_prior
                log_w = np.log(values["w"][i]) if C > 1 else np.zeros((K, 1))
            logw = (log_pi[:, None] + log_w).reshape(S)
            bp = []
            for b, params, label, stats, prior in blocks:
                point = b.family.posterior_from_params({p: _states(values[f"{p}_{label}"][i], S, C) for p in params})
                bp.append(BlockPosterior(b.family, b.columns, b.names, b.state, stats, prior, point))
            post = NBPosterior(np.arange(S), class_count, np.ones(S), np.ones(S) + class_count, logw, True, tuple(bp))
            out.append(LatentClassFit(post, group, C, [], None, True))
        return out

    # ------------------------------------------------------------------ scoring
    def score_samples(self, X, *, latent=None):
        """``log p(x)`` of each row under the posterior predictive (higher = more typical).

        ``logsumexp`` over classes of :meth:`predict_joint_log_proba`; missing cells are
        marginalised (their factors drop out). Uses the estimator's ``predictive``.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        latent : LatentClassFit, optional
            Score under this latent-class model instead (``logsumexp`` over its
            (class, component) states, at its plug-in parameters): from
            :meth:`fit_latent_class`, or one MCMC draw from :meth:`latent_class_draws`
            (average ``exp`` of the scores over draws for the posterior predictive).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        if latent is None:
            jll = self.predict_joint_log_proba(X)
        else:
            post = self._gen_model(latent).post
            _, encoded = self._gen_encode(X)
            jll = _joint(post, _points(post), encoded, post.class_log_prior)
        with np.errstate(invalid="ignore", divide="ignore"):
            return logsumexp(jll, axis=1)

    def feature_log_contributions(self, X, *, return_class_term=False):
        """Per-feature contributions to ``log p(x)``: which features make a row unusual.

        ``C[i, j] = sum_k p(y=k | x_i) log p(x_ij | y=k)`` (0 for a missing cell; for a
        multinomial block each column's share of the row's token log-probability). They
        add up exactly: ``score_samples(X) = C.sum(1) + class_term`` with
        ``class_term[i] = sum_k p(k | x_i) (log p(y=k) - log p(k | x_i))``, the weights
        ``p(k | x_i)`` those of :meth:`predict_proba` (for a row impossible under every
        class, alpha=0, the class prior, and ``score_samples`` is ``-inf``).

        Returns
        -------
        C : ndarray of shape (n_samples, n_features), or DataFrame for DataFrame input
            (a CSR matrix when X is sparse).
        class_term : ndarray of shape (n_samples,)
            Only with ``return_class_term=True``.
        """
        model = self._gen_model()
        Xc, encoded = self._gen_encode(X)
        post = model.post
        predictive = self._check_predictive()
        jll = _post_joint(self, encoded)
        resp = _normalise(jll, post.class_log_prior, self._who)
        n = Xc.shape[0]
        parts = []
        for b, e in zip(post.blocks, encoded):
            c = b.family.gen_cell_log_lik(b.prior, b.posterior, e, resp, predictive)
            parts.append((b.columns, c))
        sparse_out = any(sp.issparse(c) for _, c in parts)
        if sparse_out:
            out = sp.lil_matrix((n, self._n_columns()))
            for cols, c in parts:
                out[:, cols] = c
            out = out.tocsr()
        else:
            out = np.zeros((n, self._n_columns()))
            for cols, c in parts:
                out[:, cols] = c
        with np.errstate(invalid="ignore", divide="ignore"):
            lr = np.where(resp > 0, np.log(np.where(resp > 0, resp, 1.0)), 0.0)
            term = np.where(resp > 0, resp * (post.class_log_prior[None, :] - lr), 0.0).sum(1)
        if is_frame(X):
            import pandas as pd

            out = pd.DataFrame(out, columns=X.columns, index=X.index)
        return (out, term) if return_class_term else out

    def outlier_scores(self, X):
        """``-score_samples(X)``: higher = more unusual."""
        return -self.score_samples(X)

    def set_outlier_threshold(self, X, contamination=0.05):
        """Set ``offset_`` to the ``contamination`` quantile of ``score_samples(X)``.

        Fit cannot know the outlier rate, so the threshold is calibrated on rows you pass
        (usually the training rows), as ``offset_`` of scikit-learn's novelty detectors:
        ``outlier_decision_function = score_samples - offset_`` is negative for outliers.

        Returns
        -------
        self
        """
        c = float(contamination)
        if not 0.0 < c < 0.5:
            raise ValueError(f"{self._who}: contamination must be in (0, 0.5); received {contamination!r}.")
        s = self.score_samples(X)
        finite = s[np.isfinite(s)]
        if finite.size == 0:
            raise ValueError(f"{self._who}: every row of X has log p(x) = -inf; no threshold can be set "
                             "(smooth with alpha > 0).")
        self.offset_ = float(np.quantile(finite, c))
        self.contamination_ = c
        return self

    def outlier_decision_function(self, X):
        """``score_samples(X) - offset_``: negative for outliers (needs :meth:`set_outlier_threshold`)."""
        if not hasattr(self, "offset_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"{self._who}: call set_outlier_threshold(X, contamination) first.")
        return self.score_samples(X) - self.offset_

    def is_outlier(self, X):
        """Bool per row: ``outlier_decision_function(X) < 0``."""
        return self.outlier_decision_function(X) < 0

    # ------------------------------------------------------------- semi-supervised
    def fit_semi_supervised(self, X, y, *, unlabeled="auto", sample_weight=None, unlabeled_weight=1.0, tol=1e-6,
                            max_iter=100):
        """Fit with some labels missing: EM with the closed-form conjugate M-step.

        Nigam et al. (2000). Labelled rows keep their class; unlabelled rows contribute
        with their class responsibilities, times ``unlabeled_weight``. The priors (including
        ``"auto"`` values) are resolved on the labelled rows and then held fixed. The
        M-step is the posterior mean, which is the MAP of the prior shifted by one
        pseudo-count (Dirichlet/Beta) or by ``a0 - 3/2`` (Normal-Inverse-Gamma); EM
        climbs the matching log posterior, recorded in ``em_objective_`` (never
        decreases). With every label present this is exactly :meth:`fit` (which never
        reads a label as "unlabelled": it is always supervised).

        Parameters
        ----------
        X, sample_weight
            As in ``fit``.
        y : array-like of shape (n_samples,)
            Labels, unlabelled rows marked as ``unlabeled`` says.
        unlabeled : object, default="auto"
            The marker of an unlabelled row, as in :func:`missing_labels`. A missing
            value (``None``, ``NaN``, ``pd.NA``) always marks one; ``"auto"``: so does
            ``-1`` when the labels are integers (scikit-learn's ``semi_supervised``
            convention), and integer labels holding both ``-1`` and missing values are
            an error (is ``-1`` a class?). ``None``: only missing values (``-1`` is a
            class). Any other value, e.g. ``"?"`` for string labels: labels equal to it.
        unlabeled_weight : float, default=1.0
            Weight of each unlabelled row (Nigam et al.'s lambda); 0 ignores them.
        tol : float, default=1e-6
            Stop when the relative objective change is below ``tol``.
        max_iter : int, default=100

        Returns
        -------
        self
            With ``em_objective_``, ``n_iter_``, ``converged_`` and ``transduction_``
            (the most probable label of every training row).

        Examples
        --------
        >>> import numpy as np
        >>> from bayesnb import GaussianNB
        >>> X = np.array([[0.0], [0.2], [3.0], [3.1], [0.1], [2.9]])
        >>> m = GaussianNB().fit_semi_supervised(X, [0, 0, 1, 1, -1, -1])
        >>> m.classes_.tolist(), m.transduction_.tolist()
        ([0, 1], [0, 0, 1, 1, 0, 1])
        """
        self._reset_fitted()
        who = self._who
        dt = getattr(y, "dtype", None)
        # a list, or pandas' nullable Int64 (NumPy would make its labels floats): Python objects
        from_list = dt is None or (not isinstance(dt, np.dtype) and getattr(dt, "kind", "") in "iu")
        yy = np.asarray(y, dtype=object) if from_list else np.asarray(y)
        if yy.ndim == 2 and yy.shape[1] == 1:
            yy = yy.ravel()
        if yy.ndim != 1:  # the full validation (and its message) is fit's
            return self._fit(X, y, sample_weight, classes=None, partial=False)
        miss = missing_labels(yy, unlabeled, who=who)
        if not miss.any():
            return self._fit(X, y, sample_weight, classes=None, partial=False)
        if miss.all():
            raise ValueError(f"{who}: every label is missing; at least one labelled row is needed.")
        labels = yy[~miss]
        if labels.dtype == object and (from_list or _integer_labels(labels, np.zeros(labels.shape, bool))):
            labels = np.asarray(labels.tolist())  # the dtype NumPy gives the labels alone (ints stay ints)
        lam = float(unlabeled_weight)
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"{self._who}: unlabeled_weight must be >= 0; received {unlabeled_weight!r}.")
        n = yy.shape[0]
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if w.ndim == 0:
            w = np.full(n, float(w))
        y_fill = np.empty(n, dtype=labels.dtype)
        y_fill[~miss] = labels
        y_fill[miss] = labels[0]
        w0 = np.where(miss, 0.0, w) if w.shape == (n,) else w
        # validation, encoding (categories from every row, labelled or not), priors
        self._fit(X, y_fill, w0, classes=None, partial=False, encode_zero_weight_rows=True)
        w = self._check_weights(sample_weight, n)
        Xc = self._check_X(X, reset=False)
        encoded, _ = self._encode_blocks(Xc, self.posterior_)
        post = self.posterior_
        K = len(self.classes_)
        codes = np.full(n, -1, dtype=np.int64)
        codes[~miss] = np.searchsorted(self.classes_, labels) if K > 1 else 0
        allowed = _allowed(np.arange(K), codes)
        rw = w * np.where(miss, lam, 1.0)
        self._check_total_weight(rw, 0.0)  # unlabeled_weight scales the unlabelled rows' counts
        class_params = self._check_class_params(K)
        meta = [(b.family, b.columns, b.names, b.state, b.prior) for b in post.blocks]
        post, hist, conv, resp = _em(post, meta, encoded, allowed, rw, class_params, self.classes_, tol, int(max_iter))
        self.posterior_ = post
        self.classes_ = post.classes
        self.class_count_ = post.class_count
        self.class_log_prior_ = post.class_log_prior
        self._set_attributes()
        self.em_objective_ = hist
        self.n_iter_ = len(hist) - 1
        self.converged_ = conv
        jll = np.where(allowed, _joint(post, [b.posterior for b in post.blocks], encoded, post.class_log_prior),
                       -np.inf)
        self.transduction_ = self.classes_[np.argmax(jll, axis=1)]
        return self


# ========================================================================= cell I/O
def _restore_dtype(values, dtype):
    """A generated column in the training column's ``dtype`` when nothing is lost, else as given.

    Counts and 0/1 values go back to integer / bool / nullable dtypes, category values to
    the same ``CategoricalDtype``, strings to ``string``; floats to the float dtype.
    Values the dtype cannot hold exactly (e.g. Gaussian draws of an integer column, or a
    missing value in a non-nullable integer column) keep their generated dtype.
    """
    import pandas as pd

    s = pd.Series(values, copy=False)
    if s.dtype == dtype:
        return values
    try:
        out = s.astype(dtype)
    except (TypeError, ValueError, OverflowError):
        return values
    if getattr(dtype, "kind", None) == "f":  # float -> float32 / Float64: rounding is expected
        return out.array
    miss = s.isna().to_numpy()
    if not np.array_equal(out.isna().to_numpy(), miss):
        return values
    a = s.to_numpy(dtype=object)[~miss]
    b = out.to_numpy(dtype=object)[~miss]
    same = np.fromiter((u == v and (type(u) is type(v) or not isinstance(u, str) and not isinstance(v, str))
                        for u, v in zip(a, b)), dtype=bool, count=a.size)
    return out.array if same.all() else values


def _post_joint(est, encoded):
    from . import posterior as _post

    return _post.joint_log_likelihood(est.posterior_, encoded, est._check_predictive(), est._caches)


def _missing_cells(X) -> np.ndarray:
    """Bool (n, d) of missing raw cells (dense X or DataFrame)."""
    if is_frame(X):
        return np.column_stack([missing_mask(X.iloc[:, j].to_numpy(dtype=object)) for j in range(X.shape[1])])
    return missing_mask(np.asarray(X))


def _mask_cells(X, rows, cols):
    """A copy of X with the given cells set missing (None / NaN)."""
    if is_frame(X):
        out = X.copy()
        for j in np.unique(cols):
            r = rows[cols == j]
            s = out.iloc[:, j]
            if s.dtype.kind in "iub":
                s = s.astype(float)
            elif s.dtype.kind not in "f" and not hasattr(s.dtype, "categories"):
                s = s.astype(object)
            s = s.copy()
            s.iloc[r] = None if s.dtype == object else np.nan
            out[out.columns[j]] = s
        return out
    X = np.array(X, dtype=object if np.asarray(X).dtype.kind not in "f" else float, copy=True)
    X[rows, cols] = None if X.dtype == object else np.nan
    return X


def _write_cells(X, cells):
    """A copy of X with ``(rows, global cols, values)`` written in; nothing else changes."""
    if not cells:
        return X.copy()
    if is_frame(X):
        out = X.copy()
        for rows, cols, vals in cells:
            for j in np.unique(cols):
                sel = cols == j
                name = out.columns[j]
                s = out[name].copy()
                try:  # in the column's dtype when the values fit it exactly (e.g. 0/1 -> boolean)
                    s.iloc[rows[sel]] = _restore_dtype(vals[sel], s.dtype)
                except (TypeError, ValueError):
                    s = s.astype(float if np.asarray(vals).dtype.kind == "f" else object)
                    s.iloc[rows[sel]] = vals[sel]
                out[name] = s
        return out
    if sp.issparse(X):
        out = X.tocsr(copy=True).astype(float)
        for rows, cols, vals in cells:
            out[rows, cols] = vals
        out.eliminate_zeros()
        return out.asformat(X.format)  # the caller's format (CSC stays CSC)
    out = np.array(X, copy=True)
    for rows, cols, vals in cells:
        if out.dtype.kind in "f" and np.asarray(vals).dtype == object:
            out = out.astype(object)
        out[rows, cols] = vals
    return out
