"""Synthetic data: the :class:`Synthesizer` and the :func:`synthetic_report` that scores its rows.

- :mod:`~bayesnb.synth.synthesizer` -- :class:`Synthesizer` (fit, sample, save)
- :mod:`~bayesnb.synth.search` -- the choice of structure and smoothing
- :mod:`~bayesnb.synth.params`, :mod:`~bayesnb.synth.given_rows`,
  :mod:`~bayesnb.synth.missing_nodes`, :mod:`~bayesnb.synth.observed_support`,
  :mod:`~bayesnb.synth.backoff` -- its parts: options, column types and given values, missing
  cells, the support of the rows drawn, back-off of unseen contexts
- :mod:`~bayesnb.synth.private_synth`, :mod:`~bayesnb.synth.private_bins` -- the
  differentially private Synthesizer and its binned columns
- :mod:`~bayesnb.synth.quality` -- :func:`synthetic_report` / :class:`SyntheticReport`, from
  :mod:`~bayesnb.synth.metrics`, :mod:`~bayesnb.synth.fidelity` and :mod:`~bayesnb.synth.distance`
- :mod:`~bayesnb.synth.combining` -- :func:`~bayesnb.pool_synthetic`, the combining rules for an
  analysis repeated on synthetic tables

The public names are imported from their module when first used.
"""

from .._utils import lazy_exports

_HOMES = {"Synthesizer": "synthesizer", "SyntheticReport": "quality", "synthetic_report": "quality"}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
