"""structure= on NaiveBayes with mixed (categorical + numeric) tables, against brute force on tiny data."""

import contextlib
import copy
import io
import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import same_printout
from scipy import integrate, stats
from scipy.special import gammaln, logsumexp

import bayesnb
from bayesnb.structure import infer as SI
from bayesnb.structure import engine as MX
from bayesnb.datasets import load_penguins
from bayesnb.families import Categorical, Gaussian
from bayesnb.inference.numpyro_model import estimator_inputs


def _tiny(seed=0, n=80, missing=0.0, counts=False):
    """a (categorical, depends on y), u (numeric, depends on a and y), v (numeric, follows u); with
    ``counts`` also c (whole numbers, Poisson given y)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < np.where(y == 1, 0.75, 0.3), "p", "q")
    u = rng.normal(np.where(a == "p", 2.0, -1.0) + y, 1.0)
    v = u + rng.normal(0, 0.5, n)
    X = pd.DataFrame({"a": a.astype(object), "u": u, "v": v})
    if counts:
        X["c"] = rng.poisson(1.0 + y).astype(float)
    if missing:
        hide = rng.random(X.shape) < missing
        X = X.mask(hide)
    return X, y


#: (fit seed, rows, counts) -> the families features="auto" chooses for the numeric columns
TINY = {(1, 80, False): ["Histogram", "Histogram"], (5, 120, True): ["Gaussian", "Gaussian", "Poisson"]}


def _edges(x):
    x = x[np.isfinite(x)]
    q = np.quantile(x, [0.2, 0.4, 0.6, 0.8])
    return np.unique(q[q > x.min()])


class _Hist:
    """A histogram law: bin ``b`` of ``edges`` has probability ``p[b]``, uniform within (the end bins'
    density also beyond the edges, as the family scores such values)."""

    def __init__(self, p, edges, integer, means):
        self.p, self.e, self.integer = np.asarray(p, float), np.asarray(edges, float), integer
        self.w = np.diff(self.e) if not integer else np.diff(np.ceil(self.e))
        self.means = means  # per bin, the mean of its training values (a whole bin's mean, as imputed)

    def pdf(self, t):
        b = int(np.clip(np.searchsorted(self.e, t, side="right") - 1, 0, len(self.w) - 1))
        return self.p[b] / self.w[b]


def _interval(law, lo, hi):
    """(mass, first moment / mass) of ``law`` on a node state [lo, hi): quadrature, or a sum over whole numbers."""
    if isinstance(law, _Hist):  # the density is constant between its edges: quad piece by piece
        pts = np.unique(np.clip(np.concatenate([[lo, hi], law.e]), max(lo, law.e[0]), min(hi, law.e[-1])))
        mass = mom = 0.0
        for a, b in itertools.pairwise(pts):
            piece = integrate.quad(law.pdf, a, b)[0]
            whole = np.flatnonzero((law.e[:-1] == a) & (law.e[1:] == b))
            mass += piece
            mom += piece * law.means[whole[0]] if whole.size else integrate.quad(lambda t: t * law.pdf(t), a, b)[0]
        return mass, (mom / mass if mass > 0 else 0.0)
    if hasattr(law, "pmf"):
        top = law.mean() + 40 * law.std() + 50  # the mass beyond is far below the tolerance
        ks = np.arange(np.ceil(max(lo, -1)), np.ceil(min(hi, top)))  # a state's whole numbers: [lo, hi)
        pm = law.pmf(ks)
        return pm.sum(), (float(ks @ pm / pm.sum()) if pm.sum() > 0 else 0.0)
    mass = integrate.quad(law.pdf, lo, hi, epsabs=0, epsrel=1e-12)[0]
    return mass, integrate.quad(lambda t: t * law.pdf(t), lo, hi, epsabs=1e-13, epsrel=1e-12)[0] / mass


def _density(law, x):
    return law.pmf(x) if hasattr(law, "pmf") else law.pdf(x)


def _column_law(fam_name, blk, j, k, x, column):
    """Posterior law and log evidence of the values ``x`` of column ``j`` of block ``blk`` in class ``k``'s
    prior, by the conjugate formulas written out (``column``: the column's training values)."""
    nn = x.size
    if fam_name == "Gaussian":
        mu0, k0, a0, b0 = (np.asarray(f)[k, j] for f in blk.prior)
        xbar = x.mean() if nn else 0.0
        kn, an = k0 + nn, a0 + nn / 2
        mun = (k0 * mu0 + nn * xbar) / kn
        bn = b0 + 0.5 * np.sum((x - xbar) ** 2) + k0 * nn * (xbar - mu0) ** 2 / (2 * kn)
        return stats.norm(mun, np.sqrt(bn / an)), (gammaln(an) - gammaln(a0) + a0 * np.log(b0) - an * np.log(bn)
                                                    + 0.5 * (np.log(k0) - np.log(kn)) - nn / 2 * np.log(2 * np.pi))
    if fam_name == "Poisson":
        a0, b0 = float(np.asarray(blk.prior.a)[k, j]), float(np.asarray(blk.prior.b)[k, j])
        an, bn = a0 + x.sum(), b0 + nn
        return stats.poisson(an / bn), (a0 * np.log(b0) - gammaln(a0) + gammaln(an) - an * np.log(bn)
                                        - np.sum(gammaln(x + 1)))
    assert fam_name == "Histogram"
    e, integer = blk.state.edges[j], bool(blk.state.integer[j])
    a0 = np.asarray(blk.prior.concentration[j], float)[k]
    b = np.clip(np.searchsorted(e, x, side="right") - 1, 0, len(e) - 2)
    cnt = np.bincount(b, minlength=len(e) - 1).astype(float)
    seen = column[np.isfinite(column)]
    where = np.clip(np.searchsorted(e, seen, side="right") - 1, 0, len(e) - 2)
    law = _Hist((a0 + cnt) / (a0 + cnt).sum(), e, integer, [seen[where == i].mean() for i in range(len(e) - 1)])
    ev = (gammaln(a0.sum()) - gammaln(a0.sum() + nn) + np.sum(gammaln(a0 + cnt) - gammaln(a0))
          - np.sum(np.log(law.w[b])))
    return law, ev


def _brute(m, X, y):
    """Per feature: parents, state function and conditional law, all by direct counting."""
    names = list(X.columns)
    par = {c: list(m.structure_[c]) for c in names}
    nums = [c for c in names if c != "a"]
    chosen = m.family_scores_.query("chosen").set_index("column")["family"].str.split("(").str[0]  # Histogram(bins=..., alpha=...) -> Histogram
    cats = {"a": sorted(X["a"].dropna().unique())}
    where = {c: (blk, list(blk.names).index(c)) for blk in m.posterior_.blocks for c in blk.names}
    edges = {c: _edges(X[c].to_numpy(float)) for c in nums}

    def state(c, val):
        return cats["a"].index(val) if c == "a" else int(np.searchsorted(edges[c], val, side="right"))

    nstates = {"a": 2, **{c: len(edges[c]) + 1 for c in nums}}
    st = {c: np.array([state(c, v) if pd.notna(v) else -1 for v in X[c]]) for c in names}
    params, ev = {}, 0.0
    for c in names:
        for k in (0, 1):
            for u in itertools.product(*(range(nstates[p]) for p in par[c])):
                rows = (y == k) & X[c].notna().to_numpy()
                for p, s in zip(par[c], u):
                    rows &= st[p] == s
                vals = X[c][rows]
                if c == "a":
                    cnt = np.array([np.sum(vals == v) for v in cats["a"]], float)
                    params[(c, k, *u)] = (cnt + 1) / (cnt.sum() + 2)
                    ev += gammaln(2.0) - gammaln(cnt.sum() + 2) + np.sum(gammaln(cnt + 1))
                else:
                    params[(c, k, *u)], e = _column_law(chosen[c], *where[c], k, vals.to_numpy(float),
                                                        X[c].to_numpy(float))
                    ev += e
    return par, edges, cats, nstates, params, ev, state


_MASS = {}


def _brute_joint(row, k, brute):
    """log p(x_obs | y=k): every missing category enumerated, every missing value integrated bin by bin."""
    par, edges, _, nstates, params, _, state = brute
    names = list(row.index)
    miss = [c for c in names if pd.isna(row[c])]
    total = 0.0
    for fill in itertools.product(*(range(nstates[c]) for c in miss)):
        st = {c: s for c, s in zip(miss, fill)}
        st.update({c: state(c, row[c]) for c in names if c not in miss})
        p = 1.0
        for c in names:
            law = params[(c, k, *(st[q] for q in par[c]))]
            if c == "a":
                p *= law[st[c]]
            elif c in miss:
                key = (c, k, *(st[q] for q in par[c]), st[c])
                if key not in _MASS:
                    e = np.concatenate([[-np.inf], edges[c], [np.inf]])
                    _MASS[key] = _interval(law, e[st[c]], e[st[c] + 1])[0]
                p *= _MASS[key]
            else:
                p *= _density(law, row[c])
        total += p
    return np.log(total)


@pytest.mark.parametrize("tiny", list(TINY))
@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_tiny_mixed_matches_brute_force(structure, tiny):
    seed, n, counts = tiny
    X, y = _tiny(seed, n=n, missing=0.1, counts=counts)
    m = bayesnb.NaiveBayes(structure=structure, k=2, alpha=1.0).fit(X, y)  # flat tables
    assert m.structure_kind_ == structure and any(m.structure_.values())
    assert m.family_scores_.query("chosen")["family"].str.split("(").str[0].tolist() == TINY[tiny]  # each node keeps its family
    brute = _brute(m, X, y)
    _MASS.clear()
    np.testing.assert_allclose(m.log_evidence_, bayesnb.inference.nb_posterior.label_log_evidence(m.posterior_) + brute[5],
                               rtol=1e-11)
    Xt, _ = _tiny(2, n=25, missing=0.35, counts=counts)
    assert Xt.isna().any(axis=1).sum() >= 10
    want = np.array([[_brute_joint(Xt.iloc[i], k, brute) for k in (0, 1)] for i in range(len(Xt))])
    want += m.class_log_prior_
    np.testing.assert_allclose(m.predict_joint_log_proba(Xt), want, rtol=1e-8)
    np.testing.assert_allclose(m.predict_proba(Xt), np.exp(want - logsumexp(want, 1, keepdims=True)), atol=1e-10)
    np.testing.assert_allclose(m.score_samples(Xt), logsumexp(want, 1), rtol=1e-8)
    assert np.array_equal(m.predict(Xt), m.classes_[want.argmax(1)])


def test_naive_structure_equals_todays_naive_bayes_and_the_machinery_agrees():
    d = load_penguins()
    X, y = d.drop(columns="species"), d["species"]
    a = bayesnb.NaiveBayes(structure="naive").fit(X, y)
    b = bayesnb.NaiveBayes().fit(X, y)
    np.testing.assert_array_equal(a.predict_log_proba(X), b.predict_log_proba(X))
    assert a.log_evidence_ == b.log_evidence_ and a.structure_ == {c: () for c in X.columns}
    # the structure machinery with no parents reproduces the naive model, each numeric column in
    # the family features="auto" chose for it (several families on penguins)
    ref = b
    assert len(set(ref.family_scores_.query("chosen")["family"])) >= 2
    tan = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    enc = tan._encode_blocks(tan._check_X(X, reset=False), tan.posterior_)[0]
    nodes = MX.make_nodes(tan.posterior_.blocks, enc, np.ones(len(y)))
    data = MX.node_data(nodes, enc)
    yc = np.searchsorted(tan.classes_, y)
    naive = MX.fit_nodes(nodes, data, yc, np.ones(len(y)), 3, tuple(() for _ in nodes))
    label = bayesnb.inference.nb_posterior.label_log_evidence(ref.posterior_)
    np.testing.assert_allclose(naive.log_evidence + label, ref.log_evidence_, rtol=1e-12)
    np.testing.assert_allclose(SI.log_likelihood(naive, data) + ref.class_log_prior_,
                               ref.predict_joint_log_proba(X), rtol=1e-10)


def test_auto_on_penguins_takes_the_best_evidence_on_shared_cells():
    d = load_penguins()
    X, y = d.drop(columns="species"), d["species"]
    m = bayesnb.NaiveBayes(structure="auto").fit(X, y)
    sc = m.structure_scores_
    assert list(sc["structure"]) == ["naive", "naive (hierarchical)", "tan", "tan (hierarchical)", "kdb (k=2)",
                                     "kdb (k=2, hierarchical)"]
    assert sc["n_cells"].nunique() == 1 and 0 < sc["n_cells"][0] <= X.notna().to_numpy().sum()
    best = sc["structure"][sc["log_evidence"].idxmax()].split()[0]
    assert sc["chosen"].sum() == 1 and sc.loc[sc["chosen"], "structure"].item().split()[0] == best
    assert m.structure_kind_ == best
    assert sc.set_index("structure")["log_evidence"]["tan"] > sc.set_index("structure")["log_evidence"]["naive"]
    # the chosen model is the one structure=best fits
    label = sc.loc[sc["chosen"], "structure"].item()
    ref = bayesnb.NaiveBayes(structure=best, alpha="hierarchical" if "hierarchical" in label else 1.0).fit(X, y)
    assert ref.structure_ == m.structure_
    # (auto's statistics on all rows are the CV check's per-fold ones merged: the same sums in another order)
    np.testing.assert_allclose(ref.predict_proba(X), m.predict_proba(X), rtol=1e-12, atol=1e-15)
    p = m.predict_proba(X)
    assert np.isfinite(p).all() and np.allclose(p.sum(1), 1)


def test_auto_warns_when_a_feature_is_scored_on_few_rows():
    """structure='auto' scores feature by feature on shared rows: with few of them it says so instead of choosing silently."""
    d = load_penguins()
    X, y = d.drop(columns="species"), d["species"]
    Xm = X.copy()
    # a copy of island, both observed in 12 rows only (island missing in the other odd rows, the copy in
    # the other even ones): the edge pays for its table on those 12 rows (two columns never observed
    # together have a log Bayes factor of exactly 0, and no edge)
    Xm["island_code"] = Xm["island"].map({"Biscoe": "B", "Dream": "D", "Torgersen": "T"})
    both, odd = np.arange(len(X)) < 12, np.arange(len(X)) % 2 == 1
    Xm["island"], Xm["island_code"] = Xm["island"].mask(~both & odd), Xm["island_code"].mask(~both & ~odd)
    with pytest.warns(UserWarning, match=r"fewer than 30 rows are \(as few as 12\)"):
        bayesnb.NaiveBayes(structure="auto").fit(Xm, y)


def test_sampled_categories_follow_the_exact_marginal():
    X, y = _tiny(3, n=120)
    m = bayesnb.NaiveBayes(structure="kdb", k=2, alpha=1.0).fit(X, y)  # flat tables
    assert m.structure_["a"] or m.structure_["u"]
    Xs, _ = m.sample(20000, random_state=0, parameter_uncertainty=False)
    assert Xs["u"].dtype.kind == "f" and set(Xs["a"]) == {"p", "q"}
    # p(a = v): score_samples of rows whose numeric cells are missing (summed out over their bins)
    rows = pd.DataFrame({"a": ["p", "q"], "u": [np.nan] * 2, "v": [np.nan] * 2})
    p = np.exp(m.score_samples(rows))
    np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-10)
    freq = np.array([np.mean(Xs["a"] == v) for v in ("p", "q")])
    assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / 20000)), (freq, p)
    assert set(m.sample(30, y=1, random_state=1)[1]) == {1}


