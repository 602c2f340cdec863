"""``bayesnb synthesize``: synthetic rows of a table with no saved model (:class:`bayesnb.Synthesizer`).

``bayesnb synthesize DATA -n N -o OUT [--target COL] [--missing model|drop] [--seed S]`` fits a
:class:`~bayesnb.Synthesizer` on DATA (the structure chosen by evidence, a latent-class model
by held-out likelihood) and writes N synthetic rows with DATA's columns, in their order. The
output equals ``Synthesizer(target=COL, structure=..., latent=..., random_state=S, missing=...).fit(df)
.sample(N, random_state=S)``. Without ``--target`` the table has one class.
"""

from __future__ import annotations

from .._utils import shown_list
from ..synth.synthesizer import Synthesizer
from .files import UsageError, check_output, read_table, status, write_table
from .labels import check_drop_option, labelled_rows

__all__ = ["cmd_synthesize", "parse_latent"]


def parse_latent(text):
    """``--latent``: ``auto``, ``none`` or a whole number >= 1 (components per class)."""
    if text in ("auto", "none"):
        return None if text == "none" else "auto"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"--latent must be 'auto', 'none' or a whole number >= 1; received {text!r}")
    return value


def cmd_synthesize(args):
    """``bayesnb synthesize``: fit a Synthesizer on DATA and write ``-n`` synthetic rows."""
    check_output(args.output, [args.data], force=args.force)
    if args.n < 1:
        raise UsageError(f"-n must be at least 1; received {args.n}")
    latent = parse_latent(args.latent)
    check_drop_option(args)
    df = read_table(args.data, na_values=args.na_values, numeric=args.numeric, categorical=args.categorical)
    if args.target is not None:
        if args.target not in df.columns:
            raise UsageError(f"{args.data}: no column {args.target!r} (columns: {shown_list(df.columns, 10)})")
        df, _ = labelled_rows(df, args.target, args.data, args.drop_unlabelled,
                              "leave out --target to model the label like a column")
    status(f"choosing a model of {len(df)} rows by evidence (structure {args.structure}, latent {args.latent})")
    synth = Synthesizer(target=args.target, structure=args.structure, latent=latent,
                        random_state=args.seed, missing=args.missing).fit(df)
    out = synth.sample(args.n, random_state=args.seed)
    n_miss = len(synth.missing_indicators_)
    modelled = f", missing cells of {n_miss} column(s) modelled" if n_miss else ""
    write_table(out, args.output,
                done=f"chose {synth.chosen_}{modelled}; wrote {len(out)} synthetic row(s) to {args.output}",
                inputs=[args.data], float_format=args.float_format, fmt=args.format, force=args.force)
    return 0
