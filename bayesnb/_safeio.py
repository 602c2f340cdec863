"""Bounded, hostile-file-proof reading of bayesnb model files, and their HMAC.

A model file is a zip archive of ``.npy`` entries (see :mod:`bayesnb.persistence`). This
module reads one without trusting anything in it:

- every size the archive declares is checked against a budget (``max_bytes``) *before*
  anything is read or decompressed; decompression is streamed in bounded chunks and the
  output must match the declared size exactly, so a zip bomb costs at most the budget;
- only stored or deflated entries with the expected names are accepted; each ``.npy``
  header is parsed with a size limit, its dtype must be a plain number or fixed-width
  string type (never ``object``), and its shape must account for exactly the bytes present
  before any array is allocated;
- the JSON metadata is limited in size and nesting depth (checked by a vectorised bracket
  scan before :func:`json.loads` could recurse), and may not hold ``NaN``/``Infinity``
  literals or duplicate keys;
- :func:`sign` / :func:`verify` compute and check an HMAC-SHA256 of the metadata (which
  records the SHA-256 of every array), compared with :func:`hmac.compare_digest`.

Anything wrong raises :class:`ModelFileError`; nothing else escapes :func:`read_archive`.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import math
import os
import re
import zipfile

import numpy as np

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_JSON_DEPTH",
    "ModelFileError",
    "check_key",
    "digest",
    "parse_json",
    "read_archive",
    "read_model",
    "sign",
    "verify",
]

#: Default budget (bytes) for a model file's decompressed content, checked before reading.
DEFAULT_MAX_BYTES = 1 << 30
#: Deepest JSON nesting a model file's metadata may have (bayesnb writes about 15).
MAX_JSON_DEPTH = 64
#: Most entries an archive may hold.
MAX_ENTRIES = 100_000
#: Longest ``.npy`` header accepted (NumPy writes 128 bytes or so).
MAX_NPY_HEADER = 10_000
_CHUNK = 1 << 20
_NAME = re.compile(r"^(__meta__|__hmac__|a\d{1,6})\.npy$")
_SAFE_KINDS = "biufcUS"
_MAC_CONTEXT = b"bayesnb-model HMAC-SHA256\x00"
_META, _MAC = "__meta__", "__hmac__"


class ModelFileError(ValueError):
    """A model file is missing, truncated, corrupted, tampered with or incompatible."""


def check_key(key):
    """Validate an HMAC key: non-empty ``bytes``/``bytearray``, or ``str`` (UTF-8 encoded).

    Parameters
    ----------
    key : bytes, bytearray, str or None

    Returns
    -------
    bytes or None
    """
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"key must be bytes or str; received {type(key).__name__}.")
    if len(key) == 0:
        raise ValueError("key must not be empty; received a key of length 0.")
    return bytes(key)


def sign(key: bytes, meta: bytes) -> str:
    """Hex HMAC-SHA256 of the metadata bytes under ``key`` (domain-separated).

    Parameters
    ----------
    key : bytes
    meta : bytes
        The exact UTF-8 JSON metadata stored in the file.

    Returns
    -------
    str
    """
    return hmac.new(key, _MAC_CONTEXT + meta, hashlib.sha256).hexdigest()


def verify(key: bytes, meta: bytes, mac: str) -> bool:
    """Whether ``mac`` is the HMAC of ``meta`` under ``key`` (constant-time comparison).

    Parameters
    ----------
    key : bytes
    meta : bytes
    mac : str

    Returns
    -------
    bool
    """
    return hmac.compare_digest(sign(key, meta).encode("ascii"), mac.encode("ascii", "replace"))


def digest(a: np.ndarray) -> str:
    """SHA-256 of an array's dtype, shape and bytes (hex).

    Parameters
    ----------
    a : ndarray

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _parse_npy(name: str, data: bytearray) -> np.ndarray:
    """An array from ``.npy`` bytes, checking its header against the bytes present."""
    fp = io.BytesIO(data)
    version = np.lib.format.read_magic(fp)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp, max_header_size=MAX_NPY_HEADER)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp, max_header_size=MAX_NPY_HEADER)
    else:
        raise ModelFileError(f"entry {name}: unsupported .npy version {version}; expected 1.0 or 2.0")
    if dtype.kind not in _SAFE_KINDS or dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise ModelFileError(f"entry {name}: arrays of dtype {dtype} are not allowed in a model file")
    if not isinstance(shape, tuple) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ModelFileError(f"entry {name}: invalid shape {shape!r}")
    count = math.prod(shape)
    offset = fp.tell()
    if count * dtype.itemsize != len(data) - offset:
        raise ModelFileError(f"entry {name}: its header declares {count} values of {dtype} "
                             f"({count * dtype.itemsize} bytes) but {len(data) - offset} bytes follow")
    flat = np.frombuffer(data, dtype=dtype, count=count, offset=offset)  # writable: data is a bytearray
    return flat.reshape(shape, order="F" if fortran else "C")


def _read_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytearray:
    """An entry's bytes, decompressed in bounded chunks; exactly its declared size."""
    out = bytearray()
    with zf.open(info) as f:
        while len(out) < info.file_size:
            chunk = f.read(min(_CHUNK, info.file_size - len(out)))
            if not chunk:
                break
            out += chunk
        extra = f.read(1)  # zipfile stops at the declared size; anything beyond is refused
    if len(out) != info.file_size or extra:
        raise ModelFileError(f"entry {info.filename} does not match its declared size {info.file_size}")
    return out


