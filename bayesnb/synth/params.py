"""The :class:`~bayesnb.Synthesizer`'s parameter checks (clear errors for bad values)."""

from __future__ import annotations

import numbers

import numpy as np

from ..estimators.auto_features import MODES
from .observed_support import SUPPORTS

__all__ = ["check_params"]

_WHO = "Synthesizer"


def check_params(synth):
    """Raise ``ValueError`` naming the first parameter of ``synth`` that is not allowed.

    Parameters
    ----------
    synth : Synthesizer
        Its constructor parameters are checked (see its docstring for what each may be).
    """
    if synth.structure not in ("auto", "naive", "tan", "kdb"):
        raise ValueError(f"{_WHO}: structure must be one of 'auto', 'naive', 'tan', 'kdb'; "
                         f"received {synth.structure!r}.")
    lat = synth.latent
    if not (lat is None or (isinstance(lat, str) and lat == "auto")
            or (isinstance(lat, numbers.Integral) and not isinstance(lat, bool) and lat >= 1)):
        raise ValueError(f"{_WHO}: latent must be 'auto', a whole number >= 1 or None; received {lat!r}.")
    cands = synth.latent_candidates
    if not (np.ndim(cands) == 1 and len(cands) and all(isinstance(c, numbers.Integral) and not isinstance(c, bool)
                                                      and c >= 1 for c in cands)):
        raise ValueError(f"{_WHO}: latent_candidates must be a non-empty sequence of whole numbers >= 1; "
                         f"received {cands!r}.")
    if not (isinstance(synth.holdout, numbers.Real) and 0 < synth.holdout < 1):
        raise ValueError(f"{_WHO}: holdout must be a fraction in (0, 1); received {synth.holdout!r}.")
    if not (isinstance(synth.search_rows, numbers.Integral) and synth.search_rows >= 2):
        raise ValueError(f"{_WHO}: search_rows must be a whole number >= 2; received {synth.search_rows!r}.")
    if not (synth.missing is None or (isinstance(synth.missing, str) and synth.missing in ("model", "drop"))):
        raise ValueError(f"{_WHO}: missing must be 'model', 'drop' or None; received {synth.missing!r}.")
    if synth.component_prior not in ("class", "hierarchical"):
        raise ValueError(f"{_WHO}: component_prior must be 'class' or 'hierarchical'; "
                         f"received {synth.component_prior!r}.")
    if synth.categories is not None and (synth.privacy is None or not isinstance(synth.categories, dict)):
        raise ValueError(f"{_WHO}: categories= declares the categories of a private fit: give a dict "
                         f"{{column: [values]}} with privacy=DP(...); received {synth.categories!r} with "
                         f"privacy={synth.privacy!r}.")
    if not (isinstance(synth.numeric, str) and synth.numeric in MODES):  # NaiveBayes(features=)'s modes
        raise ValueError(f"{_WHO}: numeric must be one of {tuple(MODES)}; received {synth.numeric!r}.")
    if not (isinstance(synth.support, str) and synth.support in SUPPORTS):
        raise ValueError(f"{_WHO}: support must be one of {SUPPORTS}; received {synth.support!r}.")
