"""``bayesnb pool``: Rubin's rules over an analysis repeated on ``m`` imputed tables.

:func:`bayesnb.pool` from the shell. The input is a long table with one row per (imputed
table, parameter): a column numbering the imputations (``--imputation``, default
``.imputation``, the column ``bayesnb impute -m M`` writes), the parameter's name
(``--term``, default ``term``; a table without that column holds one parameter), its
estimate (``--estimate``, default ``estimate``) and its within-imputation variance
(``--variance``, default ``variance``) or standard error (``--std-error COL``, squared).
Every parameter must appear exactly once in every imputation. The output is ``pool``'s
table with the parameters, in order of first appearance, as a first column ``parameter``.

With ``--synthetic simple|proper --n-original N`` the tables are synthetic ones (the column
numbering them as for imputations) and the rows are :func:`bayesnb.pool_synthetic`'s
combining rules (``method``; ``--n-synthetic K`` their rows, default N; ``--inference original``
for ``population_inference=False``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils import shown_list
from . import _when_run as when_run
from .files import UsageError, check_output, read_table, write_output
from .options import TABLE, add_command, float_opt, output_opt

__all__ = ["cmd_pool", "pool_table", "register"]


def _numbers(df, col, path):
    values = pd.to_numeric(df[col], errors="coerce")
    bad = values.isna() & df[col].notna()
    if bad.any() or df[col].isna().any():
        i = int(np.flatnonzero(bad.to_numpy() | df[col].isna().to_numpy())[0])
        raise UsageError(f"{path}: column {col!r}: row {i + 1} has {df[col].iloc[i]!r}; expected a number")
    return values.astype(float)


def pool_table(df, imputation=".imputation", term="term", estimate="estimate", variance="variance",
               std_error=None, dfcom=None, conf_level=0.95, where="TABLE", synthetic=None):
    """Pool the long table ``df`` of per-imputation estimates as ``bayesnb pool`` does.

    Parameters
    ----------
    df : DataFrame
        One row per (imputation, parameter).
    imputation, term, estimate, variance : str
        Column names; a missing ``term`` column (with the default name) means one parameter,
        named after ``estimate``.
    std_error : str, optional
        A column of standard errors, used (squared) instead of ``variance``.
    dfcom, conf_level
        As in :func:`bayesnb.pool`.
    where : str
        The table's name in error messages.
    synthetic : dict, optional
        The tables are synthetic: :func:`bayesnb.pool_synthetic`'s keywords (``n_original``,
        ``n_synthetic``, ``method``, ``population_inference``) pool them instead of Rubin's rules.

    Returns
    -------
    DataFrame
        :func:`bayesnb.pool`'s (or :func:`bayesnb.pool_synthetic`'s) table with its index as a first
        column ``parameter``.
    """
    spread = std_error if std_error is not None else variance
    explicit_term = term != "term"
    need = [imputation, estimate, spread] + ([term] if explicit_term else [])
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise UsageError(f"{where}: no column(s) {missing} (columns: {shown_list(df.columns, 10)})")
    names = df[term].astype(str) if term in df.columns else pd.Series(estimate, index=df.index)
    q = _numbers(df, estimate, where)
    u = _numbers(df, spread, where)
    if std_error is not None:
        u = u**2
    imp = df[imputation]
    if imp.isna().any():
        raise UsageError(f"{where}: column {imputation!r}: row {int(np.flatnonzero(imp.isna())[0]) + 1} is missing")
    key = pd.DataFrame({"imp": imp.to_numpy(), "term": names.to_numpy()})
    dup = key.duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise UsageError(f"{where}: parameter {key['term'].iloc[i]!r} appears twice in imputation "
                         f"{key['imp'].iloc[i]!r} (row {i + 1}); expected one row per imputation and parameter")
    terms = list(pd.unique(key["term"]))
    wide = key.assign(q=q.to_numpy(), u=u.to_numpy()).pivot(index="imp", columns="term")
    Q, U = wide["q"][terms], wide["u"][terms]
    if Q.isna().any().any():
        imp_i, t = next((i, t) for t in terms for i in Q.index if pd.isna(Q.loc[i, t]))
        raise UsageError(f"{where}: parameter {t!r} has no row in imputation {imp_i!r}; expected every parameter "
                         "in every imputation")
    if synthetic is not None:
        result = when_run.pool_synthetic(Q.to_numpy(), U.to_numpy(), conf_level=conf_level, names=terms, **synthetic)
    else:
        result = when_run.pool(Q.to_numpy(), U.to_numpy(), dfcom=dfcom, conf_level=conf_level, names=terms)
    return result.reset_index()


def register(subparsers):
    """Add ``bayesnb pool`` and its options to ``subparsers``."""
    pl = add_command(
        subparsers, "pool", cmd_pool,
        help="Rubin's rules over estimates from m imputed tables",
        description="bayesnb.pool from the shell: TABLE has one row per (imputation, parameter) with "
                    "its estimate and variance (or standard error); prints/writes the pooled "
                    "estimate, total variance, df, fmi, p-value and confidence interval per "
                    "parameter (Rubin 1987; Barnard & Rubin 1999 with --dfcom).")
    pl.add_argument("data", help=f"long {TABLE} of per-imputation estimates")
    pl.add_argument("--imputation", default=".imputation", metavar="COL",
                    help="column numbering the imputed tables (default .imputation, as 'impute -m' writes)")
    pl.add_argument("--term", default="term", metavar="COL",
                    help="column naming the parameter (default term; without such a column: one parameter)")
    pl.add_argument("--estimate", default="estimate", metavar="COL", help="column of estimates (default estimate)")
    pl.add_argument("--variance", default="variance", metavar="COL",
                    help="column of within-imputation variances, squared standard errors (default variance)")
    pl.add_argument("--std-error", default=None, metavar="COL", help="column of standard errors, instead of --variance")
    pl.add_argument("--dfcom", type=float, default=None, metavar="DF",
                    help="degrees of freedom of the complete-data analysis (small-sample df of Barnard & Rubin)")
    pl.add_argument("--conf-level", type=float, default=0.95, metavar="L", help="confidence level (default 0.95)")
    pl.add_argument("--synthetic", choices=("simple", "proper"), default=None,
                    help="the tables are synthetic: pool_synthetic's rules (Raab, Nowok & Dibben 2016) for tables "
                         "drawn from the plug-in (simple: Synthesizer.sample's default) or with a posterior draw "
                         "each (proper: --proper); needs --n-original")
    pl.add_argument("--n-original", type=int, default=None, metavar="N", help="with --synthetic: rows of the real table")
    pl.add_argument("--n-synthetic", type=int, default=None, metavar="K",
                    help="with --synthetic: rows of each synthetic table (default N)")
    pl.add_argument("--inference", choices=("population", "original"), default="population",
                    help="with --synthetic: intervals for the population quantity (default) or for what the "
                         "analysis of the real rows would give (original)")
    output_opt(pl)
    pl.add_argument("--na-values", type=lambda s: s.split(","), default=None, metavar="A,B",
                    help="cell texts read as missing (default: pandas' NA texts and ?)")
    float_opt(pl)


def _synthetic_options(args):
    """``pool_table``'s ``synthetic`` from ``--synthetic`` and its options (None without it); a UsageError
    for an option that needs it or does not apply with it."""
    if args.synthetic is None:
        given = [o for o, v in (("--n-original", args.n_original), ("--n-synthetic", args.n_synthetic),
                                ("--inference", None if args.inference == "population" else args.inference))
                 if v is not None]
        if given:
            raise UsageError(f"{', '.join(given)} apply only with --synthetic simple|proper")
        return None
    if args.dfcom is not None:
        raise UsageError("--dfcom is Rubin's small-sample rule for imputed tables; it does not apply with --synthetic")
    if args.n_original is None:
        raise UsageError("--synthetic needs --n-original N, the rows of the real table the tables were synthesised from")
    for opt, v in (("--n-original", args.n_original), ("--n-synthetic", args.n_synthetic)):
        if v is not None and v < 1:
            raise UsageError(f"{opt} must be at least 1; received {v}")
    return {"n_original": args.n_original, "n_synthetic": args.n_synthetic, "method": args.synthetic,
            "population_inference": args.inference == "population"}


def cmd_pool(args):
    """``bayesnb pool``: Rubin's rules over a long table of per-imputation estimates."""
    check_output(args.output, [args.data], force=args.force)
    synthetic = _synthetic_options(args)
    df = read_table(args.data, args.na_values)
    out = pool_table(df, imputation=args.imputation, term=args.term, estimate=args.estimate,
                     variance=args.variance, std_error=args.std_error, dfcom=args.dfcom,
                     conf_level=args.conf_level, where=args.data, synthetic=synthetic)
    tables = "synthetic tables" if synthetic is not None else "imputations"
    write_output(out, args, f"pooled {len(out)} parameter(s) over {df[args.imputation].nunique()} {tables}; "
                 f"wrote {args.output}", [args.data])
    return 0
