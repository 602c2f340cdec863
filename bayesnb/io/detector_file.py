"""The model file of :class:`~bayesnb.NBOutlierDetector`: its parameters, model, threshold, range tails and,
for ``statistic="surprise"``, its naive companion and cell references, each checked on load (a file is
untrusted input: anything that would not score as the saved detector does is a ``ModelFileError``)."""

from __future__ import annotations

import numbers

import numpy as np

from ..generative.cell_surprise import CellReference
from ..generative.outlier_threshold import check_contamination
from ..generative.range_tails import RangeTails
from .archive import ModelFileError
from .persistence import decode_estimator, encode_estimator

__all__ = ["detector_from_file", "detector_to_file"]

#: The values of ``NBOutlierDetector(statistic=)`` (defined here, where the file is checked, so that this
#: module need not import the estimator; the estimator reads them from here).
STATISTICS = ("auto", "surprise", "density")
_WHO = "NBOutlierDetector"


def _same_reading(model, companion):
    """Whether a naive companion reads the columns as the model does: the same feature names (where both have
    them) and the same families on the same columns (what ``_naive_companion`` fits). Input dtypes may differ: a
    fitted model's companion is fitted on the rows ``fit`` is given, which may hold another compatible dtype."""
    names = [getattr(m, "feature_names_in_", None) for m in (model, companion)]
    if names[0] is not None and names[1] is not None and list(names[0]) != list(names[1]):
        return False
    blocks = [[(type(b.family).__name__, tuple(int(c) for c in b.columns)) for b in m.posterior_.blocks]
              for m in (model, companion)]
    return blocks[0] == blocks[1]


def detector_to_file(det, enc):
    """The metadata of a fitted detector's file: its parameters, model and threshold (arrays into ``enc``)."""
    tails = getattr(det, "range_tails_", None)
    contamination = det.contamination if isinstance(det.contamination, str) else float(det.contamination)
    kind, marginal = getattr(det, "statistic_", "density"), getattr(det, "marginal_", None)
    refs = getattr(det, "references_", None) if kind == "surprise" else None
    return {"estimator": type(det).__name__,
            "params": {"contamination": enc(contamination), "range_tails": bool(det.range_tails),
                       "estimator_given": det.estimator is not None, "statistic": getattr(det, "statistic", "density")},
            "model": encode_estimator(det.estimator_, enc),
            "fitted": {"offset": enc(float(det.offset_)), "contamination": enc(float(det.contamination_)),
                       "range_tails": None if tails is None else
                       {f: enc(np.asarray(getattr(tails, f), dtype=float)) for f in RangeTails._fields},
                       "statistic": kind, "marginal": None if marginal is None else encode_estimator(marginal, enc),
                       "references": None if refs is None else
                       [{f: enc(np.asarray(getattr(r, f), dtype=float)) for f in CellReference._fields}
                        for r in refs]}}


def detector_from_file(cls, meta, dec):
    """The fitted detector of a file written by :meth:`NBOutlierDetector.save`, checked."""
    params, fitted = meta.get("params"), meta.get("fitted")
    if not isinstance(params, dict) or not isinstance(fitted, dict):
        raise ModelFileError("a detector's params and fitted must be JSON objects")
    model = decode_estimator(meta.get("model"), dec)
    contamination, tails_on, given = dec(params.get("contamination")), params.get("range_tails"), \
        params.get("estimator_given")
    if not isinstance(tails_on, bool) or not isinstance(given, bool):
        raise ModelFileError("a detector's range_tails and estimator_given must be true or false")
    try:
        c = check_contamination(contamination, _WHO)
    except ValueError as e:
        raise ModelFileError(str(e)) from None
    offset, used = dec(fitted.get("offset")), dec(fitted.get("contamination"))
    if not isinstance(offset, numbers.Real) or isinstance(offset, bool) or not np.isfinite(offset):
        raise ModelFileError("a detector's offset must be a finite number")
    if used != c:
        raise ModelFileError(f"a detector's contamination_ ({used!r}) is not its contamination resolved ({c!r})")
    tails = _tails_from_file(fitted.get("range_tails"), dec, int(model.n_features_in_), tails_on)
    score, kind = params.get("statistic", "density"), fitted.get("statistic", "density")  # older files: density
    if score not in STATISTICS or kind not in ("surprise", "density") or (score != "auto" and score != kind):
        raise ModelFileError(f"a detector's statistic must be one of {STATISTICS} and its statistic_ 'surprise' or "
                             f"'density' (the same unless 'auto'); received {score!r} and {kind!r}")
    marginal, refs = None, None
    if kind == "surprise":
        if model.get_params().get("privacy") is not None:
            raise ModelFileError("a detector of a private model is scored by its density: its file holds no cell "
                                 "references (they would release the training cells)")
        node = fitted.get("marginal")
        marginal = None if node is None else decode_estimator(node, dec)
        if marginal is not None and (int(marginal.n_features_in_) != int(model.n_features_in_)
                                     or not _same_reading(model, marginal)):
            raise ModelFileError("a detector's naive companion must read the model's features as the model does "
                                 "(the same names and families on the same columns)")
        refs = _references_from_file(fitted.get("references"), dec, int(model.n_features_in_),
                                     1 + (marginal is not None))
    elif fitted.get("marginal") is not None or fitted.get("references") is not None:
        raise ModelFileError("a detector scored by density has no naive companion or cell references")
    det = cls(model if given else None, contamination=contamination, range_tails=tails_on, statistic=score)
    det.estimator_, det.contamination_, det.offset_, det.range_tails_ = model, c, float(offset), tails
    det.statistic_, det.marginal_, det.references_ = kind, marginal, refs
    det.n_features_in_ = model.n_features_in_
    if hasattr(model, "feature_names_in_"):
        det.feature_names_in_ = model.feature_names_in_
    return det


