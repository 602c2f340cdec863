"""``bayesnb synthesize``: synthetic rows of a table with no saved model (:class:`bayesnb.Synthesizer`).

``bayesnb synthesize DATA -n N -o OUT [--target COL] [--missing model|drop] [--numeric-family histogram|auto]
[--proper] [--seed S]`` fits a
:class:`~bayesnb.Synthesizer` on DATA (the structure chosen by evidence, a latent-class model
by held-out likelihood) and writes N synthetic rows with DATA's columns, in their order. The
output equals ``Synthesizer(target=COL, structure=..., latent=..., random_state=S, missing=..., numeric=...)
.fit(df).sample(N, random_state=S, parameter_uncertainty=PROPER)``, ``PROPER`` True with ``--proper``.
Without ``--target`` the table has one class.
"""

from __future__ import annotations

from . import _when_run as when_run
from .files import UsageError, check_output, read_table, status, write_output
from .labels import check_drop_option, labelled_rows
from .options import TABLE, add_command, data_opts, drop_opt, float_opt, output_opt, parse_latent, seed_value

__all__ = ["cmd_synthesize", "register"]


def register(subparsers):
    """Add ``bayesnb synthesize`` and its options to ``subparsers``."""
    sy = add_command(
        subparsers, "synthesize", cmd_synthesize,
        help="synthetic rows of a table, the model chosen by evidence",
        description="bayesnb.Synthesizer from the shell: no saved model; fits DATA with the structure "
                    "(naive, TAN, k-DB) its evidence chooses and, with --latent auto, a latent-class "
                    "model kept when its held-out likelihood is higher, then writes N synthetic rows "
                    "with DATA's columns in their order. Seconds to minutes (the latent-class search).")
    sy.add_argument("data", help=f"real {TABLE}")
    sy.add_argument("-n", type=int, required=True, help="number of synthetic rows")
    output_opt(sy)
    sy.add_argument("--target", default=None, metavar="COL",
                    help="class column (every row labelled), sampled in its place; default: none, one class")
    drop_opt(sy)
    sy.add_argument("--structure", choices=("auto", "naive", "tan", "kdb"), default="auto", help="default: by evidence")
    sy.add_argument("--latent", default="auto", metavar="auto|none|K",
                    help="latent class: auto (kept if better held out), none, K components per class")
    sy.add_argument("--missing", choices=("model", "drop"), default="model",
                    help="model: missing cells drawn by missing-indicator nodes (default); drop: none drawn")
    sy.add_argument("--numeric-family", choices=("histogram", "auto"), default="histogram",
                    help="histogram: each numeric column a Histogram drawing training values within its bins "
                         "(default); auto: the family its evidence chooses, parametric ones included")
    sy.add_argument("--proper", action="store_true",
                    help="one posterior draw of the parameters shared by the rows (proper synthesis; pool analyses "
                         "of such tables with 'bayesnb pool --synthetic proper'); default: the posterior-mean plug-in")
    sy.add_argument("--seed", type=seed_value, default=0, help="random seed of the fit and the draws (default 0)")
    data_opts(sy)
    float_opt(sy)


def cmd_synthesize(args):
    """``bayesnb synthesize``: fit a Synthesizer on DATA and write ``-n`` synthetic rows."""
    check_output(args.output, [args.data], force=args.force)
    if args.n < 1:
        raise UsageError(f"-n must be at least 1; received {args.n}")
    latent = parse_latent(args.latent, none=True)
    check_drop_option(args)
    df = read_table(args.data, na_values=args.na_values, numeric=args.numeric, categorical=args.categorical)
    if args.target is not None:
        df, _ = labelled_rows(df, args.target, args.data, args.drop_unlabelled,
                              "leave out --target to model the label like a column")
    status(f"choosing a model of {len(df)} rows by evidence (structure {args.structure}, latent {args.latent})")
    synth = when_run.Synthesizer(target=args.target, structure=args.structure, latent=latent,
                        random_state=args.seed, missing=args.missing, numeric=args.numeric_family).fit(df)
    out = synth.sample(args.n, random_state=args.seed, parameter_uncertainty=args.proper)
    n_miss = len(synth.missing_indicators_)
    modelled = f", missing cells of {n_miss} column(s) modelled" if n_miss else ""
    write_output(out, args, f"chose {synth.chosen_}{modelled}; wrote {len(out)} synthetic row(s) to {args.output}",
                 [args.data])
    return 0
