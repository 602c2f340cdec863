"""Files for the ``bayesnb`` command line: reading tables and writing outputs safely.

Reading (:func:`read_table`) strips the spaces after separators, reads ``--na-values``
(default: pandas' missing-value texts and ``?``) as missing, warns when a mostly numeric
column holds a few text cells (which would make it categorical) and applies the
``--numeric`` / ``--categorical`` overrides.

Writing (:func:`check_output`, :func:`atomic_path`, :func:`write_table`) never loses data:
an existing file is replaced only with ``--force``, an output may never be one of the
command's inputs (same file by path, symbolic or hard link; not even with ``--force``),
and every file is written to a temporary file in the destination folder that is renamed
onto the destination only once complete (removed on failure), so an interrupted or failed
command leaves the previous file, if any, untouched. Error messages name the
destination, never the temporary file.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib.util
import json
import os
import sys
import tempfile

import numpy as np
import pandas as pd

from .._utils import UserError, shown_list

__all__ = ["FORMATS", "UsageError", "atomic_path", "check_output", "command_context", "prog", "quiet", "read_table",
           "table_format", "warn", "write_output", "write_table"]


class UsageError(UserError):
    """A mistake in the command line or its files: reported in one line, exit status 2."""


# the command running in this context: set by ``main`` for the time of a command only
_PROG = contextvars.ContextVar("bayesnb_cli_prog", default="bayesnb")
_QUIET = contextvars.ContextVar("bayesnb_cli_quiet", default=False)


def prog() -> str:
    """The prefix of the running command's warnings and errors: ``bayesnb`` or ``bayesnb COMMAND``."""
    return _PROG.get()


def quiet() -> bool:
    """True while a command runs with ``-q``/``--quiet``: no confirmations or progress messages."""
    return _QUIET.get()


@contextlib.contextmanager
def command_context(name="bayesnb", quiet=False):
    """Run a command as ``name`` (the prefix of its messages), quiet or not; restored on exit.

    Parameters
    ----------
    name : str
        What :func:`prog` returns inside the ``with`` block.
    quiet : bool
        What :func:`quiet` returns inside the ``with`` block.
    """
    tokens = _PROG.set(name), _QUIET.set(bool(quiet))
    try:
        yield
    finally:
        _PROG.reset(tokens[0])
        _QUIET.reset(tokens[1])


def status(message):
    """One line on a terminal's stderr saying what a slow step is doing (not with ``-q``)."""
    if not quiet() and sys.stderr.isatty():
        print(f"{prog()}: {message} ...", file=sys.stderr, flush=True)


