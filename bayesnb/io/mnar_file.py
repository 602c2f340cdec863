"""The self-masking member of an :class:`~bayesnb.Imputer` (:class:`~bayesnb.impute.mnar_config.MNARMember`) in
its model file: written and checked once.

The member is a JSON object beside the imputer's other configurations:

- ``model``: the naive model that reads the rows (:func:`~bayesnb.io.persistence.encode_estimator`);
- ``posterior``, ``group``, ``n_components``: the selection model's posterior over the latent states, checked
  like a latent-class fit's (:func:`bayesnb.io.latent_file.check_states`; one component: over the model's
  classes with its own class prior);
- ``columns``: per missingness node ``[block, position in the block, column, edges, fine, coarse, values]``
  (the bins of the column's own value; ``values`` null for a numeric column), checked against the model's
  blocks: its column, sorted finite cut points, the sub-bins' bins, a categorical column's values its own;
- ``selection``, ``missing_count``, ``observed_count``: per node an (S, B) array: probabilities in (0, 1),
  counts finite and non-negative; ``alpha`` (> 0), ``by_state``, ``em_objective``, ``converged``;
- ``evidence``: the test's figures (``Imputer.missingness_``; a file written before the test's fourth model lacks
  ``loglik_mar_observed`` and ``k_observed``).

The rows' own bins (``observed_bin``) are not stored: filling reads them from the rows it fills.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..estimators import NaiveBayes
from ..generative.mnar import SelectionColumn, SelectionFit
from ..generative.mnar_bins import has_bins
from ..impute.mnar_config import EVIDENCE_FIELDS, EVIDENCE_SINCE_OBSERVED, MNARMember
from .latent_file import check_states
from .loadcheck import _fail
from .persistence import decode_estimator, encode_estimator

__all__ = ["mnar_from_file", "mnar_to_file"]


def mnar_to_file(member, enc):
    """The JSON object of a fitted :class:`~bayesnb.impute.mnar_config.MNARMember` (see the module docstring).

    Parameters
    ----------
    member : MNARMember
    enc : Encoder

    Returns
    -------
    dict
    """
    fit = member.fit
    return {"model": encode_estimator(member.model, enc), "posterior": enc(fit.posterior, "mnar"),
            "group": enc(np.asarray(fit.group), "group"), "n_components": int(member.n_components),
            "columns": [[int(sc.block), int(sc.col), int(sc.column), enc(np.asarray(sc.edges, dtype=float)),
                         enc(np.asarray(sc.fine, dtype=float)), enc(np.asarray(sc.coarse, dtype=np.int64)),
                         enc(None if sc.values is None else np.asarray(sc.values, dtype=object))]
                        for sc in fit.columns],
            **{a: enc([np.asarray(r, dtype=float) for r in getattr(fit, a)], a)
               for a in ("selection", "missing_count", "observed_count")},
            "alpha": float(fit.alpha), "by_state": bool(fit.by_state),
            "em_objective": [float(v) for v in fit.em_objective], "converged": bool(fit.converged),
            "evidence": enc({k: member.evidence[k] for k in EVIDENCE_FIELDS if k in member.evidence})}


def _sorted_cuts(a, where):
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind != "f" or not np.all(np.isfinite(a)) or (
            a.size > 1 and np.any(np.diff(a) <= 0)):
        _fail(f"{where} must be increasing finite cut points")
    return a


def _column(node, post, S, k):
    """One checked :class:`SelectionColumn` (``observed_bin`` empty: read from the rows filled)."""
    if not (isinstance(node, list) and len(node) == 7 and all(type(v) is int for v in node[:3])):
        _fail(f"missingness node {k} must be [block, position, column, edges, fine, coarse, values]")
    bi, c, col, edges, fine, coarse, values = node
    if not 0 <= bi < len(post.blocks) or not 0 <= c < len(post.blocks[bi].columns) or \
            int(post.blocks[bi].columns[c]) != col:
        _fail(f"missingness node {k} names no column of the model's blocks")
    block = post.blocks[bi]
    edges, fine = _sorted_cuts(edges, f"node {k}'s edges"), _sorted_cuts(fine, f"node {k}'s sub-bin edges")
    B = edges.size + 1
    if not isinstance(coarse, np.ndarray) or coarse.shape != (fine.size + 1,) or coarse.dtype.kind not in "iu" or \
            np.any(coarse < 0) or np.any(coarse >= B) or np.any(np.diff(coarse) < 0):
        _fail(f"node {k}'s sub-bins must each name a bin, in order")
    listed = block.family.value_columns(block.state)
    if (values is None) != (listed is None) or block.family.joint_columns:
        _fail(f"node {k} must carry values exactly when its column's family lists them")
    if values is None:
        if not has_bins(block, c, edges):
            _fail(f"node {k}'s column has no binned predictive (its family cannot take a missingness node)")
    else:
        own = np.asarray(listed[c][0], dtype=object)
        if not isinstance(values, np.ndarray) or values.shape != own.shape or B != own.size or \
                not all(a == b for a, b in zip(values.tolist(), own.tolist())):
            _fail(f"node {k}'s values must be its column's own")
    return SelectionColumn(bi, c, col, edges, fine, coarse, np.empty(0, dtype=np.int64), values), B


def _per_node(arrays, shapes, where, lo, hi=None):
    if not isinstance(arrays, list) or len(arrays) != len(shapes):
        _fail(f"the missingness model's {where} must hold one array per node")
    for a, shape in zip(arrays, shapes):
        if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype.kind != "f" or not np.all(np.isfinite(a)) \
                or np.any(a < lo) or (hi is not None and np.any(a > hi)):
            _fail(f"the missingness model's {where} must be finite arrays of shape (states, bins) within range")
    return tuple(arrays)


def mnar_from_file(node, dec):
    """The :class:`~bayesnb.impute.mnar_config.MNARMember` that :func:`mnar_to_file` wrote, checked.

    Parameters
    ----------
    node : dict
    dec : Decoder

    Returns
    -------
    MNARMember

    Raises
    ------
    ModelFileError
        The object is malformed or does not fit its model.
    """
    if not isinstance(node, dict):
        _fail("the self-masking configuration must be a JSON object")
    model = decode_estimator(node["model"], dec)
    if not isinstance(model, NaiveBayes):
        _fail(f"the self-masking configuration's model must be a NaiveBayes; the file holds {type(model).__name__}")
    C = node["n_components"]
    post, C, group = check_states(model, dec(node["posterior"]), C, dec(node["group"]), own=C == 1)
    S = post.classes.shape[0]
    cols = node["columns"]
    if not isinstance(cols, list) or not cols:
        _fail("the self-masking configuration must have at least one missingness node")
    parsed = [_column([v if i < 3 else dec(v) for i, v in enumerate(n)] if isinstance(n, list) else n, post, S, k)
              for k, n in enumerate(cols)]
    if len({sc.column for sc, _ in parsed}) != len(parsed):
        _fail("the missingness nodes must be on distinct columns")
    shapes = [(S, B) for _, B in parsed]
    selection = _per_node(dec(node["selection"]), shapes, "selection probabilities", 0.0, 1.0)
    counts = [_per_node(dec(node[a]), shapes, a.replace("_", " "), 0.0) for a in ("missing_count", "observed_count")]
    alpha = node["alpha"]
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or not np.isfinite(alpha) or alpha <= 0:
        _fail("the missingness model's alpha must be a finite number above 0")
    if not isinstance(node["by_state"], bool) or not isinstance(node["converged"], bool):
        _fail("by_state and converged must be bools")
    objective = node["em_objective"]
    if not isinstance(objective, list) or not all(isinstance(v, numbers.Real) for v in objective):
        _fail("the missingness model's EM objective must be a list of numbers")
    evidence = dec(node["evidence"])
    fields = set(EVIDENCE_FIELDS)  # every one, or (a file written before the fourth model) all but its fields
    known = isinstance(evidence, dict) and set(evidence) in (fields, fields - set(EVIDENCE_SINCE_OBSERVED))
    if not known or not all(isinstance(evidence[k], t) and not isinstance(evidence[k], bool)
                            for k, t in EVIDENCE_FIELDS.items() if k in evidence):
        _fail("the self-masking test's figures are malformed")
    fit = SelectionFit(post, group, tuple(sc for sc, _ in parsed), *counts, selection, float(alpha),
                       [float(v) for v in objective], node["converged"], node["by_state"])
    return MNARMember(model, fit, C, evidence)
