"""Issue 30: the fast paths of a chunked fit (factorized text columns, label codes) give the same model.

A chunked ``bayesnb fit --chunksize`` equals one in-memory fit of the same file, parameter by
parameter (to 1e-12), with a category first seen in a late chunk and missing text cells; and
the factorized coding of text columns equals the cell-by-cell coding it replaced.
"""

import os
import platform
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import chunkread, main
from bayesnb.families import _category_codes
from helpers import leaves as _leaves


def _table(n=600, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    city = rng.choice(["c00", "c01", "c02", "c03"], n).astype(object)
    city[n // 2 + 7] = "zz-late"  # unseen until a later chunk: extends the categories
    city[n // 2 + 40] = "aa-late"  # sorts before every earlier category
    device = rng.choice(["mobile", "desktop", "tablet"], n).astype(object)
    device[rng.random(n) < 0.05] = None  # missing text cells
    return pd.DataFrame({"age": (rng.normal(40, 10, n) + 3 * (y == "b")).round(1),
                         "kids": rng.poisson(1 + 0.3 * (y == "c"), n), "city": city, "device": device, "y": y})




def _assert_same_model(a, b):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=0, atol=1e-12)
    assert len(a.posterior_.blocks) == len(b.posterior_.blocks)
    for pa, pb in zip(a.posterior_.blocks, b.posterior_.blocks):
        assert type(pa.family) is type(pb.family) and list(map(str, pa.names)) == list(map(str, pb.names))
        for part in ("state", "stats", "prior", "posterior"):
            la, lb = list(_leaves(getattr(pa, part))), list(_leaves(getattr(pb, part)))
            assert len(la) == len(lb) and la, part
            for u, v in zip(la, lb):
                if u.dtype.kind in "fiu" and v.dtype.kind in "fiu":
                    np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)  # (sums merged per chunk)
                else:
                    assert u.tolist() == v.tolist(), part


@pytest.mark.parametrize("engine", ["pyarrow", "pandas"])
@pytest.mark.parametrize("classes", [False, True])
def test_chunked_fit_has_the_parameters_of_one_fit(tmp_path, capsys, monkeypatch, engine, classes):
    if engine == "pandas":
        monkeypatch.setattr(chunkread, "use_pyarrow", lambda path: False)
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    base = ["-q", "fit", str(path), "--target", "y", "--numeric-family", "gaussian"]
    assert main([*base, "-o", str(tmp_path / "mem.bnb")]) == 0
    extra = ["--classes", "a,b,c"] if classes else []
    assert main([*base, *extra, "--chunksize", "100", "-o", str(tmp_path / "chunks.bnb")]) == 0
    capsys.readouterr()
    mem, chunks = bayesnb.load(tmp_path / "mem.bnb"), bayesnb.load(tmp_path / "chunks.bnb")
    _assert_same_model(mem, chunks)
    cats = {str(n): c for p in chunks.posterior_.blocks if type(p.family).__name__ == "Categorical"
            for n, c in zip(p.names, p.state.categories)}
    assert cats["city"].tolist() == ["aa-late", "c00", "c01", "c02", "c03", "zz-late"]  # extended, sorted
    assert cats["device"].tolist() == ["desktop", "mobile", "tablet"]


@pytest.mark.parametrize("partial", [False, True])
def test_factorized_text_columns_code_as_cell_by_cell(monkeypatch, partial):
    """The factorized path against the cell-by-cell path it replaced (forced by disabling it)."""
    df = _table()
    X, y = df.drop(columns="y"), df["y"].to_numpy(dtype=str)

    def fit():
        m = bayesnb.NaiveBayes(features={("city", "device"): bayesnb.Categorical(), ("age",): bayesnb.Gaussian(),
                                         ("kids",): bayesnb.Poisson()})
        if not partial:
            return m.fit(X, y)
        for a in range(0, len(X), 150):
            m.partial_fit(X.iloc[a:a + 150], y[a:a + 150], classes=np.array(["a", "b", "c"]))
        return m

    fast = fit()
    fast_proba = fast.predict_proba(X)
    assert _category_codes._factorized(X["city"].to_numpy(dtype=object))[0] is not None  # the fast path ran
    monkeypatch.setattr(_category_codes, "_factorized", lambda values: (None, None))
    slow = fit()
    _assert_same_model(slow, fast)
    np.testing.assert_array_equal(slow.predict_proba(X), fast_proba)


def test_factorized_column_keeps_mixed_types_cell_by_cell():
    """Only columns of Python strings are factorized: 1 and True (equal as Python values) are not merged."""
    assert _category_codes._factorized(np.array([1, True, "a"], dtype=object)) == (None, None)
    u, c = _category_codes._factorized(np.array(["b", None, "a", "b", np.nan], dtype=object))
    assert u.tolist() == ["b", "a"] and c.tolist() == [0, -1, 1, 0, -1]


def test_unknown_text_label_in_partial_fit_is_named():
    m = bayesnb.NaiveBayes().partial_fit(pd.DataFrame({"x": ["p", "q"]}), np.array(["a", "b"]),
                                         classes=np.array(["a", "b"], dtype=object))
    with pytest.raises(ValueError, match=r"label\(s\) \['zz'\]"):
        m.partial_fit(pd.DataFrame({"x": ["p", "q"]}), np.array(["a", "zz"]))


def _dictionary_frame(df, text=("city", "device")):
    """``df`` with its text columns as pyarrow dictionaries, each row block with its own dictionary."""
    import pyarrow as pa

    out = df.copy()
    for c in text:
        values = df[c].tolist()
        # blocks of rows dictionary-encoded separately: their dictionaries differ (order, members)
        chunks = [pa.array(values[a:a + 97][::-1], from_pandas=True).dictionary_encode()
                  for a in range(0, len(values), 97)]
        chunks = [pa.DictionaryArray.from_arrays(ch.indices, ch.dictionary).take(
            pa.array(np.arange(len(ch))[::-1])) for ch in chunks]
        out[c] = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(chunks)), index=df.index)
    return out