def warn(message):
    """Print ``bayesnb COMMAND: warning: MESSAGE`` (one line) on stderr.

    Parameters
    ----------
    message : str
    """
    print(f"{prog()}: warning: {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------ reading
def _split_names(text, option, columns, path):
    """The column names of a ``--numeric``/``--categorical`` value, checked against ``columns``."""
    names = [c.strip() for c in (text or []) if c.strip()]
    bad = [c for c in names if c not in columns]
    if bad:
        raise UsageError(f"{path}: {option} names no column(s) {bad} (columns: {shown_list(columns, 10)})")
    return names


def _mixed_numeric_warning(df, col, path):
    """Warn if ``col`` (read as text) is mostly numbers with a few text cells."""

    values = df[col]
    observed = values[values.notna()]
    if observed.empty:
        return
    probe = observed.iloc[:: max(1, len(observed) // 2000)]  # a strided sample: most text columns stop here
    if len(probe) < len(observed) and pd.to_numeric(probe.astype(object), errors="coerce").notna().mean() < 0.1:
        return  # over 90% of the sample is text: a categorical column, not numbers with a few text cells
    as_num = pd.to_numeric(observed.astype(object), errors="coerce")
    text = as_num.isna().to_numpy()
    n_text = int(text.sum())
    if n_text == 0 or n_text * 2 > len(observed):
        return  # all numbers (cannot happen after read_csv) or mostly text: a categorical column
    rows = [int(i) + 1 for i in observed.index[text][:3]]
    vals = [observed[observed.index[text][k]] for k in range(min(3, n_text))]
    shown = ", ".join(f"{v!r} (row {r})" for v, r in zip(vals, rows))
    more = f" and {n_text - 3} more" if n_text > 3 else ""
    warn(f"{path}: column {col!r} holds numbers except {n_text} cell(s): {shown}{more}; it is read as "
         f"categorical. Pass --numeric {col} to read it as numbers (text cells are then an error unless "
         f"listed in --na-values) or --categorical {col} to keep it categorical without this warning")


def _to_numeric(df, col, path, why=None):
    """Column ``col`` as numbers; a non-number cell (not read as missing) is a :class:`UsageError`.

    The message names only this column, its first bad row (1-based, header not counted), the
    bad value and what was expected (``why``: the reason it must hold numbers; default
    ``--numeric``).
    """

    values = df[col]
    if values.dtype.kind in "iufb":
        return values
    conv = pd.to_numeric(values.astype(object), errors="coerce")
    bad = conv.isna().to_numpy() & values.notna().to_numpy()
    if bad.any():
        i = values.index[bad][0]
        why = why or f"--numeric {col}"
        raise UsageError(f"{path}: column {col!r} ({why}): row {int(i) + 1} has {values[i]!r}; expected a number "
                         f"({int(bad.sum())} such cell(s); list the text in --na-values to read it as missing)")
    return conv


def read_table(path, na_values=None, numeric=None, categorical=None, text_if_present=(), numbers_if_present=()):
    """Read a CSV/TSV (or Parquet, if pandas can) file into a DataFrame.

    Parameters
    ----------
    path : str
        ``.csv``/``.txt`` (comma), ``.tsv``/``.tab`` (tab), ``.parquet``/``.pq``; ``-`` reads
        CSV from stdin. Spaces after a separator are stripped (UCI files use ``", "``).
    na_values : list of str, optional
        Cell texts read as missing. Default: pandas' missing-value texts (``NA``, ``NaN``,
        ``null``, ``None``, ``N/A``, ...) and ``?``. A given list replaces the default; an
        empty cell is always missing.
    numeric : list of str, optional
        Columns read as numbers; a cell that is neither a number nor missing is a
        :class:`UsageError` naming the column, row and value.
    categorical : list of str, optional
        Columns read as text (categories), exactly as written in the file.
    text_if_present, numbers_if_present : iterable of str
        Like ``categorical`` and ``numeric``, for the columns of this list that the table
        has (a fitted model's columns, read the way the model reads them).
        ``numbers_if_present`` may be a dict ``{column: why}``: ``why`` (e.g. ``"a Gaussian
        column of the model"``) tells, in the error about a non-number cell, why the
        column must hold numbers.

    Returns
    -------
    DataFrame
        Rows are numbered from 1 in messages, the header not counted. A numeric column of
        whole numbers with missing cells is read as the nullable ``Int64`` (pandas would
        read float), so that models and generated tables keep it whole.

    Raises
    ------
    UsageError
        Missing or unreadable file, empty table, unknown or conflicting column names, a
        non-number in a ``numeric`` column.
    """

    if path != "-" and not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if path != "-" and os.path.isdir(path):
        raise UsageError(f"{path}: is a directory, expected a data file")
    numeric, categorical = list(numeric or []), list(categorical or [])
    both = sorted(set(numeric) & set(categorical))
    if both:
        raise UsageError(f"column(s) {both} are given both as --numeric and --categorical")
    text_if_present = list(text_if_present)
    with _reading(path):
        if os.path.splitext(path)[1].lower() in (".parquet", ".pq"):
            try:
                df = pd.read_parquet(path)
            except ImportError:
                raise UsageError(f"{path}: reading Parquet needs pyarrow or fastparquet (pip install pyarrow)") from None
        elif path == "-":
            df = pd.read_csv(sys.stdin, **_csv_options(path, na_values))
        else:
            kw = _csv_options(path, na_values)
            header = [str(c) for c in pd.read_csv(path, nrows=0, **kw).columns]
            _split_names(categorical, "--categorical", header, path)
            text = [c for c in header if c in categorical or c in text_if_present]
            df = pd.read_csv(path, **kw, dtype={c: object for c in text} or None)
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise UsageError(f"{path}: the table is empty")
    return _finish(df, path, numeric, categorical, text_if_present, numbers_if_present)


def _finish(df, path, numeric, categorical, text_if_present, numbers_if_present):
    """Column names as text, then read_table's per-column rules (text, numbers, whole numbers) on ``df``."""
    df.columns = [str(c) for c in df.columns]
    _split_names(numeric, "--numeric", df.columns, path)
    _split_names(categorical, "--categorical", df.columns, path)
    text = categorical + [c for c in text_if_present if c in df.columns]
    numbers_why = numbers_if_present if isinstance(numbers_if_present, dict) else {}
    numbers = numeric + [c for c in numbers_if_present if c in df.columns and c not in numeric]
    for col in text:
        if df[col].dtype.kind != "O":  # Parquet or stdin: the text of each value
            df[col] = df[col].astype(object).where(df[col].notna(), None).map(
                lambda v: v if v is None or isinstance(v, str) else _number_text(v))
    for col in numbers:
        df[col] = _to_numeric(df, col, path, why=None if col in numeric else numbers_why.get(col, "read as numbers"))
    skip = set(text) | set(numbers)
    for col in df.columns:
        if col not in skip and df[col].dtype.kind not in "iufbmM":
            _mixed_numeric_warning(df, col, path)
    for col in df.columns:  # whole numbers with empty cells: pandas reads float; keep them whole
        v = df[col]
        if v.dtype.kind == "f" and v.isna().any() and v.notna().any():
            seen = v.dropna().to_numpy()
            if np.all(np.isfinite(seen) & (seen == np.round(seen)) & (np.abs(seen) < 2.0 ** 53)):
                df[col] = v.astype("Int64")
    return df


def _number_text(v):
    """The text of a value as a CSV cell would hold it (``3.0`` -> ``'3'``)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# ------------------------------------------------------------------------------ writing
def _same_file(a, b):
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def check_output(path, inputs=(), option="-o", force=False, store=False):
    """Refuse an output that cannot be written, exists (unless ``force``) or is one of the ``inputs``.

    The one output policy of every ``bayesnb`` command: an existing file is replaced only
    with ``--force``, and an input never (not even with ``--force``).

    Parameters
    ----------
    path : str or None
        The output file; ``None`` or ``-`` (stdout) is always fine.
    inputs : iterable of str
        The command's input files (``-``, stdin, is skipped). The same file under another
        name (symbolic or hard link) counts as the same.
    option : str
        The option that named ``path``, for the message.
    force : bool
        ``--force``: an existing ``path`` may be replaced.
    store : bool
        ``path`` may be a folder (a Zarr store) rather than a file.

    Raises
    ------
    UsageError
        ``path`` is an input, a folder (unless ``store``), in a folder that does not
        exist, or exists and ``force`` is false.
    """
    if path in (None, "-"):
        return
    path = os.fspath(path)
    for inp in inputs:
        if inp in (None, "-"):
            continue
        if _same_file(path, os.fspath(inp)):
            raise UsageError(f"refusing to write {path}: it is the input file {os.fspath(inp)} "
                             f"(choose another {option} file)")
    if os.path.isdir(path) and not store:
        raise UsageError(f"{option} {path}: is a folder; give a file name")
    folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(folder):
        shown = os.path.dirname(path) or folder
        raise UsageError(f"cannot write {path}: no such folder {shown}")
    if os.path.lexists(path) and not force:
        raise UsageError(f"refusing to replace {path}: it exists (pass --force to replace it, or choose another "
                         f"{option} file)")


def _write_error(path, e):
    reason = e.strerror if isinstance(e, OSError) and e.strerror else type(e).__name__
    return UsageError(f"cannot write {path}: {reason}")


def _umask_mode():
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _remove(tmp):
    """Remove ``tmp`` and any file a writer derived from its (unique, random) name, e.g. ``tmp + '.tmp-PID'``."""
    folder, base = os.path.split(tmp)
    try:
        names = [n for n in os.listdir(folder) if n.startswith(base)]
    except OSError:
        names = [base]
    for name in names:
        with contextlib.suppress(OSError):
            os.remove(os.path.join(folder, name))


@contextlib.contextmanager
def atomic_path(path):
    """Context manager: a temporary path to write, renamed onto ``path`` when the block succeeds.

    The temporary file lies in the destination's folder (so the rename is atomic) and keeps
    its extension (so writers that choose a format by extension still work). On success it
    gets the permissions of the file it replaces (or the usual ones of a new file) and is
    renamed onto ``path`` (through symbolic links: the link's target is replaced); on any
    failure it is removed and ``path`` is left as it was. An ``OSError`` is re-raised as a
    :class:`UsageError` naming ``path``, never the temporary file.

    Parameters
    ----------
    path : str or os.PathLike
        The destination file.

    Yields
    ------
    str
        The temporary file's path.
    """
    path = os.fspath(path)
    real = os.path.realpath(path)
    folder, base = os.path.split(real)
    try:
        mode = os.stat(real).st_mode & 0o7777 if os.path.exists(real) else _umask_mode()
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".tmp{os.path.splitext(base)[1]}", dir=folder)
        os.close(fd)
    except OSError as e:
        raise _write_error(path, e) from None
    try:
        yield tmp
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except OSError as e:
        _remove(tmp)
        raise _write_error(path, e) from None
    except BaseException:
        _remove(tmp)
        raise


#: the values of ``--format``
FORMATS = ("csv", "parquet", "json")
_BY_EXTENSION = {".csv": "csv", ".txt": "csv", ".tsv": "csv", ".tab": "csv", ".parquet": "parquet",
                 ".pq": "parquet", ".json": "json"}


def _separator(path):
    """The field separator of a delimited file: tab for a ``.tsv``/``.tab`` ``path``, else comma."""
    return "\t" if os.path.splitext(os.fspath(path))[1].lower() in (".tsv", ".tab") else ","


def _csv_options(path, na_values=None):
    """``read_csv``'s options for every delimited table read: separator, ``--na-values`` (else pandas' and ``?``)."""
    na, keep = (["?"], True) if na_values is None else (list(na_values) + [""], False)
    return {"sep": _separator(path), "na_values": na, "keep_default_na": keep, "skipinitialspace": True}


def _unreadable(path, e):
    """The :class:`UsageError` of a table the parser could not read: ``path`` and the first line of ``e``."""
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return UsageError(f"{path}: cannot read as a table ({first})")


@contextlib.contextmanager
def _reading(path):
    """Context manager: what the parser raises while reading ``path`` becomes :func:`_unreadable`'s one line."""
    try:
        yield
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError) as e:
        raise _unreadable(path, e) from None


def table_format(path, fmt=None):
    """The format a table is written in: ``fmt`` if given, else by ``path``'s extension, else CSV.

    Parameters
    ----------
    path : str or None
        The destination (``None`` or ``-``: stdout).
    fmt : {"csv", "parquet", "json"}, optional
        ``--format``; overrides the extension.

    Returns
    -------
    str
        ``"csv"``, ``"parquet"`` or ``"json"``.

    Raises
    ------
    UsageError
        An unknown ``fmt``; Parquet to stdout; Parquet without pyarrow installed.
    """
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}; received {fmt!r}")
    stdout = path in (None, "-")
    if fmt is None:
        fmt = "csv" if stdout else _BY_EXTENSION.get(os.path.splitext(os.fspath(path))[1].lower(), "csv")
    if fmt == "parquet":
        if stdout:
            raise UsageError("--format parquet cannot be written to stdout (a binary file); give -o FILE.parquet, "
                             "or use --format csv or json")
        if importlib.util.find_spec("pyarrow") is None:  # an optional dependency
            raise UsageError(f"{path}: writing Parquet needs pyarrow, which is not installed (pip install pyarrow)")
    return fmt


def _json_cell(v):
    """A table cell as a JSON value: missing -> null, NumPy scalars -> Python numbers."""
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and np.isnan(v)):
        return None
    if isinstance(v, np.generic):
        v = v.item()
        if isinstance(v, float) and np.isnan(v):
            return None
    if isinstance(v, float) and np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v if isinstance(v, (str, int, float, bool)) else str(v)


