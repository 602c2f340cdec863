"""``bayesnb mcmc``: NUTS draws of a fitted model, written as an ArviZ DataTree and checked.

The model is the one ``bayesnb fit`` fits (:func:`~bayesnb.cli.commands.fit_table`, the same
options, ``--structure``, ``--k`` and ``--edge-score`` included); its posterior is sampled with
``model.run_mcmc(X, y, num_warmup=W, num_samples=D, num_chains=C, random_state=SEED)`` and compared
with the exact conjugate posterior by :func:`bayesnb.compare_posteriors` against the closed-form means
and sds (:func:`bayesnb.inference.draws.posterior_moments`: no Monte-Carlo error on the exact side); a model with
a learned structure (``--structure``, or a saved one with ``--model``; TAN / k-DB, categorical or
mixed) against the closed-form means and sds of every context's posterior (the layout of its
``run_mcmc``). The DataTree goes to ``-o``: ``.nc`` (NetCDF 4, through h5netcdf or netCDF4) or
``.zarr`` (needs zarr), written completely before it replaces anything.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile

import numpy as np
import pandas as pd

from .._utils import shown_list
from . import _when_run as when_run
from .commands import _labels_like, _model_and_table, fit_table
from .fitoptions import STRUCTURE_OPTIONS, add_structure_options
from .files import UsageError, atomic_path, check_output, prog, quiet
from .options import add_command, fit_opts, force_opt, key_opt, seed_value

__all__ = ["SHOWN", "cmd_mcmc", "comparison_text", "draws_summary", "exact_posterior", "register"]


def exact_posterior(model) -> dict:
    """The exact side of ``bayesnb mcmc``'s comparison: closed-form ``{variable: (mean, sd)}``.

    Parameters
    ----------
    model : fitted estimator

    Returns
    -------
    dict
        The moments of the naive posterior (:func:`bayesnb.inference.draws.posterior_moments`), or under a
        learned structure (``structure_kind_`` other than ``"naive"``) those of every context's
        posterior, in the layout of the model's ``sample_posterior`` and ``run_mcmc``.
    """
    if getattr(model, "structure_kind_", "naive") == "naive":
        return when_run.posterior_moments(model.posterior_)
    return model._exact_moments()

#: the columns of compare_posteriors' table that ``bayesnb mcmc`` prints
SHOWN = ("variable", "element", "exact_mean", "exact_sd", "mcmc_mean", "mcmc_sd", "z", "z_sd", "ess_bulk", "r_hat")


def _writer(path):
    """``(kind, engine)`` for the output file, or a :class:`UsageError` naming what is missing."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".nc":
        engine = next((e for e, mods in (("h5netcdf", ("h5netcdf", "h5py")), ("netcdf4", ("netCDF4",)))
                       if all(importlib.util.find_spec(m) is not None for m in mods)), None)
        if engine is None:
            raise UsageError(f"-o {path}: writing NetCDF needs h5netcdf with h5py, or netCDF4, and neither is "
                             "installed (pip install 'bayesnb[netcdf]'); or write .zarr with zarr installed")
        return "nc", engine
    if ext == ".zarr":
        if importlib.util.find_spec("zarr") is None:
            raise UsageError(f"-o {path}: writing Zarr needs the package zarr, which is not installed "
                             "(pip install zarr); or write .nc")
        return "zarr", None
    raise UsageError(f"-o {path}: expected a .nc (NetCDF) or .zarr file name")


def _check_output(args):
    path = args.output
    if path == "-":
        raise UsageError("-o -: a DataTree is a binary file; give a .nc or .zarr file name")
    kind, engine = _writer(path)
    check_output(path, [args.data, args.model, args.key_file], force=args.force, store=kind == "zarr")
    return kind, engine


def _write(dt, path, kind, engine):
    if kind == "nc":
        with atomic_path(path) as tmp:
            dt.to_netcdf(tmp, engine=engine)
        return
    real = os.path.realpath(path)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(real)}.", suffix=".tmp.zarr", dir=os.path.dirname(real))
    try:
        shutil.rmtree(tmp)
        dt.to_zarr(tmp)
        if os.path.isdir(real):
            shutil.rmtree(real)
        elif os.path.lexists(real):
            os.remove(real)
        os.replace(tmp, real)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def comparison_text(table, rows=20):
    """The table ``bayesnb mcmc`` prints: the ``rows`` elements of largest ``max(|z|, |z_sd|)`` (0: all).

    Parameters
    ----------
    table : DataFrame
        From :func:`bayesnb.compare_posteriors`.
    rows : int, default=20

    Returns
    -------
    str
        Floats written with 6 significant digits.
    """
    worst = np.fmax(table["z"].abs().to_numpy(), table["z_sd"].abs().to_numpy())
    order = np.argsort(-np.nan_to_num(worst, nan=-1.0), kind="stable")
    shown = table.iloc[order[:rows] if rows > 0 else order][list(SHOWN)]
    return shown.to_string(index=False, float_format=lambda v: f"{v:.6g}")


