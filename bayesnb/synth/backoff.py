"""Synthetic rows with thin contexts backed off: the :class:`~bayesnb.Synthesizer`'s ``support="backoff"``.

``support="observed"`` (:mod:`bayesnb.synth.observed_support`) draws every context of a structure's
categorical and histogram nodes from its counts alone. A thin context (a handful of training rows)
then replays those rows' values, and the synthetic rows sit closer to the training rows than to
fresh real rows (``synthetic_report``'s DCR share rises above 0.5). ``support="smoothed"`` draws
the posterior predictive everywhere, which keeps DCR near 0.5 but puts mass on combinations the
real table never holds.

``support="backoff"`` sits between them, with no tuning constant. Take a context with ``N`` rows of
counts ``n`` and prior concentrations ``a0``. Under ``alpha="hierarchical"``, ``a0`` is its parent
context's estimate times a strength ``s = sum(a0)`` fitted by evidence.

- If ``N >= s`` (the data outweigh the prior), the context keeps its counts, as on the observed
  support.
- Otherwise (``N < s``, empty contexts included) it draws its posterior predictive ``n + a0``,
  restricted to the values that were seen in training together with the context's class and
  together with each of its parents' states, taken one parent at a time.

So a drawn value never forms a (class, value) or (parent, value) pair that the training rows do
not hold. Those are the category pairs that the structure's edges carry. The rule uses only the
node's context layout (class, then each parent's states, row-major: :mod:`bayesnb.structure.engine`),
and each family says whether it has such tables
(:meth:`~bayesnb.families._contract.Family.gen_observed_support`'s ``back_off``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["backoff_rule", "pairwise_support"]


def pairwise_support(counts, axes):
    """Which values each context may draw: seen with its class and with each parent's state.

    Parameters
    ----------
    counts : ndarray of shape (C, V)
        A node's training counts per context; ``C = prod(axes)``, the contexts row-major over
        ``axes`` (the class, then each parent's states).
    axes : sequence of int
        The sizes of the context's factors.

    Returns
    -------
    ndarray of bool, shape (C, V)
        True where, for every factor of the context, the value was seen in training together
        with that factor's state (summed over the other factors).
    """
    counts = np.asarray(counts, dtype=float)
    axes = tuple(int(a) for a in axes)
    if int(np.prod(axes, dtype=np.int64)) != counts.shape[0]:
        raise ValueError(f"pairwise_support: {counts.shape[0]} contexts do not factor as {axes}.")
    full = counts.reshape(axes + (counts.shape[1],))
    keep = np.ones(full.shape, dtype=bool)
    for ax in range(len(axes)):
        others = tuple(a for a in range(len(axes)) if a != ax)
        keep &= full.sum(axis=others, keepdims=True) > 0
    return keep.reshape(counts.shape)


def backoff_rule(axes):
    """The ``support="backoff"`` rule of one node whose contexts factor as ``axes``.

    Parameters
    ----------
    axes : sequence of int
        The sizes of the context's factors: the classes (or 1), then each parent's states.

    Returns
    -------
    callable
        ``rule(prior, post)`` of one column's (C, V) Dirichlet concentrations gives the (C, V)
        concentrations to sample from. A context whose count ``N`` is at least its prior's strength
        ``sum(prior)`` keeps its counts. A thinner one draws ``post`` (its counts plus prior) on
        :func:`pairwise_support`. A context left with no mass (a prior of zeros) keeps its prior.
    """
    axes = tuple(int(a) for a in axes)

    def rule(prior, post):
        counts = np.maximum(post - prior, 0.0)
        thin = counts.sum(axis=-1, keepdims=True) < prior.sum(axis=-1, keepdims=True)
        out = np.where(thin, np.where(pairwise_support(counts, axes), post, 0.0), counts)
        return np.where(out.sum(axis=-1, keepdims=True) > 0, out, prior)

    return rule
