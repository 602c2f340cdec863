"""The naive model's other uses on TAN / k-DB, against brute-force enumeration on tiny tables.

feature_log_contributions, predict_proba_draws (and its credible_interval), sample(prior=True),
sample(given=) and partial_fit (bayesnb/estimators/_structure_uses.py).
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import logsumexp
from test_structure import _brute_joint as _cat_joint
from test_structure import _brute_tables
from test_structure import _tiny as _cat_tiny
from test_structure_mixed import _MASS, _brute
from test_structure_mixed import _brute_joint as _mixed_joint
from test_structure_mixed import _tiny as _mixed_tiny

import bayesnb
from bayesnb.structure import infer as SI
from bayesnb.structure import elimination as VE
from bayesnb.structure import engine as MX
from bayesnb.inference.draws import credible_interval

STRUCTURES = ["tan", "kdb"]


def _order(parents):
    """A topological order of ``parents`` (a list of parent-index lists)."""
    done = []
    while len(done) < len(parents):
        done += [j for j, pa in enumerate(parents) if j not in done and all(p in done for p in pa)]
    return done


def _cat_model(structure, seed=7):
    X, y = _cat_tiny(seed, missing=0.15)
    m = bayesnb.CategoricalNB(structure=structure, k=2, alpha=1.0).fit(X, y)  # flat: the brute force's tables
    names = list(m.structure_)
    parents = [[names.index(p) for p in m.structure_[c]] for c in names]
    assert any(parents), m.structure_
    return m, X, y, parents


def _terms_by_enumeration(row_joint, x, parents, missing):
    """Per node and class: log p(x_obs up to j | k) - log p(x_obs before j | k), each by enumeration."""
    order, d = _order(parents), len(parents)
    out = np.zeros((d, 2))
    before = np.zeros(2)
    for t, j in enumerate(order):
        shown = set(order[:t + 1])
        z = x.copy()
        for i in range(d):
            if i not in shown:
                z[i] = missing
        upto = np.array([row_joint(z, k) for k in (0, 1)])
        out[j] = 0.0 if pd.isna(x[j]) else upto - before
        before = upto
    return out


@pytest.mark.parametrize("structure", STRUCTURES)
def test_categorical_contributions_are_the_nodes_terms(structure):
    m, X, y, parents = _cat_model(structure)
    tables, _ = _brute_tables(X, y, parents)
    Xt, _ = _cat_tiny(3, n=20, missing=0.3)
    assert np.isnan(Xt).any(axis=1).sum() >= 5

    def joint(z, k):  # log p(x_obs | y=k) (the class prior cancels in the differences)
        return _cat_joint(z, tables, parents, np.zeros(2))[k]

    terms = np.array([_terms_by_enumeration(joint, x, parents, np.nan) for x in Xt])  # (n, d, K)
    full = np.array([_cat_joint(x, tables, parents, m.class_log_prior_) for x in Xt])
    resp = np.exp(full - logsumexp(full, axis=1, keepdims=True))
    C, term = m.feature_log_contributions(Xt, return_class_term=True)
    np.testing.assert_allclose(C, np.einsum("ijk,ik->ij", terms, resp), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(C.sum(1) + term, m.score_samples(Xt), rtol=1e-12, atol=1e-12)  # an empty row: log 1
    assert np.all(C[np.isnan(Xt)] == 0)
    # complete rows: each node's term is log p(x_j | pa_j, y=k), and they add up to the joint
    eng = SI.node_log_terms(m._mixed, MX.node_data(m._mixed.nodes, m._encoded(Xt)))
    ok = ~np.isnan(Xt).any(axis=1)
    for i in np.flatnonzero(ok):
        for j, pa in enumerate(parents):
            for k in (0, 1):
                want = np.log(tables[j][(k, *(int(Xt[i, p]) for p in pa))][int(Xt[i, j])])
                assert abs(eng[i, j, k] - want) < 1e-12
    np.testing.assert_allclose(eng[ok].sum(1), m.predict_joint_log_proba(Xt[ok]) - m.class_log_prior_, rtol=1e-12)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_mixed_contributions_are_the_nodes_terms(structure):
    X, y = _mixed_tiny(1, missing=0.1)
    m = bayesnb.NaiveBayes(structure=structure, k=2, alpha=1.0).fit(X, y)
    assert any(m.structure_.values())
    brute = _brute(m, X, y)
    _MASS.clear()  # the bins' masses cached by an earlier model
    names = list(X.columns)
    parents = [[names.index(p) for p in m.structure_[c]] for c in names]
    Xt, _ = _mixed_tiny(2, n=10, missing=0.3)

    def joint(z, k):
        return _mixed_joint(pd.Series(z, index=names, dtype=object), k, brute)

    terms = np.array([_terms_by_enumeration(joint, Xt.iloc[i].to_numpy(object), parents, None)
                      for i in range(len(Xt))])
    full = terms.sum(1) + m.class_log_prior_
    resp = np.exp(full - logsumexp(full, axis=1, keepdims=True))
    C, term = m.feature_log_contributions(Xt, return_class_term=True)
    assert list(C.columns) == names
    np.testing.assert_allclose(C.to_numpy(), np.einsum("ijk,ik->ij", terms, resp), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(C.sum(axis=1) + term, m.score_samples(Xt), rtol=1e-10, atol=1e-12)


def _theta_joint(x, draws, parents, names):
    """log p(x_obs, y=k) under each sample_posterior draw of a categorical structure, by enumeration, (n, K)."""
    miss = [j for j in range(len(x)) if np.isnan(x[j])]
    out = []
    for k in (0, 1):
        tot = []
        for fill in itertools.product(range(2), repeat=len(miss)):
            z = x.copy()
            z[miss] = fill
            z = z.astype(int)
            tot.append(sum(np.log(draws[f"theta_{names[j]}"][(slice(None), k, *(z[p] for p in pa), z[j])])
                           for j, pa in enumerate(parents)))
        out.append(np.log(draws["pi"][:, k]) + logsumexp(np.array(tot), axis=0))
    return np.stack(out, axis=1)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_predict_proba_draws_average_the_exact_posterior(structure):
    m, X, y, parents = _cat_model(structure)
    names = list(m.structure_)
    rows = np.array([[1, 0, 1], [np.nan, 1, 0], [0, np.nan, np.nan]], dtype=float)
    n = 2000
    d = m.predict_proba_draws(rows, n, random_state=0)
    assert d.shape == (n, 3, 2)
    np.testing.assert_allclose(d.sum(axis=2), 1.0, rtol=1e-12)
    # the same expectation from independent exact draws (sample_posterior) and enumeration
    post = m.sample_posterior(n, random_state=1)["posterior"]
    arr = {v: post[v].values[0] for v in post.data_vars}
    ref = np.empty((n, 3, 2))
    for i, x in enumerate(rows):
        jl = _theta_joint(x, arr, parents, names)
        ref[:, i] = np.exp(jl - logsumexp(jl, axis=1, keepdims=True))
    se = np.sqrt(d.var(0) / n + ref.var(0) / n)
    assert np.all(np.abs(d.mean(0) - ref.mean(0)) <= 4 * se + 1e-12)
    assert np.all(d.std(0) > 0.005)  # the draws carry the posterior's uncertainty
    np.testing.assert_allclose(d.mean(0), m.predict_proba(rows), atol=0.05)  # E[p(y|x,theta)] ~ p(y|x)
    lo, hi = credible_interval(m.predict_proba_draws(rows, n_draws=400, random_state=0), ci=0.9)
    assert np.all(lo <= m.predict_proba(rows)) and np.all(m.predict_proba(rows) <= hi)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_predict_proba_draws_on_a_mixed_structure(structure):
    X, y = _mixed_tiny(1, missing=0.1)
    m = bayesnb.NaiveBayes(structure=structure, k=2).fit(X, y)
    Xt = X.head(6)
    d = m.predict_proba_draws(Xt, 600, random_state=0)
    np.testing.assert_allclose(d.sum(axis=2), 1.0, rtol=1e-12)
    # more data, narrower draws, centred on predict_proba: every row counted 50 times, on the same
    # structure (partial_fit keeps it; a refit would learn edges the 50-fold evidence supports)
    big = bayesnb.NaiveBayes(structure=structure, k=2).fit(X, y)
    big.partial_fit(X, y, sample_weight=np.full(len(X), 49.0))
    assert big.structure_ == m.structure_
    db = big.predict_proba_draws(Xt, 600, random_state=0)
    assert db.std(0).mean() < d.std(0).mean() / 2
    np.testing.assert_allclose(db.mean(0), big.predict_proba(Xt), atol=0.01)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_prior_predictive_draws_each_context_from_its_prior(structure):
    m, X, y, parents = _cat_model(structure)
    calls = [m.sample(40, random_state=s, prior=True) for s in range(300)]
    Xs = np.vstack([c[0] for c in calls]).astype(float)
    ys = np.concatenate([c[1] for c in calls])
    # Dirichlet(1) everywhere: under the prior every cell is 0 or 1 with probability 1/2, whatever its
    # context and class (the posterior is far from that: the training a is 1 in ~55% of rows, b follows a)
    n = Xs.shape[0]
    for j in range(3):
        for k in (0, 1):
            sel = Xs[ys == k, j]
            # 300 calls, one draw each: a root cell is 1 with probability theta ~ Beta(1, 1) (variance 1/12)
            assert abs(sel.mean() - 0.5) < 4 * np.sqrt(1 / 12 / 300), (j, k)
    # rows of one call share one draw of the parameters: a child agrees with its parent's table
    j = next(j for j, pa in enumerate(parents) if pa)
    same = np.mean([np.mean(c[0][:, j] == c[0][0, j]) for c in calls])
    assert same > 0.55  # 1/2 if each row drew its own parameters
    assert abs(np.mean(ys == 1) - 0.5) < 4 * np.sqrt(1 / 12 / 300) and n == 12000  # pi ~ Dirichlet(1, 1) per call
    Xg, yg = m.sample(10, y=1, random_state=0, prior=True)
    assert set(yg) == {1} and Xg.shape == (10, 3)


def test_prior_predictive_on_a_mixed_structure():
    X, y = _mixed_tiny(1, missing=0.1)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    Xs, ys = m.sample(50, random_state=0, prior=True)
    assert list(Xs.columns) == list(X.columns) and len(ys) == 50
    assert Xs.notna().all().all() and set(Xs["a"]) <= set(X["a"].dropna())
    with pytest.raises(NotImplementedError, match="length"):
        m.sample(5, length=3, prior=True)


def test_sample_with_prior_false_is_the_posterior_predictive_under_a_structure():
    """``sample(..., prior=False)`` (the default spelled out, e.g. ``prior=flag``) is the posterior
    predictive, under a structure as under naive; a ``prior`` that is not a bool is refused."""
    X, y = _mixed_tiny(1, missing=0.1)
    for structure in ("naive", "tan"):
        m = bayesnb.NaiveBayes(structure=structure).fit(X, y)
        Xa, ya = m.sample(20, random_state=3, prior=False)
        Xb, yb = m.sample(20, random_state=3)
        pd.testing.assert_frame_equal(Xa, Xb)
        np.testing.assert_array_equal(ya, yb)
        given = X.iloc[:4].copy()
        given["a"] = np.nan
        pd.testing.assert_frame_equal(m.sample(random_state=1, given=given, prior=False)[0],
                                      m.sample(random_state=1, given=given)[0])
        for bad in ("no", None, 1.0):
            with pytest.raises(ValueError, match="prior must be True or False"):
                m.sample(3, prior=bad)


def _exact_given(tables, parents, log_prior, given):
    """p(y, x) over every completion of the cells not in ``given`` (dict position -> value), by enumeration."""
    free = [j for j in range(3) if j not in given]
    out = {}
    for k in (0, 1):
        for fill in itertools.product(range(2), repeat=len(free)):
            z = np.zeros(3, int)
            z[free] = fill
            for j, v in given.items():
                z[j] = v
            out[(k, *fill)] = np.exp(log_prior[k] + sum(np.log(tables[j][(k, *(z[p] for p in pa))][z[j]])
                                                       for j, pa in enumerate(parents)))
    tot = sum(out.values())
    return free, {key: v / tot for key, v in out.items()}


@pytest.mark.parametrize("structure", STRUCTURES)
def test_sample_given_follows_the_exact_conditional(structure):
    m, X, y, parents = _cat_model(structure)
    tables, _ = _brute_tables(X, y, parents)
    child = next(j for j, pa in enumerate(parents) if pa)  # conditioning on a child reaches back to its parent
    for given in ({child: 1}, {0: 0, 2: 1}):
        free, want = _exact_given(tables, parents, m.class_log_prior_, given)
        n = 20000
        Xs, ys = m.sample(n, given=given, parameter_uncertainty=False, random_state=5)
        Xs = np.asarray(Xs, dtype=float)
        for j, v in given.items():
            assert np.all(Xs[:, j] == v)
        keys = list(want)
        obs = np.array([np.sum((ys == key[0]) & np.all(Xs[:, free] == key[1:], axis=1)) for key in keys])
        assert obs.sum() == n
        res = stats.chisquare(obs, n * np.array([want[key] for key in keys]))
        assert res.pvalue > 1e-4, (given, obs, res)
    # a known class: the other cells from p(x_rest | x_given, y)
    Xs, ys = m.sample(4000, y=0, given={child: 1}, parameter_uncertainty=False, random_state=1)
    assert set(ys) == {0}
    # per-row values (a missing one leaves that row's cell free) and parameter uncertainty
    Xs, ys = m.sample(given={child: [1, None, 0]}, random_state=2)
    assert Xs.shape == (3, 3) and Xs[0, child] == 1 and Xs[2, child] == 0


def test_sample_given_on_kdb_enumerates_only_what_the_given_cells_reach(monkeypatch):
    rng = np.random.default_rng(0)
    X, y = _cat_tiny(8, n=120)  # the third column copies one of the others: k-DB gives it both as parents
    X[:, 2] = np.where(rng.random(120) < 0.9, np.where(rng.random(120) < 0.5, X[:, 0], X[:, 1]), rng.integers(0, 2, 120))
    m = bayesnb.CategoricalNB(structure="kdb", k=2).fit(X, y)
    names = list(m.structure_)
    parents = [[names.index(p) for p in m.structure_[c]] for c in names]
    assert max(map(len, parents)) == 2  # not a forest: k-DB's enumeration, not message passing
    root = next(j for j, pa in enumerate(parents) if not pa)
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)  # beyond one joint state: variable elimination,
    monkeypatch.setattr(VE, "MAX_FACTOR", 1)  # refused at once,
    monkeypatch.setattr(MX, "MAX_ENUMERATION", 1)  # and enumeration too
    Xs, _ = m.sample(20, given={root: 1}, random_state=0)  # nothing missing is an ancestor of the root
    assert np.all(np.asarray(Xs, float)[:, root] == 1)
    leaf = max(range(3), key=lambda j: len(parents[j]))
    with pytest.raises(ValueError, match="variable elimination"):
        m.sample(5, given={leaf: 1}, random_state=0)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_sample_given_a_numeric_value_matches_the_exact_class_posterior(structure):
    X, y = _mixed_tiny(1, missing=0.1)
    m = bayesnb.NaiveBayes(structure=structure, k=2).fit(X, y)
    row = pd.DataFrame({"a": [None], "u": [np.nan], "v": [1.3]}, dtype=object).astype({"u": float, "v": float})
    p = m.predict_proba(row)[0, 1]
    n = 6000
    Xs, ys = m.sample(n, given={"v": 1.3}, parameter_uncertainty=False, random_state=0)
    assert np.all(Xs["v"] == 1.3) and Xs.notna().all().all()
    assert abs(np.mean(ys == m.classes_[1]) - p) < 4 * np.sqrt(p * (1 - p) / n)
    # the categorical cell follows its exact conditional p(a | v) too
    pa = np.exp(m.score_samples(row.assign(a="p")) - m.score_samples(row))[0]
    assert abs(np.mean(Xs["a"] == "p") - pa) < 4 * np.sqrt(pa * (1 - pa) / n)


def _same_model(a, b):
    assert a.structure_ == b.structure_
    for sa, sb in zip(a._mixed.stats, b._mixed.stats):
        for fa, fb in zip(sa, sb):
            for x, z in zip(fa if isinstance(fa, tuple) else (fa,), fb if isinstance(fb, tuple) else (fb,)):
                np.testing.assert_allclose(x, z, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["categorical", "mixed"])
@pytest.mark.parametrize("structure", STRUCTURES)
def test_partial_fit_keeps_the_structure_and_adds_context_statistics(structure, kind):
    if kind == "categorical":
        X, y = _cat_tiny(11, n=120, missing=0.1)
        make = lambda: bayesnb.CategoricalNB(structure=structure, k=2)  # noqa: E731
        first, rest = X[:50], X[50:]
    else:
        X, y = _mixed_tiny(1, n=120, missing=0.1)
        make = lambda: bayesnb.NaiveBayes(structure=structure, k=2)  # noqa: E731
        first, rest = X.iloc[:50], X.iloc[50:]
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    if kind == "mixed":  # features="auto" does not choose numeric families on a batch: fit the first one
        with pytest.warns(bayesnb.FirstBatchFamilyWarning, match=r"column\(s\) \['u', 'v'\]"):
            make().partial_fit(first, y[:50], classes=[0, 1], sample_weight=w[:50])
        pf = make().fit(first, y[:50], sample_weight=w[:50])
    else:
        pf = make().partial_fit(first, y[:50], classes=[0, 1], sample_weight=w[:50])
    learned = dict(pf.structure_)
    assert pf.structure_kind_ == structure and any(learned.values())
    pf.partial_fit(rest, y[50:], sample_weight=w[50:])
    assert pf.structure_ == learned and pf.structure_kind_ == structure
    # fit on all rows with that structure (and the first batch's bin edges): the same model
    ref = make().fit(first, y[:50], sample_weight=w[:50])
    nodes = MX.make_nodes(pf.posterior_.blocks, None, None, edges=[nd.edges for nd in ref._mixed.nodes])
    nodes = tuple(nd._replace(family=f.family) for nd, f in zip(nodes, pf._mixed.nodes))  # k-DB: hierarchical
    data = MX.node_data(nodes, pf._encoded(X))
    full = MX.fit_nodes(nodes, data, y, w, 2, pf._mixed.parents, pf._check_predictive())
    label = bayesnb.inference.nb_posterior.label_log_evidence(pf.posterior_)
    np.testing.assert_allclose(pf.log_evidence_, label + full.log_evidence, rtol=1e-10)
    jll = SI.log_likelihood(full, data) + pf.class_log_prior_
    np.testing.assert_allclose(pf.predict_proba(X), np.exp(jll - logsumexp(jll, axis=1, keepdims=True)),
                               rtol=1e-8, atol=1e-12)  # k-DB: concentrations by a 1-D optimiser
    # fit then partial_fit is the same as two partial_fit calls (categorical; mixed: fit first in both)
    ref.partial_fit(rest, y[50:], sample_weight=w[50:])
    _same_model(ref, pf)
    np.testing.assert_allclose(ref.predict_proba(X), pf.predict_proba(X), rtol=1e-12)


def test_partial_fit_refuses_a_new_category_and_keeps_the_model():
    X, y = _cat_tiny(11, n=80)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    before = m.predict_proba(X)
    bad = X[:5].copy()
    bad[0, 0] = 7
    with pytest.raises(ValueError, match="adds categories.*categories="):
        m.partial_fit(bad, y[:5])
    np.testing.assert_array_equal(m.predict_proba(X), before)
    assert m.structure_kind_ == "tan"
    declared = bayesnb.CategoricalNB(structure="tan", categories=[[0.0, 1.0, 7.0], [0.0, 1.0], [0.0, 1.0]])
    declared.fit(X, y).partial_fit(bad, y[:5])  # a declared category: its contexts exist already
    assert declared.structure_kind_ == "tan" and declared.predict_proba(bad).shape == (5, 2)


def test_check_independence_replicates_the_structure():
    """b follows a within each class: naive's replicates miss it, TAN's (edge a - b) reproduce it."""
    X, y = _cat_tiny(7, n=200)
    p = {}
    for s in ("naive", "tan"):
        m = bayesnb.CategoricalNB(structure=s).fit(X, y)
        out = bayesnb.check_independence(m, X, y, n_replicates=60, random_state=0)
        p[s] = out.query("feature_a == '0' and feature_b == '1'")["p_value"].to_numpy()
    assert bayesnb.CategoricalNB(structure="tan").fit(X, y).structure_["x1"] == ("x0",)
    assert np.all(p["naive"] < 0.02) and np.all(p["tan"] > 0.1), p


def test_bin_edges_weigh_rows_as_repeated_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    x[::7] = np.nan
    w = rng.integers(0, 4, 40).astype(float)
    want = MX.bin_edges(np.repeat(x, w.astype(int)))
    np.testing.assert_allclose(MX.bin_edges(x, w), want, rtol=1e-15)
    np.testing.assert_array_equal(MX.bin_edges(x, np.ones(40)), MX.bin_edges(x))
    np.testing.assert_allclose(MX.bin_edges(x, np.full(40, 3.0)), MX.bin_edges(np.repeat(x, 3)), rtol=1e-15)
    # NaiveBayes(structure=...) with weights == with the rows repeated
    X, y = _mixed_tiny(1, missing=0.1)
    wi = rng.integers(0, 3, len(y))
    a = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y, sample_weight=wi.astype(float))
    b = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X.loc[X.index.repeat(wi)], np.repeat(y, wi))
    assert a.structure_ == b.structure_
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9)
    np.testing.assert_allclose(a.log_evidence_, b.log_evidence_, rtol=1e-10)


def test_sample_given_a_dask_frame_samples_each_partition_on_the_structure():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _cat_tiny(7, missing=0.15)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    m = bayesnb.CategoricalNB(structure="tan").fit(frame, y)
    parents = [[list(frame.columns).index(p) for p in m.structure_[c]] for c in frame.columns]
    tables, _ = _brute_tables(X, y, parents)
    child = next(j for j, pa in enumerate(parents) if pa)
    given = dd.from_pandas(pd.DataFrame({frame.columns[child]: np.ones(4000)}), npartitions=4)
    Xs, ys = m.sample(given=given, parameter_uncertainty=False, random_state=0)
    Xs, ys = Xs.compute(), ys.compute()
    assert len(Xs) == 4000 and np.all(Xs.iloc[:, child] == 1)
    _, want = _exact_given(tables, parents, m.class_log_prior_, {child: 1})
    p1 = sum(v for key, v in want.items() if key[0] == 1)  # p(y=1 | x_child = 1) on the structure
    assert abs(np.mean(ys == 1) - p1) < 4 * np.sqrt(p1 * (1 - p1) / 4000)


def test_partial_fit_continues_a_loaded_model(tmp_path):
    X, y = _mixed_tiny(1, n=120, missing=0.1)
    m = bayesnb.NaiveBayes(structure="tan").fit(X.iloc[:60], y[:60])
    m.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    for est in (m, back):
        est.partial_fit(X.iloc[60:], y[60:])
    assert back.structure_ == m.structure_ and back.structure_kind_ == "tan"
    np.testing.assert_allclose(back.predict_proba(X), m.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(back.log_evidence_, m.log_evidence_, rtol=1e-12)


def test_cli_posterior_refuses_a_structure_and_info_names_it(tmp_path, capsys):
    from bayesnb.cli import main

    X, y = _cat_tiny(7)
    m = bayesnb.CategoricalNB(structure="tan").fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    m.save(tmp_path / "m.bnb")
    for extra in ([], ["--coef"]):
        assert main(["posterior", *extra, str(tmp_path / "m.bnb"), "-o", str(tmp_path / "out.csv")]) == 2
        err = capsys.readouterr().err
        assert "'tan'" in err and ("sample_posterior" in err or "no linear view" in err), err
    assert not (tmp_path / "out.csv").exists()
    assert main(["info", str(tmp_path / "m.bnb")]) == 0  # info names the structure its blocks are not
    out = capsys.readouterr().out
    edges = "; ".join(f"{c} <- {', '.join(pa)}" for c, pa in m.structure_.items() if pa)
    assert f"structure: tan ({edges})" in out, out


def test_partial_fit_refuses_a_structure_changed_since_fit():
    X, y = _cat_tiny(11, n=80)
    for first, then in (("tan", "naive"), ("naive", "tan"), ("tan", "kdb")):
        m = bayesnb.CategoricalNB(structure=first).fit(X, y)
        before = m.predict_proba(X)
        m.set_params(structure=then)
        with pytest.raises(ValueError, match=f"continues the fitted structure '{first}'.*now '{then}'"):
            m.partial_fit(X, y)
        np.testing.assert_array_equal(m.predict_proba(X), before)
    auto = bayesnb.CategoricalNB(structure="tan").fit(X, y).set_params(structure="auto")
    auto.partial_fit(X[:10], y[:10])  # "auto" continues whatever was learned
    assert auto.structure_kind_ == "tan"
