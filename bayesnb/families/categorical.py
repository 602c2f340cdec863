"""Categorical features with a Dirichlet prior (Dirichlet-categorical).

For class ``k`` and feature ``j`` with values ``v = 1..V_j``::

    theta[k, j, :] ~ Dirichlet(alpha_j)            alpha_j[v] > 0 (or 0: maximum likelihood)
    x[i, j] | y=k  ~ Categorical(theta[k, j, :])

    posterior     Dirichlet(alpha_j + n[k, j, :])
    plug-in       p(v | k) = (n[k,j,v] + alpha_j[v]) / (n[k,j] + sum(alpha_j))   (additive smoothing)
    exact         the same number (the posterior predictive of one draw is the posterior mean)
    evidence      log B(alpha + n) - log B(alpha)      with B the multivariate Beta function

Values may be strings, ints, bools, floats or pandas categoricals. The categories of
a feature are the values seen in training (sorted), the declared ``categories``, or a
pandas categorical's declared categories. A value never seen in training gets the
probability of a zero-count value, ``a / (n[k,j] + sum(alpha_j) + a)`` with ``a`` the
mean prior pseudo-count of the feature: the predictive it would have had if it had
been listed as a category all along. The m-estimate of the lecture notes,
``(n_c + m p) / (n + m)``, is ``alpha_j[v] = m * p[v]``.

Everything about the distribution lives on :class:`Categorical`; this module also holds the
NamedTuples it passes around and, after the class, the NUTS site forms of a padded Dirichlet
block (:class:`DirichletSite`, :func:`site_for`). The coding helpers it shares with Histogram are in
``_categorical_encoding``.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple, Protocol, runtime_checkable

import numpy as np
from scipy.special import gammaln

from . import _categorical_encoding as _enc
from . import dp_release
from ._contract import Family
from .capabilities import SHARED
from . import _stick_rows, _tilted_gamma
from ._category_codes import _indexer
from .numeric import MAX_ALPHA, Memo, check_alpha, dirichlet_draws, dirichlet_moments, draw_categories, observed_counts
from ..structure.hierarchical import maximise_evidence
from ._categorical_encoding import log_probs  # (CategoricalNB.feature_log_prob_)

__all__ = ["Categorical", "CategoricalEncoding", "CategoricalStats", "Dirichlets"]


class CategoricalEncoding(NamedTuple):
    """Learned category lists.

    Attributes
    ----------
    categories : tuple of ndarray
        ``categories[j]`` has shape (V_j,): the values of feature ``j``; position = code.
    declared : tuple of bool
        Whether feature ``j``'s categories were declared (kept in the given order).
    """

    categories: tuple
    declared: tuple


class CategoricalStats(NamedTuple):
    """Sufficient statistics.

    Attributes
    ----------
    counts : tuple of ndarray
        ``counts[j]`` has shape (K, V_j): weighted count of value ``v`` of feature
        ``j`` among rows of class ``k`` (missing cells left out).
    """

    counts: tuple


class Dirichlets(NamedTuple):
    """Dirichlet parameters, one Dirichlet per (class, feature): prior and posterior alike.

    Attributes
    ----------
    concentration : tuple of ndarray
        ``concentration[j]`` has shape (K, V_j).
    """

    concentration: tuple


# ------------------------------------------------------------------------ family
class Categorical(Family, *SHARED):
    """Categorical feature block with a Dirichlet prior per (class, feature).

    Parameters
    ----------
    alpha : float, "auto", "hierarchical", array-like or dict, default=1.0
        Dirichlet pseudo-count per value. 1 is Laplace smoothing, 0.5 Jeffreys, 0
        maximum likelihood (the zero-frequency problem is then reported, never NaN).
        An array gives one pseudo-count per category (in category order), a dict maps
        category -> pseudo-count, a list of arrays gives one array per feature.
        ``"auto"`` picks the scalar that maximises the closed-form evidence.
        ``"hierarchical"``: each context's Dirichlet is centred on its parent context's
        estimate, with one concentration per level fitted by evidence, up to the context of
        all classes with ``Dirichlet(1)`` (:mod:`bayesnb.structure.hierarchical`,
        docs/structure.md "Hierarchical smoothing"); without parents (the naive structure)
        each class is centred on the all-classes estimate, the same prior as a structure's
        node without parents.
    categories : "auto" or list or list of lists, default="auto"
        Declared categories (shared, or one list per feature). Declared categories may
        include values never seen in training; values outside them are an error in fit.
    m, p : float and float/array/dict, optional
        The m-estimate ``(n_c + m p) / (n + m)``: sets ``alpha = m * p``. ``p`` defaults
        to uniform ``1 / V_j``. Leave ``alpha`` at its default when using ``m``.
    min_categories : int or array-like, optional
        As scikit-learn's CategoricalNB, for integer-coded features.

    Notes
    -----
    The encoding state is a :class:`CategoricalEncoding`; encoded blocks are integer codes
    (n, d), ``-1`` for a missing cell and ``V_j`` for a value not among the categories.
    Prior, posterior and generative "points" are :class:`Dirichlets`, one (K, V_j) array
    per feature; the parameter of draws and of the NumPyro model is ``theta`` (K, d, V_max),
    NaN-padded.

    Examples
    --------
    >>> Categorical.m_estimate(m=3, p=1/3)
    Categorical(alpha=1.0, categories='auto', m=3, p=0.3333333333333333, min_categories=None)
    """

    _param_names = ("alpha", "categories", "m", "p", "min_categories")
    name = "categorical"
    raw_values = True
    param_names = ("theta",)
    stats_type = CategoricalStats
    params_type = Dirichlets
    state_types = (CategoricalEncoding,)
    field_rules: ClassVar[dict] = {"CategoricalStats": {"counts": "count"}, "Dirichlets": {"concentration": "count"}}

    def __init__(self, alpha=1.0, *, categories="auto", m=None, p=None, min_categories=None):
        self.alpha = alpha
        self.categories = categories
        self.m = m
        self.p = p
        self.min_categories = min_categories

    @classmethod
    def m_estimate(cls, m, p=None, **kwargs):
        """The m-estimate ``(n_c + m p) / (n + m)`` as a Dirichlet prior ``alpha = m * p``.

        Parameters
        ----------
        m : float
            Equivalent sample size (number of virtual samples).
        p : float, array-like or dict, optional
            Prior estimate of each value's probability; uniform ``1/V`` by default.
        """
        return cls(m=m, p=p, **kwargs)

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Categorical"):
        """Map a block of categorical values to integer codes.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        state : CategoricalEncoding or None
            None learns the categories (fit). Otherwise values are coded against it.
        extend : bool
            With a ``state``: add values not seen before as new categories (partial_fit).
        who : str
            Name used in error messages.

        Returns
        -------
        codes : ndarray of int, shape (n_samples, n_features)
            ``-1`` marks a missing cell, ``V_j`` a value not among the categories; the
            smallest signed integer dtype that holds them (an int64 array of codes is used as
            given, read-only).
        state : CategoricalEncoding
        """
        codes, cats, declared = _enc.encode_columns(
            X, state, categories=self.categories, min_categories=self.min_categories,
            extend=extend, who=who)
        return codes, CategoricalEncoding(cats, declared)

    def empty_stats(self, state, K):
        """Zero statistics for ``K`` classes."""
        return CategoricalStats(tuple(np.zeros((K, len(c))) for c in state.categories))

    def stats(self, codes, resp, state):
        """Weighted category counts per class, (K, V_j) per feature (codes ``-1`` and ``V_j`` left out)."""
        return CategoricalStats(_enc.count_codes(codes, resp, state.categories))

    def reindex_stats(self, stats, old_state, new_state):
        """Move statistics coded against ``old_state``'s categories onto ``new_state`` (a superset)."""
        out = []
        for c, oc, nc in zip(stats.counts, old_state.categories, new_state.categories):
            moved = np.zeros((c.shape[0], len(nc)))
            if len(oc):
                moved[:, _indexer(nc, oc)] = c
            out.append(moved)
        return CategoricalStats(tuple(out))

    def merge(self, a, b):
        """Add counts feature by feature."""
        return CategoricalStats(tuple(x + y for x, y in zip(a.counts, b.counts)))

    def make_prior(self, stats, state, who="Categorical"):
        """Prior Dirichlets for the block (resolving ``"auto"`` and the m-estimate)."""
        K = stats.counts[0].shape[0] if stats.counts else 1

        def prior(a):
            return Dirichlets(alpha_per_category(a, state.categories, K, who))

        if is_hierarchical(self.alpha, self.m, who):  # no parents: the hierarchy's class level
            return Dirichlets(_enc.hierarchical_alphas(stats.counts, (K,)))
        if self.m is not None:  # the m-estimate: alpha = m p
            if not (isinstance(self.alpha, (int, float)) and self.alpha == 1.0):
                raise ValueError(f"{who}: give either alpha or the m-estimate (m, p), not both.")
            m, p = float(self.m), self.p
            if not np.isfinite(m) or m < 0:
                raise ValueError(f"{who}: m must be a finite number >= 0; received {self.m!r}.")
            if p is None:
                alpha = [np.full(len(c), m / max(len(c), 1)) for c in state.categories]
                return Dirichlets(tuple(np.broadcast_to(a, (K, len(a))).copy() for a in alpha))
            if isinstance(p, dict):
                return prior({k: m * float(v) for k, v in p.items()})
            return prior(m * np.asarray(p, dtype=float))
        alpha = self.alpha  # an array, one array per feature (ragged), a dict or "auto"
        if isinstance(alpha, (list, tuple)) and alpha and all(np.ndim(a) == 1 for a in alpha):
            alpha = [check_alpha(a, who) for a in alpha]
        elif not isinstance(alpha, dict):
            alpha = check_alpha(alpha, who)
        if isinstance(alpha, str):  # "auto"
            def ev(a):
                pr = prior(a)
                return float(self.log_evidence(pr, self.update(pr, stats)).sum())

            alpha = maximise_evidence(ev)
        return prior(alpha)

    def hierarchical_variant(self):
        """This family with ``alpha="hierarchical"`` (:meth:`Family.hierarchical_variant`), categories kept."""
        return Categorical(alpha="hierarchical", categories=self.categories, min_categories=self.min_categories)

    def context_prior(self, stats, state, contexts, who="Categorical", naive_prior=None, class_level=None, noise_var=0.0):
        """The prior over a structure node's contexts ``(K, B_1, ..., B_m)`` (:meth:`Family.context_prior`).

        With ``alpha="hierarchical"`` each context's Dirichlet is centred on its parent
        context's estimate, the last parent dropped first, up to the class level and the
        all-classes context's ``Dirichlet(1)``
        (:func:`bayesnb.structure.hierarchical.hierarchical_prior`; with ``contexts = (K,)`` it
        is :meth:`make_prior`'s, the naive model's), or down to ``class_level`` when given (a
        latent model's per-class prior, :meth:`Family.component_prior`); otherwise
        :meth:`make_prior`'s prior, the same in every context (``naive_prior`` unused: a
        categorical node's class level is its own). ``noise_var``: the noise variance of every released count (noise-aware).
        """
        if not is_hierarchical(self.alpha, self.m, who):
            return self.make_prior(stats, state, who=who)
        fixed = None if class_level is None else class_level.concentration
        return Dirichlets(_enc.hierarchical_alphas(stats.counts, contexts, class_level=fixed, noise_var=noise_var))

    def observed_rows(self, stats):
        """Weighted number of observed cells per (class, column): each feature's counts summed."""
        return np.stack([c.sum(axis=1) for c in stats.counts], axis=1) if stats.counts else None

    def update(self, prior, stats):
        """Conjugate update: posterior concentration = prior + counts (the only smoothing)."""
        return Dirichlets(tuple(a + n for a, n in zip(prior.concentration, stats.counts)))

    def dp_stats(self, codes, resp, state, budget, bounds, names, who="Categorical"):
        """Category counts with noise, L1 sensitivity 2 per column (``PrivateRelease.dp_stats``); categories declared."""
        dp_release.check_no_auto(self.alpha, "alpha", who)
        dp_release.check_no_bounds(bounds, names, "Categorical", who)
        # only categories passed as categories= are public (a pandas categorical's may come from the data)
        dp_release.check_declared([not isinstance(self.categories, str)] * len(state.declared), names, who)
        return CategoricalStats(tuple(dp_release.noisy_counts(list(self.stats(codes, resp, state).counts), budget)))

    def predict_cache(self, prior, post):
        """The code tables of :meth:`log_likelihood`, made by the first prediction (a :class:`.numeric.Memo`)."""
        return Memo(_enc.code_log_tables, prior, post)

    def log_likelihood(self, prior, post, codes, predictive="mean", cache=None):
        """``log p(x_block | y=k)`` under the posterior predictive (= posterior mean), (n, K).

        Missing cells contribute 0 (marginalised). Values never seen in training get the
        probability of a zero-count category with pseudo-count ``mean(alpha_j)``.
        ``"mean"`` and ``"marginal"`` coincide. ``cache``: :meth:`predict_cache` of ``post``.
        """
        n = codes.shape[0]
        K = post.concentration[0].shape[0] if post.concentration else 0
        tables = _enc.code_log_tables(prior, post) if cache is None else cache()
        if not tables:
            return np.zeros((n, K))
        return _enc.sum_code_logs(tables, codes, K)

    def log_evidence(self, prior, post):
        """Closed-form ``log p(x_block | y)`` of the training data, per class, shape (K,).

        Undefined (NaN) when a prior pseudo-count is 0; callers check :meth:`is_proper`.
        """
        total = 0.0
        for a0, a in zip(prior.concentration, post.concentration):
            if a.shape[1] == 0:  # no category at all (an all-missing feature): nothing observed, log 1
                continue
            total = total + (
                gammaln(a0.sum(1)) - gammaln(a.sum(1)) + (gammaln(a) - gammaln(a0)).sum(1)
            )
        return np.asarray(total) * np.ones(post.concentration[0].shape[0] if post.concentration else 0)

    def is_proper(self, prior):
        """True when every prior pseudo-count is > 0 (so the evidence is defined)."""
        return all(np.all(a > 0) for a in prior.concentration)

    def all_missing(self, codes):
        """Columns missing in every row, bool (d,).

        A categorical block is its code array itself, the mask held in it (code -1), so this and
        :meth:`gen_missing` read the codes rather than a ``missing`` field.
        """
        return codes.max(axis=0) < 0 if codes.shape[0] else np.zeros(codes.shape[1], bool)

    def state_shapes(self, state, K, d):
        """Check a :class:`CategoricalEncoding` read from a model file; ``(K, V_j)`` per column.

        Raises ValueError unless its categories are ``d`` 1-D arrays of unique, non-missing
        numbers or strings and its declared flags ``d`` bools (what :meth:`encode` makes).
        """
        _enc.check_state(state, d)
        return [(K, len(c)) for c in state.categories]

    # ------------------------------------------------------------------ generative hooks
    # A "point" is a Dirichlets whose normalised rows are the probabilities in use: the
    # posterior itself (plug-in = posterior mean) or one exact draw (parameter uncertainty).
    def gen_point(self, prior, post, rng=None):
        """Plug-in (``rng=None``: the posterior itself) or one exact Dirichlet draw per (class, feature).

        ``post`` may be the prior for prior-predictive draws. A row with no mass (alpha=0
        and no data) stays all-zero (its factor is dropped, as in :meth:`log_likelihood`).
        """
        if rng is None:
            return post
        return Dirichlets(tuple(dirichlet_draws(a, 1, rng)[0] for a in post.concentration))

    def gen_observed_support(self, prior, post, back_off=None):
        """Each context's counts alone where it has data, its prior where it has none.

        The Haldane limit of the context's Dirichlet (prior pseudo-counts to 0): a value never
        seen in a context with data gets probability 0; an empty context keeps its prior (its parent
        context's estimate under ``alpha="hierarchical"``). Histogram uses it for its bins. A
        ``back_off(prior, post)`` of one column's (C, V) concentrations replaces that rule (:func:`observed_counts`).
        """
        return post._replace(concentration=observed_counts(prior.concentration, post.concentration, back_off))

    def gen_sample(self, point, z, rng, lengths=None):
        """Codes (n, d) drawn from ``x_j | y = z[i]`` (categories by position; ``lengths`` unused)."""
        P = _enc.probs(point)
        out = np.empty((z.shape[0], len(P)), dtype=np.int64)
        for j, Pj in enumerate(P):
            out[:, j] = draw_categories(Pj[z], rng.random(z.shape[0])) if Pj.shape[1] else -1
        return out

    def gen_missing(self, block):
        """Bool (n, d) mask of missing cells (code ``-1``; see :meth:`all_missing`)."""
        return block < 0

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Codes with the missing cells filled; observed cells are returned unchanged.

        ``strategy="mode"`` (or ``"mean"``, which has no meaning for unordered values and
        also takes the most probable value of ``sum_k resp[i, k] p(v | k)``) or ``"draw"``
        (from ``p(v | y = z[i])``). ``rate`` is unused.
        """
        out = block.copy()
        P = _enc.probs(point)
        for j, Pj in enumerate(P):
            rows = np.flatnonzero(block[:, j] < 0)
            if rows.size == 0 or Pj.shape[1] == 0:
                continue
            if strategy == "draw":
                out[rows, j] = draw_categories(Pj[z[rows]], rng.random(rows.size))
            else:
                out[rows, j] = np.argmax(resp[rows] @ Pj, axis=1)
        return out

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per-feature ``sum_k weights[i, k] log p(x_ij | y=k)``, shape (n, d); missing -> 0."""
        n, d = block.shape
        out = np.zeros((n, d))
        for j, table in enumerate(_enc.code_log_tables(prior, point)):
            vals = table[:, block[:, j]].T  # (n, K); missing (code -1) -> 0
            with np.errstate(invalid="ignore"):
                out[:, j] = np.where(weights > 0, weights * vals, 0.0).sum(axis=1)
        return out

    def gen_log_penalty(self, prior, point) -> float:
        """``sum alpha log theta``: the log prior whose MAP is the posterior mean (EM objective)."""
        with np.errstate(invalid="ignore"):
            return float(sum(float(np.where(a0 > 0, a0 * lp, 0.0).sum())
                             for lp, a0 in zip(log_probs(point), prior.concentration)))

    def gen_empty_columns(self, state):
        """Bool (d,): features with no category at all (nothing to draw: their cells stay None)."""
        return np.array([len(c) == 0 for c in state.categories], dtype=bool)

    def gen_decode(self, codes, state):
        """Category values per column (a list of object arrays); ``-1`` (and unseen) -> None."""
        out = []
        for j, cats in enumerate(state.categories):
            c = codes[:, j]
            col = np.empty(c.shape[0], dtype=object)  # (None where no category is set)
            ok = (c >= 0) & (c < len(cats))
            col[ok] = np.asarray(cats, dtype=object)[c[ok]]
            out.append(col)
        return out

    # --------------------------------------------------------- draws and NumPyro hooks
    def sample_params(self, post, n_draws, rng) -> dict:
        """Exact posterior draws: ``{"theta": (n_draws, K, d, V_max)}``, NaN-padded."""
        draws = [dirichlet_draws(a, n_draws, rng) for a in post.concentration]
        return {"theta": _enc.pad(draws, np.nan)}

    def posterior_moments(self, post) -> dict:
        """Closed-form posterior mean and sd: ``{"theta": (mean, sd)}``, each (K, d, V_max)."""
        moments = [dirichlet_moments(a, a.sum(axis=1, keepdims=True)) for a in post.concentration]
        return {"theta": tuple(_enc.pad([mo[i] for mo in moments], np.nan) for i in (0, 1))}

    def posterior_from_params(self, params: dict):
        """A Dirichlets whose plug-in equals the given ``theta`` (K, d, V_max) (one draw)."""
        theta = params["theta"]
        columns = [theta[:, j] for j in range(theta.shape[1])]
        return Dirichlets(tuple(t[:, ~np.isnan(t).any(axis=0)] for t in columns))

    def numpyro_static(self, prior):
        """Hashable structure: the number of values of each feature."""
        return tuple(int(a.shape[1]) for a in prior.concentration)

    #: the most values a block's features may have for its NUTS site to be stick-breaking logits
    #: (:mod:`~bayesnb.families._stick_rows`); a block with more samples normalised Gammas
    #: (:mod:`~bayesnb.families._tilted_gamma`). docs/mcmc.md has the measurements.
    STICK_MAX_VALUES: ClassVar[int] = 3

    @classmethod
    def _site_form(cls, sizes):
        """The block's NUTS site module (:func:`site_for`), from its features' numbers of values."""
        return site_for(sizes, cls.STICK_MAX_VALUES)

    def numpyro_prior_args(self, prior) -> dict:
        """The prior of the block's NUTS site (:meth:`numpyro_sample`) as float32 arrays: for
        stick-breaking logits ``a``, ``b``, ``shift`` (K, d, max(V_max - 1, 1)), for normalised
        Gammas the padded pseudo-counts ``alpha`` (K, d, V_max), pads 1; and ``log_norm`` (K, d)."""
        sizes = self.numpyro_static(prior)
        return self._site_form(sizes).prior_args(_enc.pad(list(prior.concentration), 1.0), sizes)

    def numpyro_sampler_args(self, prior, posterior) -> dict:
        """For normalised Gammas, their sum given the law Gamma(summed concentration of
        ``posterior``, else of ``prior``) and the ``log_norm`` that goes with it (the model is
        unchanged); none for stick logits."""
        sizes = self.numpyro_static(prior)
        alpha = _enc.pad(list(prior.concentration), 1.0)
        conc = None if posterior is None else _enc.pad(list(posterior.concentration), 1.0)
        return self._site_form(sizes).sampler_args(alpha, conc, sizes)

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """Sample ``theta`` from the Dirichlet prior under plates ``class_plate`` x feature.

        One sample site for the whole block, whatever the features' numbers of values, padded
        to the largest ``V_max`` (the value axis is the event), and the deterministic site
        ``theta_<label>`` (K, d, V_max), pads at 0. With at most :attr:`STICK_MAX_VALUES` values,
        the site is ``theta_<label>__stick`` (K, d, max(V_max - 1, 1)), the stick-breaking logits
        of each row (:mod:`bayesnb.families._stick_rows`): ``V_j - 1`` independent ``logit Beta``
        coordinates, as NumPyro's ``Dirichlet``, no direction the posterior leaves free. With
        more, ``theta_<label>__log_gamma`` (K, d, V_max), the logs of Gamma draws normalised per
        row, their sum given a law fitted to the posterior (:mod:`bayesnb.families._tilted_gamma`),
        whose coordinates sample many-valued sparse rows better. Either way ``theta``'s law is
        exactly Dirichlet(alpha), and the density is written out on the unconstrained scale: no
        transform, no scatter, one site, so the compiled sampler does not grow with the number
        of distinct vocabularies.

        Returns ``{"log_theta", "site", ...}``: ``log theta`` (K, d, V_max), pads at 0, the site
        module chosen (:data:`SITE_KEY`) and what its likelihood needs.
        """
        form = self._site_form(static)
        params = form.sample_site(label, static, prior_args, feature_plate, class_plate)
        return {**params, SITE_KEY: form}

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """MCMC samples (leading sample axes) -> ``{"theta": (..., K, d, V_max)}``, NaN-padded."""
        theta = np.array(samples[f"theta_{label}"], dtype=float)
        vmax = theta.shape[-1]
        theta[..., ~_tilted_gamma.valid_cells(static, vmax)] = np.nan
        return {"theta": theta}

    def point_params(self, post) -> dict:
        """``{"theta": (K, d, V_max)}``, the posterior mean, NaN-padded (inverse of :meth:`posterior_from_params`)."""
        return {"theta": self.posterior_moments(post)["theta"][0]}

    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """Inverse of :meth:`params_from_sites`: from ``theta`` (..., K, d, V_max), the sample site
        (in ``prior_args``' coordinates; the default ones when not given) and the deterministic
        ``theta_<label>`` (pads at 0)."""
        theta = np.asarray(params["theta"], dtype=float)
        valid = _tilted_gamma.valid_cells(static, theta.shape[-1])
        return {**self._site_form(static).site_values(label, theta, static, prior_args),
                f"theta_{label}": np.where(valid, np.nan_to_num(theta), 0.0)}

    def numpyro_stats_args(self, stats) -> dict:
        """The labelled counts as the block's NUTS site uses them, float32."""
        sizes = tuple(int(c.shape[-1]) for c in stats.counts)
        return self._site_form(sizes).stats_args(_enc.pad(list(stats.counts), 0.0), sizes)

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum_{k,j,v} n[k,j,v] log theta[k,j,v]``: the labelled-data log-likelihood (per stick
        ``sum n t - (n + m) softplus(t)``, or ``sum n u - sum N log S``: no (K, d, V_max)
        ``log theta`` in the potential's gradient), by the site module :meth:`numpyro_sample` chose."""
        return params[SITE_KEY].suffstat_loglik(params, stats_args)

    def numpyro_row_args(self, block, static) -> dict:
        """Codes as int32 (n, d) and an observed mask; missing / unseen values are masked."""
        V = np.asarray(static, dtype=np.int64)
        ok = (block >= 0) & (block < V[None, :]) if len(V) else np.zeros(block.shape, bool)
        return {"codes": np.where(ok, block, 0).astype(np.int32), "mask": ok.astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(x_i | y=k)`` per row and class, shape (n, K); masked cells add 0."""
        import jax.numpy as jnp

        lt = params["log_theta"]  # (K, d, V)
        codes, mask = row_args["codes"], row_args["mask"]
        d = lt.shape[1]
        g = lt[:, jnp.arange(d)[None, :], codes]  # (K, n, d)
        return (g * mask[None]).sum(-1).T

    # ------------------------------------------------------------ linear form and display
    def linear_terms(self, theta, state):
        """Binary log-odds from ``theta`` (..., 2, d, V_max): one weight per (feature, value), no intercept part."""
        with np.errstate(divide="ignore", invalid="ignore"):  # alpha=0: NaN where undefined, see model._linear
            lt = np.log(theta)
            w = lt[..., 1, :, :] - lt[..., 0, :, :]
        valid = _tilted_gamma.valid_cells([len(c) for c in state.categories], w.shape[-1])
        return w[..., valid], np.zeros(theta.shape[:-3])

    def linear_names(self, names, state):
        """Names of the :meth:`linear_terms` weights: ``feature=value``."""
        return [f"{n}={v}" for n, cats in zip(names, state.categories) for v in cats]

    def value_columns(self, state):
        """Per column, ``(categories, declared)``: the values in code order, and whether declared."""
        return list(zip(state.categories, state.declared))

    def plot_panels(self, block, top=10) -> list:
        """One bar panel per feature: ``p(value | y=k)`` under the posterior mean (``top`` unused)."""
        columns = zip(block.names, block.state.categories, block.posterior.concentration)
        with np.errstate(invalid="ignore", divide="ignore"):
            return [(str(name), "bars", ([str(v) for v in cats], a / a.sum(axis=1, keepdims=True)))
                    for name, cats, a in columns]


# ------------------------------------------------------------ helpers of Categorical alone

def alpha_per_category(alpha, categories, K: int, who: str):
    """Broadcast ``alpha`` (scalar, per-value array, per-feature list or dict) to (K, V_j) arrays."""
    out = []
    d = len(categories)
    for j, cats in enumerate(categories):
        V = len(cats)
        if isinstance(alpha, dict):
            try:
                a = np.array([alpha[c] for c in cats], dtype=float)
            except KeyError as e:
                raise ValueError(f"{who}: alpha has no entry for category {e.args[0]!r}.") from None
        elif isinstance(alpha, (list, tuple)) and len(alpha) == d and np.ndim(alpha[0]) == 1:
            a = np.asarray(alpha[j], dtype=float)
        else:
            a = np.asarray(alpha, dtype=float)
        if a.ndim == 0:
            a = np.full(V, float(a))
        if a.shape != (V,):
            raise ValueError(
                f"{who}: feature {j} has {V} categories {list(cats)[:10]} but its alpha has "
                f"shape {a.shape}; give one alpha per category (in category order)."
            )
        if np.any(a < 0) or not np.all(np.isfinite(a)):
            raise ValueError(f"{who}: alpha must be finite and >= 0; received {a!r}.")
        if np.any(a > MAX_ALPHA):
            raise ValueError(f"{who}: alpha must be at most 2**53 (a pseudo-count of rows); received {a!r}.")
        out.append(np.broadcast_to(a, (K, V)).copy())
    return tuple(out)


def is_hierarchical(alpha, m, who) -> bool:
    """Whether ``alpha`` is ``"hierarchical"`` (refused beside an m-estimate)."""
    if not (isinstance(alpha, str) and alpha == "hierarchical"):
        return False
    if m is not None:
        raise ValueError(f"{who}: give either alpha='hierarchical' or the m-estimate (m, p), not both.")
    return True


# The NUTS site forms of a padded Dirichlet block, and the one rule that picks one. A Categorical (or
# Histogram) block samples its theta (K, d, V_max) through one of two site modules, both exactly
# Dirichlet(alpha) rows: _stick_rows (stick-breaking logits) and _tilted_gamma (normalised Gammas).
# DirichletSite writes out what each provides; site_for chooses from the block's numbers of values, once
# per block, and numpyro_sample records the choice under SITE_KEY for the labelled-data likelihood.


#: the key of the chosen site module in the parameters of a block's NUTS site
SITE_KEY = "site"


@runtime_checkable
class DirichletSite(Protocol):
    """What a site module of a padded Dirichlet block provides (``sizes``: each feature's number of values).

    Attributes
    ----------
    SITE : str
        The suffix of the sample site, ``theta_<label>__<SITE>``.
    """

    SITE: str

    def prior_args(self, alpha, sizes) -> dict:
        """The site's prior arrays (float32) from padded pseudo-counts ``alpha`` (K, d, V_max)."""

    def sampler_args(self, alpha, conc, sizes) -> dict:
        """Arrays that tune the sampler, not the model, from the prior and (or None) a posterior ``conc``."""

    def stats_args(self, counts, sizes) -> dict:
        """The labelled counts (K, d, V_max) as :meth:`suffstat_loglik` reads them, float32."""

    def suffstat_loglik(self, params, stats_args):
        """``sum n log theta`` from :meth:`sample_site`'s parameters and :meth:`stats_args` (JAX)."""

    def sample_site(self, label, sizes, prior_args, feature_plate, class_plate) -> dict:
        """The sample site and the deterministic ``theta_<label>``; returns ``{"log_theta", ...}``."""

    def site_values(self, label, theta, sizes, prior_args=None) -> dict:
        """The sample site's value whose rows are ``theta`` (..., K, d, V_max)."""


#: the site modules, by their ``SITE``
FORMS = {m.SITE: m for m in (_stick_rows, _tilted_gamma)}


def site_for(sizes, stick_max) -> DirichletSite:
    """The site module of a block whose features have ``sizes`` values.

    Parameters
    ----------
    sizes : sequence of int
        Each feature's number of values.
    stick_max : int
        The most values for stick-breaking logits (``Categorical.STICK_MAX_VALUES``).

    Returns
    -------
    DirichletSite
        :mod:`~bayesnb.families._stick_rows` when no feature has more than ``stick_max``
        values, else :mod:`~bayesnb.families._tilted_gamma`.
    """
    return FORMS["stick" if max(sizes, default=0) <= stick_max else "log_gamma"]
