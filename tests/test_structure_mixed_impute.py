"""impute on NaiveBayes mixed structures, against brute force (enumeration + quadrature) on tiny data."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from test_structure_mixed import TINY, _brute, _density, _interval, _tiny

import bayesnb
from bayesnb.structure import exact_impute as MI
from bayesnb.structure import engine as MX
from bayesnb.datasets import load_penguins


def _exact(row, brute, log_prior, ks=(0, 1), cache=None):
    """Per missing cell: category probabilities, or the posterior mean (each bin integrated by quad, or
    summed over its whole numbers)."""
    cache = {} if cache is None else cache
    par, edges, _, nstates, params, _, state = brute
    names = list(row.index)
    miss = [c for c in names if pd.isna(row[c])]
    total, probs, moments = 0.0, {c: np.zeros(nstates[c]) for c in miss}, {c: 0.0 for c in miss}
    for k in ks:
        for fill in itertools.product(*(range(nstates[c]) for c in miss)):
            st = {c: s for c, s in zip(miss, fill)}
            st.update({c: state(c, row[c]) for c in names if c not in miss})
            p, first = np.exp(log_prior[k]), {}
            for c in names:
                law = params[(c, k, *(st[q] for q in par[c]))]
                if c == "a":
                    p *= law[st[c]]
                elif c in miss:
                    key = (c, k, *(st[q] for q in par[c]), st[c])
                    if key not in cache:
                        e = np.concatenate([[-np.inf], edges[c], [np.inf]])
                        cache[key] = _interval(law, e[st[c]], e[st[c] + 1])
                    mass, first[c] = cache[key]
                    p *= mass
                else:
                    p *= _density(law, row[c])
            total += p
            for c in miss:
                probs[c][st[c]] += p
                if c in first:
                    moments[c] += p * first[c]
    return {c: (probs[c] / total if c == "a" else moments[c] / total) for c in miss}


@pytest.mark.parametrize("tiny", list(TINY))
@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_mean_imputation_matches_brute_force(structure, tiny):
    seed, n, counts = tiny
    X, y = _tiny(seed, n=n, missing=0.1, counts=counts)
    m = bayesnb.NaiveBayes(structure=structure, k=2, alpha=1.0).fit(X, y)  # flat tables
    assert any(m.structure_.values())
    brute = _brute(m, X, y)
    Xt, yt = _tiny(3, n=12, missing=0.4, counts=counts)
    Xt = Xt[Xt.isna().any(axis=1) & Xt.notna().any(axis=1)]
    assert len(Xt) >= 5
    yk = np.where(np.arange(len(Xt)) % 2 == 0, yt[: len(Xt)], None).astype(object)  # half the rows labelled
    out, cache = m.impute(Xt, strategy="mean"), {}
    out_y = m.impute(Xt, strategy="auto", y=yk)
    for i in range(len(Xt)):
        for got, ks in ((out, (0, 1)), (out_y, (0, 1) if yk[i] is None else (yk[i],))):
            want = _exact(Xt.iloc[i], brute, m.class_log_prior_, ks, cache)
            for c, v in want.items():
                if c == "a":
                    assert got.iloc[i][c] == brute[2]["a"][int(np.argmax(v))]
                elif c == "c":  # a count column's mean is written as a whole number, as Poisson writes it
                    assert got.iloc[i][c] == np.round(v)
                else:
                    np.testing.assert_allclose(got.iloc[i][c], v, rtol=1e-7, atol=1e-9)
    pd.testing.assert_frame_equal(out[Xt.notna()], Xt[Xt.notna()])  # observed cells untouched


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_joint_draws_follow_the_exact_conditional(structure):
    X, y = _tiny(1, missing=0.1)
    m = bayesnb.NaiveBayes(structure=structure, k=2, alpha=1.0).fit(X, y)  # flat tables
    brute = _brute(m, X, y)
    row = pd.DataFrame({"a": [None], "u": [np.nan], "v": [1.3]}, dtype=object).astype({"u": float, "v": float})
    want = _exact(row.iloc[0], brute, m.class_log_prior_)
    n = 6000
    draws = m.impute(pd.concat([row] * n, ignore_index=True), strategy="draw", parameter_uncertainty=False,
                     random_state=0)
    p = want["a"][brute[2]["a"].index("p")]
    freq = np.mean(draws["a"] == "p")
    assert abs(freq - p) < 4 * np.sqrt(p * (1 - p) / n)
    u = draws["u"].to_numpy(float)
    assert abs(u.mean() - want["u"]) < 4 * u.std() / np.sqrt(n)
    for cat in ("p", "q"):  # drawn jointly: u given the drawn a follows the exact p(u | a, v)
        sel = u[draws["a"] == cat]
        given = _exact(row.assign(a=cat).iloc[0], brute, m.class_log_prior_)["u"]
        assert abs(sel.mean() - given) < 4 * sel.std() / np.sqrt(sel.size)
    multi = m.impute(row, strategy="draw", n_imputations=3, random_state=1)
    assert len(multi) == 3 and all(not t.isna().any().any() for t in multi)
    # u is a Histogram column (values among its training values): two draws may coincide, three should not
    assert len({float(t["u"].iloc[0]) for t in multi}) >= 2


def test_naive_parents_give_todays_naive_impute():
    d = load_penguins()
    X, y = d.drop(columns="species"), d["species"]
    rng = np.random.default_rng(0)
    Xt = X.iloc[:60].mask(rng.random((60, X.shape[1])) < 0.3)
    num = [c for c in X.columns if X[c].dtype.kind in "iuf"]
    cat = [c for c in X.columns if c not in num]
    naive = bayesnb.NaiveBayes().fit(X, y)  # each numeric column in the family its evidence chose
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    assert m.structure_kind_ == "tan"
    nodes = m._mixed.nodes
    enc = m._encode_blocks(m._check_X(X, reset=False), m.posterior_)[0]
    codes = np.searchsorted(m.classes_, y.to_numpy())
    m._mixed = MX.fit_nodes(nodes, MX.node_data(nodes, enc), codes, np.ones(len(y)), len(m.classes_),
                            ((),) * len(nodes))  # the mixed machinery with every parent list empty
    chosen = naive.family_scores_.query("chosen").set_index("column")["family"].str.split("(").str[0]
    exact = [c for c in num if chosen[c] != "Histogram"]
    hist = [c for c in num if chosen[c] == "Histogram"]
    assert exact and hist
    for strategy in ("auto", "mean"):
        got, want = m.impute(Xt, strategy=strategy), naive.impute(Xt, strategy=strategy)
        np.testing.assert_allclose(got[exact].to_numpy(float), want[exact].to_numpy(float), rtol=1e-8)
        # a histogram node's bins are its column's quantile bins, which cut its histogram bins: the mean of a
        # cut part is its midpoint (uniform within the bin, as the density), the naive fill a bin's training
        # values' mean (close, not equal); both are whole numbers on these integer columns
        g, w = got[hist].to_numpy(float), want[hist].to_numpy(float)
        np.testing.assert_allclose(g, w, rtol=0.01)
        assert np.all(g == np.round(g))
        pd.testing.assert_frame_equal(got[cat].astype(object), want[cat].astype(object))
    plain = bayesnb.NaiveBayes().fit(X, y)
    assert bayesnb.NaiveBayes(structure="naive").fit(X, y).impute(Xt).equals(plain.impute(Xt))


def test_row_chunks_give_the_same_imputations(monkeypatch):
    X, y = _tiny(1, missing=0.1)
    Xt, _ = _tiny(5, n=40, missing=0.3)
    for structure in ("tan", "kdb"):
        m = bayesnb.NaiveBayes(structure=structure).fit(X, y)
        whole = m.impute(Xt, strategy="mean")
        monkeypatch.setattr(MI, "_CHUNK", 7)
        pd.testing.assert_frame_equal(m.impute(Xt, strategy="mean"), whole)
        assert not m.impute(Xt, strategy="draw", random_state=0).isna().any().any()
        monkeypatch.undo()


def test_impute_errors_and_options():
    X, y = _tiny(5, n=120, missing=0.1, counts=True)  # u, v Gaussian: "marginal" is a Student-t
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    Xt, _ = _tiny(2, n=10, missing=0.3, counts=True)
    assert not m.impute(Xt, n_components=2, random_state=0).isna().any().any()  # a latent-class TAN
    with pytest.raises(ValueError, match="n_imputations"):
        m.impute(Xt, strategy="mean", n_imputations=2)
    mode = m.impute(Xt, strategy="mode")
    assert not mode.isna().any().any()
    t = bayesnb.NaiveBayes(structure="tan", predictive="marginal").fit(X, y)
    a, b = t.impute(Xt, strategy="mean"), m.impute(Xt, strategy="mean")
    assert not a.isna().any().any() and not np.allclose(a["u"], b["u"])


def test_truncated_student_t_means_match_quadrature():
    X, y = _tiny(5, n=120, missing=0.1, counts=True)
    m = bayesnb.NaiveBayes(structure="tan", predictive="marginal").fit(X, y)
    j = next(i for i, nd in enumerate(m._mixed.nodes) if nd.family.name == "gaussian" and nd.n_states > 2)
    got = MI.truncated_means(m._mixed, j)
    post = m._mixed.posteriors[j]
    e = np.concatenate([[-np.inf], m._mixed.nodes[j].edges, [np.inf]])
    for c in range(got.shape[0]):
        mu, a, b, kap = (float(np.asarray(f)[c, 0]) for f in (post.mu, post.a, post.b, post.kappa))
        law = stats.t(2 * a, loc=mu, scale=np.sqrt(b * (kap + 1) / (a * kap)))
        for s in range(got.shape[1]):
            mass = integrate.quad(law.pdf, e[s], e[s + 1], epsabs=0, epsrel=1e-12)[0]
            want = integrate.quad(lambda t, law=law: t * law.pdf(t), e[s], e[s + 1], epsabs=1e-13, epsrel=1e-12)[0] / mass
            np.testing.assert_allclose(got[c, s], want, rtol=1e-7, atol=1e-9)


def test_sample_posterior_draws_every_context_exactly():
    X, y = _tiny(5, n=120, missing=0.1, counts=True)  # u, v Gaussian (mu, sigma2), c Poisson (lam)
    m = bayesnb.NaiveBayes(structure="kdb", k=2, alpha=1.0).fit(X, y)  # flat tables
    n = 20000
    p = m.sample_posterior(n, random_state=0).posterior
    nodes = m._mixed.nodes
    names = ["a", "u", "v", "c"]
    for f, var in (("a", "theta_a"), ("u", "mu_u"), ("v", "sigma2_v"), ("c", "lam_c")):
        extra = ("a_category",) if f == "a" else ()
        assert p[var].dims == ("chain", "draw", "class", *(f"{q}_state" for q in m.structure_[f]), *extra)
    assert list(p["a_category"].values) == ["p", "q"] and p["u_state"].size == m._mixed.nodes[1].n_states
    post = m._mixed.posteriors[3]  # Poisson: lam ~ Gamma(a_n, b_n), mean a_n / b_n
    a, b = (np.asarray(f, dtype=float)[:, 0] for f in (post.a, post.b))
    lam = p["lam_c"].values.reshape(n, -1)
    assert np.all(np.abs(lam.mean(0) - a / b) < 5 * np.sqrt(a) / b / np.sqrt(n))
    for j, name in ((1, "u"), (2, "v")):  # NIG: E[mu] = mu_n, E[sigma^2] = b_n / (a_n - 1)
        post = m._mixed.posteriors[j]
        mu, a, b, kap = (np.asarray(f, dtype=float)[:, 0] for f in (post.mu, post.a, post.b, post.kappa))
        shape = p[f"mu_{name}"].shape[2:]
        draws_mu = p[f"mu_{name}"].values.reshape(n, -1)
        ok = a > 3  # contexts whose sigma^2 has a finite variance (the others have little data)
        assert ok.sum() >= 2
        mu, a, b, kap = mu[ok], a[ok], b[ok], kap[ok]
        sd_mu = np.sqrt(b / (a - 1) / kap)
        assert np.all(np.abs(draws_mu[:, ok].mean(0) - mu) < 5 * sd_mu / np.sqrt(n)), name
        assert p[f"sigma2_{name}"].dims == p[f"mu_{name}"].dims
        s2 = p[f"sigma2_{name}"].values.reshape(n, -1)[:, ok]
        want = b / (a - 1)
        sd_s2 = want / np.sqrt(a - 2)
        assert np.all(np.abs(s2.mean(0) - want) < 5 * sd_s2 / np.sqrt(n)), name
        assert shape == (2, *(nodes[q].n_states for q in m._mixed.parents[j]))
    assert names == [str(m.posterior_.blocks[nd.block].names[nd.col]) for nd in nodes]
    (conc,) = m._mixed.posteriors[0].concentration
    mean = np.asarray(conc) / np.asarray(conc).sum(1, keepdims=True)
    got = p["theta_a"].values.reshape(n, -1, 2).mean(0)
    np.testing.assert_allclose(got, mean, atol=0.01)
    np.testing.assert_allclose(p["pi"].values.mean((0, 1)), np.exp(m.class_log_prior_), atol=0.01)
