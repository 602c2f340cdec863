"""Reading a CSV/TSV in chunks of rows at the speed of the parser, for ``bayesnb fit --chunksize``.

Each column gets one *kind* for the whole file, ``"text"``, ``"int"``, ``"float"`` or
``"bool"``, from a first pass over the file (:func:`scan_kinds`: pandas' parser with its own
inference, a column text where any chunk is; no per-chunk ``pd.to_numeric``), or from
the first chunk alone (:func:`first_chunk_kinds` on its first rows, checked on the whole chunk
by :func:`agrees`) where the families are given. Every chunk is then parsed with those
types declared (:func:`read_kinds`), so that a column never changes type mid-file and
nothing is converted after parsing but whole numbers (kept whole:
``int64``, or the nullable ``Int64`` where cells are missing, as
:func:`~bayesnb.cli.files.read_table` keeps them).

The parser is pyarrow's streaming CSV reader (``pyarrow.csv.open_csv``) where pyarrow is
installed; it dictionary-encodes the text columns as it parses them, and they reach
``partial_fit`` so (``pd.ArrowDtype`` of a dictionary of strings: observed values coded through
the few distinct strings of a chunk, never a Python string per cell); files with spaces
after the separators (which pandas' ``skipinitialspace`` strips and pyarrow does not) and
installs without pyarrow are read by pandas' C parser with the same declared types.
"""

from __future__ import annotations

import importlib.util
import os
import re

import numpy as np
import pandas as pd

from .files import UsageError, _csv_options, _reading, _unreadable

__all__ = ["SAMPLE_ROWS", "agrees", "first_chunk_kinds", "keep_freed_memory", "read_kinds", "scan_kinds",
           "use_pyarrow"]

#: the cell texts pandas reads as True / False
_TRUE, _FALSE = ["True", "TRUE", "true"], ["False", "FALSE", "false"]
#: the first rows whose column types pandas infers where the families are given (:func:`agrees` checks them on the
#: whole first chunk)
SAMPLE_ROWS = 10_000
#: the block of bytes pyarrow parses at a time
_BLOCK = 1 << 20
#: glibc's ``mallopt`` parameters (malloc.h) and the largest mmap threshold it takes on 64-bit
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _MMAP_MAX = -1, -3, 32 << 20


def _null_texts(kw):
    """The cell texts read as missing under ``read_csv`` options ``kw`` (:func:`~bayesnb.cli.files._csv_options`)."""
    from pandas._libs.parsers import STR_NA_VALUES

    return sorted(set(kw["na_values"]) | (set(STR_NA_VALUES) if kw["keep_default_na"] else set()))


def use_pyarrow(path):
    """Whether ``path`` is read with pyarrow: installed, and no space after a separator in the first 64 KiB."""
    if importlib.util.find_spec("pyarrow") is None:
        return False
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    return (_csv_options(path)["sep"] + " ").encode() not in head


def header(path, na_values=None):
    """The column names of a delimited file."""
    with _reading(path):
        return [str(c) for c in pd.read_csv(path, nrows=0, **_csv_options(path, na_values)).columns]


def _arrow_batches(path, na_values, types, columns=None):
    """pyarrow record batches of ``path`` with ``types`` (``{column: pyarrow type}``) declared."""
    import pyarrow as pa
    from pyarrow import csv

    kw = _csv_options(path, na_values)
    conv = csv.ConvertOptions(column_types=types, null_values=_null_texts(kw), strings_can_be_null=True,
                              true_values=_TRUE, false_values=_FALSE, include_columns=columns)
    parse = csv.ParseOptions(delimiter=kw["sep"])
    reader = None
    while True:
        try:
            if reader is None:  # opening parses the first block
                read = csv.ReadOptions(block_size=_BLOCK, use_threads=(os.cpu_count() or 1) > 2)  # 2 cores: faster alone
                reader = csv.open_csv(path, read_options=read, parse_options=parse, convert_options=conv,
                                      memory_pool=_pool())
            yield reader.read_next_batch()
        except StopIteration:
            return
        except pa.ArrowInvalid as e:
            raise _conversion_error(path, e, list(types)) from None


