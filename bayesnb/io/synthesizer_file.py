"""A :class:`~bayesnb.Synthesizer` in bayesnb's model file (no pickle): the two layouts, and reading them back.

:meth:`Synthesizer.save <bayesnb.Synthesizer.save>` writes one of two layouts, both ordinary model
files (:mod:`bayesnb.io.persistence`: one ``.npz`` archive, JSON metadata, checksums, the optional HMAC):

- **A structure chosen** (naive Bayes, TAN, k-DB): the chosen :class:`~bayesnb.NaiveBayes`'s own file,
  with the target's name and place (``target_name_``, ``target_index_``) as ``bayesnb fit`` records
  them. :func:`bayesnb.load` gives that estimator, and ``bayesnb sample`` reads it as any model file.
- **A latent-class model chosen**: a file whose ``estimator`` is ``"Synthesizer"``, with ``model``
  (the estimator, as :func:`~bayesnb.io.persistence.encode_estimator` writes it, target recorded the same
  way), ``latent`` (its :class:`~bayesnb.LatentClassFit`, as :mod:`bayesnb.io.latent_file` writes
  it) and ``chosen`` (the candidate's name). :func:`bayesnb.load` gives the
  :class:`~bayesnb.Synthesizer` itself (the estimator alone would sample without the latent
  components), and ``bayesnb sample`` samples it as :meth:`~bayesnb.Synthesizer.sample` does.

``bayesnb.io.persistence.save(synth, path)`` writes the second layout whatever the choice (``latent``
null for a structure); it loads back as a ``Synthesizer`` too. Reading checks the estimator as
:func:`bayesnb.load` does (fitted on a DataFrame), and the latent-class fit against it by the rule saving
uses, the estimator's *fitted* structure (a naive fit on an estimator whose fit is naive, even with
``structure="auto"``; a structured one over the estimator's structure); anything
else is refused with :class:`~bayesnb.io.persistence.ModelFileError`. The training columns, their dtypes
and the missing indicators are read back from the estimator (:func:`synth_from_model`); ``selection_``
is not saved.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from .latent_file import latent_from_file, latent_to_file
from .archive import ModelFileError
from ..synth.private_bins import bin_bounds, binned_columns
from ..synth.missing_nodes import indicators_in
from ..estimators import NaiveBayes
from .persistence import decode_estimator, encode_estimator

__all__ = ["record_target", "synth_from_file", "synth_from_model", "synth_to_file"]

_WHO = "Synthesizer"


def record_target(synth):
    """Record ``synth``'s target name and place and its ``support`` on its estimator, as ``bayesnb fit`` does.

    ``target_name_`` and ``target_index_``: the estimator's file says where the label column goes;
    ``sample_support_``: ``Synthesizer.load`` and ``bayesnb sample`` draw as the Synthesizer does.

    Parameters
    ----------
    synth : Synthesizer
        Fitted; nothing is recorded without a target.
    """
    synth.model_.sample_support_ = synth.support
    if synth.target is not None:
        synth.model_.target_name_ = synth.target
        synth.model_.target_index_ = synth.columns_.index(synth.target)


def synth_to_file(synth, enc):
    """The metadata of a fitted :class:`~bayesnb.Synthesizer`'s file, second layout (module docstring).

    Parameters
    ----------
    synth : Synthesizer
        Fitted, without datetime columns.
    enc : Encoder

    Returns
    -------
    dict
        ``estimator`` (``"Synthesizer"``), ``model``, ``latent`` and ``chosen``.

    Raises
    ------
    NotImplementedError
        ``synth`` models datetime columns (the file would not record them).
    TypeError
        Its latent-class fit is one MCMC draw, or not over its estimator's structure
        (:func:`~bayesnb.io.latent_file.latent_to_file`).
    """
    if getattr(synth, "datetime_columns_", []):
        raise NotImplementedError(f"{_WHO}.save: datetime columns {synth.datetime_columns_} are modelled as "
                                  "seconds and model files do not record them yet; convert them to numbers "
                                  "before fit to save the model.")
    record_target(synth)
    latent = None if synth.latent_ is None else latent_to_file(synth.latent_, enc, f"{_WHO}.save", synth.model_)
    return {"estimator": type(synth).__name__, "model": encode_estimator(synth.model_, enc), "latent": latent,
            "chosen": str(synth.chosen_)}


def synth_from_file(cls, meta, dec):
    """The fitted :class:`~bayesnb.Synthesizer` of a second-layout file's metadata, checked.

    Parameters
    ----------
    cls : type
        ``Synthesizer``.
    meta : dict
    dec : Decoder

    Returns
    -------
    Synthesizer

    Raises
    ------
    ModelFileError
        The metadata is malformed or inconsistent (module docstring).
    """
    model = decode_estimator(meta["model"], dec)
    if not isinstance(model, NaiveBayes) or getattr(model, "feature_names_in_", None) is None:
        raise ModelFileError(f"a Synthesizer's model must be a NaiveBayes fitted on a DataFrame; the file holds "
                             f"a {type(model).__name__}")
    chosen = meta["chosen"]
    if not isinstance(chosen, str) or not 0 < len(chosen) <= 200:
        raise ModelFileError("a Synthesizer's chosen candidate must be a name of at most 200 characters")
    # naive, or over the estimator's fitted structure (latent_from_file checks)
    latent = None if meta["latent"] is None else latent_from_file(model, meta["latent"], dec)
    return synth_from_model(cls, model, latent, chosen)


def _synth_privacy(dp, target, model=None):
    """A Synthesizer's ``privacy`` from its model's: without a target, the one class ``0`` the private fit
    declared for the estimator (``bayesnb.synth.private_synth.fit_private``) is not the user's, who gave none;
    a binned numeric column's bounds, which the estimator does not take, from its bins' edges."""
    binned = {} if dp is None or model is None else binned_columns(
        model, dict(zip(model.feature_names_in_, getattr(model, "feature_dtypes_", ()))))
    if binned:
        dp = dataclasses.replace(dp, bounds={**(dp.bounds or {}), **{c: bin_bounds(*ei) for c, ei in binned.items()}})
    return dataclasses.replace(dp, classes=None) if dp is not None and target is None else dp


def synth_from_model(cls, model, latent, chosen):
    """A fitted ``cls`` (:class:`~bayesnb.Synthesizer`) around a loaded estimator and latent-class fit.

    Parameters
    ----------
    cls : type
    model : NaiveBayes
        Fitted on a DataFrame; its ``target_name_`` / ``target_index_`` (if any) name the target and
        its place, and its missing-indicator columns give ``missing_indicators_``.
    latent : LatentClassFit or None
    chosen : str
        ``chosen_``.

    Returns
    -------
    Synthesizer
        ``model_``, ``latent_`` and ``chosen_`` as given, ``selection_`` None, the columns and dtypes
        of the training table (the target's dtype its classes'), and the parameters that fit the
        same kind of model: ``target``, ``structure`` (the estimator's), ``latent`` (the number
        of components, or None), ``numeric`` (``"histogram"`` where the estimator's ``features`` is,
        else ``"auto"``) and ``support`` (the recorded ``sample_support_``; ``"smoothed"``,
        the estimator's own sampling, for a file without it, e.g. one ``bayesnb fit`` wrote); for a private
        estimator also ``privacy`` (its ``DP`` setting) and ``privacy_spent_``.
    """
    target = getattr(model, "target_name_", None)
    self = cls(target=target, structure=getattr(model, "structure_kind_", "naive"),
               latent=None if latent is None else int(latent.n_components),
               support=getattr(model, "sample_support_", "smoothed"),  # a file without it: as it was sampled
               numeric=model.features if isinstance(model.features, str) else "auto",  # a dict: private
               privacy=_synth_privacy(getattr(model, "privacy", None), target, model))
    if getattr(model, "privacy_spent_", None) is not None:  # a private model (bayesnb.synth.private_synth)
        self.privacy_spent_ = model.privacy_spent_
    indicators = indicators_in(model.feature_names_in_)
    kept = [(n, t) for n, t in zip(model.feature_names_in_, model.feature_dtypes_)
            if n not in set(indicators.values())]
    columns, dtypes = [n for n, _ in kept], [t for _, t in kept]
    if target is not None:
        at = min(int(getattr(model, "target_index_", len(columns))), len(columns))
        columns.insert(at, target)
        dtypes.insert(at, model.classes_.dtype)
    self.model_, self.latent_, self.selection_, self.chosen_ = model, latent, None, chosen
    self._model_columns, self.missing_indicators_ = list(model.feature_names_in_), indicators
    self.columns_, self.dtypes_ = columns, pd.Series(dtypes, index=columns, dtype=object)
    return self
