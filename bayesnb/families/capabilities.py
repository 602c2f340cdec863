"""Capabilities beside the :class:`~bayesnb.families.Family` contract.

The ``Family`` ABC holds the conjugate core and generation: what every family writes to be fitted,
to predict and to generate rows. Everything else a family *may* support is a capability here: an
abstract class holding its hooks (abstract where the family must write them, with defaults where
one serves). A family registers a capability by listing it among its bases, so Python refuses to
instantiate it while one of that capability's abstract hooks is missing::

    class MyFamily(Family, NumPyroSites, PosteriorDraws):

Every bayesnb family lists the capabilities of :data:`SHARED` (``class Gaussian(Family, NumericNode,
*SHARED)``). A family that does not list a capability is still a family: it is fitted, predicts and samples,
and the first use that needs the capability raises :class:`MissingCapability` naming the family,
the capability and the hook (``Family.__getattr__`` asks :func:`capability_of`). ``supports(family,
NumPyroSites)`` says beforehand. A subclass of a bayesnb family inherits its registrations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .numeric import float32_args

__all__ = ["CAPABILITIES", "Capability", "CellScores", "EMObjective", "LinearForm", "MissingCapability", "NumPyroSites",
           "NumericNode", "PlotPanels", "PosteriorDraws", "PrivateRelease", "SHARED", "capability_of", "supports"]


class MissingCapability(NotImplementedError, AttributeError):
    """A family was asked for a hook of a capability it does not register.

    A ``NotImplementedError`` (the family cannot do this) and an ``AttributeError`` (the family has
    no such attribute: ``hasattr`` and ``getattr(family, hook, default)`` keep their meaning).
    """


class Capability(ABC):
    """Base of the capabilities: a family registers one by listing it among its bases.

    Subclasses set ``_title`` (what the capability gives) and ``_uses`` (what needs it), for
    :class:`MissingCapability`'s message.
    """

    #: what the capability gives, e.g. "NumPyro sites"
    _title = "capability"
    #: the package's uses that need it, e.g. "run_mcmc"
    _uses = ""


def hooks(capability: type) -> tuple:
    """The public names a capability declares (its hooks and class attributes), sorted.

    Parameters
    ----------
    capability : type
        A subclass of :class:`Capability`.

    Returns
    -------
    tuple of str
    """
    return tuple(sorted(n for n in vars(capability) if not n.startswith("_")))


def capability_of(name: str):
    """The capability that declares the hook ``name``, or None.

    Parameters
    ----------
    name : str
        An attribute name looked up on a family.

    Returns
    -------
    type or None
        One of :data:`CAPABILITIES`.
    """
    return next((capability for capability in CAPABILITIES if name in hooks(capability)), None)


def supports(family, capability: type) -> bool:
    """Whether ``family`` registers ``capability`` (lists it among its bases, or inherits it).

    Parameters
    ----------
    family : Family
    capability : type
        One of :data:`CAPABILITIES`.

    Returns
    -------
    bool
    """
    return isinstance(family, capability)


def missing_capability(family, name: str) -> AttributeError:
    """The error for hook ``name`` looked up on ``family``, which lacks it.

    Parameters
    ----------
    family : Family
    name : str

    Returns
    -------
    MissingCapability or AttributeError
        :class:`MissingCapability` naming the family, the capability and the hook when a capability
        declares ``name``; a plain ``AttributeError`` otherwise.
    """
    capability = capability_of(name)
    who = type(family).__name__
    if capability is None:
        return AttributeError(f"{who!r} object has no attribute {name!r}")
    return MissingCapability(
        f"the {who} family has no {capability._title} (the capability {capability.__name__}, hook {name!r}), "
        f"which {capability._uses} needs: list bayesnb.families.capabilities.{capability.__name__} among the "
        f"family's bases and write its hooks (docs/families/custom.md).")


class NumPyroSites(Capability):
    """The family's piece of the one NumPyro model (``run_mcmc``, :mod:`bayesnb.inference.numpyro_model`).

    The parameter sites of a block (:meth:`numpyro_sample`), its likelihood from sufficient statistics
    or from rows (JAX), and the maps between the sites and the family's parameter arrays.
    """

    _title = "NumPyro model"
    _uses = "run_mcmc"

    def numpyro_static(self, prior):
        """Hashable static structure of the block for the NumPyro model (shapes, groups).

        The default, ``()``, says the shapes of the prior's arrays are all the structure
        the model needs; a family whose parameters are ragged (per-column value sets)
        returns what the compiled model must know about them.
        """
        return ()

    def numpyro_prior_args(self, prior) -> dict:
        """The prior's arrays, as passed to the compiled model.

        The default passes every field of the prior NamedTuple that is set, as float32
        arrays named by field; a family whose prior is ragged or holds more than the model
        reads overrides it.
        """
        return float32_args(prior, [k for k, v in zip(prior._fields, prior) if v is not None])

    def numpyro_sampler_args(self, prior, posterior) -> dict:
        """Arrays that tune the NumPyro sampler without changing the model (merged into
        :meth:`numpyro_prior_args`' dict): ``posterior`` is the fitted block posterior, or None.
        The default adds none; Categorical scales its Gamma sum by the posterior's counts."""
        return {}

    @abstractmethod
    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """Sample the block's parameter sites inside the NumPyro model; returns the parameters."""

    @abstractmethod
    def params_from_sites(self, label, static, samples: dict) -> dict:
        """Parameter arrays (``param_names``) from NumPyro site samples."""

    @abstractmethod
    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """NumPyro site values (constrained) for the given parameter arrays.

        The latent sample sites (what NUTS starts from, or what ``substitute`` needs) and
        the deterministic sites :meth:`params_from_sites` reads. ``prior_args`` (from
        :meth:`numpyro_prior_args`) is needed by a family whose sample sites are a
        prior-dependent reparametrisation (the Gaussian's standardised scale).
        """

    @abstractmethod
    def numpyro_stats_args(self, stats) -> dict:
        """Sufficient statistics as arrays for the sufficient-statistics likelihood."""

    @abstractmethod
    def numpyro_suffstat_loglik(self, params, stats_args):
        """The block's log-likelihood from sufficient statistics (JAX)."""

    @abstractmethod
    def numpyro_row_args(self, block, static) -> dict:
        """Encoded rows as arrays for the per-row likelihood."""

    @abstractmethod
    def numpyro_row_loglik(self, params, row_args):
        """Per-row, per-class log-likelihood ``(n, K)`` of the block (JAX)."""


class PosteriorDraws(Capability):
    """Named parameters of the block's posterior: exact draws, moments and plug-in values.

    ``sample_posterior``, ``run_mcmc`` (its draws and its comparison with the exact posterior), ArviZ
    output, a latent-class fit read back from draws and the posterior tables of ``bayesnb posterior``.
    """

    _title = "named posterior parameters"
    _uses = "sample_posterior, run_mcmc, ArviZ output, fit_latent_class or the posterior tables"

    @property
    @abstractmethod
    def param_names(self) -> tuple:
        """Names of the parameter variables in draws and ArviZ output (``sample_params`` keys).

        A family sets it as a class attribute, e.g. ``param_names = ("theta",)``.
        """

    @abstractmethod
    def sample_params(self, post, n_draws, rng) -> dict:
        """``n_draws`` exact posterior draws of every parameter, ``{name: (n_draws, K, ...)}``."""

    @abstractmethod
    def posterior_moments(self, post) -> dict:
        """``{name: (mean, sd)}`` of every parameter under the posterior."""

    @abstractmethod
    def posterior_from_params(self, params: dict):
        """A params NamedTuple whose plug-in is the given parameter values."""

    @abstractmethod
    def point_params(self, post) -> dict:
        """Parameter arrays at the posterior plug-in."""


class PlotPanels(Capability):
    """The block's panels in :func:`bayesnb.plot.class_conditionals`."""

    _title = "plot panels"
    _uses = "bayesnb.plot.class_conditionals"

    @abstractmethod
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


class PrivateRelease(Capability):
    """The block's statistics released under differential privacy (``privacy=DP(...)``, docs/privacy.md)."""

    _title = "differentially private release"
    _uses = "a private fit (privacy=DP(...); docs/privacy.md lists the families it supports)"

    #: statistics a private fit releases per column (or per block, with ``joint_columns``), each a
    #: query of L1 sensitivity 2 (a row's count): the block's weight in the split of the budget
    dp_statistics = 1

    @abstractmethod
    def dp_stats(self, block, resp, state, budget, bounds, names, who="NaiveBayes"):
        """The block's statistics released under differential privacy (docs/privacy.md).

        :meth:`~bayesnb.families.Family.stats` of rows of weight <= 1, on values clipped to ``bounds``
        (per column ``(lo, hi)`` or None) where needed, plus noise that ``budget``
        (:class:`bayesnb.privacy.Budget`) calibrates to their sensitivity when one row is replaced,
        post-processed into valid statistics; ``names`` (the columns) for messages. A block with
        ``joint_columns`` (Multinomial) receives ``bounds`` as ``(column bounds, row_length)``. A family
        whose statistics cannot be released (Histogram: data-derived bins) raises NotImplementedError
        saying why.
        """

    def dp_public_rows(self, block, bounds):
        """Public rows (``fit_semi_supervised(..., public_unlabeled=True)`` under ``privacy=``) as the release
        counts a private row: the same transform, no noise (default: unchanged).

        ``block`` is encoded, ``bounds`` as :meth:`dp_stats` gets it. A count block scales each row to the
        declared row bound, so a public document weighs in the statistics as a released one does
        (:func:`~bayesnb.families.dp_release.public_rows`).
        """
        return block

    def dp_mass(self, stats):
        """Total mass of ``stats`` as the release counts it, against which public rows are weighted
        (:func:`~bayesnb.inference.private_em.fit_public_unlabelled`); default: the cells ``observed_rows`` counts."""
        return float(np.sum(self.observed_rows(stats)))


class CellScores(Capability):
    """Per-cell log-likelihood contributions: ``feature_log_contributions``, outlier explanations, MNAR imputation."""

    _title = "per-cell log-likelihood"
    _uses = "feature_log_contributions (outlier explanations, bayesnb explain) or an MNAR imputation"

    @abstractmethod
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


class EMObjective(Capability):
    """The log prior term of a parameter point: the penalty of the MAP objective that EM climbs."""

    _title = "EM objective"
    _uses = "fit_semi_supervised, fit_latent_class or a structure's EM"

    @abstractmethod
    def gen_log_penalty(self, prior, point) -> float:
        """Log prior density term of ``point`` (the EM objective's penalty)."""


class LinearForm(Capability):
    """A log-likelihood linear in the features: ``coef_``, ``intercept_`` and ``coef_names_`` of a binary model.

    The defaults say "not linear" (None), as for a Gaussian block, whose log-odds are quadratic.
    """

    _title = "linear form"
    _uses = "coef_, intercept_ or coef_names_"

    def linear_terms(self, theta, state):
        """``(w, b)`` with ``log p(x | y=k) = x @ w[k] + b[k]`` per class, or None (not linear)."""
        return None

    def linear_names(self, names, state):
        """Names of the columns of :meth:`linear_terms`' ``w``, or None (not linear)."""
        return None


class NumericNode(Capability):
    """A numeric feature as a node of a structure, or of an MNAR model's missingness: binned by cut points.

    A structure conditions a numeric feature on a parent's *bin* and sums a missing numeric parent over
    its bins, so the family answers for its raw values (:meth:`gen_values`), the predictive mass and mean
    of an interval (:meth:`predictive_bins`) and how an imputed value is written (:meth:`round_fill`). A
    family with a finite set of values (``value_columns``) is a node by its categories instead.
    """

    _title = "numeric node"
    _uses = "a structure (structure='tan', 'kdb', 'auto') or an MNAR imputation over its numeric columns"

    @abstractmethod
    def gen_values(self, block):
        """The raw numeric values of an encoded block, (n, d) float, NaN where missing."""

    @abstractmethod
    def predictive_bins(self, prior, post, state, edges, predictive="mean"):
        """Predictive mass and mean of the intervals that cut points make, per context.

        Parameters
        ----------
        prior, post : params NamedTuple
            A one-column block's prior and posterior over ``C`` contexts (or a drawn point).
        state : object
            The one-column encoding state.
        edges : ndarray of shape (m,)
            Sorted finite cut points: the ``B = m + 1`` intervals ``(-inf, e_1], (e_1, e_2], ...,
            (e_m, inf)``.
        predictive : {"mean", "marginal"}
            The predictive that :meth:`~bayesnb.families.Family.log_likelihood` scores with.

        Returns
        -------
        log_mass : ndarray of shape (C, B)
            ``log P(lo < x <= hi | context)``.
        mean : ndarray of shape (C, B)
            ``E[x | context, lo < x <= hi]``, NaN where the interval has no mass.
        """

    def round_fill(self, values, state):
        """Imputed values written as the family writes them (whole numbers for a count family); default unchanged."""
        return np.asarray(values, dtype=float)

    def point_masses(self, state):
        """The values a continuous predictive puts a point mass on (a hurdle's ``at``), which an MNAR model's
        quadrature keeps in sub-bins of their own so that a missing cell's expected statistics count them as
        those values, not inside the mean of an interval; default none."""
        return np.empty(0)

    def interval_stats(self, values, resp, state, who="impute_mnar"):
        """Statistics of interval means standing in for unseen values, weighted by ``resp``.

        An MNAR model's M-step adds a missing cell's expected contribution as the means of
        :meth:`predictive_bins`' intervals; a count family's means are not whole numbers, so a family whose
        :meth:`~bayesnb.families.Family.encode` refuses them builds its statistics here without the
        support check. Default: ``stats(encode(values))``.

        Parameters
        ----------
        values : ndarray of shape (n, d)
            Interval means, NaN where a row adds nothing to a column.
        resp : ndarray of shape (n, K)
            The weight of each row in each class or state.
        state : object
            The block's encoding state.
        who : str
            The caller, for error messages.

        Returns
        -------
        stats : stats NamedTuple
            As :meth:`~bayesnb.families.Family.stats` returns, shape (K, d) each.
        """
        block, _ = self.encode(values, state, who=who)
        return self.stats(block, resp, state)


#: every capability, in the order of their documentation
CAPABILITIES = (NumPyroSites, PosteriorDraws, PlotPanels, PrivateRelease, CellScores, EMObjective, LinearForm,
                NumericNode)
#: the capabilities every bayesnb family registers (it lists ``*SHARED`` among its bases); the numeric
#: ones (Gaussian, LogNormal, Poisson, Histogram, Hurdle) register :class:`NumericNode` too
SHARED = CAPABILITIES[:-1]