def keep_freed_memory(held=256 << 20):
    """Let this process reuse the memory freed by one chunk for the next (glibc's ``mallopt``).

    Every chunk allocates the same arrays again (its columns, codes, responsibilities, the
    families' buffers: a few MiB each). glibc serves an allocation of more than 128 KiB by
    ``mmap`` and returns the heap's free top to the kernel past a few MiB, so each chunk's
    arrays are fresh pages, faulted in one 4 KiB page at a time: about 60,000 faults (a tenth
    to a sixth of the fit's CPU time, as system time) on a 2,000,000-row file in chunks of
    200,000 rows. This
    serves allocations of up to 32 MiB from the heap and keeps up to ``held`` bytes of its
    free top, so the next chunk reuses the same pages. It changes no result; the process's
    peak memory is the same (one chunk's arrays). ``bayesnb fit --chunksize`` calls it once;
    elsewhere than glibc it does nothing. The settings are the process's and last as long as it
    does: a Python session that runs ``bayesnb.cli.main(["fit", ..., "--chunksize", ...])`` keeps
    up to ``held`` bytes of freed memory from then on.

    Parameters
    ----------
    held : int, optional
        Bytes of freed memory at the top of the heap kept for reuse.

    Returns
    -------
    bool
        Whether glibc took the settings.
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018 - glibc only (musl's mallopt does nothing)
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_MAX)) and bool(mallopt(_M_TRIM_THRESHOLD, int(held)))


def _pool():
    """The memory pool the parser allocates from: pyarrow's jemalloc where this build has it.

    ``bayesnb fit`` runs in a fresh process, where the default pool (mimalloc) costs about a
    tenth of a second of CPU more for the first batches (measured on Linux, pyarrow 26);
    jemalloc reuses the memory of one batch for the next as well. Other builds: the default.
    """
    import pyarrow as pa

    try:
        return pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowException):
        return None


def _conversion_error(path, e, names):
    """A :class:`UsageError` naming the column of pyarrow's ``In CSV column #j: ... invalid value 'x'``."""
    m = re.search(r"column #(\d+)", str(e))
    v = re.search(r"invalid value (.*)$", str(e).splitlines()[0])
    if not m or int(m.group(1)) >= len(names):
        return _unreadable(path, e)
    col = names[int(m.group(1))]
    return UsageError(f"{path}: column {col!r} is read as numbers (its type in the first rows, or --numeric, or its "
                      f"--family) but holds {v.group(1) if v else 'a text cell'} further down: pass --categorical "
                      f"{col} (or --family {col}=categorical), or list the text in --na-values")


def _merge(kind, col):
    """The kind of a column given its kind so far (``None``: no cell seen) and one more chunk of it as pandas read it."""
    seen = col.dropna()
    if kind == "text" or seen.empty:
        return kind
    k = col.dtype.kind
    if k == "b":
        new = "bool"
    elif k in "iu":
        new = "int"
    elif k == "f":
        new = "int" if len(seen) < len(col) and _whole(seen.to_numpy()) else "float"  # whole with NaN: Int64
    else:
        return "text"
    if kind is None or kind == new:
        return new
    if {kind, new} == {"int", "float"}:
        return "float"
    return "text"  # bool beside numbers: pandas reads the whole column as objects


