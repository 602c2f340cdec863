"""``bayesnb mcmc``: NUTS draws of a fitted model, written as an ArviZ DataTree and checked.

The model is the one ``bayesnb fit`` fits (:func:`~bayesnb.cli.commands.fit_table`, the same
options); its posterior is sampled with ``model.run_mcmc(X, y, num_warmup=W,
num_samples=D, num_chains=C, random_state=SEED)`` and compared with the exact conjugate
posterior by :func:`bayesnb.compare_posteriors` against the closed-form means and sds
(:func:`bayesnb.model.posterior_moments`: no Monte-Carlo error on the exact side). The
DataTree goes to ``-o``: ``.nc`` (NetCDF 4, through h5netcdf or netCDF4) or ``.zarr``
(needs zarr), written completely before it replaces anything.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile

import numpy as np

from ..diagnostics import compare_posteriors
from ..inference.nuts import show_progress
from ..model import posterior_moments
from .commands import fit_table
from .io import PROG, QUIET, UsageError, atomic_path, check_output

__all__ = ["SHOWN", "cmd_mcmc", "comparison_text"]

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
    if os.path.lexists(path) and not args.force:
        raise UsageError(f"{path} exists; pass --force to replace it")
    if kind == "nc":
        check_output(path, [args.data])
    elif not os.path.isdir(os.path.dirname(os.path.realpath(path))):
        raise UsageError(f"cannot write {path}: no such folder {os.path.dirname(path)}")
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


def cmd_mcmc(args):
    """``bayesnb mcmc``: NUTS on the model ``bayesnb fit`` would fit; DataTree to ``-o``; the comparison printed."""
    kind, engine = _check_output(args)  # before any work: a bad -o fails fast
    for option, value, least in (("--draws", args.draws, 1), ("--warmup", args.warmup, 0),
                                 ("--chains", args.chains, 1), ("--rows", args.rows, 0)):
        if value < least:
            raise UsageError(f"{option} must be >= {least}; received {value}")
    model, X, y, n, d, _ = fit_table(args)
    quiet = QUIET[0]
    show = not quiet and show_progress(None)
    if not quiet and not show:  # with the bar on, run_mcmc says itself when it compiles
        print(f"{PROG[0]}: compiling and running NUTS ({args.chains} chain(s) x "
              f"{args.warmup} warmup + {args.draws} draws; the compiled sampler is cached)", file=sys.stderr,
              flush=True)
    dt = model.run_mcmc(X, y, num_warmup=args.warmup, num_samples=args.draws, num_chains=args.chains,
                        random_state=args.seed, progress_bar=show)
    table = compare_posteriors(posterior_moments(model.posterior_), dt, verbose=False)
    _write(dt, args.output, kind, engine)
    a = dt.attrs
    print(f"NUTS on {type(model).__name__} ({n} rows x {d} features): {args.chains} chain(s) x {args.draws} draws "
          f"after {args.warmup} warmup; compile {a['compile_seconds']:.1f} s, sampling {a['sampling_seconds']:.1f} s")
    print(f"exact (closed-form) vs NUTS, {len(table)} parameter elements"
          + (f", the {min(args.rows, len(table))} largest |z| shown:" if 0 < args.rows < len(table) else ":"))
    print(comparison_text(table, args.rows))
    print(table.attrs["verdict"])
    if not quiet:
        print(f"wrote {args.output}")
    return 0