def _to_json(df, out):
    """``df`` as a JSON array of records (one object per row, floats exact) written to ``out``."""
    names = [str(c) for c in df.columns]
    cols = [df.iloc[:, j].to_numpy(dtype=object) for j in range(df.shape[1])]
    out.write("[")
    for i in range(df.shape[0]):
        rec = {n: _json_cell(c[i]) for n, c in zip(names, cols)}
        out.write(("\n  " if i == 0 else ",\n  ") + json.dumps(rec, allow_nan=False))
    out.write("\n]\n")


def write_table(df, path, done=None, inputs=(), float_format=None, fmt=None, force=False):
    """Write ``df`` as CSV, Parquet or JSON records, to a file (atomically) or stdout.

    Parameters
    ----------
    df : DataFrame
    path : str or None
        Destination; ``None`` or ``-`` writes to stdout.
    done : str, optional
        Printed after writing to a file (never mixed into stdout data).
    inputs : iterable of str
        The command's inputs, which ``path`` may not be (see :func:`check_output`).
    float_format : str, optional
        A ``%`` format of the float cells of a CSV (e.g. ``%.6g``); default: the shortest
        text that reads back as the same float (lossless). Parquet and JSON keep the floats
        exactly.
    fmt : {"csv", "parquet", "json"}, optional
        ``--format``; default by the extension of ``path`` (``.csv``/``.tsv`` (tab-separated)
        /``.parquet``/``.json``), else CSV (see :func:`table_format`). JSON is an array of
        records, one object per row, missing cells ``null``, infinities ``"inf"``/``"-inf"``.
    force : bool
        ``--force``: replace an existing ``path`` (never an input; see :func:`check_output`).

    Raises
    ------
    UsageError
        See :func:`table_format` and :func:`check_output`; a write that fails.
    """
    fmt = table_format(path, fmt)
    stdout = path in (None, "-")
    if stdout:
        if fmt == "json":
            _to_json(df, sys.stdout)
        else:
            df.to_csv(sys.stdout, index=False, float_format=float_format)
        return
    check_output(path, inputs, force=force)
    with atomic_path(path) as tmp:
        if fmt == "parquet":
            df.to_parquet(tmp, index=False)
        elif fmt == "json":
            with open(tmp, "w", encoding="utf-8") as f:
                _to_json(df, f)
        else:
            df.to_csv(tmp, index=False, float_format=float_format, sep=_separator(path))
    if done and not quiet():
        print(done)


def write_output(df, args, done=None, inputs=()):
    """:func:`write_table` of ``df`` to a command's ``-o`` with its ``--format``, ``--force`` and ``--float-format``.

    ``args`` is the command's namespace (``float_format`` where it has one); ``done`` and ``inputs`` as in
    :func:`write_table`.
    """
    write_table(df, args.output, done=done, inputs=inputs, float_format=getattr(args, "float_format", None),
                fmt=args.format, force=args.force)
