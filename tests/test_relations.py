"""Deterministic relations among numeric columns (issue 27): found, reported by check_independence."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import Gaussian, NaiveBayes
from bayesnb.criticism import check_independence
from bayesnb.criticism.checks import deterministic_relations


def _telco(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    tenure = np.where(rng.random(n) < 0.1, 0, rng.integers(1, 72, n)).astype(float)
    monthly = np.round(rng.uniform(20, 110, n), 2)
    a, b = rng.normal(size=n), rng.exponential(size=n)
    X = pd.DataFrame({"tenure": tenure, "monthly": monthly, "total": tenure * monthly, "a": a, "b": b,
                      "c": a + b, "noise": rng.normal(size=n), "plan": rng.choice(["m", "y"], n)})
    X.loc[rng.random(n) < 0.05, "c"] = np.nan
    return X


def _found(table):
    return {(r.kind, r.target, tuple(r.sources)) for r in table.itertuples()}


def test_zero_sum_and_product_relations_are_found():
    found = _found(deterministic_relations(_telco()))
    assert found == {("zero", "total", ("tenure",)), ("zero", "tenure", ("total",)),
                     ("product", "total", ("tenure", "monthly")), ("sum", "c", ("a", "b"))}


def test_a_difference_is_the_sum_read_the_other_way():
    X = _telco()
    D = pd.DataFrame({"c": X["c"], "b": X["b"], "d": X["c"] - X["b"]})
    assert ("sum", "c", ("b", "d")) in _found(deterministic_relations(D))


def test_no_relation_in_independent_columns():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.normal(size=800), "n": rng.poisson(0.3, 800).astype(float),
                      "m": rng.poisson(0.3, 800).astype(float), "k": rng.integers(0, 5, 800).astype(float),
                      "u": rng.uniform(size=800)})
    assert deterministic_relations(X).empty
    assert list(deterministic_relations(X).columns) == ["kind", "target", "sources", "share", "n"]


def test_what_is_not_reported():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=500), rng.normal(size=500)
    near = a + b
    near[:10] += 1.0  # holds on 98% of the rows only
    X = pd.DataFrame({"a": a, "b": b, "near": near, "noisy": a + b + rng.normal(0, 1e-3, 500),
                      "zeros": np.zeros(500), "ones": np.ones(500)})
    found = _found(deterministic_relations(X))
    # not on 99% of rows, not within rtol, and a + 0, a * 1 are trivial
    assert not {f for f in found if f[0] in ("sum", "product")}
    assert ("sum", "near", ("a", "b")) in _found(deterministic_relations(X, share=0.98))
    assert ("sum", "noisy", ("a", "b")) in _found(deterministic_relations(X, rtol=0.1))


def test_arrays_are_read_by_position_and_categorical_tables_have_none():
    X = _telco()[["a", "b", "c"]].to_numpy()
    assert _found(deterministic_relations(X)) == {("sum", 2, (0, 1))}
    assert deterministic_relations(pd.DataFrame({"s": ["a", "b"] * 20})).empty
    assert deterministic_relations(np.array([["a", "b"]] * 20, dtype=object)).empty


@pytest.mark.parametrize("kw", [{"share": 0.4}, {"share": 1.5}, {"rtol": -1.0}, {"min_rows": 0}, {"min_rows": 2.5}])
def test_bad_options_are_refused(kw):
    with pytest.raises(ValueError, match="deterministic_relations"):
        deterministic_relations(_telco(), **kw)


def test_check_independence_reports_them():
    X = _telco(600)
    y = (X["plan"] == "y").to_numpy().astype(int)
    X = X.drop(columns="plan")
    res = check_independence(NaiveBayes().fit(X, y), X, y, n_replicates=5, random_state=0)
    rel = res.attrs["deterministic_relations"]
    assert ("product", "total", ("tenure", "monthly")) in {(r["kind"], r["target"], r["sources"]) for r in rel}
    assert {tuple(sorted(r)) for r in rel} == {("kind", "n", "share", "sources", "target")}
    pd.concat([res, res])  # plain values in attrs: pandas can compare them when it combines frames
    assert {"class", "feature_a", "feature_b", "p_value"} <= set(res.columns)  # the pair table as before


# ------------------------------------------------------------------ zero links kept by impute
def _tenure(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    tenure = np.where(rng.random(n) < 0.15 + 0.1 * y, 0, rng.integers(1, 72, n)).astype(float)
    monthly = np.round(rng.uniform(20, 110, n), 2)
    X = pd.DataFrame({"tenure": tenure, "monthly": monthly, "charges": tenure * monthly})
    Xm = X.copy()
    Xm.loc[rng.random(n) < 0.3, "charges"] = np.nan
    Xm.loc[rng.random(n) < 0.1, "tenure"] = np.nan
    return Xm, y


@pytest.mark.parametrize("structure", ["naive", "tan"])
@pytest.mark.parametrize("strategy", ["auto", "mean", "draw"])
def test_impute_keeps_a_zero_link(structure, strategy):
    Xm, y = _tenure()
    model = NaiveBayes(structure=structure).fit(Xm, y)
    assert sorted(model.zero_links_) == [(0, 2), (2, 0)]  # charges 0 iff tenure 0
    T = model.impute(Xm, strategy=strategy, random_state=0)
    at_zero = Xm["charges"].isna().to_numpy() & (T["tenure"].to_numpy() == 0)
    assert at_zero.sum() > 50 and np.all(T["charges"].to_numpy()[at_zero] == 0)
    pd.testing.assert_frame_equal(T[Xm.notna()], Xm[Xm.notna()])  # observed cells untouched
    # without the link, the independent model writes other charges there
    del model.zero_links_
    T = model.impute(Xm, strategy=strategy, random_state=0)
    assert np.mean(T["charges"].to_numpy()[at_zero] == 0) < 0.9


def test_zero_links_need_evidence_and_follow_partial_fit():
    from bayesnb.generative.zero_links import zero_links

    rng = np.random.default_rng(3)
    a = rng.poisson(0.5, 400).astype(float)
    assert zero_links(pd.DataFrame({"a": a, "b": rng.poisson(0.5, 400).astype(float)})) == []
    assert zero_links(pd.DataFrame({"a": [0.0] * 5 + [1.0] * 5, "b": [0.0] * 5 + [2.0] * 5})) == []  # 5 < 10 rows
    Xm, y = _tenure()
    model = NaiveBayes(features={"tenure": Gaussian(), "monthly": Gaussian(), "charges": Gaussian()})
    model.partial_fit(Xm, y, classes=[0, 1])
    assert sorted(model.zero_links_) == [(0, 2), (2, 0)]
    model.partial_fit(pd.DataFrame({"tenure": [0.0], "monthly": [50.0], "charges": [12.0]}), [1])
    assert model.zero_links_ == [(0, 2)]  # charges 12 at tenure 0 breaks "charges is 0 where tenure is"


def test_zero_links_are_saved_and_checked(tmp_path):
    import bayesnb
    from bayesnb.generative.zero_links import check_zero_links

    Xm, y = _tenure(400)
    model = NaiveBayes().fit(Xm, y)
    model.save(tmp_path / "m.bnb")
    again = bayesnb.load(tmp_path / "m.bnb")
    assert sorted(again.zero_links_) == sorted(model.zero_links_)
    pd.testing.assert_frame_equal(again.impute(Xm), model.impute(Xm))
    for bad in ([[0, 0]], [[0, 7]], [[0]], "x", [[True, 1]]):
        with pytest.raises(ValueError, match="zero_links_"):
            check_zero_links(bad, 3)


def test_impute_table_and_mvn_keep_a_zero_link():
    from bayesnb import impute_table
    from bayesnb.impute.mvn import impute_mvn

    Xm, y = _tenure(600)
    for T in (impute_mvn(Xm, y), impute_table(Xm, y, configurations=("naive", "mvn"), random_state=0).table):
        at_zero = Xm["charges"].isna().to_numpy() & (T["tenure"].to_numpy() == 0)
        assert at_zero.sum() > 20 and np.all(T["charges"].to_numpy()[at_zero] == 0)


def _zero_links_by_definition(F, min_rows=10):
    """The zero links of a float table (NaN missing), pair by pair from the module docstring's words."""
    out = []
    for s in range(F.shape[1]):
        xs = F[:, s]
        if np.count_nonzero(xs == 0) < min_rows:
            continue
        for t in range(F.shape[1]):
            xt = F[:, t]
            at = xt[(xs == 0) & ~np.isnan(xt)]
            rest = xt[~np.isnan(xs) & (xs != 0) & ~np.isnan(xt)]
            if t != s and at.size >= min_rows and np.all(at == 0) and (not rest.size or np.mean(rest == 0) <= 0.5):
                out.append((t, s))
    return out


