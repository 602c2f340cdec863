"""Hostile model files that are small, odd or extreme: each is refused with ModelFileError, in
bounded time and memory, and the CLI reports each in one line (exit 2, no traceback).

The corpus is built here, cheaply: metadata full of escaped quotes (quadratic for a regular
expression), metadata that would build millions of objects, archives of many entries, a
~400 KB member that inflates to ~400 MB (streamed from one compressed block), a member whose
size disagrees with its ``.npy`` header, special files (``/dev/zero``, a named pipe) and
counts or concentrations that are finite but beyond anything a fit produces.
"""

from __future__ import annotations

import io
import json
import math
import os
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_model_files import _block, _key, _one_array_meta, _post, _rewrite, _zeros_deflated, _zip

import bayesnb
from bayesnb import NaiveBayes
from bayesnb.cli import main
from bayesnb.io.persistence import ModelFileError

MiB = 1 << 20
#: generous bound on refusing one hostile file (they take milliseconds; the regressions they
#: guard against took minutes to hours on the same inputs)
SLOW_S = 30.0
#: peak Python memory allowed while refusing a small hostile file
PEAK = 64 * MiB


def _npy(a):
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _archive(path, meta: bytes, *, stored=False, extra=()):
    """A model archive whose ``__meta__`` holds ``meta`` (compressed unless ``stored``)."""
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(path, "w", compression=method) as z:
        z.writestr("__meta__.npy", _npy(np.frombuffer(meta, dtype=np.uint8)))
        for name, blob in extra:
            z.writestr(name, blob)
    return path


def _refused_bounded(path, **kwargs):
    """Load ``path``: ModelFileError, within SLOW_S seconds and PEAK bytes. Returns the message."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        bayesnb.load(path, **kwargs)
    except ModelFileError as e:
        elapsed, peak = time.perf_counter() - t0, tracemalloc.get_traced_memory()[1]
        message = str(e)
    else:
        raise AssertionError(f"{path} was loaded; expected ModelFileError")
    finally:
        tracemalloc.stop()
    assert elapsed < SLOW_S, f"refusing {path} took {elapsed:.1f} s"
    assert peak < PEAK, f"refusing {path} peaked at {peak / MiB:.0f} MiB"
    return message


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    import pandas as pd

    X = pd.DataFrame({"dish": rng.choice(["a", "b", "c"], 60), "sleep": rng.normal(7, 1, 60),
                      "w1": rng.poisson(2, 60), "w2": rng.poisson(1, 60)})
    y = rng.choice(["pasta", "sushi"], 60)
    return NaiveBayes(features={"dish": bayesnb.Categorical(), "sleep": bayesnb.Gaussian(),
                                ("w1", "w2"): bayesnb.Multinomial()}).fit(X, y), X


@pytest.fixture
def good(fitted, tmp_path):
    path = tmp_path / "good.bnb"
    fitted[0].save(path)
    return path


# ------------------------------------------------------------------------- the corpus
def _quadratic_strings(tmp_path, good=None):
    """Escaped quotes in an unterminated string, 130,000 of them between random letters (so that
    it compresses little): a regex scan of it is quadratic (old: far beyond SLOW_S)."""
    letters = np.random.default_rng(0).integers(ord("a"), ord("z") + 1, 130_000).astype(np.uint8)
    text = b"".join(b'\\"' + bytes([c]) for c in letters.tolist())
    return _archive(tmp_path / "quotes.bnb", b'{"format": "' + text)


def _object_bomb(tmp_path, good=None):
    """330,000 empty lists in 1 MB of stored metadata: ~30 MB of objects from a 1 MB file."""
    return _archive(tmp_path / "objects.bnb", b"[" + b"[]," * 330_000 + b"[]]", stored=True)


def _compressed_object_bomb(tmp_path, good=None):
    """16 KB that inflate to 12 MB of metadata, 4 million lists (old: 304 MiB peak)."""
    return _archive(tmp_path / "packed.bnb", b"[" + b"[]," * 4_000_000 + b"[]]")


def _many_entries(tmp_path, good=None, n=16_000):
    """Many tiny valid arrays beside an empty metadata object (old: 88x a normal load)."""
    blob = _npy(np.zeros(1))
    crc = zlib.crc32(blob)
    meta = _npy(np.frombuffer(b"{}", dtype=np.uint8))
    entries = [("__meta__.npy", 0, meta, zlib.crc32(meta), len(meta))]
    entries += [(f"a{i}.npy", 0, blob, crc, len(blob)) for i in range(n)]
    path = tmp_path / "entries.bnb"
    path.write_bytes(_zip(entries))
    return path


def _inflating_member(tmp_path, good):
    """A ~400 KB member inflating to ~400 MB behind a valid .npy header (old: 803 MiB peak)."""
    n_mib = 400
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (n_mib * MiB // 8,)})
    head = header.getvalue()
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH) + _zeros_deflated(n_mib)
    meta = _npy(_one_array_meta(good))
    size = len(head) + n_mib * MiB
    path = tmp_path / "inflating.bnb"
    path.write_bytes(_zip([("__meta__.npy", 0, meta, zlib.crc32(meta), len(meta)),
                           ("a0.npy", zipfile.ZIP_DEFLATED, payload, 0, size)]))
    assert path.stat().st_size < MiB
    return path


def _size_disagrees(tmp_path, good):
    """A member whose .npy header declares more values than its zip entry's size holds."""
    npy = _npy(np.zeros(4))
    lying = npy.replace(b"(4,)", b"(5,)")
    meta = _npy(_one_array_meta(good))
    path = tmp_path / "disagrees.bnb"
    path.write_bytes(_zip([("__meta__.npy", 0, meta, zlib.crc32(meta), len(meta)),
                           ("a0.npy", 0, lying, zlib.crc32(lying), len(lying))]))
    return path


