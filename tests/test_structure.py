"""structure= on CategoricalNB: TAN / k-DB / auto against brute force on tiny tables."""

import itertools

import numpy as np
import pandas as pd
import pytest
from bench_structure import xor_table
from conftest import run_docs_snippets
from scipy.special import gammaln, logsumexp

import bayesnb
from bayesnb.structure import infer as SI
from bayesnb.structure import elimination as VE
from bayesnb.structure import engine as MX
from bayesnb.structure import learn as S
from bayesnb.datasets import load_house_votes


def _tiny(seed=0, n=60, missing=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = (rng.random(n) < np.where(y == 1, 0.8, 0.3)).astype(int)
    b = np.where(rng.random(n) < 0.85, a, 1 - a)  # b follows a within each class
    c = (rng.random(n) < 0.5).astype(int)
    X = np.column_stack([a, b, c]).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def _brute_tables(X, y, parents, alpha=1.0):
    """(table dict per feature, feature evidence) by direct counting."""
    K, V = 2, 2
    tables, ev = [], 0.0
    for j, pa in enumerate(parents):
        t = {}
        for k in range(K):
            for u in itertools.product(range(V), repeat=len(pa)):
                rows = (y == k) & ~np.isnan(X[:, j])
                for p, val in zip(pa, u):
                    rows &= X[:, p] == val
                counts = np.array([np.sum(rows & (X[:, j] == v)) for v in range(V)], float)
                t[(k, *u)] = (counts + alpha) / (counts.sum() + V * alpha)
                ev += gammaln(V * alpha) - gammaln(counts.sum() + V * alpha) + np.sum(gammaln(counts + alpha) - gammaln(alpha))
        tables.append(t)
    return tables, ev


def _brute_joint(x, tables, parents, log_prior):
    """log p(x_obs, y=k) by enumerating every completion of the missing cells."""
    miss = [j for j in range(len(x)) if np.isnan(x[j])]
    out = np.full(2, -np.inf)
    for k in range(2):
        tot = []
        for fill in itertools.product(range(2), repeat=len(miss)):
            z = x.copy()
            z[miss] = fill
            z = z.astype(int)
            tot.append(sum(np.log(tables[j][(k, *(z[p] for p in pa))][z[j]]) for j, pa in enumerate(parents)))
        out[k] = log_prior[k] + logsumexp(tot)
    return out


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_tiny_matches_brute_force(structure, missing):
    X, y = _tiny(1, missing=missing)
    m = bayesnb.CategoricalNB(structure=structure, k=2, alpha=1.0).fit(X, y)  # flat tables (k-DB default: hierarchical)
    parents = m._mixed.parents
    assert any(parents)
    tables, ev = _brute_tables(X, y, parents)
    label = bayesnb.inference.nb_posterior.label_log_evidence(m.posterior_)
    np.testing.assert_allclose(m.log_evidence_, label + ev, rtol=1e-12)
    Xt, _ = _tiny(2, n=30, missing=0.3)
    want = np.array([_brute_joint(x, tables, parents, m.class_log_prior_) for x in Xt])
    np.testing.assert_allclose(m.predict_joint_log_proba(Xt), want, rtol=1e-10)
    np.testing.assert_allclose(m.predict_proba(Xt), np.exp(want - logsumexp(want, 1, keepdims=True)), rtol=1e-10)
    np.testing.assert_allclose(m.score_samples(Xt), logsumexp(want, 1), rtol=1e-10)
    assert np.array_equal(m.predict(Xt), m.classes_[want.argmax(1)])


def _brute_unseen(X, y, parents, alpha=1.0):
    """``{(j, k, *u): p(new value | k, u)}``: the Dirichlet's share for unseen values, mean(alpha) / (n + 3 alpha)."""
    out = {}
    for j, pa in enumerate(parents):
        for k in range(2):
            for u in itertools.product(range(2), repeat=len(pa)):
                rows = (y == k) & ~np.isnan(X[:, j])
                for p, val in zip(pa, u):
                    rows &= X[:, p] == val
                out[(j, k, *u)] = alpha / (rows.sum() + 3 * alpha)
    return out


def _brute_joint_unseen(x, tables, new, parents, log_prior):
    """log p(x, y=k) with unseen values (code 7): each one's state summed over, weighted by its
    table, times its new-value probability in its context; missing cells summed out."""
    hidden = [j for j in range(len(x)) if np.isnan(x[j]) or x[j] == 7]
    out = np.full(2, -np.inf)
    for k in range(2):
        tot = []
        for fill in itertools.product(range(2), repeat=len(hidden)):
            z = np.where(np.isnan(x), 0, x)
            z[hidden] = fill
            z = z.astype(int)
            term = sum(np.log(tables[j][(k, *(z[p] for p in pa))][z[j]]) for j, pa in enumerate(parents))
            term += sum(np.log(new[(j, k, *(z[p] for p in parents[j]))]) for j in range(len(x)) if x[j] == 7)
            tot.append(term)
        out[k] = log_prior[k] + logsumexp(tot)
    return out


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_unseen_category_is_a_new_value_with_its_prior_mass(structure):
    X, y = _tiny(14, n=80)
    m = bayesnb.CategoricalNB(structure=structure, k=2, alpha=1.0).fit(X, y)  # flat tables (k-DB default: hierarchical)
    parents = m._mixed.parents
    assert any(parents)
    tables, _ = _brute_tables(X, y, parents)
    new = _brute_unseen(X, y, parents)
    Xt, _ = _tiny(15, n=30, missing=0.2)
    rng = np.random.default_rng(0)
    Xt[rng.random(Xt.shape) < 0.25] = 7.0  # a category never seen in training
    assert (Xt == 7).any(axis=1).sum() >= 10 and ((Xt == 7).any(axis=1) & np.isnan(Xt).any(axis=1)).any()
    want = np.array([_brute_joint_unseen(x, tables, new, parents, m.class_log_prior_) for x in Xt])
    np.testing.assert_allclose(m.predict_joint_log_proba(Xt), want, rtol=1e-10)
    data = MX.node_data(m._mixed.nodes, m._encoded(Xt))
    np.testing.assert_allclose(SI.log_likelihood(m._mixed, data, method="enumerate") + m.class_log_prior_, want,
                               rtol=1e-10)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_swapping_in_an_unseen_category_lowers_the_score(structure):
    d = load_house_votes()
    X, y = d.drop(columns="party"), d["party"]
    m = bayesnb.CategoricalNB(structure=structure).fit(X, y)
    rng = np.random.default_rng(1)
    rows = rng.choice(len(X), 60, replace=False)
    clean = X.iloc[rows].reset_index(drop=True)
    cols = rng.integers(0, X.shape[1], len(rows))

    def put(value):
        A = clean.to_numpy(dtype=object)
        A[np.arange(len(rows)), cols] = value
        return pd.DataFrame(A, columns=X.columns)

    before, after = m.score_samples(clean), m.score_samples(put("maybe"))  # not a category of any column
    assert np.all(after < before), (before - after).min()
    # as under the naive model, an unseen value scores lower than a missing cell in its place
    assert np.all(after < m.score_samples(put(np.nan)))
    naive = bayesnb.CategoricalNB().fit(X, y)
    assert np.all(naive.score_samples(put("maybe")) < naive.score_samples(clean))


def test_forest_message_passing_equals_enumeration():
    X, y = _tiny(3, n=80)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    Xt, _ = _tiny(4, n=40, missing=0.4)
    data = MX.node_data(m._mixed.nodes, m._encoded(Xt))
    assert data[1].any(axis=1).sum() >= 20
    fast = SI.log_likelihood(m._mixed, data)
    slow = SI.log_likelihood(m._mixed, data, method="enumerate")
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_chow_liu_and_kdb_rules():
    cmi = np.array([[0, 5, 1, 0.5], [5, 0, 2, 0.1], [1, 2, 0, 3], [0.5, 0.1, 3, 0]], float)
    assert S.chow_liu_parents(cmi, root=0) == ((), (0,), (1,), (2,))
    assert S.chow_liu_parents(cmi, root=3) == ((1,), (2,), (3,), ())
    mi = np.array([0.1, 0.4, 0.3, 0.2])  # order 1, 2, 3, 0
    assert S.kdb_parents(cmi, mi, k=2) == ((1, 2), (), (1,), (2, 1))
    assert S.kdb_parents(cmi, mi, k=1) == ((1,), (), (1,), (2,))


def test_cmi_against_direct_formula_with_missing_skipped_pairwise():
    X, y = _tiny(5, n=200, missing=0.1)
    codes = np.where(np.isnan(X), -1, X).astype(int)
    cmi = S.conditional_mutual_information(codes, y, [2, 2, 2], 2)
    ok = (codes[:, 0] >= 0) & (codes[:, 1] >= 0)
    a, b, yy = codes[ok, 0], codes[ok, 1], y[ok]
    want = 0.0
    for k, u, v in itertools.product(range(2), repeat=3):
        pkuv = np.mean((yy == k) & (a == u) & (b == v))
        if pkuv > 0:
            want += pkuv * np.log(pkuv * np.mean(yy == k) / (np.mean((yy == k) & (a == u)) * np.mean((yy == k) & (b == v))))
    np.testing.assert_allclose(cmi[0, 1], want, rtol=1e-12)
    assert cmi[0, 1] > 5 * cmi[0, 2]


def test_tan_beats_naive_on_dependent_data_and_auto_picks_it():
    X, y = xor_table(600, 0)
    Xt, yt = xor_table(3000, 1)
    naive = bayesnb.CategoricalNB().fit(X, y)
    tan = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    assert tan.score(Xt, yt) > naive.score(Xt, yt) + 0.02
    assert tan.log_evidence_ > naive.log_evidence_ + 50
    auto = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    assert auto.structure_kind_ != "naive"
    sc = auto.structure_scores_
    assert list(sc.columns) == ["structure", "log_evidence", "n_cells", "cv_log_loss", "cv_diff_se", "chosen"]
    assert list(sc["structure"]) == ["naive", "naive (hierarchical)", "tan", "tan (hierarchical)", "kdb (k=2)",
                                   "kdb (k=2, hierarchical)"]
    assert sc["chosen"].sum() == 1
    assert (sc["n_cells"] == X.size).all()
    np.testing.assert_allclose(sc.loc[sc.structure == "naive", "log_evidence"].item(), naive.log_evidence_,
                               rtol=1e-12)


def test_auto_picks_naive_on_naive_data():
    rng = np.random.default_rng(0)
    n, d = 400, 6
    y = rng.integers(0, 2, n)
    p = rng.uniform(0.2, 0.8, (2, d))
    X = (rng.random((n, d)) < p[y]).astype(int)
    auto = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    assert auto.structure_kind_ == "naive"
    assert all(v == () for v in auto.structure_.values())
    # the naive model, flat or hierarchical (each class centred on all classes): the one of higher evidence
    ev = auto.structure_scores_.set_index("structure")["log_evidence"]
    assert auto.structure_hierarchical_ == (ev["naive (hierarchical)"] > ev["naive"])
    ref = bayesnb.CategoricalNB(alpha="hierarchical" if auto.structure_hierarchical_ else None).fit(X, y)
    np.testing.assert_allclose(auto.predict_proba(X), ref.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(auto.log_evidence_, ref.log_evidence_, rtol=1e-12)


def test_naive_structure_is_unchanged():
    d = load_house_votes()
    X, y = d.drop(columns="party"), d["party"]
    a = bayesnb.CategoricalNB(structure="naive").fit(X, y)
    b = bayesnb.CategoricalNB().fit(X, y)
    np.testing.assert_array_equal(a.predict_log_proba(X), b.predict_log_proba(X))
    assert a.log_evidence_ == b.log_evidence_
    assert a.structure_ == {c: () for c in X.columns}


def test_sample_frequencies_match_the_model():
    X, y = _tiny(6, n=100)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    Xs, _ = m.sample(20000, random_state=0, parameter_uncertainty=False)
    Xs = np.asarray(Xs, dtype=float)
    cells = np.array(list(itertools.product([0.0, 1.0], repeat=3)))
    p = np.exp(m.score_samples(cells))
    np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-12)
    freq = np.array([np.mean((Xs == c).all(1)) for c in cells])
    tol = 4 * np.sqrt(p * (1 - p) / 20000)
    assert np.all(np.abs(freq - p) <= tol), (freq, p)
    ys_given = m.sample(50, y=1, random_state=1)[1]
    assert set(ys_given) == {1}


def test_unsupported_methods_and_errors_are_clear(tmp_path):
    X, y = _tiny(7)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    assert hasattr(m, "impute")
    for name in ("coef_", "coef_draws"):
        with pytest.raises(AttributeError) as err:
            getattr(m, name)
        # available_if's own message names the attribute; the reason is the cause it chains
        assert "fitted structure 'tan'" in str(err.value) + str(err.value.__cause__), name
    with pytest.raises(ValueError, match="proper prior"):
        bayesnb.CategoricalNB(structure="tan", alpha=0).fit(X, y)
    with pytest.raises(ValueError, match="structure"):
        bayesnb.CategoricalNB(structure="bogus").fit(X, y)


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb", "auto"])
def test_save_load_round_trip(tmp_path, structure):
    d = load_house_votes()
    X, y = d.drop(columns="party"), d["party"]
    m = bayesnb.CategoricalNB(structure=structure).fit(X, y)
    m.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    assert back.structure_ == m.structure_ and back.structure_kind_ == m.structure_kind_
    assert back.log_evidence_ == m.log_evidence_
    if structure == "auto":
        pd.testing.assert_frame_equal(back.structure_scores_, m.structure_scores_)
    Xa, ya = m.sample(5, random_state=3)
    Xb, yb = back.sample(5, random_state=3)
    assert np.array_equal(np.asarray(Xa), np.asarray(Xb)) and np.array_equal(ya, yb)


def test_a_file_without_bin_edges_loads_as_all_categorical(tmp_path):
    """0.1's CategoricalNB files keep structure_parents_ and structure_stats_ but no structure_bin_edges_."""
    X, y = _tiny(12, missing=0.1)
    m = bayesnb.CategoricalNB(structure="kdb").fit(X, y)
    assert all(e.size == 0 for e in m.structure_bin_edges_)
    del m.structure_bin_edges_
    m.save(tmp_path / "old.bnb")
    back = bayesnb.load(tmp_path / "old.bnb")
    Xt, _ = _tiny(13, n=20, missing=0.3)
    np.testing.assert_array_equal(back.predict_joint_log_proba(Xt), m.predict_joint_log_proba(Xt))
    assert back.log_evidence_ == m.log_evidence_ and back.structure_ == m.structure_


def test_model_file_with_a_cycle_is_refused(tmp_path):
    X, y = _tiny(10)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    m.structure_parents_ = ((1,), (0,), ())  # a cycle; tables of the right sizes for binary features
    m.save(tmp_path / "bad.bnb")
    with pytest.raises(bayesnb.io.persistence.ModelFileError, match="cycle"):
        bayesnb.load(tmp_path / "bad.bnb")


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_a_feature_missing_in_every_training_row_sums_out(structure):
    X, y = _tiny(16)
    X = np.column_stack([X, np.full(len(y), np.nan)])  # a fourth feature that no row observes
    with pytest.warns(Warning, match="no observed"):
        m = bayesnb.CategoricalNB(structure=structure).fit(X, y)
    ref = bayesnb.CategoricalNB(structure=structure).fit(X[:, :3], y)
    assert all(m.structure_[c] == ref.structure_[c] for c in ref.structure_)
    Xt, _ = _tiny(17, n=20, missing=0.3)
    np.testing.assert_allclose(m.predict_joint_log_proba(np.column_stack([Xt, np.full(20, np.nan)])),
                               ref.predict_joint_log_proba(Xt), rtol=1e-12)


def test_kdb_missing_parents_beyond_the_enumeration_are_eliminated_and_the_limit_refuses(monkeypatch):
    rng = np.random.default_rng(0)
    X, y = _tiny(8, n=120)
    X[:, 2] = np.where(rng.random(120) < 0.9, np.where(rng.random(120) < 0.5, X[:, 0], X[:, 1]), rng.integers(0, 2, 120))
    m = bayesnb.CategoricalNB(structure="kdb", k=2).fit(X, y)
    (j,) = [j for j, pa in enumerate(m._mixed.parents) if len(pa) == 2]  # a feature with two parents
    row = pd.DataFrame([[1.0 if i == j else np.nan for i in range(3)]]).to_numpy()  # its parents missing
    enumerated = m.predict_proba(row)
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)  # summed out by variable elimination instead
    np.testing.assert_allclose(m.predict_proba(row), enumerated, rtol=1e-12)
    monkeypatch.setattr(VE, "MAX_FACTOR", 1)  # elimination refuses: enumerated after all (within its limit)
    np.testing.assert_allclose(m.predict_proba(row), enumerated, rtol=1e-12)
    monkeypatch.setattr(MX, "MAX_ENUMERATION", 1)  # and beyond both limits: refused
    with pytest.raises(ValueError, match="variable elimination"):
        m.predict_proba(row)


