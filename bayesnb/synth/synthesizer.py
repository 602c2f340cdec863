"""``Synthesizer``: one entry point for synthetic tables, the model chosen by evidence.

``Synthesizer(target=None).fit(df).sample(n)`` fits a :class:`~bayesnb.NaiveBayes` to a table
and draws rows with its columns, in their order and dtypes. The structure is chosen by
closed-form evidence (``structure="auto"``); a latent-class model, an edge score and k-DB's
``k``, which have no comparable evidence, by mean held-out ``log p(x, y)`` on one stratified
split; the winner is refitted on every row. Missing cells are modelled by indicator nodes
(:mod:`bayesnb.synth.missing_nodes`), sampling keeps the observed support
(:mod:`bayesnb.synth.observed_support`), and the latent search stops early
(:mod:`bayesnb.synth.search`). See docs/synthetic.md, "`Synthesizer`: one entry point".
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..io.synthesizer_file import record_target, synth_from_file, synth_from_model, synth_to_file
from .._progress import progress
from .given_rows import as_dtype, from_seconds, model_conditions, to_seconds
from .params import check_params
from .observed_range import sample_model_in_range
from .missing_nodes import add_indicators, blank_missing, forbidden_pairs, indicator_names
from .private_synth import fit_private, private_draws, private_inputs, whole_conditions
from .search import Z_BEHIND, add_rows, choose_edges, edge_name, holdout_rows, latent_search, variant, widen_k
from .._utils import DataError, as_generator, one_class_on_purpose
from ..estimators import NaiveBayes
from ..structure.select import variant_label
from ..io.persistence import load, register_composite, save

__all__ = ["Synthesizer"]

_WHO = "Synthesizer"
#: the columns of ``Synthesizer.selection_``
_SELECTION = ["candidate", "log_evidence", "cv_log_loss", "holdout_loglik", "chosen", "note"]


class Synthesizer(BaseEstimator):
    """Synthetic rows of a table from the generative model its evidence chooses.

    See the module docstring for how the model is chosen.

    Parameters
    ----------
    target : str, optional
        The class column: it is the model's class variable and is sampled too, in its place
        among the columns. Every row must have a label. None: the table has one class.
    structure : {"auto", "naive", "tan", "kdb"}, default="auto"
        Passed to :class:`~bayesnb.NaiveBayes` (``"auto"``: chosen by evidence with a CV guard).
    latent : "auto", int or None, default="auto"
        ``"auto"``: also consider a latent-class model (naive components, their number chosen
        among ``latent_candidates``), kept when its held-out likelihood beats the structure's.
        An int: always use the latent-class model with that many components per class
        (``structure`` is then not used). None: no latent-class model.
    latent_candidates : sequence of int, default=(1, 2, 3, 4, 6, 8)
        Component counts the latent-class search compares (``fit_latent_class(candidates=)``;
        while the largest scores best the search widens, up to ``n_rows // (10 * n_classes)``).
    holdout : float, default=0.2
        Share of the rows held out to compare the latent-class model with the structure.
    search_rows : int, default=5000
        The component search runs on at most this many training rows (a random subsample);
        the chosen count is then fitted on every row.
    random_state : None, int or numpy Generator
        Seeds the split and the EM starts (``fit``).
    verbose : bool or None
        A progress bar over the fitting steps (None: :func:`bayesnb.set_progress`).
    missing : {"model", "drop"} or None, default="model"
        ``"model"``: a missing-indicator node per column with missing cells (module docstring),
        so samples have missing cells where the model draws them. ``"drop"`` or None: no
        indicator; samples have no missing cell.
    component_prior : {"hierarchical", "class"}, default="hierarchical"
        The latent-class components' prior (:meth:`~bayesnb.NaiveBayes.fit_latent_class`): each
        component's tables centred on its class's estimate with concentrations fitted by evidence
        (rare values, e.g. missing cells, keep their rates; docs/synthetic.md "Hierarchical
        component priors"), or ``"class"``: the class's prior in every component.
    support : {"observed", "smoothed", "backoff"}, default="observed"
        ``"observed"``: :meth:`sample` draws categorical cells (and numeric bins) from each context's
        counts (a context: a class, or a class and the parents' values) where it has rows, else from
        its prior (the hierarchy's back-off) (:mod:`bayesnb.synth.observed_support`; fewer rows with category
        pairs the real table never holds). ``"smoothed"``: the posterior predictive as fitted.
        ``"backoff"``: as observed, but a context with fewer rows than its prior's strength draws its
        posterior predictive on the values seen with its class and each parent's state
        (:mod:`bayesnb.synth.backoff`; rows less close to the training rows). A latent-class model
        samples its components as fitted either way; the choice of model does not depend on it.
    numeric : {"histogram", "auto"}, default="histogram"
        The family of each numeric column (:class:`~bayesnb.NaiveBayes`'s ``features``):
        ``"histogram"``, a Histogram whose bins and smoothing the evidence chooses, which draws the
        training values within each bin (the column's empirical distribution within its bins); ``"auto"``,
        the family the evidence chooses among parametric ones (LogNormal, Hurdle, Poisson, Gaussian)
        and the Histograms. A parametric family can win the evidence and still misfit the column's
        shape, which a two-sample test of the rows then finds (docs/synthetic.md "Numeric columns").
        Not used with ``privacy`` (the declared ``categories`` give the families).
    privacy : bayesnb.DP, optional
        Fit under differential privacy: one private :class:`~bayesnb.NaiveBayes`, nothing read from
        the raw rows besides its noisy release (:mod:`bayesnb.synth.private_synth`; docs/privacy.md).
    categories : dict, optional
        With ``privacy``: ``{column: [values, ...]}`` declared categories; ``{column: B or "gaussian"}`` (bins).

    Attributes
    ----------
    model_ : NaiveBayes
        The chosen model, fitted on every row.
    latent_ : LatentClassFit or None
        The chosen latent-class model of ``model_`` (None when the choice is not one).
    chosen_ : str
        Name of the chosen candidate, a value of ``selection_["candidate"]``.
    selection_ : DataFrame
        One row per candidate: ``candidate``, ``log_evidence`` (closed form, step 1),
        ``cv_log_loss`` (step 1's CV guard), ``holdout_loglik`` (mean held-out ``log p(x, y)``,
        step 2; NaN where not computed), ``chosen``, ``note`` (the latent row: why its search
        stopped, and whether it was refitted).
    latent_search_ : DataFrame
        Set when a latent-class model was searched (``latent="auto"``): one row per component
        count tried, ``n_components``, ``cell_score`` (the search's held-out cell score, which
        picks the count), ``holdout_loglik`` (mean held-out ``log p(x, y)`` at the search size),
        ``gap`` and ``se`` (paired difference to the structure fitted on the same rows, and its
        standard error).
    columns_ : list
        The training columns, in order.
    dtypes_ : Series
        Their dtypes.
    datetime_columns_ : list
        The datetime columns, modelled as seconds since 1970-01-01 UTC.
    missing_indicators_ : dict
        ``{column: indicator column}`` of the columns with a missing-indicator node (empty when
        no cell is missing or ``missing`` is not ``"model"``); the indicators are features of
        ``model_`` (``model_.structure_`` shows their parents) and are not in the samples.
    privacy_spent_ : dict
        With ``privacy``: ``model_.privacy_spent_``, the budget spent.

    Examples
    --------
    >>> from bayesnb import Synthesizer
    >>> from bayesnb.datasets import load_penguins
    >>> penguins = load_penguins()
    >>> synth = Synthesizer(target="species", latent=None, random_state=0).fit(penguins)
    >>> rows = synth.sample(5, random_state=0)
    >>> list(rows.columns) == list(penguins.columns)
    True
    """

    def __init__(self, target=None, *, structure="auto", latent="auto", latent_candidates=(1, 2, 3, 4, 6, 8),
                 holdout=0.2, search_rows=5000, random_state=None, verbose=None, missing="model",
                 component_prior="hierarchical", support="observed", privacy=None, categories=None,
                 numeric="histogram"):
        self.target = target
        self.structure = structure
        self.latent = latent
        self.latent_candidates = latent_candidates
        self.holdout = holdout
        self.search_rows = search_rows
        self.random_state = random_state
        self.verbose = verbose
        self.missing = missing
        self.component_prior = component_prior
        self.support, self.privacy, self.categories, self.numeric = support, privacy, categories, numeric

    def _split_table(self, data):
        """``(X, labels)``: the feature columns and the labels (zeros without a target)."""
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"{_WHO}: data must be a pandas DataFrame (one column per variable); "
                            f"received {type(data).__name__}.")
        if data.shape[0] < 2:
            raise DataError(f"{_WHO}: data must have at least 2 rows; received {data.shape[0]}.")
        if self.target is None:
            return data, np.zeros(data.shape[0], dtype=np.int64)
        if self.target not in data.columns:
            raise ValueError(f"{_WHO}: target {self.target!r} is not a column of data; columns: "
                             f"{list(data.columns)}.")
        labels = data[self.target]
        if labels.isna().any():
            raise ValueError(f"{_WHO}: the target column {self.target!r} has {int(labels.isna().sum())} missing "
                             "label(s); leave those rows out, or pass target=None to model the column like any other.")
        X = data.drop(columns=self.target)
        if X.shape[1] == 0:
            raise ValueError(f"{_WHO}: data has no column besides the target {self.target!r}.")
        return X, labels.to_numpy()

    # --------------------------------------------------------------------- fit
    def fit(self, data, y=None):
        """Choose and fit the model on ``data`` (see the module docstring).

        Parameters
        ----------
        data : DataFrame of shape (n_samples, n_columns)
            The real table (the target column among its columns, if any); missing cells allowed
            in the other columns.
        y : None
            Ignored (the target is a column of ``data``).

        Returns
        -------
        self
        """
        with one_class_on_purpose():  # without a target (or with one class) every row is one class
            return self._fit_table(data)

    def _fit_table(self, data):
        check_params(self)
        if self.privacy is not None:
            return fit_private(self, data, self._split_table)
        X, labels = self._split_table(data)
        self.datetime_columns_ = [c for c in X.columns if pd.api.types.is_datetime64_any_dtype(X[c].dtype)]
        self.missing_indicators_ = indicator_names(X) if self.missing == "model" else {}
        X = self._as_model_table(X)  # one table for every candidate
        self._model_columns = list(X.columns)
        self._forbidden = forbidden_pairs(self._model_columns, self.missing_indicators_)
        rng = as_generator(self.random_state)
        fixed = self.latent is not None and not isinstance(self.latent, str)
        steps = 1 if fixed else (3 if self.latent is None else 5)
        with progress(total=steps, desc=f"{_WHO}.fit", verbose=self.verbose, unit="step") as bar:
            if fixed:
                self._fit_latent(X, labels, int(self.latent), rng)
                row = {"candidate": self.chosen_, "log_evidence": np.nan, "cv_log_loss": np.nan,
                       "holdout_loglik": np.nan, "chosen": True}
                self.selection_ = pd.DataFrame([row], columns=_SELECTION)
                bar.update()
            else:
                self._fit_choice(X, labels, rng, bar)
        self.columns_ = list(data.columns)
        self.dtypes_ = data.dtypes.copy()
        return self

    def _as_model_table(self, X):
        """The feature columns ``X`` as the model sees them: datetimes as seconds, missing indicators added."""
        if getattr(self, "datetime_columns_", []):  # modelled as numbers: seconds since 1970-01-01 (UTC)
            X = X.copy()
            for c in self.datetime_columns_:
                X[c] = to_seconds(X[c])
        X = private_inputs(self.model_, X, self.dtypes_) if self.privacy is not None else X
        return add_indicators(X, self.missing_indicators_)

    def model_table(self, data):
        """``(X, y)``: rows of the training table as :attr:`model_` sees them, e.g. to score them.

        Parameters
        ----------
        data : DataFrame
            Rows with the training columns (the target's labels known, when there is a target).

        Returns
        -------
        X : DataFrame
            The feature columns with datetimes as seconds and the missing indicators
            (:attr:`missing_indicators_`) added: ``model_.predict_joint_log_proba(X)`` scores
            ``log p(x, m, y)``, the missing cells marginalised and their indicators scored.
        y : ndarray
            The labels (zeros without a target).
        """
        check_is_fitted(self, "model_")
        X, labels = self._split_table(data)
        return self._as_model_table(X), labels

    def _nb(self, **params):
        """An unfitted NaiveBayes with ``params`` and the missing indicators' forbidden edges."""
        return NaiveBayes(features=self.numeric, forbidden_edges=getattr(self, "_forbidden", None), **params)

    def _fit_latent(self, X, labels, n_components, rng):
        """``model_``, ``latent_`` and ``chosen_`` of a latent-class model fitted on every row."""
        self.model_ = self._nb().fit(X, labels)
        self.latent_ = self.model_.fit_latent_class(X, labels, n_components=n_components, random_state=rng,
                                                    component_prior=self.component_prior)
        self.chosen_ = f"latent class (naive, C={n_components})"

    def _fit_choice(self, X, labels, rng, bar):
        """The choice the module docstring sums up: structure by evidence, held-out candidates, refit."""
        model = self._nb(structure=self.structure).fit(X, labels)  # 1. structure by evidence
        bar.update()
        name, params = variant(model)
        if self.structure == "auto":
            rows = [{"candidate": r["structure"], "log_evidence": r["log_evidence"],
                     "cv_log_loss": r.get("cv_log_loss", np.nan), "holdout_loglik": np.nan, "chosen": False}
                    for _, r in model.structure_scores_.iterrows()]
        else:
            rows = [{"candidate": name, "log_evidence": model.log_evidence_, "cv_log_loss": np.nan,
                     "holdout_loglik": np.nan, "chosen": False}]
        index = {r["candidate"]: i for i, r in enumerate(rows)}
        self.model_, self.latent_, self.chosen_ = model, None, name
        split = None if self.latent is None and params["structure"] == "naive" else self._split(labels, rng)
        if split is None:  # nothing held out (latent=None and naive, or too few rows to hold some out)
            bar.update(2)
        else:  # 2. k-DB's k, and the latent-class model against the structure, on held-out rows
            self._compare_latent(X, labels, split, name, params, rows, index, rng, bar)
        rows[index[self.chosen_]]["chosen"] = True
        self.selection_ = pd.DataFrame(rows, columns=_SELECTION)

    def _split(self, labels, rng):
        """Training and held-out row positions of step 2 (stratified when every class has 2 rows), or
        None when no held-out row has a class seen in the training part."""
        from sklearn.model_selection import train_test_split  # lazy: keeps `import bayesnb` light

        counts = pd.Series(labels).value_counts()
        strat = labels if self.target is not None and counts.min() >= 2 else None
        seed = int(rng.integers(2**31 - 1))
        rows = np.arange(len(labels))
        try:
            tr, te = train_test_split(rows, test_size=self.holdout, stratify=strat, random_state=seed)
        except ValueError:  # fewer held-out rows than classes: not stratified
            tr, te = train_test_split(rows, test_size=self.holdout, random_state=seed)
        te = te[np.isin(labels[te], labels[tr])]  # a class with no training row cannot be scored
        return (tr, te) if len(te) and len(tr) >= 2 else None

    def _compare_latent(self, X, labels, split, name, params, rows, index, rng, bar):
        """Step 2: naive, the structure ``name`` (fitted with ``params``) and the latent-class model, fitted
        on the training rows of ``split`` and scored on its held-out rows; step 3 when the latter wins."""
        tr, te = split
        Xtr, Xte, ytr = X.iloc[tr], X.iloc[te], labels[tr]
        scores, per_row, notes = {}, {}, {}
        for cand, cparams in {"naive": {"structure": "naive"}, name: params}.items():
            fitted = self._nb(**cparams).fit(Xtr, ytr)
            codes = pd.Index(fitted.classes_).get_indexer(labels[te])
            per_row[cand] = holdout_rows(fitted, Xte, codes)
            scores[cand] = float(per_row[cand].mean())
            if cand == "naive":
                base, base_codes = fitted, codes
        first = name
        if params["structure"] != "naive":  # the edge score by held-out likelihood (search.choose_edges)
            edge, rows_e, means = choose_edges(lambda e: self._nb(**params, edge_score=e).fit(Xtr, ytr),
                                               per_row[name], Xte, base_codes)
            for e, mean in means.items():
                scores[edge_name(first, e)], notes[edge_name(first, e)] = mean, f"edge_score={e!r}"
            name = edge_name(first, edge)
            params, per_row[name] = {**params, "edge_score": edge}, rows_e
        if params["structure"] == "kdb":  # k + 1 parents while clearly better held out (search.widen_k)
            k, tried = widen_k(lambda kk: self._nb(**{**params, "k": kk}).fit(Xtr, ytr), params["k"],
                               per_row[name], Xte, base_codes, X.shape[1] - 1)
            kdb = lambda kk: edge_name(variant_label("kdb", kk, params["alpha"] == "hierarchical"), edge)  # noqa: E731
            for kk, mean, gain, se, keep in tried:
                scores[kdb(kk)] = mean
                notes[kdb(kk)] = (f"k={kk} against k={kk - 1}: {gain:+.4f} per held-out row (SE {se:.4f}); "
                                  + ("kept" if keep else f"not kept (needs > {Z_BEHIND:g} SE)"))
            name, params = kdb(k), {**params, "k": k}
        bar.update()
        if self.latent is None:
            add_rows(rows, index, scores, notes)
            return self._refit_structure(X, labels, first, name, params, bar, 1)
        search = tr if len(tr) <= self.search_rows else np.sort(rng.choice(tr, self.search_rows, replace=False))
        fit, self.latent_search_, info = latent_search(
            base, lambda Xs, ys: self._nb(**params).fit(Xs, ys), X.iloc[search], labels[search], Xte, base_codes,
            tuple(self.latent_candidates), rng, component_prior=self.component_prior)
        C = fit.n_components
        latent_name = f"latent class (naive, C={C})"
        note = f"search stopped: {info['stop']}"
        if info["behind"]:  # decided at the search size: not refitted on the training part
            note += (f"; at {len(search)} search rows C={C} scored {info['latent_loglik']:.3f} against the "
                     f"structure's {info['structure_loglik']:.3f}, over {Z_BEHIND:g} SE behind: not refitted")
        else:
            fit = base.fit_latent_class(Xtr, ytr, n_components=C, random_state=rng,
                                        component_prior=self.component_prior)
            scores[latent_name] = float(holdout_rows(base, Xte, base_codes, latent=fit).mean())
        bar.update()
        notes[latent_name] = note
        add_rows(rows, index, {**scores, latent_name: scores.get(latent_name, np.nan)}, notes)
        if scores.get(latent_name, -np.inf) > scores[name]:  # 3. refit the winner on every row
            self._fit_latent(X, labels, C, rng)
        else:
            self._refit_structure(X, labels, first, name, params, bar, 0)
        bar.update()

    def _refit_structure(self, X, labels, first, name, params, bar, steps):
        """Step 3 for a structure: a widened k-DB (``name`` is not step 1's ``first``) refitted on every row."""
        if name != first:
            self.model_, self.chosen_ = self._nb(**params).fit(X, labels), name
        bar.update(steps)

    # ------------------------------------------------------------------ sample
    def sample(self, n_samples, *, random_state=None, parameter_uncertainty=False, given=None, forbid=None,
               return_probability=False):
        """Draw ``n_samples`` synthetic rows with the training columns, in their order and dtypes.

        Parameters
        ----------
        n_samples : int
            Number of rows (>= 1; with per-row values in ``given``, 1 or their number).
        random_state : None, int or numpy Generator
        parameter_uncertainty : bool, default=False
            False: the posterior-mean plug-in, the rows closest to the training table's
            distribution (synthpop's ``proper=False``). True: one exact posterior draw of the
            parameters shared by the call's rows ("proper" synthesis). An analysis repeated on
            ``m`` tables of either kind is pooled by :func:`bayesnb.pool_synthetic`
            (``method="simple"`` or ``"proper"``; docs/synthetic.md, "Posterior draws or
            plug-in?"). :meth:`bayesnb.NaiveBayes.sample` draws by default, as a posterior
            predictive check needs.
        given : dict, optional
            Conditions on the table's columns, drawn exactly (no rejection; see
            :meth:`bayesnb.NaiveBayes.sample`): ``{column: value}`` (or per-row values), a ``set``
            of values for a categorical column, a tuple ``(low, high)`` for a numeric or datetime
            column (inclusive, None for an open end). The target column takes one label (or one
            per row), which fixes the rows' class, or a set of labels to draw the class among.
        forbid : list of dict, optional
            Combinations no row may hold, ``[{column: value, set or (low, high), ...}, ...]``,
            over the columns other than the target. With missing cells modelled, a column that
            ``given`` conditions is observed in every row (its missing indicator conditioned), and a
            forbidden combination is one of observed cells (a row missing one of them holds none).
        return_probability : bool, default=False
            Also return the probability of the condition for one row of the model the rows are
            drawn from (the posterior predictive; with ``support="observed"`` a structure's
            observed-support tables), given the target's label when ``given`` names it: ``(table, p)``.

        Returns
        -------
        DataFrame of shape (n_samples, n_columns)
            The target column (if any) holds classes seen in training; categorical columns hold
            categories seen in training (with ``privacy``: the declared ones); integer columns stay
            integer where the chosen family draws whole numbers (see ``synthetic_report``'s support
            checks; with ``privacy``, rounded within the bounds); numeric columns not in ``given`` stay
            within their training range (:mod:`bayesnb.synth.observed_range`; ``privacy``: the bounds). With
            ``return_probability``, ``(DataFrame, p)``: ``p`` a float (an array, one per row, for
            per-row values).

        Raises
        ------
        ValueError
            A malformed condition, or one of probability 0 (:class:`~bayesnb.ZeroProbabilityCondition`).
        """
        check_is_fitted(self, "model_")
        if not (isinstance(n_samples, numbers.Integral) and not isinstance(n_samples, bool) and n_samples >= 1):
            raise ValueError(f"{_WHO}: n_samples must be a whole number >= 1; received {n_samples!r}.")
        kw = {} if self.latent_ is None else {"latent": self.latent_}
        dt = {c: self.dtypes_[c] for c in getattr(self, "datetime_columns_", [])}
        given, forbid, y = model_conditions(given, forbid, self.target, self.columns_, dt, _WHO,
                                            getattr(self, "missing_indicators_", {}))
        given, forbid = whole_conditions(self.model_, given, forbid, self.dtypes_)  # a private model's integers
        if given is not None or forbid is not None or return_probability or y is not None:
            kw.update(given=given, forbid=forbid, y=y, return_probability=return_probability)
        got = sample_model_in_range(self.model_, self.support if self.latent_ is None else "smoothed", _WHO,
                                    int(n_samples), random_state, parameter_uncertainty, kw)
        X, y = got[:2]
        out = pd.DataFrame(X).reset_index(drop=True)
        out.columns = self._model_columns
        out = blank_missing(out, getattr(self, "missing_indicators_", {}))
        if self.target is not None:
            out[self.target] = y
        out = private_draws(self.model_, out[self.columns_], self.dtypes_, given)
        for c in getattr(self, "datetime_columns_", []):
            out[c] = from_seconds(out[c], self.dtypes_[c])
        for c in self.columns_:
            out[c] = as_dtype(out[c], self.dtypes_[c])
        return (out, got[2]) if return_probability else out

    def save(self, path, *, key=None, overwrite=False):
        """Save the chosen model in bayesnb's model format (no pickle); read it back with :meth:`load`.

        ``Synthesizer.load(path).sample(n, random_state=s)`` then gives the same table as this
        object's ``sample(n, random_state=s)``, missing cells included (the indicator columns are
        features of the estimator; :meth:`load` reads :attr:`missing_indicators_` back from their
        names). A structure's file is the fitted :class:`~bayesnb.NaiveBayes` with the target's
        name and place, as ``bayesnb fit`` writes it (:func:`bayesnb.load` gives the estimator). A
        latent-class model's file also holds its :class:`~bayesnb.LatentClassFit`, and
        :func:`bayesnb.load` gives this ``Synthesizer``; ``bayesnb sample`` samples either as
        :meth:`sample` does (:mod:`bayesnb.io.synthesizer_file`). ``selection_`` is not saved.

        Parameters
        ----------
        path : str or os.PathLike
        key : bytes or str, optional
            HMAC key, as in :func:`bayesnb.io.persistence.save`.
        overwrite : bool, default=False
            Replace ``path`` if it exists (else a ``FileExistsError``).

        Raises
        ------
        NotImplementedError
            The table has datetime columns (model files do not record them yet).
        TypeError
            The latent-class fit is not a naive one by EM (never the case for a fitted
            ``Synthesizer``, whose latent-class candidate is naive).
        """
        check_is_fitted(self, "model_")
        if self.latent_ is not None or getattr(self, "datetime_columns_", []):
            save(self, path, key=key, overwrite=overwrite)  # synth_to_file; refuses datetime columns
            return
        record_target(self)
        self.model_.save(path, key=key, overwrite=overwrite)

    @classmethod
    def load(cls, path, *, key=None):
        """A fitted ``Synthesizer`` from a file written by :meth:`save` (or by ``bayesnb fit``).

        Parameters
        ----------
        path : str or os.PathLike
        key : bytes or str, optional
            The HMAC key the file was saved with.

        Returns
        -------
        Synthesizer
            ``model_`` the loaded estimator, ``latent_`` its latent-class fit (None for a
            structure), ``chosen_`` the chosen candidate's name, ``selection_`` None, and the
            parameters ``target``, ``structure`` and ``latent`` (the number of components, or
            None) of that kind of model. Without a recorded target name the table had one class.

        Raises
        ------
        ModelFileError
            The file is missing, damaged or not a bayesnb model file (:func:`bayesnb.load`).
        TypeError
            It holds another model than a Synthesizer's or a NaiveBayes fitted on a DataFrame.
        """
        model = load(path, key=key)
        if isinstance(model, Synthesizer):
            return model
        if not isinstance(model, NaiveBayes) or getattr(model, "feature_names_in_", None) is None:
            raise TypeError(f"{_WHO}.load: {path} holds a {type(model).__name__} not fitted on a DataFrame; "
                            "expected a NaiveBayes or a Synthesizer saved by Synthesizer.save.")
        return synth_from_model(cls, model, None, variant(model)[0])


register_composite(Synthesizer, synth_to_file, synth_from_file)