def test_unsupported_methods_and_errors_are_clear():
    X, y = _tiny(4)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    assert hasattr(m, "impute") and hasattr(m, "sample_posterior") and hasattr(m, "run_mcmc")
    spec, _, _ = estimator_inputs(m, X, y)  # the one NumPyro model, on the structure's contexts
    assert [b.context_plate for b in spec.blocks] == [f"context_{j}" for j in range(X.shape[1])]
    with pytest.raises(ValueError, match="features='auto'"):
        bayesnb.NaiveBayes(features={("a",): Categorical(), ("u", "v"): Gaussian()}, structure="tan").fit(X, y)
    with pytest.raises(ValueError, match="structure"):
        bayesnb.NaiveBayes(structure="bogus").fit(X, y)
    with pytest.raises(ValueError, match="proper prior"):
        bayesnb.NaiveBayes(structure="tan", alpha=0).fit(X, y)


def test_bin_edges_rule():
    x = np.array([np.nan, 1, 1, 1, 1, 2, 3, 4, 5, 6.0])
    np.testing.assert_array_equal(MX.bin_edges(x), _edges(x))
    assert MX.bin_edges(np.ones(5)).size == 0
    w = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 0.0])
    np.testing.assert_array_equal(MX.bin_edges(x, w), _edges(np.where(w > 0, x, np.nan)))


