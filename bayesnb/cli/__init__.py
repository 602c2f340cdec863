"""The ``bayesnb`` command line (also ``python -m bayesnb``).

The subcommands are listed by ``bayesnb --help`` and docs/cli.md; the exit statuses (2 for the
package's own :class:`~bayesnb._utils.UserError` and the system's file errors, 1 for anything
else, a bug, 130 when interrupted) in docs/cli.md, "Errors and exit status"; output files are
never replaced without ``--force`` and written atomically (:mod:`bayesnb.cli.files`).

Each command module declares its arguments (``register(subparsers)``) beside its handler;
:func:`main` only builds the top parser, registers the commands of :data:`COMMANDS`, runs the
chosen one and maps its errors to exit statuses (docs/architecture.md maps the modules).
Building the parser imports none of what the commands run: they reach the estimators, the
imputer, the synthesizer, criticism, the model format, the plots and scikit-learn through
:mod:`~bayesnb.cli._when_run` (:mod:`~bayesnb.cli.peers`: scikit-learn's functions).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import textwrap
import warnings

from .._progress import set_progress
from .._utils import UserError
from .._version import __version__
from . import (check, datasets, demo, explain, fit, generate, mcmc, outliers, pool, posterior, predict, report, score,
               synthesize, synthetic, tableimpute)
from .demo import DemoStepError as _DemoStepError
from .files import UsageError, command_context, read_table, table_format, warn, write_table
from .score import score_model

__all__ = ["COMMANDS", "EXIT_CODES", "UsageError", "build_parser", "main", "read_table", "score_model", "write_table"]

#: the command modules, in the order ``bayesnb --help`` lists their commands; each has ``register(subparsers)``
COMMANDS = (demo, fit, mcmc, predict, score, report, generate, tableimpute, datasets, check, outliers, posterior,
            explain, pool, synthetic, synthesize)

#: the exit statuses of ``bayesnb`` (shown by ``bayesnb --help``)
EXIT_CODES = {
    0: "success",
    1: "a step of 'bayesnb demo' failed, or an internal error: a bug in bayesnb, not in what it was given "
       "(one line on stderr asking to report it)",
    2: "usage error: bad option, missing or unreadable file, unknown column, bad value, corrupted or "
       "wrongly signed model file, a method the model does not have (e.g. posterior --coef of a model "
       "whose log odds are not linear) (one line on stderr)",
    130: "interrupted (Ctrl-C)",
}

#: the errors that are the user's, not bayesnb's: one line and exit status 2 (anything else is a bug: exit 1).
#: The package's own (UsageError, ModelFileError, DataError, ...) and what the system says about the
#: files given (no such file, permission denied, disk full); also the estimators' hyperparameter errors
#: (see :func:`_is_user_error`).
USER_ERRORS = (UserError, OSError)

#: where scikit-learn's hyperparameter error lives: a user's error too, read from ``sys.modules`` so that
#: building the parser does not import scikit-learn (an estimator that raised one has imported it)
_PARAM_VALIDATION = "sklearn.utils._param_validation"


def _is_user_error(e):
    """Whether ``e`` is the user's mistake (exit 2), not a bug: :data:`USER_ERRORS`, ``InvalidParameterError``."""
    validation = sys.modules.get(_PARAM_VALIDATION)
    return isinstance(e, USER_ERRORS) or (validation is not None and isinstance(e, validation.InvalidParameterError))


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line (``bayesnb fit: error: ...``) and exit status 2."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser():
    """The argparse parser of the ``bayesnb`` command: its options, then each command module's ``register``.

    Returns
    -------
    argparse.ArgumentParser
    """
    p = _Parser(
        prog="bayesnb",
        description="Naive Bayes as a Bayesian model: conjugate posteriors, exact predictives, "
                    "safe model files. Run 'bayesnb demo' to see everything on bundled data.",
        epilog="exit status:\n" + "\n".join(f"  {c:<4} " + "\n       ".join(textwrap.wrap(t, 70))
                                               for c, t in EXIT_CODES.items())
               + "\n\n--debug shows the traceback of an error; -q/--quiet silences confirmations and progress.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"bayesnb {__version__}")
    p.add_argument("--debug", action="store_true",
                   help="show the Python traceback of an error instead of a one-line message")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no confirmations ('wrote ...') or progress messages; warnings and errors still shown")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMANDS:
        module.register(sub)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Python warnings raised while a command runs, as one line on stderr."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else ""
    warn(f"{category.__name__}: {text}")


def _one_line(e):
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


@contextlib.contextmanager
def _running(prog, quiet):
    """Run a command: its name and -q for its messages, no progress bars with -q; all restored after."""
    previous = set_progress(False if quiet else None)  # -q: no progress bar either
    try:
        with command_context(prog, quiet):
            yield
    finally:
        set_progress(previous)


def main(argv=None) -> int:
    """Entry point of the ``bayesnb`` console script; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success; 2 for a user mistake (one line on stderr: ``bayesnb COMMAND: error:
        ...``); 1 when a demo step fails or on an internal error (a bug: one line asking to
        report it); 130 when interrupted (:data:`EXIT_CODES`). With ``--debug`` (or the
        environment variable ``BAYESNB_DEBUG=1``) errors raise, showing the traceback. Nothing
        the command sets (warning display, progress bars, message prefix) outlives the call.
    """
    argv = sys.argv[1:] if argv is None else [os.fspath(a) if hasattr(a, "__fspath__") else str(a) for a in argv]
    options = argv[: argv.index("--")] if "--" in argv else argv
    debug = bool(os.environ.get("BAYESNB_DEBUG")) or "--debug" in options  # known before parsing
    prog = "bayesnb"
    try:
        with warnings.catch_warnings(), _running(prog, quiet=False):
            warnings.showwarning = _show_warning
            parser = build_parser()
            args = parser.parse_args(argv)
            if getattr(args, "command", None) is None:
                parser.print_help()
                return 2
            prog = f"bayesnb {args.command}"
            with _running(prog, args.quiet):
                if getattr(args, "format", None) is not None:  # refused before any work: parquet to stdout
                    table_format(args.output, args.format)
                return int(args.func(args) or 0)
    except SystemExit as e:  # --help / --version
        return int(e.code or 0)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except _DemoStepError as e:
        if debug:
            raise
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - but a user's error, a bug in bayesnb: one line asking for a report
        if debug:
            raise
        if _is_user_error(e):
            print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
            return 2
        print(f"bayesnb {__version__}: internal error in '{prog}': {type(e).__name__}: {_one_line(e)}: please report "
              "it, with the command line (bayesnb --debug ... shows the traceback)", file=sys.stderr)
        return 1
