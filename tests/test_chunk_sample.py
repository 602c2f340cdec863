"""Issue 32: where the families are given, ``bayesnb fit --chunksize`` infers the column types on the first
``SAMPLE_ROWS`` rows and checks them on the whole first chunk.

Whatever the first chunk holds below the sample (a word in a column of numbers, a missing cell in a
column of booleans, a real among whole numbers, a missing cell among whole numbers written ``3.0``,
a column empty in the sample), the fit has the types, and the model, of pandas' inference on the
whole first chunk (the sample set larger than the chunk); the first chunk is read again only then.
"""

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import chunkread, chunks, main
from helpers import leaves as _leaves

CHUNK, SAMPLE, ODD = 300, 40, 150  # the odd cell: in the first chunk, below the sample


def _table(case, n=700, seed=4):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    df = pd.DataFrame({
        "age": (rng.normal(40, 10, n) + 4 * (y == "b")).round(1).astype(object),
        "kids": rng.poisson(1 + 0.5 * (y == "c"), n).astype(object),
        "flag": (rng.random(n) < 0.3 + 0.3 * (y == "a")).astype(object),
        "dose": [f"{v}.0" for v in rng.integers(1, 4, n) + (y == "b")],  # whole numbers written as reals
        "late": rng.integers(0, 5, n).astype(object),
        "city": rng.choice(["p", "q", "r"], n),
        "y": y,
    })
    if case == "empty in the sample":
        df.loc[: ODD - 1, "late"] = None  # whole numbers with missing cells in the first chunk: Int64
    elif case == "word among numbers":
        df.loc[ODD, "age"] = "unknown"
    elif case == "missing boolean":
        df.loc[ODD, "flag"] = None
    elif case == "real among whole numbers":
        df.loc[ODD, "kids"] = 2.5
    elif case == "missing whole real":
        df.loc[ODD, "dose"] = None
    return df


def _fit(tmp_path, monkeypatch, sample, name, extra=()):
    monkeypatch.setattr(chunks, "SAMPLE_ROWS", sample)
    calls = []
    real = chunkread.first_chunk_kinds
    monkeypatch.setattr(chunks, "first_chunk_kinds", lambda *a, **k: calls.append(k.get("rows")) or real(*a, **k))
    out = tmp_path / f"{name}.bnb"
    code = main(["-q", "fit", str(tmp_path / "t.csv"), "--target", "y", "--numeric-family", "gaussian",
                 "--chunksize", str(CHUNK), "-o", str(out), *extra])
    return (bayesnb.load(out) if code == 0 else None), calls, code




def _assert_same_model(a, b):
    assert [str(t) for t in a.feature_dtypes_] == [str(t) for t in b.feature_dtypes_]
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    assert len(a.posterior_.blocks) == len(b.posterior_.blocks)
    for pa, pb in zip(a.posterior_.blocks, b.posterior_.blocks):
        assert type(pa.family) is type(pb.family) and list(map(str, pa.names)) == list(map(str, pb.names))
        for part in ("state", "stats", "posterior"):
            la, lb = list(_leaves(getattr(pa, part))), list(_leaves(getattr(pb, part)))
            assert len(la) == len(lb)
            for u, v in zip(la, lb):
                assert u.tolist() == v.tolist() if u.dtype.kind not in "fiu" else np.array_equal(u, v, equal_nan=True)


@pytest.mark.parametrize("engine", ["pyarrow", "pandas"])
@pytest.mark.parametrize("classes", [True, False])
@pytest.mark.parametrize("case", ["agree", "word among numbers", "missing boolean", "real among whole numbers",
                                  "missing whole real", "empty in the sample"])
def test_sampled_types_are_the_first_chunks(tmp_path, capsys, monkeypatch, case, classes, engine):
    if engine == "pandas":
        monkeypatch.setattr(chunkread, "use_pyarrow", lambda path: False)
    _table(case).to_csv(tmp_path / "t.csv", index=False)
    extra = ["--classes", "a,b,c"] if classes else []
    whole, whole_calls, _ = _fit(tmp_path, monkeypatch, 10**9, "whole", extra)  # as before: the whole first chunk
    sampled, calls, _ = _fit(tmp_path, monkeypatch, SAMPLE, "sampled", extra)
    capsys.readouterr()
    assert whole_calls == [10**9]
    # the sample alone where the first chunk agrees with it; else the whole first chunk too
    assert calls == ([SAMPLE] if case == "agree" else [SAMPLE, None])
    _assert_same_model(sampled, whole)
    kinds = dict(zip(sampled.feature_names_in_, map(str, sampled.feature_dtypes_)))
    expected = {"word among numbers": ("age", "str"), "missing boolean": ("flag", "str"),
                "real among whole numbers": ("kids", "float64"), "missing whole real": ("dose", "Int64"),
                "empty in the sample": ("late", "Int64"), "agree": ("kids", "int64")}[case]
    assert kinds[expected[0]] == expected[1] or (expected[1] == "str" and kinds[expected[0]] == "object")


def test_numeric_column_with_text_below_the_sample_is_refused_as_before(tmp_path, capsys, monkeypatch):
    _table("word among numbers").to_csv(tmp_path / "t.csv", index=False)
    messages = []
    for sample in (10**9, SAMPLE):
        _, _, code = _fit(tmp_path, monkeypatch, sample, "m", ["--numeric", "age", "--classes", "a,b,c"])
        assert code != 0
        messages.append(capsys.readouterr().err.strip().splitlines()[-1])
    assert messages[0] == messages[1]
    assert "column 'age' (--numeric age) holds text" in messages[1] and len(messages[1].splitlines()) == 1


def test_agrees_reads_what_the_sample_cannot_say():
    kinds = {"b": "bool", "i": "int", "f": "float", "t": "text"}
    ok = pd.DataFrame({"b": [True, False], "i": [1, 2], "f": [1.5, np.nan], "t": ["x", None]})
    assert chunkread.agrees(ok, kinds)
    assert not chunkread.agrees(ok.assign(b=[True, None]), kinds)  # pandas: objects, text
    assert not chunkread.agrees(ok.assign(i=[1.0, 2.5]), kinds)  # a real: real numbers
    assert not chunkread.agrees(ok.assign(f=[1.0, np.nan]), kinds)  # whole with a missing cell: Int64
    assert chunkread.agrees(ok.assign(f=[1.0, 2.0]), kinds)  # whole reals, none missing: reals (pandas: float64)