def _tails_from_file(node, dec, d, tails_on):
    """The :class:`RangeTails` of a detector's file (None allowed: no column got a range)."""
    if node is None:
        return None
    if not tails_on or not isinstance(node, dict) or set(node) != set(RangeTails._fields):
        raise ModelFileError("a detector's range tails must be lo, hi, below and above (and only with "
                             "range_tails=true)")
    arrays = [dec(node[f]) for f in RangeTails._fields]
    if not all(isinstance(a, np.ndarray) and a.shape == (d,) and a.dtype.kind == "f" for a in arrays):
        raise ModelFileError(f"a detector's range tails must be float arrays of shape ({d},)")
    lo, hi, below, above = arrays
    none = np.isnan(lo)
    with np.errstate(invalid="ignore"):
        ok = all((np.isnan(a) == none).all() for a in arrays) and np.isfinite(np.stack(arrays)[:, ~none]).all() \
            and (lo[~none] < hi[~none]).all() and (below[~none] > 0).all() and (above[~none] > 0).all()
    if not ok:
        raise ModelFileError("a detector's range tails must have lo < hi and positive finite scales (NaN together)")
    return RangeTails(*(np.array(a, dtype=float) for a in arrays))


def _references_from_file(node, dec, d, count):
    """The :class:`CellReference` list of a surprise detector's file, checked: one per model, float arrays
    of shape (d, P) with each row's points sorted and its weights rising, NaN-padded together at the end."""
    if not isinstance(node, list) or len(node) != count or not all(
            isinstance(r, dict) and set(r) == set(CellReference._fields) for r in node):
        raise ModelFileError(f"a surprise detector must have {count} cell reference(s) of points, below and total")
    refs = []
    for r in node:
        points, below, total = (dec(r[f]) for f in CellReference._fields)
        if not (all(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in (points, below, total))
                and points.ndim == 2 and points.shape[0] == d and below.shape == points.shape and total.shape == (d,)):
            raise ModelFileError(f"a detector's cell reference must be float arrays of shapes ({d}, P) and ({d},)")
        pad = np.isnan(points)
        with np.errstate(invalid="ignore"):
            ok = (np.isnan(below) == pad).all() and (np.diff(pad.astype(np.int8), axis=1) >= 0).all() \
                and np.isfinite(points[~pad]).all() and np.isfinite(total).all() and (total >= 0).all() \
                and all((np.diff(p[~m]) > 0).all() and (np.diff(b[~m]) > 0).all() and (b[~m] > 0).all()
                        and (not (~m).any() or b[~m][-1] == t) for p, b, m, t in zip(points, below, pad, total))
        if not ok:
            raise ModelFileError("a detector's cell reference must hold finite sorted points, rising positive weights "
                                 "ending at each column's total, NaN-padded together at the end")
        refs.append(CellReference(np.array(points, dtype=float), np.array(below, dtype=float),
                                  np.array(total, dtype=float)))
    return refs