@pytest.mark.parametrize("partial", [False, True])
@pytest.mark.parametrize("storage", ["dictionary", "str"])
def test_text_stored_by_pyarrow_codes_as_python_strings(partial, storage):
    """Text stored by pyarrow (dictionaries differing between row blocks and between batches, missing
    cells, a value first seen in a late batch; or pandas' ``str``) gives the model of the same text as
    Python strings: observed values, never declared categories."""
    df = _table()
    X, y = df.drop(columns="y"), df["y"].to_numpy(dtype=str)
    arrow = _dictionary_frame(X) if storage == "dictionary" else X.astype({"city": "str", "device": "str"})
    assert all(bayesnb._utils.is_arrow_text(t) for t in arrow[["city", "device"]].dtypes)

    def fit(data):
        m = bayesnb.NaiveBayes(features={("city", "device"): bayesnb.Categorical(), ("age",): bayesnb.Gaussian(),
                                         ("kids",): bayesnb.Poisson()})
        if not partial:
            return m.fit(data, y)
        for a in range(0, len(data), 150):
            m.partial_fit(data.iloc[a:a + 150], y[a:a + 150], classes=np.array(["a", "b", "c"]))
        return m

    fast, slow = fit(arrow), fit(X.astype({"city": object, "device": object}))
    _assert_same_model(slow, fast)
    assert fast.posterior_.blocks[0].state.declared == (False, False)
    assert fast.posterior_.blocks[0].state.categories[0].tolist() == ["aa-late", "c00", "c01", "c02", "c03",
                                                                      "zz-late"]
    np.testing.assert_array_equal(fast.predict_proba(arrow), slow.predict_proba(X))


def test_arrow_factorize_keeps_only_the_values_of_the_cells():
    """A dictionary's unused entries (a slice of a longer column), missing entries and repeats are not values."""
    import pyarrow as pa

    from bayesnb._utils import arrow_factorize

    d = pa.DictionaryArray.from_arrays(pa.array([4, 0, None, 2, 3, 0], pa.int8()),
                                       pa.array(["b", "unused", None, "b", "a"]))
    distinct, codes = arrow_factorize(pd.arrays.ArrowExtensionArray(pa.chunked_array([d])))
    assert distinct.tolist() == ["b", "a"] and codes.tolist() == [1, 0, -1, -1, 0, 0]
    sliced = pa.chunked_array([pa.array(["x", "y", "z", "y"]).dictionary_encode()]).slice(1, 2)
    distinct, codes = arrow_factorize(pd.arrays.ArrowExtensionArray(sliced))
    assert distinct.tolist() == ["y", "z"] and codes.tolist() == [0, 1]


def test_one_hot_gives_back_its_labels_and_nothing_leaks():
    """The labelled responsibilities hand their codes to the families; what is computed from them is a plain array."""
    from bayesnb._utils import hard_labels, one_hot

    resp = one_hot(np.array([2, 0, 1, 2]), np.array([1.0, 2.0, 0.5, 1.0]), 3)
    labels, w = hard_labels(resp)
    assert labels.tolist() == [2, 0, 1, 2] and w.tolist() == [1.0, 2.0, 0.5, 1.0]
    np.testing.assert_array_equal(hard_labels(np.asarray(resp))[0], labels)  # the same as read from the matrix
    assert hard_labels(resp[:2])[0].tolist() == [2, 0]  # a view has forgotten them: read from the matrix
    for out in (resp.sum(axis=0), resp.sum(axis=1), resp * 2, resp.T @ np.ones((4, 1))):
        assert type(out) is np.ndarray
    m = bayesnb.NaiveBayes().fit(pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.5]}), ["a", "b", "a", "b"])
    assert type(m.class_count_) is np.ndarray


def test_label_first_seen_in_a_late_chunk_is_refused_naming_its_rows(tmp_path, capsys):
    df = _table()
    df.loc[450, "y"] = "d"  # not in --classes, in the fifth chunk of 100 rows
    path = tmp_path / "late.csv"
    df.to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "y", "--numeric-family", "gaussian", "--classes", "a,b,c",
                 "--chunksize", "100", "-o", str(tmp_path / "m.bnb")]) == 2
    err = capsys.readouterr().err.strip()
    assert "rows 401-500" in err and "['d']" in err and "not in --classes" in err and len(err.splitlines()) == 1


