"""``bayesnb datasets list|export``: the bundled tables as files, for shell examples."""

from __future__ import annotations

from .. import datasets
from .files import UsageError, check_output, write_output
from .options import add_command, output_opt

__all__ = ["DATASETS", "cmd_datasets", "register"]

#: name -> (loader, label column, one-line description)
DATASETS = {
    "play_tennis": (datasets.load_play_tennis, "PlayTennis",
                    "14 days, 4 categorical weather columns (Quinlan 1986)"),
    "house_votes": (datasets.load_house_votes, "party",
                    "435 members of the 1984 U.S. House, 16 y/n votes with missing cells (UCI)"),
    "penguins": (datasets.load_penguins, "species",
                 "344 Palmer penguins, mixed categorical/integer/real columns with missing cells"),
    "temperature": (datasets.load_temperature, "PlayTennis",
                    "14 temperatures (deg C) by play-tennis class, the numeric lecture example"),
}


def register(subparsers):
    """Add ``bayesnb datasets`` and its options to ``subparsers``."""
    ds = add_command(
        subparsers, "datasets", cmd_datasets,
        help="list or export the bundled tables",
        description="'bayesnb datasets list' shows the bundled tables; 'bayesnb datasets "
                    "export NAME -o FILE' writes one as CSV (or Parquet by extension), "
                    "refusing to replace an existing file unless --force.")
    ds.add_argument("action", choices=("list", "export"))
    ds.add_argument("name", nargs="?", default=None, help=f"dataset to export: {', '.join(DATASETS)}")
    output_opt(ds, help="file to write ('-': stdout)")


def cmd_datasets(args):
    """``bayesnb datasets list`` (names, sizes, label column) and ``export NAME -o FILE [--force]``."""
    if args.action == "list":
        width = max(map(len, DATASETS))
        for name, (load, target, text) in DATASETS.items():
            df = load()
            print(f"{name:<{width}}  {df.shape[0]:>4} rows x {df.shape[1]} columns, label {target!r}: {text}")
        return 0
    if args.name is None:
        raise UsageError(f"datasets export needs a NAME (one of {', '.join(DATASETS)})")
    if args.name not in DATASETS:
        raise UsageError(f"no bundled dataset {args.name!r}; choose one of {', '.join(DATASETS)}")
    if args.output is None:
        raise UsageError("datasets export needs -o FILE (or -o - for stdout)")
    check_output(args.output, force=args.force)
    df = DATASETS[args.name][0]()
    write_output(df, args, f"wrote {args.name} ({df.shape[0]} rows x {df.shape[1]} columns) to {args.output}")
    return 0