def draws_summary(dt):
    """Mean, sd, bulk ESS and rank R-hat of every posterior element of a DataTree (no exact side).

    What ``bayesnb mcmc`` prints when there is no closed-form posterior to compare with
    (``--components K > 1``, or unlabelled rows).

    Parameters
    ----------
    dt : xarray.DataTree
        From ``model.run_mcmc``.

    Returns
    -------
    DataFrame
        Columns ``variable``, ``element`` (the index within the variable, after chain and
        draw, with its coordinates; the NaN cells that pad categorical columns with fewer
        values are left out), ``mean``, ``sd``, ``ess_bulk``, ``r_hat``.
    """
    parts = []
    for name, da in dt["posterior"].data_vars.items():
        a = np.asarray(da.values, dtype=float)
        flat = a.reshape(a.shape[0], a.shape[1], -1)
        labels = [da[d].values if d in da.coords else np.arange(n) for d, n in zip(da.dims[2:], a.shape[2:])]
        idx = np.array([f"{name}[{', '.join(str(labels[k][i]) for k, i in enumerate(t))}]"
                        for t in np.ndindex(*a.shape[2:])], dtype=object)
        keep = ~np.isnan(flat).all(axis=(0, 1))  # NaN cells pad categorical columns with fewer values
        flat = flat[:, :, keep]
        parts.append({"variable": np.full(keep.sum(), name, dtype=object), "element": idx[keep],
                      "mean": flat.mean((0, 1)), "sd": flat.reshape(-1, flat.shape[2]).std(0, ddof=1),
                      "ess_bulk": when_run.ess_bulk(flat), "r_hat": when_run.rhat_rank(flat)})
    return pd.DataFrame({k: np.concatenate([p[k] for p in parts]) for k in parts[0]})


def _saved_model_data(args):
    """``--model``: the model file, DATA's feature columns and labels (None where missing, or no labels)."""
    for option, value in (("--family", bool(args.family)),
                          ("--numeric-family", args.numeric_family != "auto"), ("--alpha", args.alpha is not None),
                          ("--columns", args.columns is not None), ("--drop-unlabelled", args.drop_unlabelled),
                          *((f"--{p.replace('_', '-')}", getattr(args, p, None) is not None)
                            for p in STRUCTURE_OPTIONS)):
        if value:
            raise UsageError(f"{option} applies when mcmc fits the model; with --model the model file's priors, "
                             "structure and columns are used")
    model, df, X = _model_and_table(args)
    target = args.target if args.target is not None else getattr(model, "target_name_", None)
    if args.target is not None and target not in df.columns:
        raise UsageError(f"{args.data}: no column {target!r} (columns: {shown_list(df.columns, 10)})")
    if target is None or target not in df.columns:
        if args.components == 1:
            raise UsageError(f"{args.data}: no label column{f' {target!r}' if target else ''}: give --target COL "
                             "(missing labels are marginalised), or --components K > 1 for the latent-class model")
        return model, X, None
    col = df[target]
    y = np.full(len(col), None, dtype=object)
    y[col.notna().to_numpy()] = np.asarray(_labels_like(model, col[col.notna()]), dtype=object)
    return model, X, y


def register(subparsers):
    """Add ``bayesnb mcmc`` and its options to ``subparsers``."""
    mc = add_command(
        subparsers, "mcmc", cmd_mcmc,
        help="sample the posterior with NUTS and compare it with the exact one",
        description="Fit the model of 'bayesnb fit' (same options) to DATA, sample its "
                    "posterior with NumPyro's NUTS (model.run_mcmc), write the ArviZ DataTree "
                    "to -o (.nc: NetCDF, needs h5netcdf or netCDF4; .zarr: needs zarr) and print "
                    "the comparison with the exact conjugate posterior (compare_posteriors "
                    "against the closed-form means and sds) and its verdict. With --model, the "
                    "saved model's priors and columns are used instead of fitting; with "
                    "--components K > 1 (the latent-class model) or unlabelled rows there is no "
                    "closed form, and it prints each element's mean, sd, ESS and R-hat.")
    fit_opts(mc, "", target_help="name of the label column (required unless --model: then by default the model's "
                                 "target name when DATA has it; rows with a missing label are marginalised)")
    mc.add_argument("--model", default=None, metavar="FILE",
                    help="sample the posterior of this saved model (its priors, categories and columns) on DATA "
                         "instead of fitting one; the comparison with its exact posterior holds when DATA is its "
                         "training table")
    key_opt(mc, "the --model file must be signed with this key")
    add_structure_options(mc, ": run_mcmc samples every context's parameters (not with --model: the file's is used)")
    mc.add_argument("--components", type=int, default=1, metavar="K",
                    help="naive-Bayes components per class: K > 1 samples the latent-class model "
                         "(run_mcmc(n_components=K), chains started at an EM fit; default 1)")
    mc.add_argument("-o", "--output", required=True, help="DataTree file to write: FILE.nc or FILE.zarr")
    mc.add_argument("--draws", type=int, default=1000, metavar="N", help="NUTS draws per chain (default 1000)")
    mc.add_argument("--warmup", type=int, default=500, metavar="N", help="warmup steps per chain (default 500)")
    mc.add_argument("--chains", type=int, default=4, metavar="N",
                    help="chains, run one after another (default 4: r_hat and ESS from several chains)")
    mc.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0): run_mcmc(random_state=SEED)")
    mc.add_argument("--target-accept", type=float, default=0.8, metavar="P",
                    help="NUTS target acceptance probability in (0, 1) (default 0.8; raise it, e.g. to 0.95, "
                         "when the run reports divergent transitions): run_mcmc(target_accept_prob=P)")
    mc.add_argument("--rows", type=int, default=20, metavar="N",
                    help="parameter elements shown, the largest |z| first (default 20; 0: all)")
    force_opt(mc)


