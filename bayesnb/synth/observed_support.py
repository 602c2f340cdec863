"""Synthetic rows on the observed support: the :class:`~bayesnb.Synthesizer`'s ``support="observed"``.

A fitted model's categorical tables are posterior predictives: every context's Dirichlet keeps
prior mass on every value, so a value never seen in a context is still drawn there, with
probability ``alpha_v / (sum(alpha) + N)``. That is right for predicting new real rows (on census,
1.8% of held-out real rows hold a pair of categories the training rows never hold), but a
synthetic table drawn that way holds combinations the real table never does; with one
high-cardinality column of rare values (41 countries) the share of such rows reaches 2%.

``support="observed"`` samples from the same model with every categorical node's table in the
Haldane limit of its Dirichlet (the prior's pseudo-counts to 0) wherever the context has data:
the context's counts alone (a parameter draw is ``Dirichlet(counts)``, so a never-seen
(context, value) cell gets 0). A context without data keeps its prior, which under
``alpha="hierarchical"`` is its parent context's estimate: the back-off that lets a rare value
come only from contexts that held it. A histogram node's bins (a Dirichlet over bins per context)
are treated the same way, so a numeric value comes from bins its context held (on census this is
what lifts the categorical x numeric pair trends). Structure, contexts and the chosen model are
unchanged; the model's scores (evidence, held-out likelihood, ``predict``) are those of the fitted
posterior. Each family says what its observed support is
(:meth:`~bayesnb.families._contract.Family.gen_observed_support`, :func:`~bayesnb.families.numeric.observed_counts`;
the other families keep their posterior). The price is privacy-relevant: a thin context's rows
are reproduced more closely (``synthetic_report``'s DCR share rises a little; docs/synthetic.md).
``support="backoff"`` (:mod:`bayesnb.synth.backoff`) lets the thin contexts draw their posterior
predictive on the pairs seen in training instead.
"""

from __future__ import annotations

import copy

from sklearn.utils.validation import check_is_fitted

from .backoff import backoff_rule
from .._utils import ZeroProbabilityCondition
from ..estimators import NaiveBayes

__all__ = ["SUPPORTS", "observed_support", "sample_on_support"]

#: the ``support`` options of :class:`~bayesnb.Synthesizer`
SUPPORTS = ("observed", "smoothed", "backoff")


def observed_support(model, support="observed"):
    """A shallow copy of a fitted NaiveBayes whose sampling tables keep the observed support.

    Parameters
    ----------
    model : NaiveBayes
        Fitted (naive or structured). It is not changed.
    support : {"observed", "backoff"}, default="observed"
        ``"backoff"``: a structure's thin contexts draw their posterior predictive on the pairs seen
        in training (:mod:`bayesnb.synth.backoff`); the naive blocks keep the observed support.

    Returns
    -------
    NaiveBayes
        The same estimator with every block's posterior (naive) and every node's posterior
        (structure) replaced by its family's :meth:`gen_observed_support`; its ``sample``
        (``given=``, ``forbid=`` included) then draws from those tables.
    """
    if support not in ("observed", "backoff"):
        raise ValueError(f"support must be 'observed' or 'backoff'; received {support!r}.")
    if not isinstance(model, NaiveBayes):
        raise TypeError(f"support='observed' needs a fitted NaiveBayes; received {type(model).__name__}.")
    check_is_fitted(model, "posterior_")
    out = copy.copy(model)
    post = model.posterior_
    out.posterior_ = post._replace(blocks=tuple(
        b._replace(posterior=b.family.gen_observed_support(b.prior, b.posterior)) for b in post.blocks))
    out._caches = [b.family.predict_cache(b.prior, b.posterior) for b in out.posterior_.blocks]  # not the fit's
    mixed = model._structure_fitted()  # None under the naive structure
    if mixed is not None:
        rules = [backoff_rule((mixed.n_classes, *(mixed.nodes[p].n_states for p in pa))) if support == "backoff"
                 else None for pa in mixed.parents]
        setattr(out, model._structure_attr, mixed._replace(posteriors=tuple(
            nd.family.gen_observed_support(pr, po, rule)
            for nd, pr, po, rule in zip(mixed.nodes, mixed.priors, mixed.posteriors, rules))))
    return out


def sample_on_support(model, support, who, n_samples, **kwargs):
    """``model.sample(n_samples, **kwargs)``, on the observed support unless ``support="smoothed"``.

    Parameters
    ----------
    model : NaiveBayes
        Fitted; not changed.
    support : {"observed", "backoff", "smoothed"}
        Draw from :func:`observed_support` of ``model`` with that support, or (``"smoothed"``) from
        ``model`` itself.
    who : str
        The caller's name, for errors.
    n_samples : int
        Rows to draw.
    **kwargs
        Passed to ``model.sample`` (``random_state``, ``given``, ``forbid``, ...).

    Returns
    -------
    tuple
        What ``model.sample`` returns.

    Raises
    ------
    ZeroProbabilityCondition
        A condition no row can meet. Where only the observed support rules it out (the fitted
        model allows it), the message says so and names ``support='smoothed'``.
    """
    observed = support != "smoothed"
    drawn = observed_support(model, support) if observed else model
    try:
        return drawn.sample(n_samples, **kwargs)
    except ZeroProbabilityCondition as err:
        if not observed:
            raise
        try:  # impossible under the fitted model too: its own message
            model.sample(1, **kwargs)
        except ZeroProbabilityCondition:
            raise err from None
        raise ZeroProbabilityCondition(
            f"{who}: the condition has probability 0 on the observed support (support={support!r} draws only "
            "what the training rows held); the fitted model allows it: support='smoothed' samples "
            "that model.") from err