@pytest.mark.parametrize("structure", ["tan", "kdb", "auto"])
def test_save_load_round_trip(tmp_path, structure):
    d = load_penguins()
    X, y = d.drop(columns="species"), d["species"]
    m = bayesnb.NaiveBayes(structure=structure).fit(X, y)
    m.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    np.testing.assert_array_equal(back.score_samples(X), m.score_samples(X))
    assert back.structure_ == m.structure_ and back.structure_kind_ == m.structure_kind_
    assert back.log_evidence_ == m.log_evidence_
    if structure == "auto":
        pd.testing.assert_frame_equal(back.structure_scores_, m.structure_scores_)
    Xa, ya = m.sample(5, random_state=3)
    Xb, yb = back.sample(5, random_state=3)
    pd.testing.assert_frame_equal(Xa, Xb)
    assert np.array_equal(ya, yb)


def test_model_file_with_bad_structure_is_refused(tmp_path):
    X, y = _tiny(5)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    m.structure_bin_edges_ = (np.empty(0), np.array([1.0, 0.0]), m.structure_bin_edges_[2])
    m.save(tmp_path / "edges.bnb")
    with pytest.raises(bayesnb.io.persistence.ModelFileError, match="structure_bin_edges_"):
        bayesnb.load(tmp_path / "edges.bnb")
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    m.structure_parents_ = ((1,), (2,), (0,))
    m.save(tmp_path / "cycle.bnb")
    with pytest.raises(bayesnb.io.persistence.ModelFileError, match="cycle"):
        bayesnb.load(tmp_path / "cycle.bnb")


