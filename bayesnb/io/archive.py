"""Bounded, hostile-file-proof reading of bayesnb model files, and their HMAC.

A model file is a zip archive of ``.npy`` entries (see :mod:`bayesnb.io.persistence`). This
module reads one without trusting anything in it:

- only a regular file is read (never a device such as ``/dev/zero``, nor a named pipe: the
  file is opened without blocking and its type checked on the open descriptor);
- every size the archive declares is checked against a budget (``max_bytes``) *before*
  anything is read or decompressed, the number of entries is capped before the archive's
  directory is parsed, and the entries with the objects of the parsed metadata may not take
  more than ``max_ratio`` times the file's size (beyond 16 MiB): a zip bomb is refused
  before it is inflated;
- only stored or deflated entries with the expected names are accepted; each ``.npy``
  header is parsed from the entry's first bytes, its dtype must be a plain number or
  fixed-width string type (never ``object``), and its shape times its dtype must account for
  exactly the entry's declared size; only then is the array allocated, and the rest is
  inflated straight into it in bounded chunks (no second copy), its length and CRC checked;
- the JSON metadata is measured in one linear pass before it is parsed
  (:mod:`bayesnb.io.safejson`): its depth, its number of values and the memory they would
  take are limited, and it may not hold ``NaN``/``Infinity`` literals or duplicate keys;
- :func:`sign` / :func:`verify` compute and check an HMAC-SHA256 of the metadata (which
  records the SHA-256 of every array), compared with :func:`hmac.compare_digest`.

Anything wrong raises :class:`ModelFileError` (``MemoryError`` included); nothing else
escapes :func:`read_archive` or :func:`read_model`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import math
import os
import re
import stat
import zipfile

import numpy as np

from .safejson import MAX_JSON_DEPTH, ModelFileError, parse_json

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_RATIO",
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
#: Default cap on what a file may make (its arrays and its parsed metadata) over its size: a zip
#: bomb inflates thousands of times; a model's arrays, even mostly zeros, a few tens of times.
DEFAULT_MAX_RATIO = 200
#: Most entries an archive may hold (a model writes a few per feature).
MAX_ENTRIES = 100_000
#: Longest ``.npy`` header accepted (NumPy writes 128 bytes or so).
MAX_NPY_HEADER = 10_000
#: Longest central-directory record of an entry bayesnb accepts (NumPy writes under 100 bytes).
_MAX_RECORD = 256
#: Bytes any file may make whatever its size (small models of zeros compress well).
_RATIO_SLACK = 16 << 20
_CHUNK = 1 << 20
_NAME = re.compile(r"^(__meta__|__hmac__|a\d{1,6})\.npy$")
_SAFE_KINDS = "biufcUS"
_MAC_CONTEXT = b"bayesnb-model HMAC-SHA256\x00"
_META, _MAC = "__meta__", "__hmac__"


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
    h.update(np.ascontiguousarray(a).reshape(-1).view(np.uint8))  # the bytes, without copying them
    return h.hexdigest()


def _npy_header(name: str, head: bytes, size: int):
    """Dtype, shape, order and data offset of a ``.npy`` entry, from its first bytes.

    ``size`` is the entry's declared decompressed size: the header must account for exactly
    that many bytes, which are then all the memory the array needs.
    """
    fp = io.BytesIO(head)
    version = np.lib.format.read_magic(fp)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp, max_header_size=MAX_NPY_HEADER)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp, max_header_size=MAX_NPY_HEADER)
    else:
        raise ModelFileError(f"entry {name}: unsupported .npy version {version}; expected 1.0 or 2.0")
    if (dtype.kind not in _SAFE_KINDS or dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None
            or dtype.itemsize == 0):
        raise ModelFileError(f"entry {name}: arrays of dtype {dtype} are not allowed in a model file")
    if not isinstance(shape, tuple) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ModelFileError(f"entry {name}: invalid shape {shape!r}")
    count, offset = math.prod(shape), fp.tell()
    if count * dtype.itemsize != size - offset:
        raise ModelFileError(f"entry {name}: its header declares {count} values of {dtype} "
                             f"({count * dtype.itemsize} bytes) but its zip entry declares {size - offset} bytes")
    return dtype, shape, fortran, offset


def _read_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """An entry's array: header first, then inflated in bounded chunks straight into the array."""
    with zf.open(info) as f:
        head = f.read(min(info.file_size, MAX_NPY_HEADER + 16))
        dtype, shape, fortran, offset = _npy_header(info.filename, head, info.file_size)
        out = np.empty(math.prod(shape), dtype=dtype)
        buf = memoryview(out.view(np.uint8))
        done = len(head) - offset
        buf[:done] = head[offset:]
        while done < len(buf):
            got = f.readinto(buf[done:done + _CHUNK])
            if not got:
                break
            done += got
        extra = f.read(1)  # zipfile stops at the declared size, checking the CRC; anything beyond is refused
    if done != len(buf) or extra:
        raise ModelFileError(f"entry {info.filename} does not match its declared size {info.file_size}")
    return out.reshape(shape, order="F" if fortran else "C")


