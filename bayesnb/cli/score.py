"""``bayesnb score``: accuracy and log loss of a saved model on labelled rows."""

from __future__ import annotations

import numpy as np

from . import _when_run as when_run
from .commands import _labels_like, _model_and_table
from .options import TABLE, drop_opt, model_command

__all__ = ["cmd_score", "register", "score_model"]


def register(subparsers):
    """Add ``bayesnb score`` and its options to ``subparsers``."""
    s = model_command(subparsers, "score", cmd_score, "accuracy and log loss of a saved model on labelled data",
                      "Evaluate a saved model on DATA with true labels in --target.", data_help=f"labelled {TABLE}")
    s.add_argument("--target", required=True, help="name of the label column")
    drop_opt(s)


def score_model(model, X, y):
    """Accuracy and log loss of a fitted model on labelled rows, as ``bayesnb score`` prints them.

    Parameters
    ----------
    model : fitted bayesnb estimator
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels; a label the model does not know counts as a wrong prediction and is
        left out of the log loss.

    Returns
    -------
    accuracy : float
    log_loss : float
        scikit-learn's ``sklearn.metrics.log_loss`` (probabilities clipped at the machine
        epsilon of their dtype) on the rows with a known class; NaN if there are none.
    n_known : int
        Number of rows with a known class.
    """
    y = np.asarray(y)
    P = model.predict_proba(X)
    known = np.isin(y, model.classes_)
    acc = float(np.mean(model.classes_[P.argmax(1)] == y))
    if not known.any():
        ll = float("nan")
    elif len(model.classes_) == 1:  # scikit-learn's log_loss refuses one label: each known row has probability 1
        ll = float(np.mean(np.log(1.0 / np.clip(P[known, 0], np.finfo(P.dtype).eps, 1.0))))
    else:
        ll = float(when_run.log_loss(y[known], P[known], labels=model.classes_))
    return acc, ll, int(known.sum())


def cmd_score(args):
    """``bayesnb score``: accuracy and log loss of a saved model on labelled rows."""
    model, df, X = _model_and_table(args, labels=args.target)
    y = np.asarray(_labels_like(model, df[args.target]))
    acc, ll, n_known = score_model(model, X, y)
    print(f"rows: {len(y)}")
    print(f"accuracy: {acc:.4f}")
    if n_known == 0:
        print("log loss: undefined (no row has a class the model knows)")
    else:
        print(f"log loss: {ll:.4f}" + (f" (on {n_known} rows with a known class)" if n_known < len(y) else ""))
    return 0
