"""Hostile model files: every one raises ModelFileError (nothing else), in bounded time and memory.

The corpus is generated here from one legitimate file of a model that uses every family:
truncations, seeded byte flips, edits of the JSON and arrays that keep the checksums valid
(so only the load-time checks can refuse them), deep JSON, archives whose headers claim
terabytes, and zip bombs. With a key, every changed file is refused.
"""

from __future__ import annotations

import io
import json
import math
import struct
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import Bernoulli, Categorical, Gaussian, Multinomial, NaiveBayes
from bayesnb.io.archive import digest
from bayesnb.io.persistence import DEFAULT_MAX_BYTES, ModelFileError

MiB = 1 << 20
#: the slowest a single hostile file may take to be refused (generous: the machine is shared)
SECONDS = 5.0


def _table(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["pasta", "sushi", "tacos"], size=n)
    X = pd.DataFrame({"dish": rng.choice(["a", "b", "c"], size=n), "w1": rng.poisson(2, n),
                      "w2": rng.poisson(1, n), "sleep": rng.normal(7, 1, n), "flag": rng.integers(0, 2, n)})
    return X, y


FEATURES = {"dish": Categorical(), ("w1", "w2"): Multinomial(alpha=0.5), "sleep": Gaussian(),
            "flag": Bernoulli()}


@pytest.fixture(scope="module")
def model():
    X, y = _table()
    return NaiveBayes(features=FEATURES).fit(X, y), X


@pytest.fixture
def good(model, tmp_path):
    path = tmp_path / "good.bnb"
    model[0].save(path)
    return path


def _refused(path, **kwargs):
    """Load ``path``; it must raise ModelFileError, quickly. Returns the message."""
    t0 = time.perf_counter()
    try:
        bayesnb.load(path, **kwargs)
    except ModelFileError as e:
        elapsed = time.perf_counter() - t0
        assert elapsed < SECONDS, f"refusing {path.name} took {elapsed:.1f} s"
        return str(e)
    raise AssertionError(f"{path.name} was loaded; expected ModelFileError")


