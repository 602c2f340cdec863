"""Parsing a model file's JSON metadata in linear time and bounded memory.

The metadata of a model file is untrusted text. Before :func:`json.loads` sees it (which
recurses once per nesting level and builds a Python object per value), one vectorised pass
over fixed-size chunks measures it, with no regular expression:

- its nesting depth outside strings, refused beyond ``max_depth`` (so the parser cannot
  exhaust the stack);
- an upper bound on the number of values it holds (every value is the first item of a
  container or follows a ``,`` or ``:``), refused beyond :data:`MAX_JSON_VALUES`, and the
  memory the parsed objects would take, refused beyond the caller's byte budget.

A quote is the end of a string unless an odd number of backslashes precedes it, which is
exactly JSON's rule inside strings; outside strings a backslash is a syntax error that
:func:`json.loads` reports before going deeper, so the measure cannot be fooled. Each pass
holds a few arrays of :data:`_CHUNK` elements whatever the size of the text, and the scan
and the parse are both linear in it. ``NaN``/``Infinity`` literals and duplicate keys are
refused. Every failure (``MemoryError`` included) raises :class:`ModelFileError`, the
package's error for any unreadable model file (:mod:`bayesnb.io.persistence` exports it).
"""

from __future__ import annotations

import json

import numpy as np

__all__ = ["BYTES_PER_VALUE", "MAX_JSON_DEPTH", "MAX_JSON_VALUES", "ModelFileError", "measure_json", "parse_json"]

#: Deepest JSON nesting a model file's metadata may have (bayesnb writes about 15).
MAX_JSON_DEPTH = 64
#: Most values (numbers, strings, containers, keys) a model file's metadata may hold.
MAX_JSON_VALUES = 10_000_000
#: Bytes charged to the budget per JSON value: a Python object and the slot that holds it
#: (an empty list or dict takes 56-64 bytes, a float 24, a slot 8), with room to spare.
BYTES_PER_VALUE = 96
_CHUNK = 1 << 18
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN, _CLOSE, _SEPARATORS = (ord("["), ord("{")), (ord("]"), ord("}")), (ord(","), ord(":"))


class ModelFileError(ValueError):
    """A model file is missing, truncated, corrupted, tampered with or incompatible."""


def measure_json(data) -> tuple[int, int]:
    """Nesting depth and an upper bound on the number of values of JSON text, in one linear pass.

    Parameters
    ----------
    data : bytes-like
        UTF-8 JSON (not validated here: :func:`json.loads` does that).

    Returns
    -------
    depth : int
        The deepest nesting of ``[``/``{`` outside strings.
    values : int
        At least the number of values (keys included) the text holds.
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    depth = top = 0
    values = 1
    in_string = False  # whether the chunk starts inside a string
    run = 0  # backslashes ending the previous chunk
    for start in range(0, raw.size, _CHUNK):
        b = raw[start:start + _CHUNK]
        idx = np.arange(b.size)
        # the last index <= i that is not a backslash; the backslashes right before i are the run after it
        last = np.maximum.accumulate(np.where(b != _BACKSLASH, idx, -1))
        before = np.concatenate(([-1], last[:-1]))
        run_before = idx - 1 - before + np.where(before < 0, run, 0)
        quote = (b == _QUOTE) & (run_before % 2 == 0)
        outside = (np.cumsum(quote) - quote) % 2 == (1 if in_string else 0)
        step = np.isin(b, _OPEN).astype(np.int64) - np.isin(b, _CLOSE)
        step *= outside
        if step.size:
            level = top + np.cumsum(step)
            depth = max(depth, int(level.max()))
            top = int(level[-1])
        values += int(np.count_nonzero((step > 0) | (np.isin(b, _SEPARATORS) & outside)))
        in_string ^= bool(np.count_nonzero(quote) % 2)
        run = int(b.size - 1 - last[-1] + (run if last[-1] < 0 else 0)) if b.size else run
    return depth, values


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ModelFileError(f"duplicate JSON key {k[:40]!r}")
        out[k] = v
    return out


def _no_constant(name):
    raise ModelFileError(f"JSON literal {name} is not allowed")


def parse_json(data: bytes, max_depth: int = MAX_JSON_DEPTH, max_bytes: int | None = None):
    """Parse model metadata, refusing too deep or too large a tree before building it.

    Parameters
    ----------
    data : bytes
        UTF-8 JSON.
    max_depth : int
        Deepest nesting allowed.
    max_bytes : int, optional
        Budget for the parsed objects (:data:`BYTES_PER_VALUE` per value, plus the text
        twice); no limit when None.

    Returns
    -------
    object

    Raises
    ------
    ModelFileError
        The text is not UTF-8 JSON, or is over a limit (the message names which).
    """
    try:
        depth, values = measure_json(data)
        if depth > max_depth:
            raise ModelFileError(f"metadata is nested {depth} levels deep; at most {max_depth} allowed")
        if values > MAX_JSON_VALUES:
            raise ModelFileError(f"metadata holds up to {values} values; at most {MAX_JSON_VALUES} allowed")
        need = values * BYTES_PER_VALUE + 2 * len(data)
        if max_bytes is not None and need > max_bytes:
            raise ModelFileError(f"metadata of {values} values would take about {need} bytes, more than the "
                                 f"{max_bytes} bytes the budget (max_bytes) and the ratio (max_ratio) leave")
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ModelFileError(f"metadata is not UTF-8 ({e.reason})") from None
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except MemoryError:
        raise ModelFileError("metadata needs more memory than is available") from None
    except ValueError as e:  # json.JSONDecodeError, or int strings over Python's digit limit
        if isinstance(e, ModelFileError):
            raise
        raise ModelFileError(f"metadata is not valid JSON ({str(e).splitlines()[0]})") from None