CORPUS = {  # name: (builder, part of the refusal message)
    "quadratic strings": (_quadratic_strings, "not valid JSON"),
    "object bomb": (_object_bomb, None),
    "compressed object bomb": (_compressed_object_bomb, "ratio"),
    "many entries": (_many_entries, "not a bayesnb model file"),
    "inflating member": (_inflating_member, "ratio"),
    "size disagrees with header": (_size_disagrees, "declares"),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_hostile_files_are_refused_in_bounded_time_and_memory(name, tmp_path, good):
    build, why = CORPUS[name]
    path = build(tmp_path, good)
    message = _refused_bounded(path)
    assert why is None or why in message, message


def test_entries_are_capped_before_the_directory_is_read(tmp_path, monkeypatch):
    import bayesnb.io.archive as safeio

    monkeypatch.setattr(safeio, "MAX_ENTRIES", 1000)
    path = _many_entries(tmp_path, n=1000)
    assert "at most 1000 entries" in _refused_bounded(path)
    def unread(self):
        raise AssertionError("the directory was parsed")
    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", unread)  # the cap comes first
    assert "at most 1000 entries" in _refused_bounded(path)


def test_metadata_objects_count_against_the_budget(tmp_path):
    """Parsed metadata is charged per value: a budget too small for its objects refuses it."""
    path = _object_bomb(tmp_path)
    assert "budget" in _refused_bounded(path, max_bytes=8 * MiB)


def test_quadratic_strings_are_linear_even_uncapped(tmp_path):
    """1 MB of escaped quotes (hours for the old regex) is refused at once with no ratio cap."""
    path = _archive(tmp_path / "q.bnb", b'["' + b'\\"' * 500_000)
    assert "JSON" in _refused_bounded(path, max_ratio=math.inf)
    closed = _archive(tmp_path / "q2.bnb", b'["' + b'\\"' * 500_000 + b'"]')
    assert "not a bayesnb model file" in _refused_bounded(closed, max_ratio=math.inf)


def test_inflating_member_loads_only_when_the_user_raises_the_cap(tmp_path, good):
    """The cap, not the budget, refused it: with a smaller member and the cap raised, it is read."""
    zeros = ("a0.npy", _npy(np.zeros(3 << 20)))  # 24 MiB of zeros in ~24 KB
    path = _archive(tmp_path / "zeros.bnb", _one_array_meta(good).tobytes(), extra=[zeros])
    assert "max_ratio" in _refused_bounded(path)
    assert "checksum mismatch" in _refused_bounded(path, max_ratio=math.inf)  # read, then refused


def test_a_sparse_text_model_loads_under_the_default_cap(tmp_path):
    """Arrays that are mostly zeros (a vocabulary's counts, a mask) compress hundreds of times each:
    the cap is on the whole file, so a real model of them loads."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    n, V = 2000, 60_000
    X = sp.csr_matrix((np.ones(100_000), (rng.integers(0, n, 100_000), rng.zipf(1.3, 100_000) % V)), shape=(n, V))
    model = bayesnb.MultinomialNB(alpha=0.01).fit(X, rng.integers(0, 20, n))
    path = tmp_path / "text.bnb"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assert max(i.file_size / i.compress_size for i in z.infolist()) > 200  # one array alone would be refused
    assert np.array_equal(bayesnb.load(path).predict(X[:50]), model.predict(X[:50]))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_devices_are_refused(tmp_path):
    link = tmp_path / "zero.bnb"
    link.symlink_to("/dev/zero")
    for path in ("/dev/zero", link):
        assert "not a regular file" in _refused_bounded(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_named_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.bnb"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused_bounded(fifo)  # a plain open() would wait for a writer


def test_directory_and_missing_file(tmp_path):
    assert "is a directory, not a model file" in _refused_bounded(tmp_path)
    assert "no such model file" in _refused_bounded(tmp_path / "absent.bnb")


# ------------------------------------------------------------ extreme finite values
def _dirichlet_shift(block, field, change):
    """Change a Dirichlet block's statistics and shift its posterior alike (still prior + counts)."""
    def edit(meta, arrays):
        fields = _block(meta, block)
        stats, post = fields[4]["fields"][field], fields[6]["fields"][0]
        stats, post = (n["__tuple__"][0] if "__tuple__" in n else n for n in (stats, post))
        ks, kp = _key(stats), _key(post)
        new = change(arrays[ks])
        arrays[kp] = arrays[kp] + (new - arrays[ks])
        arrays[ks] = new
    return edit


def _scale(node_of, factor):
    def edit(meta, arrays):
        k = _key(node_of(meta))
        arrays[k] = arrays[k] * factor
    return edit


EXTREMES = {  # name: edit of the saved file (checksums recomputed)
    # consistent edits: the posterior is still the prior plus the counts (these loaded before)
    "counts of 1e308": _dirichlet_shift("Categorical", 0, lambda a: a / a.max() * 1e308),
    "multinomial counts of 1e300": _dirichlet_shift("Multinomial", 0, lambda a: a + 1e300),
    # bounds checked before consistency
    "class count of 1e300": _scale(lambda m: _post(m)[1], 1e298),
    "Gaussian mean of 1e300": _scale(lambda m: _block(m, "Gaussian")[4]["fields"][1], 1e299),
}


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_extreme_finite_values_are_refused(name, good):
    _rewrite(good, edit_arrays=EXTREMES[name])
    assert "above" in _refused_bounded(good)


def test_counts_beyond_their_totals_are_refused(good):
    """A category count larger than its class's count is a fit no data can produce."""
    def edit(meta, arrays):
        stats = _block(meta, "Categorical")[4]["fields"][0]["__tuple__"][0]
        post = _block(meta, "Categorical")[6]["fields"][0]["__tuple__"][0]
        for node in (stats, post):
            k = _key(node)
            arrays[k] = arrays[k].copy()
            arrays[k][0, 0] += 1000.0
    _rewrite(good, edit_arrays=edit)
    assert "class count" in _refused_bounded(good)


# ---------------------------------------------------------------------------- the CLI
def test_cli_reports_each_hostile_file_in_one_line(tmp_path, good, capsys):
    paths = [build(tmp_path, good) for build, _ in CORPUS.values()]
    fifo = tmp_path / "pipe.bnb"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        paths.append(fifo)
    if os.path.exists("/dev/zero"):
        paths.append("/dev/zero")
    for path in paths:
        code = main(["info", str(path)])
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and "Traceback" not in err and ": error: " in lines[0], (path, err)


# ------------------------------------------------------------------------- saving
def test_failed_save_leaves_no_temporary_file(fitted, tmp_path, monkeypatch):
    """A full disk (ENOSPC on write) or a failed rename: the error propagates, nothing is left."""
    import builtins
    import errno

    import bayesnb.io.persistence as persistence

    model = fitted[0]
    path = tmp_path / "m.bnb"
    model.save(path)
    before = path.read_bytes()

    class Full(io.FileIO):
        def write(self, b):
            super().write(bytes(b)[:10])
            raise OSError(errno.ENOSPC, "No space left on device")

    def full_open(file, mode="r", *a, **k):
        return Full(file, mode.replace("b", "")) if "w" in mode else builtins.open(file, mode, *a, **k)

    monkeypatch.setattr(persistence, "open", full_open, raising=False)
    with pytest.raises(OSError, match="No space left"):
        model.save(path, overwrite=True)  # replacing a model: the old file must survive the failure
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bnb"] and path.read_bytes() == before

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(persistence.os, "replace", refuse)
    with pytest.raises(PermissionError):
        model.save(path, overwrite=True)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bnb"] and path.read_bytes() == before


def test_valid_file_with_json_escapes_round_trips(fitted, tmp_path):
    """Quotes and backslashes in names are ordinary: the linear scan reads them like json does."""
    model, X = fitted
    X2 = X.rename(columns={"dish": 'di"sh\\', "sleep": '\\"sleep'})
    m2 = NaiveBayes(features={'di"sh\\': bayesnb.Categorical(), '\\"sleep': bayesnb.Gaussian(),
                              ("w1", "w2"): bayesnb.Multinomial()}).fit(X2, model.classes_[[0, 1] * 30])
    path = tmp_path / "esc.bnb"
    m2.save(path)
    again = bayesnb.load(path)
    assert list(again.feature_names_in_) == list(m2.feature_names_in_)
    assert np.array_equal(again.predict_joint_log_proba(X2), m2.predict_joint_log_proba(X2))


# ------------------------------------------------------------ mutated files (property)
@pytest.fixture(scope="module")
def saved_models(tmp_path_factory):
    """Model files of every common family and of a TAN structure, with the rows to predict."""
    import pandas as pd

    rng = np.random.default_rng(1)
    n = 80
    y = rng.choice(["a", "b", "c"], n)
    X = pd.DataFrame({"dish": rng.choice(["x", "y", "z"], n), "sleep": rng.normal(7, 1, n),
                      "w1": rng.poisson(2, n), "w2": rng.poisson(1, n), "visits": rng.poisson(3, n),
                      "flag": rng.integers(0, 2, n), "spread": rng.gamma(2.0, 3.0, n)})
    X.loc[rng.random(n) < 0.1, "sleep"] = np.nan
    mixed = NaiveBayes(features={"dish": bayesnb.Categorical(), "sleep": bayesnb.Gaussian(),
                                 ("w1", "w2"): bayesnb.Multinomial(), "visits": bayesnb.Poisson(),
                                 "flag": bayesnb.Bernoulli(), "spread": bayesnb.Histogram()}).fit(X, y)
    C = pd.DataFrame({f"v{j}": rng.choice(["p", "q", "r"], n) for j in range(4)})
    tan = bayesnb.CategoricalNB(structure="tan").fit(C, y)
    d = tmp_path_factory.mktemp("mutated")
    out = []
    for name, model, data in (("mixed", mixed, X), ("tan", tan, C)):
        model.save(d / f"{name}.bnb")
        out.append((d / f"{name}.bnb", data))
    return out


EXTREME_VALUES = [0.0, -1.0, 5e-324, 1e-300, 0.5, 2.0 ** 53, 2.0 ** 53 + 2, 1e154, 1e200, 1e308, -1e308,
                  np.nan, np.inf]


def _arrays_in(node):
    """The keys of the arrays a JSON node refers to, in order."""
    if isinstance(node, dict):
        if "__array__" in node:
            yield node["__array__"]
        for v in node.values():
            yield from _arrays_in(v)
    elif isinstance(node, list):
        for v in node:
            yield from _arrays_in(v)


def _count_pairs(meta, arrays):
    """(statistics, posterior) arrays of one field of one block, of one shape: editing both alike keeps
    an additive family's posterior equal to its prior plus its counts."""
    pairs = []
    for b in _post(meta)[6]["__tuple__"]:
        stats, post = (list(_arrays_in(b["fields"][i])) for i in (4, 6))
        pairs += [(s, p) for s, p in zip(stats, post) if arrays[s].shape == arrays[p].shape]
    return pairs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(which=0, pick=0, cell=0, value=1e308, mode="all counts")  # the mixed model's categorical counts
@example(which=1, pick=0, cell=0, value=1e308, mode="all counts")  # a TAN model's
@example(which=0, pick=1, cell=3, value=1e300, mode="counts")
@given(which=st.integers(0, 1), pick=st.integers(0, 10_000), cell=st.integers(0, 10_000),
       value=st.sampled_from(EXTREME_VALUES), mode=st.sampled_from(["cell", "counts", "all counts"]))
def test_a_mutated_file_is_refused_or_predicts_finite_normalised_probabilities(
        saved_models, tmp_path, which, pick, cell, value, mode):
    """Edit a valid file, checksums recomputed: set one cell of any float array to an extreme value
    ("cell"), or change one count ("counts") or scale a whole table of counts ("all counts") to an
    extreme value with the posterior changed alike (consistent, so only the bounds can refuse it).
    The file is refused with ModelFileError, or it predicts finite probabilities summing to 1 on
    every row, with no RuntimeWarning."""
    import warnings

    saved, X = saved_models[which]
    path = tmp_path / "m.bnb"
    path.write_bytes(saved.read_bytes())

    def edit(meta, arrays):
        if mode == "cell":
            floats = sorted(k for k, a in arrays.items() if a.dtype == np.float64 and a.size)
            a = arrays[floats[pick % len(floats)]]
            a.flat[cell % a.size] = value
            return
        pairs = _count_pairs(meta, arrays)
        s, p = pairs[pick % len(pairs)]
        old = arrays[s]
        new = old.copy()
        big = value if np.isfinite(value) else 1e300
        if mode == "counts":
            new.flat[cell % new.size] = big
        else:
            new *= big / max(float(np.abs(new).max()), 1.0)
        arrays[s], arrays[p] = new, arrays[p] + (new - old)
    with np.errstate(all="ignore"):
        _rewrite(path, edit_arrays=edit)
    try:
        model = bayesnb.load(path)
    except ModelFileError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)), proba[~np.isfinite(proba).all(axis=1)][:3]
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)


