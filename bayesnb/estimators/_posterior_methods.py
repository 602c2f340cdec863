"""Full-posterior estimator methods: :class:`PosteriorMixin`, a base of every estimator.

- ``sample_posterior(n_draws)`` -- exact conjugate draws (NumPy, thousands per second)
- ``run_mcmc(X, y)`` -- NUTS draws of the same model, with compile / sampling times
  (``n_components=C``: the latent-class model)
- ``estimator_inputs(clf, X, y)`` (:mod:`bayesnb.inference.numpyro_model`) -- ``(spec, priors,
  data)`` for your own NumPyro inference, through ``_model_inputs``
- ``predict_proba_draws`` -- uncertainty of ``p(y | x)`` (summarise with
  :func:`bayesnb.inference.draws.credible_interval`)
- ``coef_`` / ``intercept_`` / ``coef_draws`` -- binary NB as a linear classifier

The model itself is :mod:`bayesnb.inference.numpyro_model`, the runner
:mod:`bayesnb.inference.nuts` and the exact draws :mod:`bayesnb.inference.draws`: import their
functions from there. Both kinds of draws come back as the same ArviZ ``DataTree`` (see
:mod:`bayesnb.criticism.diagnostics`). JAX, NumPyro and ArviZ are imported lazily.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_array, check_is_fitted

from .._utils import DataError, UserError, ZeroProbabilityWarning, as_generator, check_memory, take_rows
from ..families.numeric import dirichlet_draws
from ..generative.method_checks import check_not_private
from ..generative.tables import missing_labels
from ..inference.em import LatentClassFit
from ..inference.nb_posterior import joint_log_likelihood_parts, normalise
from . import _on_call as on_call

__all__ = ["NotLinearError", "PosteriorMixin"]


class NotLinearError(UserError, AttributeError, ValueError):
    """The model is not a linear classifier (multiclass, or a Gaussian block)."""


# ============================================================================ estimator mixin
class PosteriorMixin:
    """Full-posterior methods (exact conjugate draws, NUTS, uncertainty) shared by every estimator."""

    # ------------------------------------------------------------------ draws
    def sample_posterior(self, n_draws=1000, random_state=None):
        """Exact draws from the conjugate posterior (no MCMC needed).

        Parameters
        ----------
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        xarray.DataTree
            Group ``posterior`` with dims ``(chain=1, draw=n_draws, ...)``; variables,
            dims and coords as in :mod:`bayesnb.criticism.diagnostics` (identical to :meth:`run_mcmc`).
        """
        check_is_fitted(self, "posterior_")
        n_draws = self._check_n_draws(n_draws)
        post = self.posterior_
        t0 = time.perf_counter()
        draws = on_call.draws.sample_posterior_draws(post, n_draws, as_generator(random_state))
        secs = time.perf_counter() - t0
        draws = {k: v[None] for k, v in draws.items()}
        attrs = {"inference": "exact conjugate posterior", "sampling_seconds": secs, "estimator": self._who}
        return on_call.diagnostics.to_datatree(post, draws, attrs=attrs)

    def _check_n_draws(self, n_draws):
        if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
            raise ValueError(f"{self._who}: n_draws must be a positive integer; received {n_draws!r}.")
        return int(n_draws)

    def _check_model_args(self, n_components, likelihood):
        """Validated ``(n_components, likelihood)``; likelihood None -> the default form."""
        who = self._who
        if isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer)) or n_components < 1:
            raise ValueError(f"{who}: n_components must be a positive integer; received {n_components!r}.")
        C = int(n_components)
        if likelihood is None:
            likelihood = "suffstats" if C == 1 else "rows"
        if likelihood not in ("suffstats", "rows"):
            raise ValueError(f"{who}: likelihood must be 'suffstats' or 'rows'; received {likelihood!r}.")
        if C > 1 and likelihood != "rows":
            raise ValueError(f"{who}: n_components > 1 needs likelihood='rows' (or None): a row's component "
                             "is never observed, so the latent-class model has no sufficient statistics.")
        return C, likelihood

    def _model_data(self, X, y, C, likelihood):
        """Validate ``X, y`` (fit first if needed) -> (X, y, (spec, priors, data))."""
        who = self._who
        if not (hasattr(X, "shape") and len(X.shape) == 2):  # lists: validate like fit does
            X = check_array(X, dtype=None, ensure_all_finite=False, input_name="X")
        if y is None:
            if not hasattr(self, "posterior_"):
                raise ValueError(f"{who}: y=None (every row unlabelled) needs a fitted estimator.")
            y = np.full(X.shape[0], None, dtype=object)
        y = np.asarray(y, dtype=object if np.asarray(y).dtype.kind in "OUS" else None)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"{who}: y must be 1-D with one label per row of X ({X.shape[0]}); "
                             f"received shape {y.shape}.")
        miss = missing_labels(y, unlabeled=None)  # only missing values: -1 is a label
        lab = np.flatnonzero(~miss)
        if not hasattr(self, "posterior_"):
            if lab.size == 0:
                raise ValueError(f"{who}: run_mcmc needs labelled rows to fit the model first.")
            self.fit(take_rows(X, lab), np.asarray(list(y[lab])))
        post = self.posterior_
        on_call.numpyro_model.check_proper(post, who)
        X = self._check_X(X, reset=False)
        codes = np.full(X.shape[0], -1, dtype=np.int64)
        if lab.size:
            yl = np.asarray(list(y[lab]))
            known = np.isin(yl, post.classes)
            if not known.all():
                raise DataError(f"{who}: y has label(s) {list(np.unique(yl[~known]))[:5]} that are not in "
                                f"classes_ {list(post.classes)}.")
            codes[lab] = np.searchsorted(post.classes, yl)
        return X, y, self._numpyro_inputs(X, codes, C, likelihood)

    def _numpyro_inputs(self, X, codes, C, likelihood):
        """``(spec, priors, data)`` of the one model (:mod:`bayesnb.inference.numpyro_model`) for the
        checked rows ``X`` and their class codes (-1: unlabelled); a structure's estimator answers
        with its nodes (:func:`~bayesnb.inference.numpyro_model.structure_inputs`)."""
        post = self.posterior_
        lab, unl = np.flatnonzero(codes >= 0), np.flatnonzero(codes < 0)
        labelled = (self._encode_blocks(take_rows(X, lab), post)[0], codes[lab]) if lab.size else None
        unlabelled = self._encode_blocks(take_rows(X, unl), post)[0] if unl.size else None
        return on_call.numpyro_model.model_inputs(post, labelled, unlabelled, likelihood, n_components=C)

    def _point_sites(self, spec, priors, fit=None):
        """Site values at the plug-in of the fitted posterior, or of a :class:`LatentClassFit`
        (a chain's start, ``init="em"``); a structure's estimator takes its nodes' plug-ins."""
        return on_call.numpyro_model.point_sites(self.posterior_ if fit is None else fit.posterior, spec, priors)

    def _mcmc_tree(self, spec, samples, sample_stats, attrs):
        """The ``DataTree`` of NUTS samples, in :meth:`sample_posterior`'s layout (``component`` and
        ``w`` added for the latent-class model)."""
        return on_call.diagnostics.to_datatree(self.posterior_, on_call.nuts.mcmc_draws(spec, samples), sample_stats,
                                               attrs=attrs, n_components=spec.n_components)

    def _model_inputs(self, X, y=None, *, n_components=1, likelihood=None):
        """:func:`bayesnb.inference.numpyro_model.estimator_inputs` of this estimator."""
        C, likelihood = self._check_model_args(n_components, likelihood)
        return self._model_data(X, y, C, likelihood)[2]

    def run_mcmc(self, X, y=None, *, num_warmup=500, num_samples=1000, num_chains=1, random_state=None,
                 progress_bar=None, likelihood=None, chain_method=None, target_accept_prob=0.8,
                 n_components=1, init=None, precision="float32"):
        """Sample the posterior of the same model with NumPyro's NUTS.

        The priors (and categories) are those of the fitted estimator; if it is not
        fitted yet, it is first fitted on the labelled rows of ``X, y``. To compare with
        :meth:`sample_posterior`, pass the training data. Under a fitted structure (TAN,
        k-DB) the model is the same one NumPyro model with every feature a block on its
        contexts (class, parents' states), a row adding a feature's term when it and all
        its parents are observed (as in ``fit``); its draws have that structure's
        :meth:`sample_posterior` layout (``<param>_<feature>`` over ``(class,
        <parent>_state, ...)``).

        With ``n_components=C > 1`` the model is the latent-class model of
        :meth:`~bayesnb.generative.GenerativeMixin.fit_latent_class` (each class a
        mixture of ``C`` naive-Bayes components, component weights ``w[k] ~
        Dirichlet(1)``, every (class, component) pair with the block priors of its
        class; under a structure every (class, component, parents' states) context
        with the prior of its (class, parents' states)), the component marginalised in
        every row (see :mod:`bayesnb.inference.numpyro_model`).
        Its components are exchangeable, so their labels may switch between chains:
        compare label-invariant quantities (e.g. through
        :func:`~bayesnb.generative.latent.latent_class_draws`), not components.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are masked out of the likelihood (values unseen in fit, too).
        y : array-like of shape (n_samples,) or None
            Labels; missing labels (None, NaN, ``pd.NA``) make unlabelled rows, whose
            class is marginalised out (per-row likelihood with logsumexp); every other
            value, ``-1`` too, is a class. None: every row is unlabelled (the estimator
            must be fitted), only with ``n_components > 1`` (latent classes); for one
            component pass ``y=[None] * n_samples`` to sample every row unlabelled on purpose.
        num_warmup, num_samples, num_chains : int
        random_state : int, numpy Generator/RandomState or None
        progress_bar : bool or None, default=None
            A progress bar (tqdm, as NumPyro's, shown after 2 s) and a line on stderr
            when the sampler is being compiled. None: on when stderr is a terminal.
            Changing ``num_samples`` never recompiles (the sampler runs in fixed-size
            chunks); the compiled sampler is kept in JAX's persistent cache (see
            :func:`bayesnb.inference.nuts.default_compilation_cache`, ``BAYESNB_JAX_CACHE=0``
            turns it off).
        likelihood : {"suffstats", "rows"} or None, default=None
            Labelled rows enter through their sufficient statistics (fast) or one
            factor per row in plate ``obs`` (the same posterior, slower). None:
            ``"suffstats"``, or ``"rows"`` (the only form) when ``n_components > 1``.
        chain_method : {"sequential", "parallel", "vectorized"} or None
            None: "parallel" when ``jax.local_device_count() >= num_chains`` (call
            ``numpyro.set_host_device_count`` yourself before importing JAX), else "sequential".
        target_accept_prob : float, default=0.8
        n_components : int, default=1
            Naive-Bayes components per class; > 1 samples the latent-class model.
        init : {"uniform", "em"}, LatentClassFit or None, default=None
            Where the chains start. ``"uniform"``: uniform in (-2, 2) on NUTS's
            unconstrained scale. ``"em"``: every chain at the plug-in of an EM solution
            -- the fitted posterior for ``n_components=1``, else
            ``fit_latent_class(X, y, n_components=n_components)``, which avoids
            starting a mixture in a poor local mode. A ``LatentClassFit`` with
            ``n_components`` components: start there. None: ``"uniform"`` for one
            component, ``"em"`` for more.
        precision : {"float32", "float64"}, default="float32"
            Floating-point precision of the sampler. ``"float64"`` runs inside
            ``jax.enable_x64`` (thread-local: your global ``jax_enable_x64`` is left as
            it is), compiles its own sampler and is slower; use it when float32 is not
            enough (see the MCMC guide, docs/mcmc.md).

        Returns
        -------
        xarray.DataTree
            Groups ``posterior`` (same variables/dims/coords as :meth:`sample_posterior`;
            with ``n_components > 1`` a dim ``component`` after ``class`` and a variable
            ``w`` (class, component)) and ``sample_stats`` (``diverging``, ``tree_depth``,
            ``n_steps``, ``acceptance_rate``, ``lp``, ``energy``, ``step_size``). ``attrs``
            holds ``compile_seconds``, ``sampling_seconds``, ``cache_hit``, ``program_cache``
            (``"memory"``, ``"loaded"``, ``"stored"`` or ``"off"``: where the compiled sampler
            came from, :func:`bayesnb.inference.nuts.run_nuts`), ``likelihood``,
            ``n_components``, ``init`` and ``precision``.

        Examples
        --------
        >>> from bayesnb import CategoricalNB
        >>> from bayesnb.datasets import load_house_votes
        >>> df = load_house_votes()
        >>> X, y = df.drop(columns="party"), df["party"]
        >>> clf = CategoricalNB().fit(X, y)
        >>> dt = clf.run_mcmc(X, y, n_components=2, num_warmup=100, num_samples=100,
        ...                   random_state=0)  # doctest: +SKIP
        >>> dt["posterior"]["w"].dims  # doctest: +SKIP
        ('chain', 'draw', 'class', 'component')
        """
        who = self._who
        for name, v in (("num_warmup", num_warmup), ("num_samples", num_samples), ("num_chains", num_chains)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if name == "num_warmup" else 1):
                raise ValueError(f"{who}: {name} must be a {'non-negative' if name == 'num_warmup' else 'positive'} "
                                 f"integer; received {v!r}.")
        if precision not in ("float32", "float64"):
            raise ValueError(f"{who}: precision must be 'float32' or 'float64'; received {precision!r}.")
        check_not_private(self, "run_mcmc", "NUTS samples the posterior of the rows X, y")
        C, likelihood = self._check_model_args(n_components, likelihood)
        if y is None and C == 1:
            raise ValueError(f"{who}: run_mcmc(X) without y would sample every row as unlabelled, a mixture over "
                             "the classes with no closed form to check; pass the labels y (missing ones, None/NaN, "
                             "are marginalised), or n_components=C > 1 for the latent-class model. To sample "
                             "every row unlabelled on purpose, pass y=[None] * len(X).")
        if init is None:
            init = "uniform" if C == 1 else "em"
        if isinstance(init, LatentClassFit):
            if init.n_components != C:
                raise ValueError(f"{who}: init has {init.n_components} components; n_components is {C}.")
        elif not isinstance(init, str) or init not in ("uniform", "em"):
            raise ValueError(f"{who}: init must be 'uniform', 'em', a LatentClassFit or None; received {init!r}.")
        X, y, (spec, priors, data) = self._model_data(X, y, C, likelihood)
        rng = as_generator(random_state)
        seed = rng.integers(2**31 - 1)
        init_sites = None
        if isinstance(init, LatentClassFit):
            init_sites = self._point_sites(spec, priors, init)
        elif init == "em":
            init_sites = self._point_sites(spec, priors, None if C == 1 else
                                           self.fit_latent_class(X, y, n_components=C, random_state=rng))
        samples, extra, timing = on_call.nuts.run_nuts(spec, priors, data, num_warmup=num_warmup,
                                                       num_samples=num_samples, num_chains=num_chains,
                                                       chain_method=chain_method, seed=seed, progress_bar=progress_bar,
                                                       target_accept_prob=target_accept_prob, init_sites=init_sites,
                                                       precision=precision)
        attrs = {"inference": "NUTS (NumPyro)", "likelihood": likelihood, "estimator": who,
                 "num_warmup": int(num_warmup), "num_chains": int(num_chains), "n_components": C,
                 "init": init if isinstance(init, str) else "LatentClassFit", **timing,
                 "cache_hit": int(timing["cache_hit"]), "precision": precision}
        return self._mcmc_tree(spec, samples, on_call.nuts.sample_stats_from_extra(extra), attrs)

    # ------------------------------------------------------------------ p(y | x) uncertainty
    def _param_draws(self, n_draws, random_state):
        """Exact draws per block (family names) and of log pi: (list of dicts, (n_draws, K))."""
        post = self.posterior_
        rng = as_generator(random_state)
        if post.fixed_class_prior:
            log_pi = np.broadcast_to(post.class_log_prior, (n_draws, len(post.classes)))
        else:
            with np.errstate(divide="ignore"):
                log_pi = np.log(dirichlet_draws(post.class_concentration, n_draws, rng))
        blocks = [b.family.sample_params(b.posterior, n_draws, rng) for b in post.blocks]
        return blocks, log_pi

    def predict_proba_draws(self, X, n_draws=1000, random_state=None):
        """``p(y=k | x)`` under each of ``n_draws`` exact posterior draws of the parameters.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        ndarray of shape (n_draws, n_samples, n_classes)
            Its mean over draws is the exact posterior predictive ``predict_proba`` of
            ``predictive="marginal"`` only for single-row Multinomial/Gaussian blocks;
            for Categorical/Bernoulli blocks its mean over draws is E[p(y|x, theta)].
            :func:`bayesnb.inference.draws.credible_interval` of it is the equal-tailed interval
            (``lower, upper = credible_interval(clf.predict_proba_draws(X), ci=0.94)``).
        """
        check_is_fitted(self, "posterior_")
        n_draws = self._check_n_draws(n_draws)
        X = self._check_X(X, reset=False)
        post = self.posterior_
        check_memory(float(n_draws) * X.shape[0] * len(post.classes), f"predict_proba_draws(n_draws={n_draws})",
                     self._who)
        encoded, _ = self._encode_blocks(X, post)
        blocks, log_pi = self._param_draws(n_draws, random_state)
        out = np.empty((n_draws, X.shape[0], len(post.classes)))
        for s in range(n_draws):
            points = [b.family.posterior_from_params({k: v[s] for k, v in draws.items()})
                      for b, draws in zip(post.blocks, blocks)]
            jll, _ = joint_log_likelihood_parts(post, encoded, points=points, class_log_weights=log_pi[s])
            with warnings.catch_warnings(action="ignore", category=ZeroProbabilityWarning):
                out[s] = np.exp(normalise(jll, log_pi[s], self._who))
        return out

    # ------------------------------------------------------------------ linear-classifier view
    def _check_linear(self):
        if not hasattr(self, "posterior_"):
            raise NotFittedError(f"This {self._who} instance is not fitted yet; call fit first.")
        post = self.posterior_
        if len(post.classes) != 2:
            raise NotLinearError(f"{self._who}: coef_/intercept_ exist only for binary problems (a linear "
                                 f"log-odds); this model has {len(post.classes)} classes.")
        bad = [b.family.name for b in post.blocks if b.family.linear_names(b.names, b.state) is None]
        if bad:
            raise NotLinearError(f"{self._who}: coef_/intercept_ need Bernoulli, Multinomial or Categorical "
                                 f"blocks (log-odds linear in the features); a {bad[0]} block has none "
                                 "(Gaussian-type log-odds are quadratic).")
        return post

    def _linear(self, blocks, log_pi):
        """(coef (..., p), intercept (...)) from per-block params with leading axes."""
        post = self.posterior_
        terms = [b.family.linear_terms(p["theta"], b.state) for b, p in zip(post.blocks, blocks)]
        coef = np.concatenate([w for w, _ in terms], axis=-1)
        with np.errstate(invalid="ignore"):
            b0 = sum((t for _, t in terms), log_pi[..., 1] - log_pi[..., 0])
        undefined = np.isnan(coef).reshape(-1, coef.shape[-1]).any(axis=0)
        if undefined.any() or np.isnan(b0).any():
            names = [str(n) for n in np.asarray(self.coef_names_)[undefined][:5]]
            where = (f"the weight(s) of {names}{' ...' if undefined.sum() > 5 else ''}" if undefined.any()
                     else "the intercept")
            raise ValueError(
                f"{self._who}: the log-odds are undefined ({where}): a feature value has probability "
                "zero under both classes (alpha=0, a zero count in both), so log p(x|y=1) - log p(x|y=0) "
                "is -inf - (-inf). Use alpha > 0 to smooth.")
        return coef, b0

    @property
    def coef_names_(self):
        """Names of the ``coef_`` columns: feature names, or ``feature=value`` for categorical blocks."""
        post = self._check_linear()
        names = [n for b in post.blocks for n in b.family.linear_names(b.names, b.state)]
        return np.asarray(names, dtype=object)

    @property
    def coef_(self):
        """Log-odds weights ``log p(x|y=c1) - log p(x|y=c0)`` per feature at the posterior mean, (1, p).

        Bernoulli: ``logit theta_1j - logit theta_0j`` (the ``log(1-theta)`` terms go to
        ``intercept_``); Multinomial: ``log theta_1j - log theta_0j`` per count;
        Categorical: one weight per one-hot value (see ``coef_names_``). Binary problems with
        Bernoulli/Multinomial/Categorical blocks under the naive structure only. With complete rows,
        ``x @ coef_.T + intercept_`` is the log-odds of ``predict_joint_log_proba``.
        """
        return self._linear_mean()[0][None, :]

    @property
    def intercept_(self):
        """``log pi_1 - log pi_0`` (+ Bernoulli ``sum log(1-theta_1j) - log(1-theta_0j)``), shape (1,)."""
        return np.atleast_1d(self._linear_mean()[1])

    def _linear_mean(self):
        post = self._check_linear()
        blocks = [{"theta": b.family.posterior_moments(b.posterior)["theta"][0]} for b in post.blocks]
        return self._linear(blocks, post.class_log_prior)

    def coef_draws(self, n_draws=1000, random_state=None):
        """Exact posterior draws of the log-odds weights and intercept.

        Parameters
        ----------
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        coef : ndarray of shape (n_draws, p)
            Columns as ``coef_`` (see ``coef_names_``);
            ``credible_interval(coef)`` (:func:`bayesnb.inference.draws.credible_interval`) gives
            their equal-tailed intervals.
        intercept : ndarray of shape (n_draws,)
        """
        self._check_linear()
        n_draws = self._check_n_draws(n_draws)
        blocks, log_pi = self._param_draws(n_draws, random_state)
        return self._linear(blocks, log_pi)
