"""``bayesnb posterior``: every parameter of a model file as one tidy table.

One row per parameter element: ``block`` (the block's label, as in the ArviZ output of
``model.sample_posterior()``; ``class`` for the class proportions ``pi``), ``parameter``,
``class``, ``feature``, ``value`` (the category of a categorical probability, the bin of a
histogram; empty otherwise), then ``mean``, ``sd``, ``hdi_3%`` and ``hdi_97%`` of exact
conjugate posterior draws (:func:`bayesnb.inference.draws.sample_posterior_draws`, the draws
``model.sample_posterior(n_draws, random_state=seed)`` returns for the same seed). The
94% interval is the highest-density interval, computed as ArviZ does (the narrowest window
holding ``floor(0.94 n)`` sorted draws).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils import as_generator
from ..diagnostics import block_layouts
from ..inference.draws import sample_posterior_draws
from .io import UsageError, check_output, write_table
from .model import load_model

__all__ = ["COLUMNS", "MAX_DRAW_CELLS", "cmd_posterior", "hdi", "posterior_table"]

#: the columns of the table, in order
COLUMNS = ("block", "parameter", "class", "feature", "value", "mean", "sd", "hdi_3%", "hdi_97%")
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
    if a.ndim <= 2:
        feat = [""] * len(k_idx)
    else:
        feat = [str(features[j]) if j < len(features) else str(j) for j in j_idx]
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
    post = model.posterior_
    size = sum(int(np.size(m)) for b in post.blocks for m, _ in b.family.posterior_moments(b.posterior).values())
    if size * n_draws > MAX_DRAW_CELLS:
        raise UsageError(f"the model has {size} parameters: {n_draws} draws of each would hold {size * n_draws:,} "
                         f"values (limit {MAX_DRAW_CELLS:,}); pass --draws {max(2, MAX_DRAW_CELLS // size)} "
                         "or fewer")
    draws = sample_posterior_draws(post, int(n_draws), as_generator(random_state))
    classes = model.classes_
    blocks = {lay.label: b for b, lay in zip(post.blocks, block_layouts(post))}
    parts = []
    for key, arr in draws.items():  # every variable of sample_posterior, in its order
        if key == "pi":
            parts.append(_rows("class", "pi", arr, classes, [], None))
            continue
        label = max((lab for lab in blocks if key.endswith(f"_{lab}")), key=len)
        b = blocks[label]
        parts.append(_rows(label, key[: -len(label) - 1], arr, classes, list(b.names),
                           b.family.value_labels(b.state)))
    return pd.concat(parts, ignore_index=True)[list(COLUMNS)]


def cmd_posterior(args):
    """``bayesnb posterior``: the tidy table of every parameter's posterior (CSV on stdout or ``-o``)."""
    check_output(args.output, [args.model, args.key_file])
    model = load_model(args)
    table = posterior_table(model, n_draws=args.draws, random_state=args.seed)
    write_table(table, args.output, done=None if args.quiet else
                f"wrote {len(table)} parameter rows ({args.draws} exact draws, seed {args.seed}) to {args.output}",
                inputs=[args.model], float_format=args.float_format, fmt=args.format)
    return 0
