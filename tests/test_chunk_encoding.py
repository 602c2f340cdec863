"""Issue 30: the fast paths of a chunked fit (factorized text columns, label codes) give the same model.

A chunked ``bayesnb fit --chunksize`` equals one in-memory fit of the same file, parameter by
parameter (to 1e-12), with a category first seen in a late chunk and missing text cells; and
the factorized coding of text columns equals the cell-by-cell coding it replaced.
"""

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import chunkread, main
from bayesnb.families import _category_codes


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


def _leaves(tree):
    """Every array of a fitted posterior's blocks (state, statistics, prior, posterior), in order."""
    if isinstance(tree, (np.ndarray, int, float, np.number)):
        yield np.asarray(tree)
    elif isinstance(tree, tuple):
        for t in tree:
            yield from _leaves(t)


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
