"""Default hooks of the :class:`~bayesnb.families._contract.Family` contract, grouped by job.

:class:`Family` inherits them; a family overrides whichever its data need. The contract's
documentation of each hook is here, beside its default. :class:`SingleSite` supplies a group of
capability hooks shared by three families (Bernoulli, Multinomial, Poisson).
"""

from __future__ import annotations

import numpy as np

__all__ = ["NodeDefaults", "PartitionDefaults", "SingleSite", "SupportDefaults"]


class PartitionDefaults:
    """Hooks for statistics made elsewhere than in one pass over the rows in memory.

    :meth:`merge_states` for a fit over partitions (Dask); a differentially private release is
    the capability :class:`~bayesnb.families.capabilities.PrivateRelease`.
    """

    def merge_states(self, a, b):
        """The encoding state of two batches' rows together, from each batch's own ``encode`` state.

        A fit over partitions (Dask) encodes every partition alone, merges the states, and
        encodes every partition again against the merged one (Histogram adds its tables of
        distinct values and makes its bins again). The default accepts equal states (an
        encoding fixed by the number of columns) and refuses others: an encoding learned from
        the data in a way its states cannot combine cannot be rebuilt from partitions.

        Raises
        ------
        NotImplementedError
            The states differ and the family cannot combine them.
        """
        if not same_state(a, b):
            raise NotImplementedError(
                f"{type(self).__name__} learns its encoding from the data ({type(a).__name__}), and two batches "
                "gave different ones that it cannot combine: fit it on the whole data at once.")
        return a