def read_archive(path, max_bytes: int = DEFAULT_MAX_BYTES) -> dict:
    """Read every entry of a model archive within a memory budget.

    Parameters
    ----------
    path : str or os.PathLike
    max_bytes : int
        Most bytes the file and the sum of its declared decompressed entries may have.

    Returns
    -------
    dict
        Entry name (without ``.npy``) -> ndarray.

    Raises
    ------
    ModelFileError
        Whatever is wrong with the file (the message names what was expected and found).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelFileError(f"{path}: no such model file.")
    if os.path.isdir(path):
        raise ModelFileError(f"{path}: is a directory, not a model file.")
    size = os.path.getsize(path)
    if size > max_bytes:
        raise ModelFileError(f"{path}: the file has {size} bytes, more than the budget max_bytes={max_bytes}.")
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:4] != b"PK\x03\x04":  # every model file is a zip archive; never let NumPy guess
        raise ModelFileError(f"{path}: not a bayesnb model file (not a zip archive).")
    try:
        return _read_zip(raw, max_bytes)
    except ModelFileError as e:
        raise ModelFileError(f"{path}: not a readable bayesnb model file ({e}).") from None
    except Exception as e:  # noqa: BLE001 - a hostile file must raise nothing but ModelFileError
        why = str(e).splitlines()[0] if str(e) else ""
        raise ModelFileError(f"{path}: not a readable bayesnb model file (truncated or corrupted: "
                             f"{type(e).__name__}{': ' + why if why else ''}).") from None


def _read_zip(raw: bytes, max_bytes: int) -> dict:
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise ModelFileError(f"{len(infos)} entries, more than {MAX_ENTRIES}")
        if "__meta__.npy" not in {info.filename for info in infos}:
            raise ModelFileError("not a bayesnb model file: no __meta__ entry")
        names, total = set(), 0
        for info in infos:
            if not _NAME.match(info.filename):
                raise ModelFileError(f"unexpected entry {info.filename[:80]!r}")
            if info.filename in names:
                raise ModelFileError(f"entry {info.filename} appears twice")
            names.add(info.filename)
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ModelFileError(f"entry {info.filename} uses compression method {info.compress_type}; "
                                     "expected stored or deflated")
            if info.flag_bits & 0x1:
                raise ModelFileError(f"entry {info.filename} is encrypted")
            total += info.file_size
            if total > max_bytes:
                raise ModelFileError(f"its entries declare {total} or more decompressed bytes, more than the "
                                     f"budget max_bytes={max_bytes}")
        return {info.filename[:-4]: _parse_npy(info.filename, _read_entry(zf, info)) for info in infos}


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ModelFileError(f"duplicate JSON key {k[:40]!r}")
        out[k] = v
    return out


def _no_constant(name):
    raise ModelFileError(f"JSON literal {name} is not allowed")


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def parse_json(data: bytes, max_depth: int = MAX_JSON_DEPTH):
    """Parse model metadata, refusing nesting deeper than ``max_depth`` before recursing.

    Parameters
    ----------
    data : bytes
        UTF-8 JSON.
    max_depth : int

    Returns
    -------
    object
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ModelFileError(f"metadata is not UTF-8 ({e.reason})") from None
    skeleton = np.frombuffer(_STRING.sub(b"", data), dtype=np.uint8)
    step = (np.isin(skeleton, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(skeleton, (ord("]"), ord("}"))).astype(np.int64))
    depth = int(np.cumsum(step).max()) if step.size else 0
    if depth > max_depth:
        raise ModelFileError(f"metadata is nested {depth} levels deep; at most {max_depth} allowed")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except ValueError as e:  # json.JSONDecodeError, or int strings over Python's digit limit
        if isinstance(e, ModelFileError):
            raise
        raise ModelFileError(f"metadata is not valid JSON ({str(e).splitlines()[0]})") from None


def read_model(path, format_name, key=None, max_bytes=DEFAULT_MAX_BYTES):
    """Metadata and arrays of a model file, authenticated with ``key`` if given.

    Parameters
    ----------
    path : str or os.PathLike
    format_name : str
        The ``format`` the metadata must name.
    key : bytes, str or None
        HMAC key: required for a signed file, refused for an unsigned one.
    max_bytes : int
        Budget (see :func:`read_archive`).

    Returns
    -------
    meta : dict
    arrays : dict of ndarray
    """
    path = os.fspath(path)
    key = check_key(key)
    entries = read_archive(path, max_bytes)
    text = entries.pop(_META, None)
    if text is None:
        raise ModelFileError(f"{path}: not a bayesnb model file (no {_META} entry).")
    if text.dtype != np.uint8 or text.ndim != 1:
        raise ModelFileError(f"{path}: corrupted model file ({_META} has dtype {text.dtype} and "
                             f"{text.ndim} dimensions; expected 1-D uint8).")
    text = text.tobytes()
    mac = entries.pop(_MAC, None)
    if key is not None:
        if mac is None:
            raise ModelFileError(f"{path}: the model file is not signed, but a key was given; "
                                 "it was saved without a key (or its signature was removed).")
        ok = mac.dtype == np.uint8 and mac.ndim == 1 and verify(key, text, mac.tobytes().decode("latin-1"))
        if not ok:
            raise ModelFileError(f"{path}: the model file's HMAC does not match this key: the file was "
                                 "modified after it was saved, or it was saved with another key.")
    elif mac is not None:
        raise ModelFileError(f"{path}: the model file is signed with a key; pass key= to load it.")
    try:
        meta = parse_json(text)
    except ModelFileError as e:
        raise ModelFileError(f"{path}: corrupted model file ({e}).") from None
    if not isinstance(meta, dict) or meta.get("format") != format_name:
        raise ModelFileError(f"{path}: not a bayesnb model file "
                             f"(format {meta.get('format') if isinstance(meta, dict) else None!r}).")
    if key is None and meta.get("keyed") is True:
        raise ModelFileError(f"{path}: the model file was saved with a key but its signature is missing; "
                             "pass key= to load it.")
    return meta, entries
