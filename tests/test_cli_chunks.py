"""``bayesnb fit --chunksize``: one pass where the families are given, pyarrow or pandas parsing, same model."""

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import chunkread, main
from bayesnb.datasets import load_house_votes


def _mixed(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["u", "v", "w"], n)
    age = (rng.normal(40, 10, n) + 4 * (y == "v")).round(1)
    age[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"age": age, "kids": rng.poisson(1 + (y == "w"), n), "city": rng.choice(["a", "b", "c"], n),
                         "ok": rng.random(n) < 0.5, "y": y})


def _same(a, b, X):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=0, atol=1e-12)
    assert [(list(map(str, p.names)), type(p.family).__name__) for p in a.posterior_.blocks] == \
           [(list(map(str, p.names)), type(p.family).__name__) for p in b.posterior_.blocks]
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("engine", ["pyarrow", "pandas"])
@pytest.mark.parametrize("extra", [[], ["--numeric-family", "gaussian"],
                                   ["--numeric-family", "gaussian", "--classes", "u,v,w"],
                                   ["--numeric-family", "gaussian", "--columns", "kids,city"]])
def test_chunked_fit_equals_the_in_memory_fit(tmp_path, capsys, monkeypatch, engine, extra):
    if engine == "pandas":
        monkeypatch.setattr(chunkread, "use_pyarrow", lambda path: False)
    df = _mixed()
    path = tmp_path / "mixed.csv"
    df.to_csv(path, index=False)
    base = ["-q", "fit", str(path), "--target", "y", *extra]
    in_memory = [a for a in base if a != "u,v,w" and a != "--classes"]  # --classes: chunked fits only
    assert main([*in_memory, "-o", str(tmp_path / "mem.bnb")]) == 0
    assert main([*base, "-o", str(tmp_path / "chunks.bnb"), "--chunksize", "90"]) == 0
    capsys.readouterr()
    mem, chunks = bayesnb.load(tmp_path / "mem.bnb"), bayesnb.load(tmp_path / "chunks.bnb")
    X = pd.read_csv(path).drop(columns="y")
    if "--columns" in extra:
        X = X[["kids", "city"]]
        assert list(chunks.feature_names_in_) == ["kids", "city"]
    if not extra:  # auto chooses the numeric families on the first chunk: same blocks, other posteriors
        assert [type(p.family).__name__ for p in chunks.posterior_.blocks] == \
               [type(p.family).__name__ for p in mem.posterior_.blocks]
        return
    _same(mem, chunks, X)
    def kinds(m):  # text: pandas' str dtype in memory, str objects in chunks (as before)
        return [str(d) if d.kind != "O" else "text" for d in m.feature_dtypes_]

    expected = {"age": "float64", "kids": "int64", "city": "text", "ok": "bool"}
    assert kinds(chunks) == kinds(mem) == [expected[c] for c in X.columns]


def test_spaces_after_separators_are_read_by_pandas(tmp_path, capsys):
    """UCI files use ', ': pyarrow would keep the spaces, so pandas reads them, with the same model."""
    df = load_house_votes()
    path = tmp_path / "votes.csv"
    path.write_text(df.to_csv(index=False).replace(",", ", "))
    assert not chunkread.use_pyarrow(str(path))
    base = ["-q", "fit", str(path), "--target", "party", "--family", "categorical"]
    assert main([*base, "-o", str(tmp_path / "mem.bnb")]) == 0
    assert main([*base, "-o", str(tmp_path / "chunks.bnb"), "--chunksize", "100"]) == 0
    mem, chunks = bayesnb.load(tmp_path / "mem.bnb"), bayesnb.load(tmp_path / "chunks.bnb")
    assert [list(c) for c in chunks.posterior_.blocks[0].state.categories] == \
           [list(c) for c in mem.posterior_.blocks[0].state.categories]
    X = pd.read_csv(path, skipinitialspace=True, na_values="?").drop(columns="party")
    _same(mem, chunks, X)


@pytest.mark.parametrize("engine", ["pyarrow", "pandas"])
def test_one_pass_errors_are_one_line(tmp_path, capsys, monkeypatch, engine):
    if engine == "pandas":
        monkeypatch.setattr(chunkread, "use_pyarrow", lambda path: False)
    df = _mixed().astype({"age": object})
    df.loc[350, "age"] = "old"  # numbers in the first chunk, a word further down
    path = tmp_path / "late.csv"
    df.to_csv(path, index=False)
    cases = [(["--numeric-family", "gaussian", "--classes", "u,v,w"], "'age'"),
             (["--numeric-family", "gaussian", "--family", "age=categorical", "--classes", "u,v"], "not in --classes"),
             (["--numeric", "city", "--classes", "u,v,w", "--family", "categorical"], "'city' (--numeric city)")]
    for extra, message in cases:
        assert main(["fit", str(path), "--target", "y", "-o", str(tmp_path / "m.bnb"), "--chunksize", "100",
                     *extra]) == 2, extra
        err = capsys.readouterr().err.strip()
        if "'age'" in message and engine == "pandas":
            message = "holds text further down"
        assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err, err
    assert main(["fit", str(path), "--target", "y", "-o", str(tmp_path / "m.bnb"), "--classes", "u,v,w"]) == 2
    assert "--classes applies to a chunked fit" in capsys.readouterr().err
    # where auto chooses, the first pass sees the word: 'age' is categorical in every chunk, as in memory
    assert main(["-q", "fit", str(path), "--target", "y", "-o", str(tmp_path / "a.bnb"), "--chunksize", "100"]) == 0
    blocks = {str(c): type(p.family).__name__ for p in bayesnb.load(tmp_path / "a.bnb").posterior_.blocks
              for c in p.names}
    assert blocks["age"] == "Categorical"