def test_docs_mixed_section_runs_as_pasted():
    text = (Path(__file__).resolve().parents[1] / "docs" / "structure.md").read_text(encoding="utf-8")
    start = text.index("## Mixed tables")
    section = text[start:text.index("\n## ", start)]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    shown = re.findall(r"```text\n(.*?)```", section, flags=re.DOTALL)
    assert len(code) == len(shown) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code[0], "docs/structure.md", "exec"), {})  # noqa: S102 - the page's own snippet
    same_printout(out.getvalue().strip(), shown[0].strip())


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_an_unseen_island_lowers_the_score_of_a_mixed_row(structure):
    d = load_penguins()
    X, y = d.drop(columns="species"), d["species"]
    m = bayesnb.NaiveBayes(structure=structure).fit(X, y)
    clean = X.dropna().iloc[::7].reset_index(drop=True)
    swapped, blank = clean.copy(), clean.copy()
    swapped["island"] = "Atlantis"  # never seen in training: a new value with its prior mass, in its context
    blank["island"] = np.nan
    after = m.score_samples(swapped)
    assert np.all(after < m.score_samples(clean)) and np.all(after < m.score_samples(blank))
    # the class posterior still sums to 1 and follows the joint
    np.testing.assert_allclose(m.predict_proba(swapped).sum(1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_node_statistics_in_row_chunks_equal_one_pass(structure, monkeypatch):
    """node_stats bounds its (rows x contexts) weights by working in row chunks merged with each family's
    merge: tiny chunks give the statistics, evidence and predictions of one pass (EM's soft weights too)."""
    X, y = _tiny(3, n=120, missing=0.1)
    one = bayesnb.NaiveBayes(structure=structure, k=2, alpha=1.0).fit(X, y)
    nodes, parents = one._mixed.nodes, one._mixed.parents
    data = MX.node_data(nodes, one._encoded(X))
    soft = np.random.default_rng(0).dirichlet([1.0, 1.0], len(y))
    whole = [MX.node_stats(nodes, data, yy, np.ones(len(y)), 2, parents) for yy in (np.asarray(y), soft)]
    monkeypatch.setattr(MX, "MAX_RESP_CELLS", 7)  # a few rows per chunk
    chunked = bayesnb.NaiveBayes(structure=structure, k=2, alpha=1.0).fit(X, y)
    assert chunked.structure_ == one.structure_
    np.testing.assert_allclose(chunked.log_evidence_, one.log_evidence_, rtol=1e-12)
    np.testing.assert_allclose(chunked.predict_proba(X), one.predict_proba(X), rtol=1e-10, atol=1e-14)
    for yy, ref in zip((np.asarray(y), soft), whole):
        got = MX.node_stats(nodes, data, yy, np.ones(len(y)), 2, parents)
        for a, b in zip(got, ref):
            for fa, fb in zip(a, b):
                for u, v in zip(fa if isinstance(fa, tuple) else (fa,), fb if isinstance(fb, tuple) else (fb,)):
                    np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)


def test_save_load_with_a_hurdle_node(tmp_path):
    """A Hurdle node's statistics hold an optional field (None) that the loader must accept as None."""
    rng = np.random.default_rng(0)
    tenure = rng.integers(0, 72, 300).astype(float)
    monthly = rng.uniform(20, 110, 300)
    X = pd.DataFrame({"tenure": tenure, "monthly": monthly, "charges": tenure * monthly})
    y = rng.integers(0, 2, 300)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    assert any(type(st).__name__ == "HurdleStats" and any(f is None for f in st) for st in m.structure_stats_)
    m.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))