def same_state(a, b) -> bool:
    """Whether two encoding states are equal (ints, arrays, and tuples of them, compared field by field)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(same_state(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.asarray(a).shape == np.asarray(b).shape and bool(np.array_equal(a, b))
    return type(a) is type(b) and a == b


class NodeDefaults:
    """Hooks of a feature as a node of a structure (``NaiveBayes(structure=...)``, ``CategoricalNB(structure=...)``).

    A family with a finite set of values (categorical) is a node by its categories; a numeric
    one by its bins, through the capability :class:`~bayesnb.families.capabilities.NumericNode`.
    :meth:`context_prior` gives a node's prior over its contexts (by default :meth:`make_prior`'s).
    """

    def hierarchical_variant(self):
        """This family with hierarchical smoothing over a node's contexts, or None when it has none.

        ``structure="kdb"`` (and ``"auto"``'s hierarchical candidates) switch a node to it when
        the estimator's ``alpha`` is left unset (Categorical, Histogram); the default is None (the
        family keeps its own prior in every context).
        """
        return None

    def context_prior(self, stats, state, contexts, who="NaiveBayes", naive_prior=None, class_level=None, noise_var=0.0):
        """The prior of a structure's node over its contexts, which may differ context by context.

        Parameters
        ----------
        stats : stats NamedTuple
            The node's statistics over ``C = prod(contexts)`` contexts.
        state : object
            The node's encoding state.
        contexts : tuple of int
            ``(K, B_1, ..., B_m)``: the classes and the parents' numbers of states; context
            ``c`` is the row-major index of ``(class, parents' states)``.
        who : str
            Name used in error messages.
        naive_prior : params NamedTuple or None
            A numeric node's class level: the naive model's prior of its column, repeated over
            the ``C`` contexts (each context holds its class's prior; the same under every
            structure). None for a categorical node.
        class_level : params NamedTuple or None
            A fixed class level for a hierarchical prior (:meth:`component_prior`: a latent
            model's per-class prior over its ``(class, component)`` contexts), where the hierarchy
            stops instead of going up to the all-classes context. Unused by a family without one.
        noise_var : float, default=0.0
            The variance of the noise on each released count of a private fit (the public
            :meth:`bayesnb.privacy.Budget.noise_variance`), for a noise-aware hierarchical prior
            (:func:`bayesnb.structure.hierarchical.hierarchical_prior`); unused by other families.

        Returns
        -------
        params NamedTuple
            The prior over the ``C`` contexts. The default is ``naive_prior`` when given, else
            :meth:`make_prior`'s; Categorical's ``alpha="hierarchical"`` and Histogram's
            ``hierarchical=True`` centre each context on its parent context's estimate
            (:mod:`bayesnb.structure.hierarchical`).
        """
        return self.make_prior(stats, state, who=who) if naive_prior is None else naive_prior

    def component_prior(self, prior, stats, state, contexts, who="NaiveBayes"):
        """The prior of a latent-class model's (class, component) contexts, refitted from EM's statistics.

        Under ``component_prior="hierarchical"`` (:func:`bayesnb.inference.em.fit_latent_class`)
        each component is a child context of its class: the family's :meth:`hierarchical_variant`
        gives the prior (:meth:`context_prior` over ``contexts = (K, C)`` with ``prior`` as the class
        level), each component's Dirichlet centred on its class's estimate with a concentration
        fitted by evidence (:mod:`bayesnb.structure.hierarchical`). A family without a hierarchical
        variant keeps ``prior``.

        Parameters
        ----------
        prior : params NamedTuple
            The fixed prior over the ``K * C`` states (each state holds its class's prior).
        stats : stats NamedTuple
            The block's statistics over the states (an M-step's weighted counts).
        state : object
            The block's encoding state.
        contexts : tuple of int
            ``(K, C)``: state ``k * C + c`` is component ``c`` of class ``k``.
        who : str
            Name used in error messages.

        Returns
        -------
        params NamedTuple
            The prior over the states.
        """
        h = self.hierarchical_variant()
        return prior if h is None else h.context_prior(stats, state, contexts, who=who, naive_prior=prior, class_level=prior)


class SupportDefaults:
    """Hooks about where a family's values lie: synthetic rows on the observed support
    (:meth:`gen_observed_support`), draws kept inside declared bounds
    (:meth:`gen_sample_between`) and the labels of a parameter's value axis (:meth:`param_value_labels`)."""

    def gen_observed_support(self, prior, post, back_off=None):
        """``post`` restricted to what was observed, for synthetic rows (here: unchanged).

        Parameters: the block's ``prior, post``; ``back_off``, a rule for one column's Dirichlet
        concentrations ``(prior, post) -> (C, V)`` (families with such tables apply it). Returns ``post``'s type and shapes. The categorical
        family returns each context's counts alone where it has data, its prior where it has none
        (:func:`bayesnb.synth.observed_support.observed_support`).
        """
        return post

    def gen_sample_between(self, point, z, rng, j, lo, hi, state=None):
        """Values of column ``j`` drawn given the classes ``z`` from the law truncated to ``[lo, hi]``.

        The support a private model declared (``DP(bounds=...)``) is kept this way: inverse-CDF
        draws between the bounds, exact however little mass lies between them. None (the
        default): not available, and the caller draws again until inside (rejection).
        Constrained sampling (``sample(given={col: (low, high)})``) draws its range cells here,
        after :meth:`gen_log_mass_between` weighed them.

        Parameters
        ----------
        point : params NamedTuple
            From :meth:`gen_point`.
        z : ndarray of int, shape (n,)
        rng : numpy.random.Generator
        j : int
            The column within the block.
        lo, hi : float or ndarray of shape (n,)
            Inclusive bounds (``-inf`` / ``inf`` for an open end), or one pair per row.
        state : object, optional
            The block's encoding state (a family whose draws decode through it needs it).

        Returns
        -------
        ndarray of shape (n,) or None
        """
        return None

    def gen_outside_bounds(self, values, lo, hi):
        """Which ``values`` of a column lie outside a private model's declared support ``DP(bounds=(lo, hi))``.

        The default: below ``lo`` or above ``hi``. A family whose declared bounds are those of one part
        of its law (a Hurdle's positive part) keeps the rest of its support (the hurdle's ``at``).

        Parameters
        ----------
        values : ndarray of float
        lo, hi : float

        Returns
        -------
        ndarray of bool, shape of ``values``
        """
        values = np.asarray(values, dtype=float)
        return (values < lo) | (values > hi)

    def gen_sample_in_bounds(self, point, z, rng, j, lo, hi, state=None):
        """Draws that replace values of column ``j`` found outside the declared support (:meth:`gen_outside_bounds`).

        The default: the family's law truncated to ``[lo, hi]`` (:meth:`gen_sample_between`), so a
        draw followed by this replacement is a draw of the truncated law. A Hurdle replaces its
        positive part's draws by that part's truncated draws, so its ``at`` keeps its share.

        Parameters are those of :meth:`gen_sample_between`. Returns ndarray of shape (n,), or None
        (no truncated law: the caller draws again until inside).
        """
        return self.gen_sample_between(point, z, rng, j, lo, hi, state=state)

    def gen_log_mass_between(self, prior, params, state, j, lo, hi, predictive="mean"):
        """``log P(lo <= x_j <= hi | context)`` of column ``j``, per context: the evidence of a range.

        Constrained sampling (``sample(given={col: (low, high)})``) weighs each context (class,
        or class and parents' states) by this mass and then draws the cell with
        :meth:`gen_sample_between`, so the two must describe the same law. The default raises:
        the family has no probability of a range.

        Parameters
        ----------
        prior : params NamedTuple
            The block's prior (some families' predictives need it).
        params : params NamedTuple
            A posterior, or a parameter point from :meth:`gen_point`.
        state : object
            The block's encoding state.
        j : int
            The column within the block.
        lo, hi : float or ndarray of shape (m,)
            Inclusive bounds (``-inf`` / ``inf`` for an open end), or ``m`` ranges at once (an empty
            one, ``lo > hi``, has no mass).
        predictive : {"mean", "marginal"}
            ``"mean"``: the law :meth:`gen_sample` draws from at ``params`` (a point, or the
            plug-in of a posterior); ``"marginal"``: the exact posterior predictive of the
            posterior ``params``.

        Returns
        -------
        ndarray of shape (C,), or (C, m) for ``m`` ranges
            ``-inf`` where the range has no mass.

        Raises
        ------
        NotImplementedError
            The family has no mass between bounds.
        """
        raise NotImplementedError(
            f"the {type(self).__name__} family has no probability of a range (gen_log_mass_between), so its "
            "columns take no (low, high) condition; condition them on a value instead.")

    def param_value_labels(self, state):
        """Labels of the last axis of a parameter indexed by value (a list per column), else None.

        The values themselves for a discrete-valued family (:meth:`value_labels`); a family whose
        parameters run over something else (a Histogram's bins) labels that (the bins' intervals).
        Tables for people (``bayesnb posterior``) show them.
        """
        return self.value_labels(state)


class SingleSite:
    """Mixin: the family's one parameter ``name = param_names[0]`` (K, ...) (``theta`` unless the
    family says otherwise) is the NumPyro site ``<name>_<label>``.

    Supplies :meth:`~.capabilities.NumPyroSites.params_from_sites`,
    :meth:`~.capabilities.PosteriorDraws.point_params` (the posterior mean) and
    :meth:`~.capabilities.NumPyroSites.sites_from_params` for such a family (Bernoulli, Multinomial,
    Poisson); list it before :class:`Family` among the bases.
    """

    param_names = ("theta",)

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """MCMC samples of ``<name>_<label>`` -> ``{name: (..., K, ...)}``."""
        name = self.param_names[0]
        return {name: np.asarray(samples[f"{name}_{label}"], dtype=float)}

    def point_params(self, post) -> dict:
        """``{name: ...}``, the posterior mean (inverse of ``posterior_from_params``)."""
        name = self.param_names[0]
        return {name: self.posterior_moments(post)[name][0]}

    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """Inverse of :meth:`params_from_sites`: ``{"<name>_<label>": params[name]}``."""
        name = self.param_names[0]
        return {f"{name}_{label}": np.asarray(params[name])}
