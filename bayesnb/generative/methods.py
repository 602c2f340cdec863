"""The generative methods of every bayesnb estimator (:class:`GenerativeMixin`).

Each method validates and encodes its input with the estimator, calls one function of
the posterior (:mod:`bayesnb.generative.functions`, :mod:`bayesnb.inference.em`) and
returns the result in the caller's form (:mod:`bayesnb.generative.tables`).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ..io import dask_data as _dask
from ..impute.fitted import impute_with_imputer, uses_imputer
from .._utils import as_generator, check_memory, is_frame
from ..inference import em
from ..inference.em import allowed_states
from .method_checks import (check_dask_impute, check_not_private, check_prior_flag, check_prior_options, declared_bounds,
                            sample_request)
from .conditional import check_known_values, sample_given
from .conditions import has_constraints
from .constrained import constrained_sample
from .functions import feature_contributions, impute_cells, sample_rows, score_rows
from .given import encode_given, write_given
from . import _lazy as lazy
from .semi_supervised import SemiSupervisedMixin
from .support import blank_impossible, impossible_cells, impossible_rows
from .tables import assemble_table, check_impute_options, label_codes, mask_cells, missing_cells
from .values import complete, median_draws

__all__ = ["GenerativeMixin"]


class GenerativeMixin(SemiSupervisedMixin):
    """Generative methods shared by every bayesnb estimator.

    Sampling and imputation return data in the form the estimator was given: a
    DataFrame with the same columns, dtypes and categories (for :meth:`sample`, those of
    the training frame, recorded in ``feature_dtypes_``, wherever the values fit them), a
    NumPy array, or for :meth:`impute` a sparse matrix.
    """

    # ------------------------------------------------------------- internal helpers
    def _gen_model(self, latent=None):
        """``(posterior, class of each state, point)``: the estimator's, or a latent-class model's."""
        check_is_fitted(self, "posterior_")
        if latent is None:
            return self.posterior_, np.arange(len(self.classes_)), False
        return lazy.latent.check_latent(self.posterior_, latent, len(self.classes_), self._who)

    def _gen_encode(self, X):
        X = self._check_X(X, reset=False)
        encoded, _ = self._encode_blocks(X, self.posterior_)
        return X, encoded

    def _latent_start(self, X, y_codes):
        """Encoded rows (validated ``X``) and the starting class weights of latent-class EM."""
        encoded, _ = self._encode_blocks(X, self.posterior_)
        class_part = np.zeros((X.shape[0], len(self.classes_)))
        known = y_codes >= 0
        class_part[known, y_codes[known]] = 1.0
        if (~known).any():
            class_part[~known] = self.predict_proba(X[~known] if not is_frame(X) else X.iloc[np.flatnonzero(~known)])
        return encoded, class_part

    def _gen_rows(self, n_samples, y, rng, length, latent=None, given=None, **options):
        """Validate ``n_samples`` / ``y`` / ``given``, sample (:func:`sample_rows`, :func:`sample_given`), assemble."""
        post, group, point = self._gen_model(latent)
        if point:  # one MCMC draw: its parameters are used as they are
            options["parameter_uncertainty"] = False
        d, names = int(self.n_features_in_), getattr(self, "feature_names_in_", None)
        n, z, values, labels = sample_request(self.classes_, n_samples, y, given, d, names, self._who)
        # a dense column per feature (a sparse block's rows hold its non-zeros: one column is the floor)
        dense = sum(1 if b.family.accepts_sparse else len(b.names) for b in post.blocks)
        check_memory(float(n) * (dense + 1), f"sample(n_samples={n})", self._who)
        if given is None:
            columns, z = sample_rows(post, n, d, rng=rng, z=z, group=None if latent is None else group,
                                     length=length, who=self._who, stacklevel=4, bounds=declared_bounds(self),
                                     **options)
        else:
            encoded = encode_given(self._gen_encode, values, labels, n, names, d, self._who)
            check_known_values(post, encoded, {j: v.to_numpy(dtype=object) for j, v in values.items()}, self._who)
            columns, z, _ = sample_given(post, encoded, d, rng=rng, allowed=None if z is None else allowed_states(
                group, z), length=length, who=self._who, stacklevel=4, bounds=declared_bounds(self), **options)
            columns = write_given(columns, values)
        X = assemble_table(post, columns, z.shape[0], names, getattr(self, "feature_dtypes_", None),
                           sparse=getattr(self, "_fitted_sparse", False))
        return X, self.classes_[group[z]]

    # ------------------------------------------------------------------ sampling
    def sample(self, n_samples=1, *, y=None, random_state=None, parameter_uncertainty=True, length=None,
               latent=None, given=None, forbid=None, return_probability=False, prior=False):
        """Draw synthetic rows ``(x, y)`` from the posterior predictive (or, ``prior=True``, the prior predictive).

        Ancestral sampling: a class from the class proportions, then every feature
        from its class-conditional distribution. A categorical feature with no known
        category (missing in every training row, none declared) is sampled as missing
        (None), with an :class:`~bayesnb.AllMissingWarning`.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows (ignored when ``y`` is an array).
        y : label, array-like of shape (n_samples,) or set, optional
            Draw the features for these classes instead of drawing the classes; a ``set`` of
            labels: each row's class drawn among them (with the condition, exactly).
        random_state : None, int, numpy Generator or RandomState
        parameter_uncertainty : bool, default=True
            True: one exact draw of all parameters from the posterior, shared by the rows
            of this call (a replicated dataset); the rows' marginal distribution is the
            exact posterior predictive. False: the posterior-mean plug-in.
        length : int or array-like of int, optional
            Number of tokens of each row of a multinomial block. Default: drawn from
            ``Poisson(rate_k)``, the per-class mean training length (see module docs).
        latent : LatentClassFit, optional
            Sample from a latent-class model of this estimator (:meth:`fit_latent_class`,
            or one MCMC draw from :func:`~bayesnb.generative.latent.latent_class_draws`, whose parameters are used as
            they are): a (class, component) state, then every feature given it, so the
            dependence between features that the components capture is kept. With ``y``,
            each row's component is drawn among its class's.
        given : dict or DataFrame, optional
            Conditional sampling: draw from ``p(x_rest, y | x_given)``. A dict
            ``{column: value or values}`` (columns by name when fitted on a DataFrame,
            else by position), or a DataFrame holding some of the columns; a scalar is
            used for every row, array-like values (one per row) set the number of rows
            (``n_samples`` must then be 1 or their length). A missing value (None, NaN,
            ``pd.NA``) leaves that cell unconditioned. Under one set of parameters (the
            call's draw, or the plug-in) each row's class (or latent state) is drawn from
            ``p(k | x_given)`` (missing cells marginalised; with ``y``, the class is
            fixed and, with ``latent``, the component is drawn given both), the other
            cells from ``p(x | k)``, and the given values are written in as given. The
            given values are encoded as :meth:`predict` encodes them, so a value the
            column cannot hold is an error naming it, and so is a category never seen in
            training (nor declared). The columns of a multinomial block are one joint
            draw: give all of them or none. With ``parameter_uncertainty=True`` the
            shared draw is not updated by the given values, so one row's class
            frequency over calls is ``E[p(k | x_given, theta)]`` over the posterior, which
            differs from :meth:`predict_proba`'s exact ``p(k | x_given)`` by a term that
            shrinks as the training set grows. Besides values, a dict may hold a ``set``
            (``frozenset``) of values for a categorical column (one of them) and a tuple
            ``(low, high)`` for a numeric one (inclusive, None for an open end); a tuple is
            always a range. Those cells are drawn exactly from their law in the row's state
            renormalised on the set or truncated to the range, each state weighted by the
            condition's probability in it (:mod:`bayesnb.generative.constrained`), never by rejection.
        forbid : list of dict, optional
            Combinations no row may hold: ``[{column: value, set or (low, high), ...}, ...]``;
            a row meeting every entry of one dict is forbidden. Exact: the allowed region is split
            into disjoint pieces (:mod:`bayesnb.generative.conditions`, at most ``MAX_PIECES``),
            each weighted by its probability. A condition of probability 0 is a ``ValueError``.
        return_probability : bool, default=False
            Also return ``p``, the probability of the condition (given cells and ``forbid``)
            under the posterior predictive of one row (``p(condition | y)`` with ``y``; a density
            in numeric cells given as values): a float, or one per row when ``given`` holds
            per-row values.
        prior : bool, default=False
            Draw from the prior predictive instead (prior predictive checks): one draw of every
            parameter from its (resolved) prior, shared by the rows, then ancestral sampling as
            above. ``"auto"`` priors are the values resolved at fit; document lengths use the
            training mean lengths unless ``length`` is given. Takes only ``n_samples``, ``y``,
            ``random_state`` and ``length`` (a ``ValueError`` names any other option set, and an
            improper prior). Replaces ``sample_prior_predictive`` (0.1).

        Returns
        -------
        X : ndarray, CSR matrix or DataFrame of shape (n_samples, n_features)
            A CSR matrix when the model was fitted on a sparse matrix (counts kept
            sparse: memory follows the non-zeros). A DataFrame with the training columns when the model was fitted on one, in
            the training dtypes (``feature_dtypes_``: integer counts, bool/0-1, the same
            ``CategoricalDtype``...) wherever the values fit them exactly; Gaussian draws
            of an integer column stay float.
            With ``given``, the given cells hold the given values (in the column's dtype). A
            dask DataFrame ``given`` gives a lazy dask DataFrame (and a dask array ``y``): one
            draw per given row, each partition sampled with its own random stream.
        y : ndarray of shape (n_samples,)
        p : float or ndarray of shape (n_samples,)
            Only with ``return_probability=True``.
        """
        if check_prior_flag(self._who, prior):
            check_prior_options(self._who, parameter_uncertainty, {"latent": latent, "given": given, "forbid": forbid,
                                                                   "return_probability": return_probability})
            return self._sample_prior(n_samples, y=y, random_state=random_state, length=length)
        if forbid is not None or return_probability or has_constraints(given) or isinstance(y, (set, frozenset)):
            return constrained_sample(self, n_samples, y, given, forbid, as_generator(random_state), length=length,
                                      latent=latent, parameter_uncertainty=parameter_uncertainty,
                                      return_probability=return_probability)
        if _dask.is_dask(given):  # one draw per given row, partition by partition, lazily
            return _dask.sample_given(self, given, n_samples=n_samples, y=y, random_state=random_state, who=self._who,
                                      parameter_uncertainty=parameter_uncertainty, length=length, latent=latent)
        rng = as_generator(random_state)
        return self._gen_rows(n_samples, y, rng, length, latent, given, parameter_uncertainty=parameter_uncertainty)

    def _sample_prior(self, n_samples=1, *, y=None, random_state=None, length=None):
        """``sample(prior=True)``: rows from the prior predictive (options already checked)."""
        rng = as_generator(random_state)
        return self._gen_rows(n_samples, y, rng, length, use_prior=True)

    # ---------------------------------------------------------------- imputation
    def impute(self, X, *, strategy="auto", n_imputations=1, random_state=None, parameter_uncertainty=True,
               y=None, n_components=1, latent=None):
        """Fill missing cells from ``p(x_miss | x_obs) = sum_y p(y | x_obs) p(x_miss | y)``.

        A model fitted for imputation (``NaiveBayes().fit(X, y, impute=True)``, ``bayesnb fit
        --for-imputation``) fills with the imputer it fitted (``imputer_``, the one
        :func:`bayesnb.impute_table` fits: per column the configuration among naive Bayes, the
        latent-class model, TAN and a multivariate normal that imputes hidden observed cells best)
        whenever ``strategy`` is ``"auto"`` or ``"draw"`` and none of ``latent``, ``n_components`` and
        ``parameter_uncertainty=False`` is asked for: then this method returns
        ``imputer_.impute(X, y, strategy=..., n_imputations=..., random_state=...)`` (``y`` used only
        when the imputer was fitted with ``label_given=True``; otherwise a warning says it is not).
        Any other model imputes with *this fitted model* (the weaker imputer on a table with
        dependent columns): use it to impute with a given model (fitted on other rows, loaded from
        a file) or a latent-class or MCMC fit (``latent=``). Observed cells are never changed. A categorical feature missing in every training
        row has its prior as posterior: over its declared categories (``categories=``,
        ``min_categories``) when there are some; with none it has nothing to draw from and
        its cells stay missing (None), with an :class:`~bayesnb.AllMissingWarning`. A row
        impossible under every class (only with ``alpha=0``) uses the class prior for
        ``p(y | x_obs)``, with a :class:`ZeroProbabilityWarning`, as :meth:`predict_proba`
        does.

        Under a structure other than naive (``structure=`` of CategoricalNB and NaiveBayes):
        ``p(x_miss | x_obs) = sum_k p(k | x_obs) p(x_miss | x_obs, k)``, exact on the structure (the
        parents are not dropped; :mod:`bayesnb.structure.exact_impute`). A categorical cell gets the
        mode of its marginal posterior (``"auto"``, ``"mode"``, ``"mean"``: unordered categories
        have no mean); a numeric cell its posterior-predictive mean (``"auto"``, ``"mean"``), a
        mixture over the class and the missing parents' and own bins of truncated Normal (Student-t
        for ``predictive="marginal"``) means, or with ``"mode"`` the highest-density point among
        those pieces' modes. ``"draw"`` draws the class and every missing cell of a row jointly from
        ``p(y, x_miss | x_obs)``. ``latent`` and ``n_components`` then give the latent-class model
        of the structure (its (class, component) states and the structure inside each component).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        strategy : {"auto", "mode", "mean", "draw"}, default="auto"
            ``"auto"``: each family's best point estimate (its ``default_fill``: the
            posterior-predictive mean of numeric families, the mode of categorical, Bernoulli and
            Multinomial cells), kept on the values the column takes: in a coded or whole-number
            column the value nearest the mean, in a column whose point masses hold at least half
            of its cells (the zeros of a zero-inflated column; or one value of more than two in a
            coded column) the conditional median (:mod:`bayesnb.generative.values`).
            ``"mode"``: most probable value of each cell's conditional distribution (the highest
            mixture density among the class means for Gaussian; the floor of the mean for counts),
            and ``"draw"``: draws (multiple imputation), both moved to the nearest value the column
            takes. ``"mean"``: the conditional mean as it is (a probability for Bernoulli cells, the
            mode for unordered categories). Under naive Bayes with ``y`` given, a point fill depends
            on the label only (the features are independent given the class): use draws, a
            structure or :func:`bayesnb.impute_table` for fills that vary with the observed cells.
            Every strategy keeps zero links (``zero_links_``: a column 0 wherever another is 0).
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
            :func:`~bayesnb.generative.latent.latent_class_draws`) to use (overrides ``n_components``).

        Returns
        -------
        X_imputed : same type as X, or a list of ``n_imputations`` of them
        """
        return self._impute_naive(X, strategy=strategy, n_imputations=n_imputations, random_state=random_state,
                                  parameter_uncertainty=parameter_uncertainty, y=y, n_components=n_components,
                                  latent=latent, stacklevel=4)

    def _impute_naive(self, X, *, strategy, n_imputations, random_state, parameter_uncertainty, y, n_components,
                      latent, stacklevel):
        """The body of :meth:`impute`, its front door with or without a structure (``imputer_``, Dask, then
        :meth:`_impute`, which a structured estimator overrides); ``stacklevel``: the user's frame counted from
        the :meth:`_impute` this calls, as for :func:`warnings.warn` (from :meth:`impute`: 4, ``_impute``,
        this, ``impute``, the user)."""
        m = check_impute_options(strategy, n_imputations, self._who)
        if uses_imputer(self, strategy, n_components, latent, parameter_uncertainty):  # fit(..., impute=)
            return impute_with_imputer(self, X, y, strategy, m, random_state)
        if _dask.is_dask(X):  # lazy, partition by partition (one completed table: no size guard needed)
            check_dask_impute(strategy, y, latent, n_components, self._who)
            check_is_fitted(self, "posterior_")
            return _dask.map_rows(lambda part: self.impute(part, strategy=strategy), X, "same", who=self._who)
        return self._impute(X, strategy=strategy, n_imputations=m, random_state=random_state,
                            parameter_uncertainty=parameter_uncertainty, y=y, n_components=n_components, latent=latent,
                            stacklevel=stacklevel)

    def _impute(self, X, *, strategy, n_imputations, random_state, parameter_uncertainty, y, n_components, latent,
                median_cells=None, stacklevel=2):
        """:meth:`impute` of a pandas/NumPy table (options checked), with ``median_cells``: a bool (n, d) mask
        of the missing cells whose conditional median ``"auto"`` computes (None: every one); a median-filled
        column's other missing cells get the projected mean (:func:`~bayesnb.generative.values.keep_cells`).
        ``stacklevel``: where its warnings point, as for :func:`warnings.warn` called here (2: the caller)."""
        m = n_imputations
        check_memory(float(m) * np.prod(np.shape(X)), f"impute(n_imputations={m})", self._who)
        rng = as_generator(random_state)
        if latent is None and (n_components == "auto" or int(n_components) > 1):
            latent = self.fit_latent_class(X, y, n_components=n_components, random_state=rng)
        post, group, point = self._gen_model(latent)
        X, encoded = self._gen_encode(X)
        allowed = None if y is None else allowed_states(group, label_codes(self.classes_, y, X.shape[0], self._who))
        draws = median_draws(self, X, y, latent)  # "auto"'s conditional medians (generative.values)
        outs = [complete(self, X, cells, strategy, draws, median_cells) for cells in impute_cells(
            post, encoded, strategy=strategy, n_imputations=m, rng=rng, allowed=allowed, who=self._who,
            parameter_uncertainty=parameter_uncertainty and not point, stacklevel=stacklevel + 1,
            bounds=declared_bounds(self))]
        return outs[0] if m == 1 else outs

    # -------------------------------------------------------------- latent class
    def fit_latent_class(self, X, y=None, *, n_components=2, candidates=(1, 2, 3, 4, 6, 8), holdout=0.1,
                         n_init=3, tol=1e-6, max_iter=200, random_state=None, verbose=None,
                         component_prior="class", search_n_init=None, search_tol=None):
        """Fit a latent-class model on ``X``: each class a mixture of naive-Bayes components.

        The latent states are (class, component) pairs; every state has the estimator's
        blocks with the priors resolved at fit, the state weights a symmetric Dirichlet(1)
        prior. EM with the closed-form conjugate M-step (MAP, posterior-mean form) from
        ``n_init`` random starts (the class part initialised from ``y`` or from the
        fitted classifier's ``predict_proba``); the best final objective wins. Under a structure
        other than naive (TAN, k-DB) each component has the structure, every feature's contexts
        being (state, parents' states) with its class's prior; the fit's ``structure`` holds that
        model (:mod:`bayesnb.structure.structured_em`).

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
            While the largest count tried scores best, the search widens (12, 16, 24,
            32, ...) up to ``n_rows // (10 * n_classes)`` components per class; if the cap
            still scores best, a :class:`~bayesnb.SearchEdgeWarning` says so. Every
            count tried and its score are in the fit's ``selection``.
        verbose : bool or None, default=None
            A progress bar over the counts tried by ``"auto"`` (None: :func:`bayesnb.set_progress`,
            by default shown after 2 s on a terminal or in Jupyter).
        component_prior : {"class", "hierarchical"}, default="class"
            ``"class"``: each component has its class's prior (fixed). ``"hierarchical"``: after EM
            each component's Dirichlet is centred on its class's estimate, the concentration per
            feature fitted by evidence, and the state weights' prior is Dirichlet(1/C) (naive
            structure only; :func:`bayesnb.inference.em.fit_latent_class`, docs/synthetic.md
            "Hierarchical component priors").
        search_n_init : int or None, default=None
            Random starts of each count's fit in the ``"auto"`` search (None: ``n_init``); the
            final fit at the chosen count always uses ``n_init``. One start per count makes the
            search about ``n_init`` times cheaper, at the cost of a noisier score per count.
        search_tol : float or None, default=None
            The EM tolerance of each count's fit in the ``"auto"`` search (None: ``tol``); the final fit
            at the chosen count always uses ``tol``. A number in (0, 1). A looser tolerance stops each
            count's EM earlier and moves its held-out score a little; it can change the count chosen
            when two counts score within that. (On the census table, ``1e-5`` against ``1e-6``: about
            half the iterations, scores moved by a few nats against gaps of tens, the same counts;
            docs/benchmarks.md.)

        Returns
        -------
        LatentClassFit
        """
        check_not_private(self, "fit_latent_class", "it fits its components by EM")
        if search_n_init is not None and not (isinstance(search_n_init, numbers.Integral)
                                              and not isinstance(search_n_init, bool) and search_n_init >= 1):
            raise ValueError(f"{self._who}: search_n_init must be None or a whole number >= 1; "
                             f"received {search_n_init!r}.")
        if search_tol is not None and not (isinstance(search_tol, numbers.Real) and not isinstance(search_tol, bool)
                                           and 0 < search_tol < 1):
            raise ValueError(f"{self._who}: search_tol must be None or a number in (0, 1); received {search_tol!r}.")
        rng = as_generator(random_state)
        self._gen_model()
        X = self._check_X(X, reset=False)
        n = X.shape[0]
        y_codes = np.full(n, -1, dtype=np.int64) if y is None else label_codes(self.classes_, y, n, self._who)
        opts = {"n_init": n_init, "tol": tol, "max_iter": max_iter, "rng": rng}
        em.component_contexts(component_prior, 1, 2)  # checked before any work

        def latent_em(*args, **kw):
            return self._latent_em(*args, component_prior=component_prior, **kw)

        if isinstance(n_components, str):
            if n_components != "auto":
                raise ValueError(f"{self._who}: n_components must be an int >= 1 or 'auto'.")
            if sp.issparse(X):
                raise TypeError(f"{self._who}: n_components='auto' needs dense X.")
            full, _ = self._encode_blocks(X, self.posterior_)
            rows, cols = em.holdout_cells(self.posterior_, ~missing_cells(self.posterior_, full, X.shape), holdout, rng)
            train = self._latent_start(mask_cells(X, rows, cols), y_codes)
            cap = max(1, n // (10 * len(self.classes_)))
            search = {**opts, "n_init": n_init if search_n_init is None else int(search_n_init),
                      "tol": tol if search_tol is None else float(search_tol)}
            scores = em.search_components(self.posterior_, train, full, y_codes, np.unique(rows), candidates, cap,
                                          who=self._who, stacklevel=3, fit=latent_em,
                                          log_px=self._latent_log_px, verbose=verbose, **search)
            fit = latent_em(*self._latent_start(X, y_codes), y_codes, max(scores, key=scores.get), **opts)
            return fit._replace(selection=scores)
        C = int(n_components)
        if C < 1:
            raise ValueError(f"{self._who}: n_components must be >= 1; received {n_components!r}.")
        return latent_em(*self._latent_start(X, y_codes), y_codes, C, **opts)

    def _latent_em(self, encoded, class_part, y_codes, n_components, **opts):
        """The EM of :meth:`fit_latent_class` (:func:`bayesnb.inference.em.fit_latent_class` on the naive
        posterior; a structure overrides it): a ``LatentClassFit``."""
        return em.fit_latent_class(self.posterior_, encoded, class_part, y_codes, n_components, **opts)

    def _latent_log_px(self, fit, encoded, y_codes):
        """``log p(x)`` per encoded row under a :meth:`_latent_em` fit (labelled rows within their class)."""
        return em.latent_log_px(fit, encoded, y_codes)

    def _latent_class_draws(self, idata, *, n_draws=None, random_state=None):
        """:func:`~bayesnb.generative.latent.latent_class_draws` of this estimator."""
        base, _, _ = self._gen_model()
        return lazy.latent.latent_fits_from_draws(base, idata, n_draws, random_state, self._who)

    # ------------------------------------------------------------------- scoring
    def score_samples(self, X, *, latent=None):
        """``log p(x)`` of each row under the posterior predictive (higher = more typical).

        ``logsumexp`` over classes of ``log p(x, y=k)`` (:meth:`predict_joint_log_proba` for
        every estimator but :class:`~bayesnb.ComplementNB`, whose predict scores are
        complement weights and whose ``log p(x, y=k)`` is the multinomial's); missing cells are
        marginalised (their factors drop out). A row with a cell outside its family's support
        (a negative count under Poisson, ...) is ``-inf``, which ``predict`` refuses. Uses the
        estimator's ``predictive``.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        latent : LatentClassFit, optional
            Score under this latent-class model instead (``logsumexp`` over its
            (class, component) states, at its plug-in parameters): from
            :meth:`fit_latent_class`, or one MCMC draw from :func:`~bayesnb.generative.latent.latent_class_draws`
            (average ``exp`` of the scores over draws for the posterior predictive).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        if _dask.is_dask(X):
            check_is_fitted(self, "posterior_")
            return _dask.map_rows(lambda part: self.score_samples(part, latent=latent), X, "vector", who=self._who)
        X, bad = blank_impossible(self, X)  # a cell outside its family's support: the row is -inf
        post, _, _ = self._gen_model(latent)
        _, encoded = self._gen_encode(X)
        if latent is None:  # the generative model's joint (ComplementNB's predict* scores are not one)
            return impossible_rows(score_rows(post, encoded, predictive=self._check_predictive(), caches=self._caches), bad)
        return impossible_rows(score_rows(post, encoded, plug_in=True), bad)

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
        post, _, _ = self._gen_model()
        X, bad = blank_impossible(self, X)  # a cell outside its family's support is -inf
        _, encoded = self._gen_encode(X)
        out, term = feature_contributions(post, encoded, int(self.n_features_in_), predictive=self._check_predictive(),
                                          caches=self._caches, who=self._who, stacklevel=3)
        out = impossible_cells(out, bad, X)
        return (out, term) if return_class_term else out