def _open_regular(path: str):
    """``path`` opened for reading, and its size; refused unless it is a regular file.

    The file is opened without blocking (a named pipe with no writer would block a plain
    ``open``) and its type is checked on the open descriptor, so a path swapped after a
    check cannot slip a device or a pipe in.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such model file.") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path}: is a directory, not a model file.") from None
    except OSError as e:
        raise ModelFileError(f"{path}: cannot open the model file ({e.strerror or e}).") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ModelFileError(f"{path}: is a directory, not a model file.")
        if not stat.S_ISREG(mode):
            raise ModelFileError(f"{path}: not a regular file (a device, pipe or socket); a model file "
                                 "is a regular file.")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f, os.fstat(f.fileno()).st_size


def read_archive(path, max_bytes: int = DEFAULT_MAX_BYTES, max_ratio: float = DEFAULT_MAX_RATIO,
                 expect=None) -> dict:
    """Read every entry of a model archive within a memory budget.

    Parameters
    ----------
    path : str or os.PathLike
        A regular file (devices and pipes are refused).
    max_bytes : int
        Most bytes the file and the sum of its declared decompressed entries may have.
    max_ratio : float
        Most times the file's size its entries may declare (beyond 16 MiB), and with them the
        objects its metadata makes.
    expect : callable, optional
        ``expect(first, budget_left)`` is called with the ``__meta__`` (and ``__hmac__``) arrays
        as soon as they are read, before any other entry, and with the bytes that the budget
        and the ratio leave to the metadata's objects once the entries are counted; it returns
        the names the other entries must have (anything else is refused unread), and may
        raise :class:`ModelFileError` itself.

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
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive int; received {max_bytes!r}.")
    if isinstance(max_ratio, bool) or not isinstance(max_ratio, (int, float)) or not max_ratio >= 1:
        raise ValueError(f"max_ratio must be a number >= 1 (math.inf for no cap); received {max_ratio!r}.")
    f, size = _open_regular(path)
    with f:
        if size > max_bytes:
            raise ModelFileError(f"{path}: the file has {size} bytes, more than the budget max_bytes={max_bytes}.")
        if f.read(4) != b"PK\x03\x04":  # every model file is a zip archive; never let NumPy guess
            raise ModelFileError(f"{path}: not a bayesnb model file (not a zip archive).")
        with _reading(path):
            _count_entries(f)
            zf = zipfile.ZipFile(f)
        allowed = min(max_bytes, max_ratio * size + _RATIO_SLACK)
        with zf:
            with _reading(path):
                infos, total = _check_infos(zf.infolist(), max_bytes)
                if total > allowed:
                    raise ModelFileError(f"its entries declare {total} bytes from a file of {size}, a ratio over "
                                         f"max_ratio={max_ratio:g}")
                first = {n: _read_entry(zf, infos[n]) for n in (_META, _MAC) if n in infos}
            want = None if expect is None else expect(first, int(allowed - total))
            with _reading(path):
                rest = set(infos) - set(first)
                if want is not None and rest != set(want):
                    raise ModelFileError(f"its {len(rest)} arrays are not the {len(want)} its metadata lists")
                return {**first, **{n: _read_entry(zf, infos[n]) for n in sorted(rest)}}


@contextlib.contextmanager
def _reading(path):
    """Whatever goes wrong reading the archive becomes one :class:`ModelFileError` naming ``path``."""
    try:
        yield
    except ModelFileError as e:
        raise ModelFileError(f"{path}: not a readable bayesnb model file ({e}).") from None
    except MemoryError:
        raise ModelFileError(f"{path}: not a readable bayesnb model file (it needs more memory than "
                             "is available).") from None
    except Exception as e:  # noqa: BLE001 - a hostile file must raise nothing but ModelFileError
        why = str(e).splitlines()[0] if str(e) else ""
        raise ModelFileError(f"{path}: not a readable bayesnb model file (truncated or corrupted: "
                             f"{type(e).__name__}{': ' + why if why else ''}).") from None


