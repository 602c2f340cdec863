"""``bayesnb info``: a readable report of a model file (``--json``: its summary as JSON).

The report names the estimator, the target, the classes with their training counts, the
closed-form evidence, ``alpha_`` (what ``alpha="auto"`` chose, for the estimators that
have it), and per block its family, its columns and, per column and class, the posterior
mean and 94% equal-tailed interval of each parameter from exact conjugate draws
(``family.sample_params``); for a parameter over a column's values (categorical
probabilities) the most probable values. ``family_scores_`` (the numeric families
``features="auto"`` compared) ends the report when the model has it.
"""

from __future__ import annotations

import json

import numpy as np

from . import _when_run as when_run
from .modelfile import key_of, load_model
from .options import model_command, seed_value
from .tableimpute import choices_note

__all__ = ["cmd_info", "model_report", "register"]

#: most values of a draw array (draws x parameters) computed for the report
MAX_DRAW_CELLS = 4_000_000
#: number of exact posterior draws behind the intervals (fewer for a large block)
N_DRAWS = 2000


def _fmt(v):
    return f"{v:.3g}"


def _interval(a):
    """``mean [3%, 97%]`` of the draws ``a`` (1-D)."""
    lo, hi = np.quantile(a, [0.03, 0.97])
    return f"{_fmt(a.mean())} [{_fmt(lo)}, {_fmt(hi)}]"


def _cell(name, a, labels, top):
    """One parameter of one (class, column): draws ``a`` of shape (n,) or (n, n_values)."""
    if a.ndim == 1:
        return f"{name} {_interval(a)}"
    means = a.mean(0)
    if labels is None:
        return f"{name}: {a.shape[1]} values"
    n = min(len(labels), a.shape[1])
    order = np.argsort(-means[:n], kind="stable")[:top]
    return ", ".join(f"{labels[i]} {_interval(a[:, i])}" for i in order)


