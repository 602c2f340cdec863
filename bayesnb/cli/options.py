"""The options several ``bayesnb`` commands share, each written once.

Every command module declares its own arguments in a ``register(subparsers)`` function; the
options common to many commands (the table-reading options, ``-o``/``--force``/``--format``,
``--key-file``, ``--drop-unlabelled``...) come from here, so that each reads and behaves the
same in every command. :func:`add_command` adds a command with the options every command takes
(``--debug``, ``-q``/``--quiet`` after its name) and its handler.
"""

from __future__ import annotations

import argparse

from .families import add_family_options
from .files import FORMATS, UsageError

__all__ = ["TABLE", "add_command", "data_opts", "drop_opt", "fit_opts", "float_opt", "force_opt", "key_opt",
           "model_command", "output_opt", "parse_latent", "seed_value"]

#: how a table argument is described in ``--help``
TABLE = "table (.csv, .tsv, .parquet; '-' = stdin CSV)"


def add_command(subparsers, name, handler, **kwargs):
    """Add command ``name`` to ``subparsers``, run by ``handler(args)``, with ``--debug`` and ``-q``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers`` returned.
    name : str
        The command's name.
    handler : callable
        Takes the parsed ``argparse.Namespace`` and returns the exit status.
    **kwargs
        ``help``, ``description``... of ``subparsers.add_parser``.

    Returns
    -------
    argparse.ArgumentParser
        The command's parser, to add its own arguments to.
    """
    q = subparsers.add_parser(name, **kwargs)
    q.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show the Python traceback of an error instead of a one-line message")
    q.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no confirmations or progress messages")
    q.set_defaults(func=handler)
    return q


def seed_value(text):
    """A whole number >= 0 (``--seed``: a NumPy seed; ``info --columns-shown``); else a usage error naming the option."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None  # argparse's own for type=int
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0; received {text!r}")
    return value


def parse_latent(text, none=False):
    """``--latent``: None, ``"auto"``, a whole number >= 1 per class, or (with ``none``) ``"none"``: None."""
    if text is None or text == "auto" or none and text == "none":
        return None if text == "none" else text
    try:
        k = int(text)
    except ValueError:
        k = 0
    if k < 1:
        words = "'auto', 'none'" if none else "'auto'"
        raise UsageError(f"--latent must be {words} or a whole number >= 1; received {text!r}")
    return k


def force_opt(q):
    """``--force``: the one output policy, an existing ``-o`` file is replaced only with it."""
    q.add_argument("--force", action="store_true",
                   help="replace an existing -o file (never one of the command's inputs)")


def drop_opt(q):
    """``--drop-unlabelled``: the one rule for missing labels of every command that takes ``--target``."""
    q.add_argument("--drop-unlabelled", action="store_true",
                   help="leave out the rows with no --target label (their count is reported on stderr); "
                        "without it such rows are an error")


def key_opt(q, what):
    """``--key-file PATH``, the secret key of signed model files; ``what`` says what it does for the command."""
    q.add_argument("--key-file", default=None, metavar="PATH",
                   help=f"secret key file: {what} (HMAC-SHA256; see docs/cli.md)")


def _names(text):
    return [c.strip() for c in text.split(",") if c.strip()]


def data_opts(q):
    """``--na-values``, ``--numeric`` and ``--categorical``: how a table is read."""
    q.add_argument("--na-values", type=lambda s: s.split(","), default=None, metavar="A,B",
                   help="cell texts read as missing, replacing the default (pandas' NA, NaN, null, None, "
                        "N/A, ... and ?); an empty cell is always missing")
    q.add_argument("--numeric", type=_names, default=None, metavar="COL,...",
                   help="read these columns as numbers (a text cell is an error unless in --na-values)")
    q.add_argument("--categorical", type=_names, default=None, metavar="COL,...",
                   help="read these columns as categories (text), even if they hold numbers")


def fit_opts(q, what, target_help=None):
    """The model options of ``fit`` and ``mcmc``: DATA, ``--target``, ``--family``, ``--alpha``, ``--columns``."""
    q.add_argument("data", help=f"training table (.csv, .tsv, .parquet; '-' = stdin CSV){what}")
    q.add_argument("--target", required=target_help is None, help=target_help or "name of the label column")
    add_family_options(q)
    q.add_argument("--alpha", default=None,
                   help="smoothing pseudo-count (Dirichlet/Beta prior), e.g. 1 (Laplace), 0.5, 0, 'auto' "
                        "(maximise the evidence) or 'hierarchical' (each context shrunk to its parent's)")
    q.add_argument("--columns", default=None, metavar="A,B,C", help="use only these feature columns")
    drop_opt(q)
    data_opts(q)


def output_opt(q, help="output table (default: CSV on stdout)"):
    """``-o``/``--output``, ``--force`` and ``--format`` of a command that writes a table."""
    q.add_argument("-o", "--output", default=None, help=help)
    force_opt(q)
    q.add_argument("--format", choices=FORMATS, default=None,
                   help="format of the output table: csv, parquet (needs pyarrow) or json (an array of "
                        "records). Default: by the -o file's extension (.csv, .tsv, .parquet, .json), else "
                        "csv; '-o -' (stdout) takes csv or json")


def float_opt(q):
    """``--float-format``: how float cells are written to CSV."""
    q.add_argument("--float-format", default=None, metavar="FMT", type=_float_format,
                   help="printf format of float cells in CSV output, e.g. %%.6g (default: every float "
                        "written exactly, the shortest text that reads back as the same number)")


def _float_format(text):
    """A ``--float-format`` value, refused at parsing unless it formats one float (``%.6g``, ``%.3f``)."""
    try:
        shown = text % 1.5
    except (TypeError, ValueError) as e:
        raise argparse.ArgumentTypeError(f"not a printf format of one float ({e}): {text!r}") from None
    if shown == text:
        raise argparse.ArgumentTypeError(f"not a printf format of one float (no %% field): {text!r}")
    return text


def model_command(subparsers, name, handler, help, description, data_help=None):
    """A command reading a saved (maybe signed) model file and, with ``data_help``, a table.

    Returns
    -------
    argparse.ArgumentParser
        The command's parser (:func:`add_command`) with MODEL, then DATA and its reading options,
        then ``--key-file``.
    """
    q = add_command(subparsers, name, handler, help=help, description=description)
    q.add_argument("model", help="model file written by 'bayesnb fit' or model.save()")
    if data_help is not None:
        q.add_argument("data", help=data_help)
        data_opts(q)
    key_opt(q, "the model file must be signed with this key")
    return q