def _count_entries(f):
    """Refuse an archive whose directory declares too many entries, before zipfile parses it."""
    end = zipfile._EndRecData(f)  # noqa: SLF001 - the end record, read as ZipFile itself reads it
    if end is None:
        raise ModelFileError("truncated or corrupted: no zip end-of-archive record")
    entries, directory = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]  # noqa: SLF001
    if entries > MAX_ENTRIES or directory > MAX_ENTRIES * _MAX_RECORD:
        raise ModelFileError(f"its directory declares {entries} entries in {directory} bytes; at most "
                             f"{MAX_ENTRIES} entries are allowed")


def _check_infos(infos, max_bytes: int):
    """The entries by name (without ``.npy``), and their declared total, once every limit is checked."""
    if len(infos) > MAX_ENTRIES:
        raise ModelFileError(f"{len(infos)} entries, more than {MAX_ENTRIES}")
    if "__meta__.npy" not in {info.filename for info in infos}:
        raise ModelFileError("not a bayesnb model file: no __meta__ entry")
    names, total = {}, 0
    for info in infos:
        if not _NAME.match(info.filename):
            raise ModelFileError(f"unexpected entry {info.filename[:80]!r}")
        if info.filename[:-4] in names:
            raise ModelFileError(f"entry {info.filename} appears twice")
        names[info.filename[:-4]] = info
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ModelFileError(f"entry {info.filename} uses compression method {info.compress_type}; "
                                 "expected stored or deflated")
        if info.flag_bits & 0x1:
            raise ModelFileError(f"entry {info.filename} is encrypted")
        total += info.file_size
        if total > max_bytes:
            raise ModelFileError(f"its entries declare {total} or more decompressed bytes, more than the "
                                 f"budget max_bytes={max_bytes}")
    return names, total


def read_model(path, format_name, key=None, max_bytes=DEFAULT_MAX_BYTES, max_ratio=DEFAULT_MAX_RATIO):
    """Metadata and arrays of a model file, authenticated with ``key`` if given.

    Parameters
    ----------
    path : str or os.PathLike
    format_name : str
        The ``format`` the metadata must name.
    key : bytes, str or None
        HMAC key: required for a signed file, refused for an unsigned one.
    max_bytes : int
        Budget (see :func:`read_archive`), for the entries and then the parsed metadata.
    max_ratio : float
        Cap on an entry's compression ratio (see :func:`read_archive`).

    Returns
    -------
    meta : dict
    arrays : dict of ndarray
    """
    path = os.fspath(path)
    key = check_key(key)
    found = {}

    def expect(first, budget):
        found["meta"] = meta = _metadata(path, format_name, key, first, budget)
        sums = meta.get("checksums")
        if not isinstance(sums, dict):
            raise ModelFileError(f"{path}: corrupted model file (its metadata lists no array checksums).")
        return sums

    entries = read_archive(path, max_bytes, max_ratio, expect)
    for name in (_META, _MAC):
        entries.pop(name, None)
    return found["meta"], entries


def _metadata(path, format_name, key, first, budget):
    """The metadata of a model file, authenticated with ``key`` if given, parsed within ``budget``."""
    text = first.get(_META)
    if text is None:
        raise ModelFileError(f"{path}: not a bayesnb model file (no {_META} entry).")
    if text.dtype != np.uint8 or text.ndim != 1:
        raise ModelFileError(f"{path}: corrupted model file ({_META} has dtype {text.dtype} and "
                             f"{text.ndim} dimensions; expected 1-D uint8).")
    mac = first.get(_MAC)
    if key is not None:
        if mac is None:
            raise ModelFileError(f"{path}: the model file is not signed, but a key was given; "
                                 "it was saved without a key (or its signature was removed).")
        ok = mac.dtype == np.uint8 and mac.ndim == 1 and verify(key, text.tobytes(),
                                                                 mac.tobytes().decode("latin-1"))
        if not ok:
            raise ModelFileError(f"{path}: the model file's HMAC does not match this key: the file was "
                                 "modified after it was saved, or it was saved with another key.")
    elif mac is not None:
        raise ModelFileError(f"{path}: the model file is signed with a key; pass key= to load it.")
    try:
        meta = parse_json(text, max_bytes=budget)
    except ModelFileError as e:
        raise ModelFileError(f"{path}: corrupted model file ({e}).") from None
    if not isinstance(meta, dict) or meta.get("format") != format_name:
        raise ModelFileError(f"{path}: not a bayesnb model file "
                             f"(format {meta.get('format') if isinstance(meta, dict) else None!r}).")
    if key is None and meta.get("keyed") is True:
        raise ModelFileError(f"{path}: the model file was saved with a key but its signature is missing; "
                             "pass key= to load it.")
    return meta