def _block_lines(b, classes, rng, max_columns, top):
    """The report lines of one block of the posterior."""
    fam, names = b.family, [str(n) for n in b.names]
    shown = ", ".join(names[:8]) + (f", ... ({len(names)} columns)" if len(names) > 8 else "")
    lines = [f"block {type(fam).__name__} ({len(names)} column{'s' * (len(names) != 1)}): {shown}"]
    moments = fam.posterior_moments(b.posterior)
    size = sum(int(np.size(m)) for m, _ in moments.values())
    n_draws = min(N_DRAWS, MAX_DRAW_CELLS // max(size, 1))
    if n_draws < 100:
        lines.append(f"  ({size} parameters: too many to summarise here; see model.sample_posterior())")
        return lines
    draws = fam.sample_params(b.posterior, n_draws, rng)
    labels = fam.param_value_labels(b.state)  # a histogram's bins as their intervals
    if any(np.ndim(v) < 3 for v in draws.values()):  # a parameter without a column axis
        lines.append(f"  parameters {list(draws)} (see model.sample_posterior())")
        return lines
    hidden = [p for p, v in draws.items() if np.ndim(v) > 3 and labels is None]
    if hidden:  # a parameter over unlabelled values (histogram bins): too long to show per class
        lines.append(f"  {', '.join(hidden)}: {np.shape(draws[hidden[0]])[-1]} values per column and class "
                     "(see model.sample_posterior())")
        draws = {p: v for p, v in draws.items() if p not in hidden}
        if not draws:
            return lines
    lines.append(f"  posterior mean [94% interval] from {n_draws} exact draws"
                 + (f"; the {top} most probable values" if labels is not None else ""))
    width = max(len(str(c)) for c in classes)
    for j, name in enumerate(names[:max_columns]):
        lines.append(f"  {name}")
        for k, c in enumerate(classes):
            cells = [_cell(p, np.asarray(v)[:, k, j], None if labels is None else labels[j], top)
                     for p, v in draws.items()]
            lines.append(f"    {c!s:<{width}}  " + "; ".join(cells))
    if len(names) > max_columns:
        lines.append(f"  ... {len(names) - max_columns} more column(s) (--columns-shown N to see more)")
    return lines


def model_report(model, max_columns=8, top=3, random_state=0):
    """The readable report of a fitted model that ``bayesnb info`` prints.

    Parameters
    ----------
    model : fitted bayesnb estimator
    max_columns : int, default=8
        Columns shown per block.
    top : int, default=3
        Most probable values shown per column and class for a parameter over the
        column's values (categorical probabilities).
    random_state : int, default=0
        Seed of the exact posterior draws behind the intervals.

    Returns
    -------
    str
    """
    rng = np.random.default_rng(random_state)
    post = model.posterior_
    lines = [f"estimator: {type(model).__name__}"]
    target = getattr(model, "target_name_", None)
    lines.append(f"target: {target}" if target is not None else "target: (no name recorded)")
    counts = ", ".join(f"{c} {n:g}" for c, n in zip(model.classes_, model.class_count_))
    lines.append(f"classes ({len(model.classes_)}): {counts}")
    lines.append(f"features: {int(model.n_features_in_)} in {len(post.blocks)} block(s)")
    spent = getattr(model, "privacy_spent_", None)
    if spent is not None:
        parts = "; ".join(f"{k} eps={v[0]:.4g}" + (f" delta={v[1]:.3g}" if v[1] else "") for k, v in spent["split"].items())
        gdp = sum(v[0] for v in spent["split"].values()) > spent["epsilon"] * (1 + 1e-9)  # (files before: basic composition)
        how = " (Gaussian shares compose by GDP: their epsilons do not add up)" if gdp else ""
        lines.append(f"differential privacy: ({spent['epsilon']:g}, {spent['delta']:g})-DP, {spent['mechanism']} "
                     f"mechanism on the sufficient statistics (split{how}: {parts})")
    ev = model.log_evidence_
    lines.append(f"log evidence log p(X, y): {ev:.4f}" if ev is not None else
                 "log evidence: undefined (improper prior)")
    alpha = getattr(model, "alpha_", None)
    if alpha is not None:
        chose = "alpha='auto' chose" if getattr(model, "alpha", None) == "auto" else "alpha_:"
        shown = _fmt(alpha) if np.ndim(alpha) == 0 else "per column " + ", ".join(_fmt(a) for a in np.ravel(alpha)[:8])
        lines.append(f"{chose} {shown}")
    kind = getattr(model, "structure_kind_", "naive")
    if kind != "naive":  # the blocks below are the naive posterior's: each feature's p(x_j | y) alone
        edges = [f"{c} <- {', '.join(pa)}" for c, pa in model.structure_.items() if pa]
        lines.append(f"structure: {kind} ({'; '.join(edges[:max_columns])}{' ...' if len(edges) > max_columns else ''});"
                     " the blocks below are each feature's p(x_j | y), not the per-context tables")
    imputer = getattr(model, "imputer_", None)
    if imputer is not None:  # fit --for-imputation: what impute fills with
        lines.append(f"imputer (fitted for imputation; impute fills with it): {choices_note(imputer) or 'no choice'}")
    for b in post.blocks:
        lines.append("")
        lines += _block_lines(b, model.classes_, rng, max_columns, top)
    return "\n".join(lines)


def register(subparsers):
    """Add ``bayesnb info`` and its options to ``subparsers``."""
    inf = model_command(
        subparsers, "info", cmd_info, "a readable report of a model file",
        "Print what a model file holds: estimator, target, classes with counts, the evidence, "
        "the alpha 'auto' chose, and per block its family, columns and posterior means with "
        "94% intervals (the most probable values of categorical columns).")
    inf.add_argument("--json", action="store_true", help="print the file's summary as JSON instead")
    inf.add_argument("--columns-shown", type=seed_value, default=8, metavar="N",
                     help="columns shown per block (default 8)")


def cmd_info(args):
    """``bayesnb info``: a readable report of a model file (``--json``: the file's summary as JSON)."""
    model = load_model(args)
    meta, _ = when_run.read_model_file(args.model, key=key_of(args))
    if args.json:
        summary = dict(meta["summary"])
        summary.update({"estimator": meta["estimator"], "target": getattr(model, "target_name_", None),
                        "class_count": [float(n) for n in model.class_count_],
                        "log_evidence": model.log_evidence_})
        if getattr(model, "imputer_", None) is not None:  # fit --for-imputation: column -> configuration
            summary["imputer_chosen"] = {str(c): cfg for c, cfg in model.imputer_.chosen_.items()}
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{args.model}: {meta['estimator']} (format {meta['format']} v{meta['format_version']}, "
          f"written by bayesnb {meta['bayesnb_version']})")
    print(model_report(model, max_columns=args.columns_shown))
    scores = getattr(model, "family_scores_", None)
    if scores is not None and len(scores):
        print()
        # the best of each kind per column (Histogram is a grid of bins and alpha)
        kind = scores["family"].astype(str).str.split("(").str[0]
        best = scores.loc[scores.groupby([scores["column"], kind], sort=False)["log_evidence"].idxmax()]
        print("numeric families chosen by evidence (log p(x_j | y) at the data's resolution; the best "
              f"of each kind, {len(scores)} candidates in all in family_scores_):")
        print(best.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0