# ------------------------------------------------------------------------- helpers
def _entries(path):
    with np.load(path, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def _rewrite(path, edit_meta=None, edit_arrays=None, out=None):
    """Edit a model file and recompute its checksums (the HMAC entry, if any, is kept as it was)."""
    entries = _entries(path)
    meta = json.loads(entries.pop("__meta__").tobytes())
    arrays = {k: v for k, v in entries.items() if k != "__hmac__"}
    if edit_meta:
        edit_meta(meta)
    if edit_arrays:
        edit_arrays(meta, arrays)
    meta["checksums"] = {k: digest(a) for k, a in arrays.items()}
    extra = {"__hmac__": entries["__hmac__"]} if "__hmac__" in entries else {}
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    out = out or path
    with open(out, "wb") as f:
        np.savez_compressed(f, __meta__=blob, **extra, **arrays)
    return out


def _post(meta):
    return meta["fitted"]["posterior"]["fields"]  # NBPosterior fields


def _block(meta, family):
    for b in _post(meta)[6]["__tuple__"]:
        if b["fields"][0]["__family__"] == family:
            return b["fields"]  # family, columns, names, state, stats, prior, posterior
    raise KeyError(family)


def _key(node):
    """The array key behind a (possibly transposed or broadcast) array reference."""
    while "__array__" not in node:
        node = node.get("__transpose__") or node["__broadcast__"]
    return node["__array__"]


def _zip(entries):
    """A zip archive written by hand: (name, method, payload, crc, declared size) per entry."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, method, payload, crc, size in entries:
        offset, nm = out.tell(), name.encode()
        zip64 = size >= 0xFFFFFFFF
        extra = struct.pack("<HHQQ", 1, 16, size, len(payload)) if zip64 else b""
        s32, c32 = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (size, len(payload))
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, crc, c32, s32, len(nm), len(extra))
                  + nm + extra + payload)
        cextra = struct.pack("<HHQQQ", 1, 24, size, len(payload), offset) if zip64 else b""
        central.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0, crc, c32, s32,
                                  len(nm), len(cextra), 0, 0, 0, 0, 0xFFFFFFFF if zip64 else offset)
                      + nm + cextra)
    cd, start = central.getvalue(), out.tell()
    out.write(cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(cd), start, 0))
    return out.getvalue()


def _zeros_deflated(n_mib):
    """Raw deflate stream of ``n_mib`` MiB of zeros, built from one flushed block (no GiB to compress)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(b"\0" * MiB) + c.flush(zlib.Z_FULL_FLUSH)
    return block * n_mib + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


# --------------------------------------------------------------------------- corpus
def test_truncated_files_are_refused(good, tmp_path):
    data = good.read_bytes()
    bad = tmp_path / "bad.bnb"
    for cut in np.unique(np.linspace(0, len(data) - 1, 80).astype(int)):
        bad.write_bytes(data[:cut])
        _refused(bad)


def test_byte_flips_are_refused(model, good, tmp_path):
    """A few hundred seeded single-byte changes: each is refused, or changed nothing that is read.

    Some bytes of a zip archive are never used to read it (e.g. timestamps); a change there
    must leave the model identical. Every other change is refused (CRC, checksum or checks).
    """
    m, X = model
    data = good.read_bytes()
    rng = np.random.default_rng(2024)
    bad = tmp_path / "bad.bnb"
    refused = 0
    for pos, flip in zip(rng.integers(0, len(data), 300), rng.integers(1, 256, 300)):
        changed = bytearray(data)
        changed[pos] ^= flip
        bad.write_bytes(bytes(changed))
        try:
            again = bayesnb.load(bad)
        except ModelFileError:
            refused += 1
            continue
        assert np.array_equal(again.predict_joint_log_proba(X), m.predict_joint_log_proba(X)), pos
    assert refused > 150  # the rest fell on bytes zip readers skip (times, zip64 padding)


def _set_array(node_of, value_of):
    def edit(meta, arrays):
        k = _key(node_of(meta))
        arrays[k] = value_of(arrays[k])
    return edit


EDITS = {  # name: (edit_meta, edit_arrays, message the refusal must contain)
    "class list one shorter": (None, _set_array(lambda m: _post(m)[0], lambda a: a[:-1]), "shape"),
    "class list one longer": (None, _set_array(lambda m: _post(m)[0], lambda a: np.append(a, "zzz")), "shape"),
    "class list unsorted": (None, _set_array(lambda m: _post(m)[0], lambda a: a[::-1].copy()), "sorted"),
    "class list duplicated": (None, _set_array(lambda m: _post(m)[0], lambda a: np.array([a[0]] * len(a))),
                              "unique"),
    "negative class count": (None, _set_array(lambda m: _post(m)[1], lambda a: -a), "below 0"),
    "class prior edited": (None, _set_array(lambda m: _post(m)[4], lambda a: a[::-1].copy()),
                           "class prior and posterior"),
    "negative concentration": (None, _set_array(lambda m: _block(m, "Multinomial")[5]["fields"][0],
                                                lambda a: a - 10), "below 0"),
    "NaN count": (None, _set_array(lambda m: _block(m, "Categorical")[4]["fields"][0]["__tuple__"][0],
                                   lambda a: np.where(a == a.max(), np.nan, a)), "NaN"),
    "infinite variance stat": (None, _set_array(lambda m: _block(m, "Gaussian")[4]["fields"][2],
                                                lambda a: a + np.inf), "NaN or infinite"),
    "posterior not prior + counts": (None, _set_array(lambda m: _block(m, "Gaussian")[6]["fields"][0],
                                                      lambda a: a + 1.0), "prior updated"),
    "counts of the wrong shape": (None, _set_array(lambda m: _block(m, "Gaussian")[4]["fields"][0],
                                                   lambda a: a[:, :0]), "shape"),
    "float32 counts": (None, _set_array(lambda m: _block(m, "Bernoulli")[4]["fields"][0],
                                        lambda a: a.astype(np.float32)), "float64"),
    "integer counts": (None, _set_array(lambda m: _block(m, "Bernoulli")[4]["fields"][0],
                                        lambda a: a.astype(np.int64)), "float64"),
    "categories duplicated": (lambda m: _block(m, "Categorical")[3]["fields"][0]["__tuple__"][0].update(
        __objarray__=["a", "a", "c"]), None, "unique"),
    "unknown family": (lambda m: _block(m, "Gaussian")[0].update(__family__="Subprocess"), None, "unknown family"),
    "family swapped": (lambda m: _block(m, "Gaussian")[0].update(__family__="Multinomial", params={
        "__dict__": [["alpha", 1.0]]}), None, "Multinomial"),
    "wrong dtype name": (lambda m: m["fitted"]["extra"].update(feature_dtypes_={"__dtype__": "float128x"}),
                         None, "dtype"),
    "column covered twice": (None, _set_array(lambda m: _block(m, "Gaussian")[1], lambda a: a * 0), "exactly once"),
    "n_features lies": (lambda m: m["fitted"].update(n_features_in=9), None, "feature"),
    "target index past the features": (lambda m: m["fitted"]["extra"].update(target_index_=99), None,
                                       "target_index_ must be an integer from 0"),
    "unknown fitted attribute": (lambda m: m["fitted"]["extra"].update(__class__=1), None, "unknown fitted"),
    "unknown estimator": (lambda m: m.update(estimator="os.system"), None, "unknown estimator"),
    "unknown parameter": (lambda m: m["params"]["__dict__"].append(["evil", 1]), None, "evil"),
    "unknown predictive": (lambda m: [kv for kv in m["params"]["__dict__"] if kv[0] == "predictive"][0].__setitem__(
        1, "mode"), None, "predictive"),
    "feature name not a string": (lambda m: m["fitted"]["feature_names_in"]["__objarray__"].__setitem__(0, 3), None,
                                  "unique strings"),
    "feature names duplicated": (lambda m: m["fitted"]["feature_names_in"]["__objarray__"].__setitem__(0, "w1"), None,
                                 "unique strings"),
    "binarize not a number": (lambda m: _block(m, "Bernoulli")[0]["params"]["__dict__"][1].__setitem__(1, [1, 2]),
                              None, "binarize"),
    "huge broadcast": (lambda m: _block(m, "Multinomial")[5]["fields"][0].update(shape=[3, 10 ** 12]), None,
                       "budget"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_edited_files_with_valid_checksums_are_refused(name, good):
    edit_meta, edit_arrays, why = EDITS[name]
    _rewrite(good, edit_meta, edit_arrays)
    assert why in _refused(good)


def test_deep_json_is_refused_before_parsing(good):
    deep = 100_000  # json.loads would hit RecursionError
    blob = np.frombuffer(("[" * deep + "]" * deep).encode(), dtype=np.uint8)
    deep_file = good.with_name("deep.bnb")
    with open(deep_file, "wb") as f:
        np.savez(f, __meta__=blob)
    assert "nested" in _refused(deep_file)
    # brackets inside strings do not count: a documentation string full of them loads
    _rewrite(good, lambda m: m["summary"].update(note="[{" * 100))
    assert bayesnb.load(good).classes_.shape == (3,)
    _rewrite(good, lambda m: m["fitted"]["extra"].update(offset_=json.loads("[" * 70 + "]" * 70)))
    assert "nested" in _refused(good)


def test_nan_and_duplicate_keys_in_json_are_refused(good):
    meta = _entries(good)["__meta__"].tobytes().replace(b'"format_version": 2', b'"format_version": NaN')
    with open(good, "wb") as f:
        np.savez(f, __meta__=np.frombuffer(meta, dtype=np.uint8))
    assert "NaN" in _refused(good)
    meta = meta.replace(b'"format_version": NaN', b'"format_version": 2, "format_version": 2')
    with open(good, "wb") as f:
        np.savez(f, __meta__=np.frombuffer(meta, dtype=np.uint8))
    assert "duplicate" in _refused(good)


def _npy_header(descr, shape):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _one_array_meta(path):
    """The file's metadata listing one array, ``a0`` (the reader reads the arrays it lists)."""
    meta = json.loads(_entries(path)["__meta__"].tobytes())
    meta["checksums"] = {"a0": "0" * 64}
    return np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)


def test_npy_header_claiming_terabytes_is_refused(good):
    npy = _npy_header("<f8", (10 ** 12,)) + b"\0" * 64  # claims 7.3 TiB, holds 64 bytes
    meta = _one_array_meta(good)
    buf = io.BytesIO()
    np.save(buf, meta)
    raw = _zip([("__meta__.npy", 0, buf.getvalue(), zlib.crc32(buf.getvalue()), len(buf.getvalue())),
                ("a0.npy", 0, npy, zlib.crc32(npy), len(npy))])
    good.write_bytes(raw)
    assert "declares" in _refused(good)


def test_zip_entry_claiming_terabytes_is_refused(good):
    raw = _zip([("__meta__.npy", 8, b"\x03\x00", 0, 8 << 40)])  # 8 TiB declared
    good.write_bytes(raw)
    assert "budget" in _refused(good)


@pytest.mark.parametrize("ratio", [None, math.inf])
@pytest.mark.parametrize("declared", ["honest", "lying"])
def test_zip_bomb_is_refused_within_a_memory_budget(declared, ratio, tmp_path):
    """1 GiB of zeros in ~1 MB, under the default budget (1 GiB): refused by its compression ratio,
    or, with the ratio uncapped, from the first chunk (not a .npy), or cut at its small declaration."""
    payload = _zeros_deflated(1024)
    size = DEFAULT_MAX_BYTES if declared == "honest" else MiB
    crc = zlib.crc32(b"\0" * size) if size == MiB else 0
    path = tmp_path / "bomb.bnb"
    path.write_bytes(_zip([("__meta__.npy", zipfile.ZIP_DEFLATED, payload, crc, size)]))
    assert path.stat().st_size < 2 * MiB
    tracemalloc.start()
    try:
        message = _refused(path, **({} if ratio is None else {"max_ratio": ratio}))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * MiB, f"peak {peak / MiB:.0f} MiB"  # the first chunk, never the declared size
    if declared == "honest" and ratio is None:
        assert "max_ratio" in message


def test_budget_is_checked_before_decompressing(good):
    assert "budget" in _refused(good, max_bytes=1000)


def test_encrypted_or_exotic_entries_are_refused(good):
    meta = _entries(good)["__meta__"]
    buf = io.BytesIO()
    np.save(buf, meta)
    data = buf.getvalue()
    good.write_bytes(_zip([("__meta__.npy", zipfile.ZIP_LZMA, data, zlib.crc32(data), len(data))]))
    assert "compression method" in _refused(good)
    good.write_bytes(_zip([("__meta__.npy", 0, data, zlib.crc32(data), len(data)),
                           ("../../etc/passwd", 0, b"x", zlib.crc32(b"x"), 1)]))
    assert "unexpected entry" in _refused(good)


def test_object_arrays_are_refused(good):
    npy = _npy_header("|O", (1,)) + b"\x80\x04N."  # a pickle: never unpickled
    meta = _one_array_meta(good)
    buf = io.BytesIO()
    np.save(buf, meta)
    good.write_bytes(_zip([("__meta__.npy", 0, buf.getvalue(), zlib.crc32(buf.getvalue()), len(buf.getvalue())),
                           ("a0.npy", 0, npy, zlib.crc32(npy), len(npy))]))
    assert "not allowed" in _refused(good)


# -------------------------------------------------------------------------------- key
KEY = b"correct horse battery staple"


def test_signed_file_round_trips_with_its_key(model, tmp_path):
    m, X = model
    path = tmp_path / "s.bnb"
    m.save(path, key=KEY)
    again = bayesnb.load(path, key=KEY)
    assert np.array_equal(again.predict_joint_log_proba(X), m.predict_joint_log_proba(X))
    assert bayesnb.load(path, key=KEY.decode()) is not None  # a str key is its UTF-8 bytes


def test_key_mismatches_are_refused(model, good, tmp_path):
    m, _ = model
    signed = tmp_path / "s.bnb"
    m.save(signed, key=KEY)
    assert "pass key=" in _refused(signed)
    assert "does not match this key" in _refused(signed, key=b"another key")
    assert "not signed" in _refused(good, key=KEY)
    # removing the signature is not enough: the metadata records that the file was signed
    entries = _entries(signed)
    del entries["__hmac__"]
    with open(signed, "wb") as f:
        np.savez_compressed(f, **entries)
    assert "saved with a key" in _refused(signed)
    with pytest.raises(ValueError, match="empty"):
        m.save(signed, key=b"")
    with pytest.raises(TypeError, match="bytes or str"):
        m.save(signed, key=123)


def _relabel(meta, arrays):
    """A consistent edit no check can see: classes renamed, still unique and sorted."""
    k = _key(_post(meta)[0])
    arrays[k] = np.array(["pasta", "sushi", "tofu"])


@pytest.mark.parametrize("name", ["relabelled classes"] + sorted(EDITS))
def test_key_refuses_every_edit_even_with_recomputed_checksums(name, model, tmp_path):
    m, _ = model
    path = tmp_path / "s.bnb"
    m.save(path, key=KEY)
    edit_meta, edit_arrays = (None, _relabel) if name == "relabelled classes" else EDITS[name][:2]
    _rewrite(path, edit_meta, edit_arrays)
    assert "does not match this key" in _refused(path, key=KEY)


def test_checksums_alone_do_not_stop_a_consistent_edit(good, model):
    """Why the key exists: without it, a relabelled file with valid checksums loads."""
    m, X = model
    _rewrite(good, edit_arrays=_relabel)
    again = bayesnb.load(good)
    assert set(again.predict(X)) <= {"pasta", "sushi", "tofu"} and "tofu" in set(again.predict(X))
    assert "tacos" in set(m.predict(X))
