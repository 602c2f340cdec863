"""``bayesnb fit``: fit a model to a table and save it (signed with ``--key-file``)."""

from __future__ import annotations

from .commands import fit_table
from .fitoptions import add_fit_options
from .files import atomic_path, check_output, quiet
from .modelfile import key_of
from .options import add_command, fit_opts, force_opt, key_opt
from .tableimpute import choices_note

__all__ = ["cmd_fit", "register"]


def register(subparsers):
    """Add ``bayesnb fit`` and its options to ``subparsers``."""
    f = add_command(subparsers, "fit", cmd_fit, help="fit a model to a table and save it",
                    description="Fit a Naive Bayes model to DATA (CSV, TSV or Parquet) predicting --target, "
                                "and save it to -o in bayesnb's safe model format. Missing cells are "
                                "allowed (left out of the statistics).")
    fit_opts(f, "")
    f.add_argument("-o", "--output", required=True, help="model file to write (e.g. model.bnb)")
    force_opt(f)
    add_fit_options(f)  # --chunksize, --semi-supervised, --structure, --k, --edge-score
    key_opt(f, "sign the model file, so that it loads only with the same key")


def cmd_fit(args):
    """``bayesnb fit``: fit a model to a table and save it (signed with ``--key-file``)."""
    check_output(args.output, [args.data, args.key_file], force=args.force)
    key = key_of(args)  # before fitting: a bad key file fails fast
    model, X, y, n, d, dt = fit_table(args)
    with atomic_path(args.output) as tmp:
        model.save(tmp, key=key, overwrite=True)  # tmp: atomic_path's own new, empty file
    if not quiet():  # -q: the model file is the output; no summary
        _fit_summary(args, model, X, y, n, d, dt)
    return 0


def _fit_summary(args, model, X, y, n, d, dt):
    """Print what ``bayesnb fit`` fitted: blocks, classes, training accuracy, evidence, the file."""
    ev = model.log_evidence_
    print(f"fitted {type(model).__name__} on {n} rows x {d} features in {dt * 1000:.0f} ms")
    for b in model.posterior_.blocks:
        names = [str(n) for n in b.names]
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} columns)" if len(names) > 6 else "")
        print(f"  block {type(b.family).__name__}: {shown}")
    kind = getattr(model, "structure_kind_", "naive")
    if kind != "naive":  # --structure: the dependencies learnt (their list: bayesnb info)
        edges = sum(len(p) for p in model.structure_.values())
        how = " (chosen by held-out log-likelihood)" if model.get_params()["structure"] == "auto" else ""
        print(f"  structure: {kind}{how}, {edges} feature-to-feature edges (listed by 'bayesnb info')")
    counts = ", ".join(f"{c}: {n:g}" for c, n in zip(model.classes_, model.class_count_))
    print(f"  classes: {counts}")
    if X is not None:
        known = y.notna().to_numpy()
        n_known = f" (the {int(known.sum())} labelled rows)" if not known.all() else ""
        print(f"  training accuracy{n_known}: {model.score(X[known], y[known]):.3f}")
    spent = getattr(model, "privacy_spent_", None)
    if spent is not None:  # --privacy: its split is listed by bayesnb info
        print(f"  differential privacy: ({spent['epsilon']:g}, {spent['delta']:g})-DP, {spent['mechanism']} mechanism "
              "(the budget's split: 'bayesnb info')")
    print(f"  log evidence log p(X, y): {ev:.2f}" if ev is not None else "  log evidence: undefined (improper prior)")
    if getattr(model, "imputer_", None) is not None:  # --for-imputation
        print(f"  imputer: chose {choices_note(model.imputer_) or 'nothing (no column had a hidden cell)'}")
    print(f"saved model to {args.output}")