def scan_kinds(path, na_values, declared, target, progress=None):
    """First pass: each column's kind over the whole file, whether it has missing cells, the labels.

    pandas' C parser reads each chunk with its own type inference (nothing converted after
    parsing): a column is text where any chunk reads it as text, whole numbers where every
    chunk holds whole numbers. Only the columns whose kind is not ``declared`` are read,
    and the target.

    Parameters
    ----------
    path : str
    na_values : list of str or None
    declared : dict
        ``{column: kind}`` known beforehand (``--categorical``, ``--family``, the first chunk's).
    target : str
    progress : callable, optional
        Called with the number of rows read so far.

    Returns
    -------
    kinds : dict
        ``{column: kind}`` of every column, in file order (a column with no cell: ``"float"``).
    missing : set
        The columns with a missing cell.
    labels : set
        The target's observed values (as read: numbers or texts).
    rows, unlabelled : int
    """
    names = header(path, na_values)
    kinds = {c: declared.get(c) for c in names}
    scan = [c for c in names if kinds[c] is None or c == target]
    missing, labels, rows, unlabelled = set(), set(), 0, 0
    kw = {**_csv_options(path, na_values), "usecols": scan, "chunksize": 1 << 18,
          "dtype": {c: object for c in scan if declared.get(c) == "text"} or None}
    with _reading(path), pd.read_csv(path, **kw) as reader:
        for df in reader:
            df.columns = [str(c) for c in df.columns]
            for c in scan:
                col = df[c]
                if col.hasnans:
                    missing.add(c)
                if c not in declared:
                    kinds[c] = _merge(kinds[c], col)
            y = df[target]
            labels.update(y.dropna().unique().tolist())
            unlabelled += int(y.isna().sum())
            rows += len(df)
            if progress:
                progress(rows)
    return {c: k or "float" for c, k in kinds.items()}, missing, labels, rows, unlabelled


def first_chunk_kinds(path, chunksize, na_values, declared, rows=None):
    """Each column's kind as pandas infers it on the first ``chunksize`` rows (``declared`` kept).

    With ``rows``, on the first ``min(rows, chunksize)`` rows only: a sample, which :func:`agrees`
    checks on the whole first chunk once it is read.
    """
    with _reading(path):
        df = pd.read_csv(path, nrows=chunksize if rows is None else min(rows, chunksize),
                         **_csv_options(path, na_values), dtype={c: object for c, k in declared.items() if k == "text"} or None)
    df.columns = [str(c) for c in df.columns]
    kinds = {}
    for c in df.columns:
        k = df[c].dtype.kind
        whole = k == "f" and _whole(df[c].to_numpy())
        kinds[c] = declared.get(c) or ("bool" if k == "b" else "int" if k in "iu" or whole and df[c].isna().any()
                                      else "float" if k == "f" else "text")
    return kinds


def agrees(df, kinds):
    """Whether the kinds of a sample of the first rows are those of the whole first chunk ``df``.

    ``df`` is the first chunk as :func:`read_kinds` reads it with ``kinds`` (inferred by pandas on
    its first :data:`SAMPLE_ROWS` rows, :func:`first_chunk_kinds`). A text cell further down in a
    column of numbers or of booleans is a parse error before the chunk exists; the kinds that
    pandas would infer otherwise on the whole chunk, and the sample's do not say, are found
    here: a missing cell in a column of booleans (pandas reads the column as objects: text), a
    value that is not whole in a column of whole numbers (real numbers), and a missing cell in
    a column of whole numbers written as reals (``3.0``: whole numbers with missing cells,
    ``Int64``). A whole number written ``3`` in the sample and ``3.0`` further down is read as a
    whole number, as it is in any later chunk.

    Parameters
    ----------
    df : DataFrame
    kinds : dict
        ``{column: kind}`` of ``df``'s columns.

    Returns
    -------
    bool
    """
    for c, k in kinds.items():
        col = df[c]
        if k == "bool" and col.isna().any():
            return False
        if k == "int" and col.dtype.kind == "f" and not col.isna().all():  # (whole values: int64 or Int64)
            return False
        if k == "float" and col.dtype.kind == "f" and col.hasnans and _whole(col.to_numpy()):
            return False
    return True


def _whole(v):
    seen = v[np.isfinite(v)]
    return bool(seen.size) and bool(np.all((seen == np.round(seen)) & (np.abs(seen) < 2.0 ** 53)))


