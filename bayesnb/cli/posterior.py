"""``bayesnb posterior``: every parameter of a model file as one tidy table.

One row per parameter element: ``block`` (the block's label, as in the ArviZ output of
``model.sample_posterior()``; ``class`` for the class proportions ``pi``), ``parameter``,
``class``, ``feature``, ``value`` (the category of a categorical probability, the interval of a
histogram's bin, e.g. ``[30.1, 35.25)`` or ``3..5``; empty otherwise), then ``mean``, ``sd``, ``hdi_3%`` and ``hdi_97%`` of exact
conjugate posterior draws (:func:`bayesnb.inference.draws.sample_posterior_draws`, the draws
``model.sample_posterior(n_draws, random_state=seed)`` returns for the same seed). The
94% interval is the highest-density interval, computed as ArviZ does (the narrowest window
holding ``floor(0.94 n)`` sorted draws).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils import as_generator
from . import _when_run as when_run
from .files import UsageError, check_output, write_output
from .modelfile import load_model
from .options import float_opt, model_command, output_opt, seed_value

__all__ = ["COEF_COLUMNS", "COLUMNS", "INTERCEPT", "MAX_DRAW_CELLS", "cmd_posterior", "coef_table", "hdi",
           "posterior_table", "register"]

#: the columns of the table, in order
COLUMNS = ("block", "parameter", "class", "feature", "value", "mean", "sd", "hdi_3%", "hdi_97%")
#: the columns of ``--coef``
COEF_COLUMNS = ("term", "coef", "mean", "sd", "lower", "upper")
#: the name of the intercept in ``--coef`` tables
INTERCEPT = "(intercept)"
#: most draw values (draws x parameter elements) one command holds in memory
MAX_DRAW_CELLS = 200_000_000


def hdi(draws, prob=0.94):
    """Highest-density interval of each column of ``draws`` (ArviZ's rule).

    Parameters
    ----------
    draws : ndarray of shape (n_draws, m)
    prob : float, default=0.94

    Returns
    -------
    lo, hi : ndarrays of shape (m,)
    """
    s = np.sort(np.asarray(draws, dtype=float), axis=0)
    n = s.shape[0]
    inc = int(np.floor(prob * n))
    n_int = n - inc
    if n_int < 1 or inc < 1:  # too few draws for a window: the range
        return s[0], s[-1]
    width = s[inc:] - s[:n_int]
    i = np.argmin(width, axis=0)
    cols = np.arange(s.shape[1])
    return s[i, cols], s[i + inc, cols]


def _rows(block, name, arr, classes, features, values):
    """The table rows of one parameter: draws ``arr`` of shape (n, K), (n, K, d) or (n, K, d, V).

    ``values`` is None or one list of value labels per feature (cells past a column's
    own number of values, padding of a shared array, are left out).
    """
    a = np.asarray(arr, dtype=float)
    n, K = a.shape[0], a.shape[1]
    d = a.shape[2] if a.ndim > 2 else 1
    V = a.shape[3] if a.ndim > 3 else 1
    flat = a.reshape(n, K, d, V)
    k_idx, j_idx, v_idx = (x.ravel() for x in np.meshgrid(np.arange(K), np.arange(d), np.arange(V), indexing="ij"))
    if a.ndim > 3 and values is not None:
        keep = np.array([v < len(values[j]) for j, v in zip(j_idx, v_idx)], dtype=bool)
        k_idx, j_idx, v_idx = k_idx[keep], j_idx[keep], v_idx[keep]
    cells = flat[:, k_idx, j_idx, v_idx]
    lo, hi = hdi(cells)
    feat = [""] * len(k_idx) if a.ndim <= 2 else [str(features[j]) if j < len(features) else str(j)
                                                   for j in j_idx]
    if a.ndim <= 3:
        val = [""] * len(k_idx)
    elif values is None:
        val = [str(v) for v in v_idx]
    else:
        val = [str(values[j][v]) for j, v in zip(j_idx, v_idx)]
    return pd.DataFrame({"block": block, "parameter": name, "class": [str(classes[k]) for k in k_idx],
                         "feature": feat, "value": val, "mean": cells.mean(0), "sd": cells.std(0, ddof=1) if n > 1
                         else np.zeros(len(k_idx)), "hdi_3%": lo, "hdi_97%": hi})


def posterior_table(model, n_draws=2000, random_state=0):
    """The tidy posterior summary that ``bayesnb posterior`` writes.

    Parameters
    ----------
    model : fitted bayesnb estimator
    n_draws : int, default=2000
        Exact conjugate draws behind every summary.
    random_state : int, numpy Generator or None, default=0
        The draws are those of ``model.sample_posterior(n_draws, random_state=random_state)``.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`, one row per parameter element.
    """
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 2:
        raise UsageError(f"--draws must be a whole number >= 2; received {n_draws!r}")
    kind = getattr(model, "structure_kind_", "naive")
    if kind != "naive":  # the table reads the naive blocks, which are not this model's parameters
        raise UsageError(f"bayesnb posterior summarises the naive model's blocks; this model has the structure "
                         f"{kind!r}, whose parameters are one per context: use model.sample_posterior() in Python")
    post = model.posterior_
    size = sum(int(np.size(m)) for b in post.blocks for m, _ in b.family.posterior_moments(b.posterior).values())
    if size * n_draws > MAX_DRAW_CELLS:
        raise UsageError(f"the model has {size} parameters: {n_draws} draws of each would hold {size * n_draws:,} "
                         f"values (limit {MAX_DRAW_CELLS:,}); pass --draws {max(2, MAX_DRAW_CELLS // size)} "
                         "or fewer")
    draws = when_run.sample_posterior_draws(post, int(n_draws), as_generator(random_state))
    classes = model.classes_
    blocks = {lay.label: b for b, lay in zip(post.blocks, when_run.block_layouts(post))}
    parts = []
    for key, arr in draws.items():  # every variable of sample_posterior, in its order
        if key == "pi":
            parts.append(_rows("class", "pi", arr, classes, [], None))
            continue
        label = max((lab for lab in blocks if key.endswith(f"_{lab}")), key=len)
        b = blocks[label]
        parts.append(_rows(label, key[: -len(label) - 1], arr, classes, list(b.names),
                           b.family.param_value_labels(b.state)))
    return pd.concat(parts, ignore_index=True)[list(COLUMNS)]


def coef_table(model, n_draws=2000, random_state=0, ci=0.94, each_draw=False):
    """The linear view ``bayesnb posterior --coef`` writes (binary models with Bernoulli,
    Multinomial or Categorical blocks).

    Parameters
    ----------
    model : fitted bayesnb estimator
    n_draws : int, default=2000
    random_state : int, numpy Generator or None, default=0
        The draws are those of ``model.coef_draws(n_draws, random_state=random_state)``.
    ci : float, default=0.94
        Level of the equal-tailed interval (:func:`bayesnb.inference.draws.credible_interval`).
    each_draw : bool, default=False
        Return the draws themselves: a column ``.draw`` (from 1), then :data:`INTERCEPT` and
        one column per ``coef_names_``.

    Returns
    -------
    DataFrame
        One row per term (:data:`INTERCEPT` first, then ``coef_names_``): :data:`COEF_COLUMNS`,
        ``coef`` the point value (``intercept_``, ``coef_``: the log odds at the posterior mean),
        ``mean``/``sd`` over the draws, ``lower``/``upper`` the ``ci`` equal-tailed interval.
    """
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 2:
        raise UsageError(f"--draws must be a whole number >= 2; received {n_draws!r}")
    if not 0 < ci < 1:
        raise UsageError(f"--ci must be in (0, 1); received {ci}")
    names = [str(n) for n in model.coef_names_]
    w, b = model.coef_draws(int(n_draws), random_state=random_state)
    draws = np.column_stack([b, w])
    terms = [INTERCEPT, *names]
    if each_draw:
        out = pd.DataFrame(draws, columns=terms)
        out.insert(0, ".draw", np.arange(1, len(out) + 1))
        return out
    lower, upper = when_run.credible_interval(draws, ci=ci)
    return pd.DataFrame({"term": terms, "coef": np.concatenate([model.intercept_, np.ravel(model.coef_)]),
                         "mean": draws.mean(0), "sd": draws.std(0, ddof=1), "lower": lower, "upper": upper})


def register(subparsers):
    """Add ``bayesnb posterior`` and its options to ``subparsers``."""
    po = model_command(
        subparsers, "posterior", cmd_posterior, "every parameter's posterior as a tidy table",
        "One row per parameter element (block, parameter, class, feature, value) with the "
        "posterior mean, sd and 94% highest-density interval (hdi_3%, hdi_97%) of exact "
        "conjugate draws: those of model.sample_posterior(DRAWS, random_state=SEED).")
    output_opt(po)
    po.add_argument("--draws", type=int, default=2000, metavar="N", help="exact posterior draws (default 2000)")
    po.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
    po.add_argument("--coef", action="store_true",
                    help="the linear view instead (binary models with Bernoulli, Multinomial or Categorical "
                         "blocks): per log-odds term (intercept, coef_names_) the value at the posterior mean "
                         "(coef_), and mean, sd and equal-tailed --ci interval of model.coef_draws(DRAWS, SEED)")
    po.add_argument("--ci", type=float, default=None, metavar="CI",
                    help="level of the --coef interval (default 0.94; credible_interval of model.coef_draws)")
    po.add_argument("--each-draw", action="store_true",
                    help="with --coef, write the draws themselves: .draw, (intercept), one column per term")
    float_opt(po)


def cmd_posterior(args):
    """``bayesnb posterior``: the tidy table of every parameter's posterior (``--coef``: the log-odds weights)."""
    check_output(args.output, [args.model, args.key_file], force=args.force)
    if (args.each_draw or args.ci is not None) and not args.coef:
        raise UsageError("--each-draw and --ci apply to --coef (the log-odds weights); pass --coef")
    model = load_model(args)
    if args.coef:
        table = coef_table(model, n_draws=args.draws, random_state=args.seed, ci=0.94 if args.ci is None else args.ci,
                           each_draw=args.each_draw)
        what = f"{len(table)} draws of {table.shape[1] - 1} log-odds terms" if args.each_draw else \
            f"{len(table)} log-odds terms ({args.draws} exact draws, seed {args.seed})"
    else:
        table = posterior_table(model, n_draws=args.draws, random_state=args.seed)
        what = f"{len(table)} parameter rows ({args.draws} exact draws, seed {args.seed})"
    write_output(table, args, None if args.quiet else f"wrote {what} to {args.output}", [args.model])
    return 0