def cmd_mcmc(args):
    """``bayesnb mcmc``: NUTS on the model ``bayesnb fit`` would fit (or ``--model``); DataTree to ``-o``; checked."""
    fmt, engine = _check_output(args)  # before any work: a bad -o fails fast
    for option, value, least in (("--draws", args.draws, 1), ("--warmup", args.warmup, 0),
                                 ("--chains", args.chains, 1), ("--rows", args.rows, 0), ("--components", args.components, 1)):
        if value < least:
            raise UsageError(f"{option} must be >= {least}; received {value}")
    if not 0.0 < args.target_accept < 1.0:
        raise UsageError(f"--target-accept must be a probability strictly between 0 and 1; received {args.target_accept}")
    if args.model is None:
        if args.target is None:
            raise UsageError("the following arguments are required: --target (or --model FILE)")
        model, X, y, n, d, _ = fit_table(args)
    else:
        model, X, y = _saved_model_data(args)
        n, d = X.shape
    silent = quiet()
    show = not silent and when_run.show_progress(None)
    if not silent and not show:  # with the bar on, run_mcmc says itself when it compiles
        print(f"{prog()}: compiling and running NUTS ({args.chains} chain(s) x "
              f"{args.warmup} warmup + {args.draws} draws; the compiled sampler is cached)", file=sys.stderr,
              flush=True)
    dt = model.run_mcmc(X, y, num_warmup=args.warmup, num_samples=args.draws, num_chains=args.chains,
                        random_state=args.seed, progress_bar=show, n_components=args.components,
                        target_accept_prob=args.target_accept)
    unlabelled = y is None or any(v is None for v in y)
    exact = args.components == 1 and not unlabelled
    table = when_run.compare_posteriors(exact_posterior(model), dt, verbose=False) if exact else draws_summary(dt)
    _write(dt, args.output, fmt, engine)
    a = dt.attrs
    structure = getattr(model, "structure_kind_", "naive")
    what = (f"{type(model).__name__}" + ("" if structure == "naive" else f" (structure {structure})")
            + (f", {args.components} latent components per class" if args.components > 1 else ""))
    print(f"NUTS on {what} ({n} rows x {d} features): {args.chains} chain(s) x {args.draws} draws "
          f"after {args.warmup} warmup; "
          + (f"compile {a['compile_seconds']:.1f} s, sampling {a['sampling_seconds']:.1f} s" if "compile_seconds" in a
             else f"{a.get('total_seconds', float('nan')):.1f} s"))
    if exact:
        print(f"exact (closed-form) vs NUTS, {len(table)} parameter elements"
              + (f", the {min(args.rows, len(table))} largest |z| shown:" if 0 < args.rows < len(table) else ":"))
        if args.model is not None:
            print("(the exact side is the model file's posterior: it is NUTS's target only when DATA is the "
                  "model's training table)")
        print(comparison_text(table, args.rows))
        print(table.attrs["verdict"])
    else:
        why = "a latent-class model" if args.components > 1 else "rows without a label (marginalised)"
        shown = table.iloc[np.argsort(-np.nan_to_num(table["r_hat"].to_numpy(), nan=np.inf), kind="stable")]
        shown = shown.iloc[: args.rows] if args.rows > 0 else shown
        print(f"no closed-form posterior to compare with ({why}); {len(table)} parameter elements, "
              + (f"the {len(shown)} largest r_hat shown:" if len(shown) < len(table) else "all shown:"))
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
        n_div = int(np.asarray(dt["sample_stats"]["diverging"].values).sum())
        print(f"divergent transitions: {n_div}")
    if not silent:
        print(f"wrote {args.output}")
    return 0