def test_partial_fit_is_there_under_every_structure():
    for structure in ("naive", "tan", "kdb", "auto"):  # tests/test_structure_uses.py checks what it does
        assert hasattr(bayesnb.CategoricalNB(structure=structure), "partial_fit")


def test_docs_structure_page_snippet_runs_as_pasted():
    """docs/structure.md's house votes snippet prints what the page shows."""
    run_docs_snippets("structure.md", "## House votes")


def test_naive_structure_keeps_alpha_zero():
    X, y = _tiny(11)
    m = bayesnb.CategoricalNB(alpha=0).fit(X, y)
    assert m.structure_kind_ == "naive" and m.log_evidence_ is None
    with pytest.raises(ValueError, match="proper prior"):
        bayesnb.CategoricalNB(alpha=0, structure="auto").fit(X, y)


def test_cmi_all_pairs_at_once_equals_pair_by_pair_with_mixed_cardinalities():
    rng = np.random.default_rng(1)
    n, V = 300, [2, 4, 3, 5]
    y = rng.integers(0, 3, n)
    codes = np.column_stack([rng.integers(-1, v, n) for v in V])
    w = rng.random(n)
    got = S.conditional_mutual_information(codes, y, V, 3, w)
    for i, j in itertools.combinations(range(4), 2):
        assert got[i, j] == got[j, i] == S._mi(S._table(codes[:, i], codes[:, j], V[i], V[j], y, 3, w))