def test_the_loader_refuses_structure_statistics_that_are_not_finite_or_negative_counts():
    """A structure's statistics are checked by the families' field rules when a file is read (the
    structure's own check on load then compares their contexts only)."""
    from bayesnb.io.loadcheck import check_extras
    from bayesnb.io.safejson import ModelFileError
    X, y = _tiny(5)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    for bad, what in ((np.nan, "NaN"), (-1.0, "below 0")):
        stats = list(m.structure_stats_)
        st = stats[0]
        first = np.array(st[0], dtype=float, copy=True)
        first.flat[0] = bad
        stats[0] = st._replace(**{st._fields[0]: first})
        with pytest.raises(ModelFileError, match=rf"structure_stats_\[0\].*{what}"):
            check_extras(m, m.posterior_, m.n_features_in_, {"structure_stats_": stats})


def test_check_node_stats_refuses_statistics_of_another_layout():
    """One check (``bayesnb.structure.engine.check_node_stats``) of a node's statistics against its
    contexts: the fitted ones pass; another node's, a wrong class count or another family's are refused,
    and a model file's estimator with a feature's statistics swapped refuses to rebuild."""
    from bayesnb.structure.engine import check_node_stats
    X, y = _tiny(5)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    mx = m._mixed
    check_node_stats(mx.nodes, mx.parents, mx.stats, mx.n_classes)
    sizes = [mx.n_classes * int(np.prod([mx.nodes[p].n_states for p in pa])) for pa in mx.parents]
    j = next(j for j in range(len(sizes)) if any(sizes[i] != sizes[j] or type(mx.stats[i]) is not type(mx.stats[j])
                                                  for i in range(len(sizes))))
    i = next(i for i in range(len(sizes)) if sizes[i] != sizes[j] or type(mx.stats[i]) is not type(mx.stats[j]))
    swapped = list(mx.stats)
    swapped[j] = mx.stats[i]
    with pytest.raises(ValueError, match=rf"stats\[{j}\] must be the family's statistics over its {sizes[j]} contexts"):
        check_node_stats(mx.nodes, mx.parents, swapped, mx.n_classes)
    with pytest.raises(ValueError, match=r"^held\[0\] must be"):
        check_node_stats(mx.nodes, mx.parents, mx.stats, mx.n_classes + 1, "held")
    bad = copy.deepcopy(m)
    bad.structure_stats_ = tuple(swapped)
    with pytest.raises(ValueError, match=rf"structure_stats_\[{j}\] must be the family's statistics"):
        bad._restore_fitted()