def test_memory_error_becomes_model_file_error(good, monkeypatch):
    """Running out of memory while reading or checking a file is the package's error, never MemoryError."""
    import bayesnb.io.safejson as safejson
    import bayesnb.io.persistence as persistence

    def exhausted(*a, **k):
        raise MemoryError

    with monkeypatch.context() as m:
        m.setattr(safejson.json, "loads", exhausted)
        assert "metadata needs more memory than is available" in _refused_bounded(good)
    with monkeypatch.context() as m:
        m.setattr(persistence, "check_model", exhausted)
        assert "loading the model needs more memory than is available" in _refused_bounded(good)
    assert bayesnb.load(good).classes_.shape == (2,)


def _depth_and_values(obj):
    """Nesting depth and number of values (keys included) of a parsed JSON value."""
    if isinstance(obj, list):
        inner = [_depth_and_values(v) for v in obj]
        return 1 + max((d for d, _ in inner), default=0), 1 + sum(n for _, n in inner)
    if isinstance(obj, dict):
        inner = [_depth_and_values(v) for v in obj.values()]
        return 1 + max((d for d, _ in inner), default=0), 1 + len(obj) + sum(n for _, n in inner)
    return 0, 1


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='ab[]{}",:\\\\ \n'),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                         st.text(alphabet='k[]{}"\\\\', max_size=4), inner, max_size=3), max_leaves=20)


@settings(max_examples=60, deadline=None)
@given(obj=_JSON, chunk=st.integers(1, 9))
def test_linear_scan_measures_json_exactly_across_chunks(obj, chunk):
    """Brackets, quotes and backslashes inside strings, cut anywhere by the chunks: the scan's depth
    is the parsed tree's, and its count of values is never below the tree's."""
    import bayesnb.io.safejson as safejson

    text = json.dumps(obj).encode()
    old = safejson._CHUNK
    safejson._CHUNK = chunk
    try:
        depth, values = safejson.measure_json(text)
    finally:
        safejson._CHUNK = old
    want_depth, want_values = _depth_and_values(obj)
    assert depth == want_depth and values >= want_values, (text, depth, values)