def test_chunked_fit_records_the_text_dtype_of_a_whole_read(tmp_path, capsys):
    """The chunks' dictionary-encoded text is recorded as the dtype pandas' parser gives text (``bayesnb fit``)."""
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    base = ["-q", "fit", str(path), "--target", "y", "--numeric-family", "gaussian"]
    assert main([*base, "-o", str(tmp_path / "mem.bnb")]) == 0
    assert main([*base, "--classes", "a,b,c", "--chunksize", "100", "-o", str(tmp_path / "chunks.bnb")]) == 0
    mem, chunks = bayesnb.load(tmp_path / "mem.bnb"), bayesnb.load(tmp_path / "chunks.bnb")
    assert [str(t) for t in chunks.feature_dtypes_] == [str(t) for t in mem.feature_dtypes_]


@pytest.mark.parametrize("storage", ["dictionary", "str"])
def test_labels_stored_by_pyarrow_give_the_model_of_their_strings(storage):
    """Text labels stored by pyarrow are coded through their distinct values: the same classes and model;
    a missing label and a label not among the classes are refused as for a NumPy array of labels."""
    import pyarrow as pa

    df = _table()
    X, labels = df.drop(columns="y"), df["y"].to_numpy(dtype=object)
    if storage == "dictionary":
        y = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(
            [pa.array(labels[:250]).dictionary_encode(), pa.array(labels[250:][::-1]).dictionary_encode().take(
                pa.array(np.arange(len(labels) - 250)[::-1]))])), name="y")
    else:
        y = pd.Series(labels, dtype="str", name="y")
    assert bayesnb._utils.is_arrow_text(y.dtype)

    def model():
        return bayesnb.NaiveBayes(features={("city", "device"): bayesnb.Categorical(), ("age",): bayesnb.Gaussian(),
                                            ("kids",): bayesnb.Poisson()})

    ref = model().fit(X, labels)
    _assert_same_model(ref, model().fit(X, y))
    part = model()
    for a in range(0, len(X), 150):
        part.partial_fit(X.iloc[a:a + 150], y.iloc[a:a + 150], classes=np.array(["a", "b", "c"], dtype=object))
    _assert_same_model(ref, part)
    assert part.target_name_ == "y"
    with pytest.raises(ValueError, match=r"label\(s\) \['zz'\]"):
        part.partial_fit(X.iloc[:3], pd.Series(["a", "zz", "b"], dtype="str"))
    with pytest.raises(ValueError, match=r"1 missing label\(s\).*row\(s\) \[1\]"):
        part.partial_fit(X.iloc[:3], pd.Series(["a", None, "b"], dtype="str"))
    numbers = model().partial_fit(X.iloc[:4], np.array([0, 1, 0, 1]), classes=np.array([0, 1]))
    with pytest.raises(ValueError, match="not in classes"):
        numbers.partial_fit(X.iloc[:3], pd.Series(["a", "b", "a"], dtype="str"))


_FAULTS = """
import resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from bayesnb.cli.chunkread import keep_freed_memory
    assert keep_freed_memory()
for _ in range(3):  # warm: the first arrays are fresh pages either way
    a = np.ones(200_000)
    del a
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(40):  # what each chunk does: arrays of a few MiB made and freed
    arrays = [np.ones(200_000) for _ in range(6)]  # freed together: a heap top past glibc's trim threshold
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc's mallopt")
def test_keep_freed_memory_reuses_pages():
    """Issue 32: after ``keep_freed_memory`` a chunk's arrays reuse the pages freed by the one before (few page
    faults), where glibc's defaults map fresh pages for every array of more than 128 KiB (~1,000 faults each)."""
    def faults(mode):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run([sys.executable, "-c", _FAULTS, mode], capture_output=True, text=True, env=env, check=True)
        return int(out.stdout.split()[-1])

    kept, default = faults("keep"), faults("default")
    assert default > 40 * 1000  # fresh pages for every round (9.6 MiB: ~2,300 pages)
    assert kept < default / 10


def test_labels_stored_by_pyarrow_are_refused_as_the_package_s_own_data_error():
    """A missing or extra label in text stored by pyarrow is the same DataError (a user mistake, exit 2 in the
    CLI) as in a NumPy array of labels, with the same message."""
    X = _table().drop(columns="y").iloc[:3]
    for y in (pd.Series(["a", None, "b"], dtype="str"), pd.Series(["a", "b"], dtype="str")):
        with pytest.raises(bayesnb._utils.DataError) as arrow:
            bayesnb.NaiveBayes().fit(X, y)
        with pytest.raises(bayesnb._utils.DataError) as numpy:
            bayesnb.NaiveBayes().fit(X, y.to_numpy(dtype=object))
        assert str(arrow.value) == str(numpy.value)