@pytest.mark.parametrize("family", ["Gaussian", "Categorical", "Histogram", "Hurdle"])
def test_join_columns_rebuilds_a_blocks_statistics_from_its_columns(family):
    """``columns.join_columns`` (the MNAR M-step's) assembles a block's statistics from one-column blocks'
    (``column_state``), with the family's empty statistics for the columns not given: the block's own
    statistics, field by field, per-column tuples (Categorical, Histogram) and (K, d) arrays alike."""
    from bayesnb.families import Histogram, Hurdle, LogNormal
    from bayesnb.structure import columns as COLS

    rng = np.random.default_rng(0)
    n, K = 200, 3
    fam = {"Gaussian": Gaussian(), "Categorical": Categorical(), "Histogram": Histogram(),
           "Hurdle": Hurdle(LogNormal())}[family]
    if family == "Categorical":
        raw = rng.choice(np.array(["a", "b", "c", "d"], dtype=object), size=(n, 3))
        raw[:, 1] = np.where(raw[:, 1] == "d", "a", raw[:, 1])  # columns with different category counts
        raw[rng.random((n, 3)) < 0.1] = None
    else:
        raw = np.where(rng.random((n, 3)) < 0.2, 0.0, rng.lognormal(0.0, 1.0, (n, 3)))
        raw[rng.random((n, 3)) < 0.1] = np.nan
    enc, state = fam.encode(raw)
    resp = rng.dirichlet(np.ones(K), size=n)

    def fields(stats):  # every array of a statistics NamedTuple (per-column tuples flattened; None fields left out)
        return [a for f in stats if f is not None for a in (f if isinstance(f, tuple) else (f,))]

    def one(c):
        one_state = COLS.column_state(state, c)
        return fam.stats(fam.encode(raw[:, [c]], one_state)[0], resp, one_state)

    whole = fields(fam.stats(enc, resp, state))
    for got, want in zip(fields(COLS.join_columns(fam, state, 3, K, {c: one(c) for c in range(3)})), whole):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    joined = COLS.join_columns(fam, state, 3, K, {0: one(0), 2: one(2)})  # column 1: empty statistics
    empty = COLS.join_columns(fam, state, 3, K, {})
    assert [np.shape(f) for f in fields(joined)] == [np.shape(f) for f in whole]
    assert all(np.all(np.asarray(f) == 0) for f in fields(empty))
    merged = fields(fam.merge(joined, COLS.join_columns(fam, state, 3, K, {1: one(1)})))
    for got, want in zip(merged, whole):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
