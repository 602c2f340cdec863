"""Do a column's missing cells look missing completely at random (MCAR)? One test per column.

Used by :func:`bayesnb.criticism.check_independence` (``attrs["mcar"]``) and
:func:`bayesnb.criticism.check_mcar`. Each column's missing indicator is tested against the class
and every other column (Rubin 1976: under MCAR missingness is independent of every value) by a
likelihood-ratio (G) test of its ``2 x states`` table (:func:`scipy.stats.chi2_contingency`, no
continuity correction, empty rows and columns dropped; a numeric partner binned by the check's
rule, :func:`quartile_bins`), the smallest p-value times the number of partners (Bonferroni).
Another column's *missingness* is no evidence against MCAR, so a partner's missing cells and the
Synthesizer's indicator columns (``_missing_:<column>``) are left out. See docs/criticism.md,
"Are the missing cells missing completely at random?".

Rubin, D. B. (1976). Inference and missing data. *Biometrika* 63(3), 581-592.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from ..synth.missing_nodes import indicators_in

__all__ = ["MCAR_COLUMNS", "mcar_table", "quartile_bins"]

MCAR_COLUMNS = ["feature", "n_missing", "missing_rate", "partner", "g_statistic", "dof", "n_partners", "p_value",
                "mcar"]
_MAX_BINS = 4


def quartile_bins(values, observed):
    """Integer bins of ``values`` with edges from ``observed``: one bin per distinct observed value when
    there are at most 4, else the 4 bins cut at the quartiles (duplicate edges merged)."""
    distinct = np.unique(observed)
    if distinct.size <= _MAX_BINS:
        edges = (distinct[1:] + distinct[:-1]) / 2
    else:
        edges = np.unique(np.quantile(observed, np.arange(1, _MAX_BINS) / _MAX_BINS))
    return np.searchsorted(edges, values, side="right")


def _states(x, discrete):
    """Partner states of one data column (codes ``>= 0``; ``-1`` missing)."""
    if discrete:
        return np.asarray(x, dtype=np.int64)
    x = np.asarray(x, dtype=float)
    out = np.full(x.shape, -1, dtype=np.int64)
    seen = np.isfinite(x)
    out[seen] = quartile_bins(x[seen], x[seen])
    return out


def _g_test(miss, state):
    """(G, dof, p) of ``miss`` (bool) against ``state`` (codes >= 0) on the same rows; None without two of each."""
    if state.size == 0:
        return None
    table = np.zeros((2, int(state.max()) + 1))
    np.add.at(table, (miss.astype(np.int64), state), 1.0)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if table.shape[0] < 2 or table.shape[1] < 2:
        return None
    g, p, dof, _ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
    return float(g), int(dof), float(p)


def mcar_table(columns, discrete, names, class_codes, alpha=0.05):
    """The MCAR verdict of every column with a missing cell (module docstring).

    Parameters
    ----------
    columns : list of ndarray of shape (n,)
        The data's columns: discrete ones as integer codes (``-1`` missing), numeric ones as
        floats (NaN missing).
    discrete : ndarray of bool of shape (n_features,)
    names : list of str
    class_codes : ndarray of int of shape (n,)
        The class of every row (one class: no class partner).
    alpha : float, default=0.05
        Level of the verdict: ``mcar`` is ``p_value >= alpha``.

    Returns
    -------
    DataFrame
        One row per column with a missing cell: ``feature``, ``n_missing``, ``missing_rate``,
        ``partner`` (the partner with the smallest p-value, ``"class"`` for the class),
        ``g_statistic`` and ``dof`` (its test), ``n_partners`` (partners tested), ``p_value``
        (Bonferroni-adjusted over them; 1 when none could be tested) and ``mcar``; sorted by
        ``p_value``. Empty (these columns) when no cell is missing.
    """
    indicators = set(indicators_in(names).values())
    states = [_states(c, d) for c, d in zip(columns, discrete)]
    partners = [("class", np.asarray(class_codes, dtype=np.int64))] if np.unique(class_codes).size > 1 else []
    partners += [(n, s) for n, s in zip(names, states) if n not in indicators]
    rows = []
    for j, name in enumerate(names):
        miss = states[j] < 0
        if not miss.any():
            continue
        best, tested = None, 0
        for pname, s in partners:
            if pname == name:
                continue
            ok = s >= 0
            res = _g_test(miss[ok], s[ok])
            if res is None:
                continue
            tested += 1
            if best is None or res[2] < best[3]:
                best = (pname, *res)
        p = 1.0 if best is None else min(1.0, best[3] * tested)
        rows.append({"feature": name, "n_missing": int(miss.sum()), "missing_rate": float(miss.mean()),
                     "partner": None if best is None else best[0], "g_statistic": np.nan if best is None else best[1],
                     "dof": 0 if best is None else best[2], "n_partners": tested, "p_value": p, "mcar": p >= alpha})
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in MCAR_COLUMNS})
    return pd.DataFrame(rows, columns=MCAR_COLUMNS).sort_values("p_value", kind="stable").reset_index(drop=True)