@pytest.mark.parametrize("block_cells", [1 << 20, 500])
def test_zero_links_are_the_pairs_of_the_definition(monkeypatch, block_cells):
    """Sparse count tables (many links) read as float, int and mixed-dtype frames, in blocks of any size."""
    from bayesnb.generative import zero_links as zl

    monkeypatch.setattr(zl, "_BLOCK_CELLS", block_cells)
    rng = np.random.default_rng(5)
    for n, p, density in [(60, 12, 0.1), (200, 30, 0.05), (150, 8, 0.6)]:
        C = rng.poisson(density * 3, (n, p)) * (rng.random((n, p)) < density)
        C[:, 1] = C[:, 0] * 2 + (C[:, 0] > 0)  # a link each way
        C[:, 4] = C[:, 5] * (C[:, 6] > 0)  # 0 wherever 5 or 6 is (a link only where 4 is 0 on at most half of the rest)
        F = C.astype(float)
        F[rng.random((n, p)) < 0.05] = np.nan
        want = _zero_links_by_definition(F)
        assert len(want) >= (2 if density > 0.5 else 10)
        assert zl.zero_links(F) == want
        assert zl.zero_links(C) == _zero_links_by_definition(C.astype(float))
        frame = pd.DataFrame(F).astype({0: "Float64", 2: object})
        frame[3] = pd.array(np.where(np.isnan(F[:, 3]), None, F[:, 3]), dtype="Int64")
        assert zl.zero_links(frame) == want
    assert zl.zero_links(pd.DataFrame({"s": ["a", "b"] * 10, "t": [True, False] * 10})) == []  # no numeric column
