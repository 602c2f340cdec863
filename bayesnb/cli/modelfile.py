"""A saved model and the tables given to it, for the ``bayesnb`` command line.

:func:`load_model` reads ``MODEL`` (with the ``--key-file`` key, if any);
:func:`read_for_model` reads a table with the model's column types; :func:`features_of`
picks the model's feature columns; :func:`unseen_warning` warns about categories the model
never saw.
"""

from __future__ import annotations

import pandas as pd

from .._utils import shown_list
from . import _when_run as when_run
from .files import UsageError, read_table, warn

__all__ = ["features_of", "key_of", "load_model", "read_for_model", "unseen_warning"]

#: the largest key file read (a key is a secret of a few dozen bytes)
MAX_KEY_BYTES = 4096


def key_of(args):
    """The HMAC key of ``--key-file`` (the file's bytes, one trailing newline removed), or None."""
    path = getattr(args, "key_file", None)
    if path is None:
        return None
    with open(path, "rb") as f:
        key = f.read(MAX_KEY_BYTES + 1)
    if len(key) > MAX_KEY_BYTES:
        raise UsageError(f"--key-file {path}: the file is larger than {MAX_KEY_BYTES} bytes; expected a "
                         "secret key (e.g. 32 random bytes, or a passphrase on one line)")
    key = key[:-2] if key.endswith(b"\r\n") else key[:-1] if key.endswith(b"\n") else key
    if not key:
        raise UsageError(f"--key-file {path}: the file is empty; expected a secret key")
    return key


def load_model(args, imputer=False, synthesizer=False, detector=False):
    """The model file ``args.model``, read with the ``--key-file`` key if given.

    A file holding an :class:`~bayesnb.Imputer` is refused unless ``imputer`` (only ``bayesnb impute``
    reads one), one holding a :class:`~bayesnb.Synthesizer` (``Synthesizer.save`` of a latent-class
    choice) unless ``synthesizer`` (only ``bayesnb sample`` reads one), and one holding an
    :class:`~bayesnb.NBOutlierDetector` unless ``detector`` (only ``bayesnb outliers`` reads one).
    """

    key = key_of(args)
    try:
        model = when_run.load(args.model, key=key)
    except when_run.ModelFileError as e:
        if key is None and "signed with a key" in str(e):
            raise UsageError(f"{args.model}: the model file is signed with a key; pass its --key-file") from None
        raise
    for name, allowed, what, reader in (
            ("Imputer", imputer, "an Imputer (from 'bayesnb fit-imputer' or Imputer.save)", "impute"),
            ("Synthesizer", synthesizer, "a Synthesizer (Synthesizer.save of a latent-class choice)", "sample"),
            ("NBOutlierDetector", detector, "an NBOutlierDetector (NBOutlierDetector.save)", "outliers")):
        if when_run.is_a(model, name) and not allowed:
            raise UsageError(f"{args.model}: holds {what}, which only 'bayesnb {reader}' reads; expected a model "
                             "from 'bayesnb fit'")
    return model


def features_of(model, df, path):
    """The model's feature columns of ``df`` (in the order it was fitted on)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        if df.shape[1] != model.n_features_in_:
            raise UsageError(f"{path}: has {df.shape[1]} columns; the model expects {model.n_features_in_}")
        return df
    names = [str(n) for n in names]
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise UsageError(f"{path}: missing column(s) {shown_list(missing)} that the model was fitted on")
    return df[names]


def _model_columns(model):
    """``(categorical, numeric)`` feature names of a fitted model, by the family of their block.

    ``numeric`` maps each numeric column to the reason it must hold numbers (its block's family).

    Categorical columns with text categories are read as text at predict time, so that their
    cells match the training categories exactly; the rest are read as numbers.
    """
    categorical, numeric = [], {}
    for b in model.posterior_.blocks:
        cats = b.family.value_labels(b.state)
        names = [str(n) for n in b.names]
        if cats is None:
            numeric.update((n, f"a {type(b.family).__name__} column of the model") for n in names)
        else:
            categorical += [n for n, c in zip(names, cats) if all(isinstance(v, str) for v in c)]
    return categorical, numeric


def read_for_model(model, args):
    """Read ``args.data`` for a fitted model: its categorical columns as text, numeric as numbers.

    The user's ``--numeric`` / ``--categorical`` win over what the model says.
    """
    user_num, user_cat = args.numeric or [], args.categorical or []
    cat, num = _model_columns(model)
    clash = [c for c in user_cat if c in num]
    if clash:
        raise UsageError(f"--categorical {clash[0]}: the model reads column {clash[0]!r} as numbers "
                         f"({num[clash[0]]}); expected --categorical to name only its categorical columns")
    return read_table(args.data, args.na_values, numeric=user_num, categorical=user_cat,
                      text_if_present=[c for c in cat if c not in user_num + user_cat],
                      numbers_if_present={c: why for c, why in num.items() if c not in user_num + user_cat})


def unseen_warning(model, X, path):
    """Warn about categorical values of ``X`` that the model never saw in training."""

    for b in model.posterior_.blocks:
        cats = b.family.value_labels(b.state)
        if cats is None:
            continue
        for name, c in zip(b.names, cats):
            name = str(name)
            if name not in X.columns:
                continue
            col = X[name]
            observed = col[col.notna()]
            if observed.empty:
                continue
            unseen = pd.Index(c).get_indexer(observed.to_numpy(dtype=object)) < 0
            if unseen.any():
                vals = pd.unique(observed[unseen].to_numpy(dtype=object))
                shown = ", ".join(repr(v) for v in vals[:3]) + (f" and {len(vals) - 3} more" if len(vals) > 3 else "")
                warn(f"{path}: column {name!r} has value(s) not seen in training: {shown} "
                     f"({int(unseen.sum())} row(s)); the model scores an unseen value as a new category "
                     "holding only the prior pseudo-count, p = alpha / (class total + alpha), the same for "
                     "every class up to the class totals (zero when alpha = 0)")