def read_kinds(path, chunksize, na_values, kinds, missing=None):
    """The file's chunks of ``chunksize`` rows, every column parsed as its kind.

    Parameters
    ----------
    path : str
    chunksize : int
    na_values : list of str or None
    kinds : dict
        ``{column: kind}`` of the columns to read (:func:`scan_kinds` or :func:`first_chunk_kinds`),
        in file order; the other columns are skipped by the parser.
    missing : set, optional
        The columns with a missing cell anywhere (their whole numbers are ``Int64`` in every
        chunk); None: decided per chunk.

    Yields
    ------
    DataFrame
        One chunk; its index continues the file's row numbers (0-based, header not counted).
    """
    start = 0
    for df in (_arrow_chunks if use_pyarrow(path) else _pandas_chunks)(path, chunksize, na_values, kinds):
        df.index = pd.RangeIndex(start, start + len(df))
        start += len(df)
        for c, k in kinds.items():
            if k == "int" and df[c].dtype.kind == "f":
                v = df[c].to_numpy()
                nan = np.isnan(v)
                if not nan.any() and not (missing is not None and c in missing):  # one conversion, checked
                    with np.errstate(invalid="ignore"):
                        ints = v.astype(np.int64)
                    if v.size and np.array_equal(ints, v) and np.abs(v).max() < 2.0 ** 53:
                        df[c] = ints
                    continue
                if _whole(v) or nan.all():
                    has_na = nan.any() or (missing is not None and c in missing)
                    df[c] = df[c].astype("Int64") if has_na else df[c].astype(np.int64)
        yield df


def _arrow_chunks(path, chunksize, na_values, kinds):
    import pyarrow as pa

    # text dictionary-encoded by the parser: one Python string per distinct value of a chunk, not per cell
    types = {"text": pa.dictionary(pa.int32(), pa.string()), "int": pa.float64(), "float": pa.float64(),
             "bool": pa.bool_()}
    pending, held = [], 0
    for batch in _arrow_batches(path, na_values, {c: types[k] for c, k in kinds.items()}, list(kinds)):
        pending.append(batch)
        held += batch.num_rows
        while held >= chunksize:
            table = pa.Table.from_batches(pending)
            yield _frame(table.slice(0, chunksize), kinds)
            rest = table.slice(chunksize)
            pending, held = rest.to_batches(), rest.num_rows
    if held:
        yield _frame(pa.Table.from_batches(pending), kinds)


def _frame(table, kinds):
    """A pyarrow table as a DataFrame: numbers as NumPy arrays, text as pyarrow dictionaries.

    A text column stays dictionary-encoded (``pd.ArrowDtype`` of a dictionary of strings,
    the dictionaries of its batches unified): the estimators read its cells as observed
    strings, coded through the few distinct values (no Python string per cell), and a missing
    cell is pyarrow's null.
    """
    import pyarrow as pa

    cols = {}
    for c, k in kinds.items():
        arr = table.column(c)
        if k == "text":
            cols[c] = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([arr.combine_chunks()])), copy=False)
        elif k == "bool":
            cols[c] = arr.to_pandas()
        else:
            cols[c] = pd.Series(arr.to_numpy(), copy=False)
    return pd.DataFrame(cols, copy=False)


def _pandas_chunks(path, chunksize, na_values, kinds):
    dtype = {c: (object if k == "text" else float) for c, k in kinds.items() if k != "bool"}
    kw = {**_csv_options(path, na_values), "dtype": dtype, "chunksize": chunksize, "usecols": list(kinds)}
    with _reading(path):
        try:
            with pd.read_csv(path, **kw) as reader:
                for df in reader:
                    df.columns = [str(c) for c in df.columns]
                    yield df[list(kinds)]
        except ValueError as e:
            if "could not convert" in str(e) or "Unable to parse" in str(e):
                raise UsageError(f"{path}: a column read as numbers holds text further down "
                                 f"({str(e).splitlines()[0]}): pass --categorical COL (or --family COL=categorical), "
                                 "or list the text in --na-values") from None
            raise
