"""sample(given={col: set | (low, high)}, forbid=[...], return_probability=True): exact constrained draws.

Checked against brute-force enumeration of the exact conditional (tiny categorical data, naive,
TAN and k-DB), against the exact truncated predictive of a Gaussian column (a range of 1%
probability), and on random conditions of a mixed table (every row meets its condition).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb
from bayesnb.structure import elimination as VE
from bayesnb.synth.observed_support import observed_support
from bayesnb.datasets import load_penguins
from bayesnb.families import Gaussian, Poisson
from bayesnb.families.gaussian import plug_in


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.choice(["p", "q"], n, p=[0.6, 0.4])
    x0 = np.where(y == "p", rng.choice(list("abc"), n, p=[0.6, 0.3, 0.1]), rng.choice(list("abc"), n, p=[0.2, 0.3, 0.5]))
    x1 = np.where(x0 == "a", rng.choice(list("uv"), n, p=[0.8, 0.2]), rng.choice(list("uv"), n, p=[0.3, 0.7]))
    x2 = np.where(x1 == "u", rng.choice(list("rst"), n, p=[0.5, 0.3, 0.2]), rng.choice(list("rst"), n, p=[0.1, 0.3, 0.6]))
    x3 = np.where(x2 == "r", rng.choice(list("mn"), n, p=[0.7, 0.3]), rng.choice(list("mn"), n, p=[0.4, 0.6]))
    return pd.DataFrame({"x0": x0, "x1": x1, "x2": x2, "x3": x3}), y


def _exact(m, X, allowed):
    """Every (row, class) cell's probability under the plug-in, restricted to ``allowed`` rows and normalised."""
    cats = [sorted(X[c].unique()) for c in X.columns]
    grid = pd.DataFrame(list(itertools.product(*cats)), columns=X.columns)
    joint = np.exp(m.predict_joint_log_proba(grid))  # (cells, K): p(x, y=k)
    keep = allowed(grid).to_numpy()
    return grid, joint, keep


def _chi2(m, X, S, ys, grid, joint, keep):
    """Chi-squared p-value of the drawn (x, y) cells against the exact conditional."""
    probs = np.where(keep[:, None], joint, 0.0)
    probs = probs / probs.sum()
    key = {tuple(r) + (k,): i for i, r in enumerate(grid.itertuples(index=False)) for k in m.classes_}
    counts = np.zeros(probs.shape)
    for row, k in zip(S[list(X.columns)].itertuples(index=False), ys):
        counts[key[tuple(row) + (k,)], list(m.classes_).index(k)] += 1
    mask = probs > 0
    assert counts[~mask].sum() == 0  # nothing outside the allowed region
    return stats.chisquare(counts[mask], probs[mask] * counts.sum()).pvalue


CASES = [
    ({"x0": {"a", "c"}}, None, lambda g: g.x0.isin(["a", "c"])),
    ({"x2": {"t"}, "x3": "n"}, None, lambda g: (g.x2 == "t") & (g.x3 == "n")),
    (None, [{"x0": "a", "x1": "u"}, {"x2": {"r", "s"}, "x3": "m"}],
     lambda g: ~((g.x0 == "a") & (g.x1 == "u")) & ~(g.x2.isin(["r", "s"]) & (g.x3 == "m"))),
    ({"x1": "v"}, [{"x0": {"b", "c"}}], lambda g: (g.x1 == "v") & ~g.x0.isin(["b", "c"])),
]


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_draws_follow_the_exact_conditional(tiny, structure, case):
    X, y = tiny
    _check_case(bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X, y), X, case)


def _check_case(m, X, case):
    """``CASES[case]``'s draws from ``m``: inside the condition, its probability exact, chi-squared against the
    exact conditional."""
    given, forbid, allowed = CASES[case]
    grid, joint, keep = _exact(m, X, allowed)
    S, ys, p = m.sample(6000, given=given, forbid=forbid, random_state=case, parameter_uncertainty=False,
                        return_probability=True)
    assert allowed(S).all()
    # the probability of the condition: the posterior predictive (Dirichlet means) summed over the allowed cells
    np.testing.assert_allclose(p, joint[keep].sum(), rtol=1e-9)
    assert _chi2(m, X, S, ys, grid, joint, keep) > 0.01


def test_given_class_and_sets(tiny):
    X, y = tiny
    m = bayesnb.CategoricalNB(structure="tan", alpha=1.0).fit(X, y)
    grid, joint, keep = _exact(m, X, lambda g: g.x0.isin(["b", "c"]))
    S, ys, p = m.sample(3000, y="q", given={"x0": {"b", "c"}}, random_state=3, parameter_uncertainty=False,
                        return_probability=True)
    assert (ys == "q").all() and S.x0.isin(["b", "c"]).all()
    k = list(m.classes_).index("q")
    np.testing.assert_allclose(p, joint[keep, k].sum() / joint[:, k].sum(), rtol=1e-9)  # p(condition | y)


def test_parameter_uncertainty_keeps_every_row_inside(tiny):
    X, y = tiny
    for structure in ("naive", "tan"):
        m = bayesnb.CategoricalNB(structure=structure).fit(X, y)
        S, _ = m.sample(500, given={"x2": {"s", "t"}}, forbid=[{"x0": "a"}], random_state=1)
        assert S.x2.isin(["s", "t"]).all() and (S.x0 != "a").all()


@pytest.fixture(scope="module")
def gauss():
    rng = np.random.default_rng(1)
    y = rng.choice([0, 1], 400, p=[0.7, 0.3])
    X = np.column_stack([rng.normal(np.where(y == 0, 0.0, 3.0), 1.0), rng.normal(np.where(y == 0, 5.0, -1.0), 2.0)])
    return X, y


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_a_range_of_one_percent(gauss, structure):
    X, y = gauss
    features = {0: Gaussian(), 1: Gaussian()} if structure == "naive" else "auto"  # a structure chooses families
    m = bayesnb.NaiveBayes(features=features, structure=structure).fit(X, y)
    blk = next(b for b in m.posterior_.blocks if 0 in list(b.columns))
    w = np.exp(m.posterior_.class_log_prior)
    if structure == "naive":
        mu, var = (np.asarray(a)[:, 0] for a in plug_in(blk.posterior))

        def tail(lo):  # the plug-in mixture's mass above lo
            return float(w @ stats.norm.sf(lo, mu, np.sqrt(var)))

        lo = 6.0
        while tail(lo) < 0.01:
            lo -= 0.01
    else:
        lo = float(np.quantile(X[:, 0], 0.99))
    S, ys = m.sample(4000, given={0: (lo, None)}, random_state=2, parameter_uncertainty=False)
    x = np.asarray(S[:, 0], dtype=float)
    assert (x >= lo).all()
    if structure == "naive":  # the exact truncated plug-in mixture

        def cdf(t):
            return (w @ (stats.norm.cdf(np.atleast_1d(t)[None, :], mu[:, None], np.sqrt(var)[:, None])
                         - stats.norm.cdf(lo, mu, np.sqrt(var))[:, None])) / tail(lo)

        assert stats.kstest(x, cdf).pvalue > 0.01
    _, _, p = m.sample(5, given={0: (lo, None)}, random_state=2, return_probability=True)
    if structure == "naive":  # the probability of the condition: each class's Student-t posterior predictive
        a, b, kappa = (np.asarray(f)[:, 0] for f in (blk.posterior.a, blk.posterior.b, blk.posterior.kappa))
        t_scale = np.sqrt(b * (kappa + 1) / (a * kappa))
        np.testing.assert_allclose(p, w @ stats.t.sf(lo, 2 * a, mu, t_scale), rtol=1e-9)
    else:
        assert 0.002 < p < 0.05


def test_zero_probability_and_bad_conditions_are_clear_errors(tiny):
    X, y = tiny
    for structure in ("naive", "tan"):
        m = bayesnb.CategoricalNB(structure=structure).fit(X, y)
        with pytest.raises(ValueError, match="probability 0 under the model"):
            m.sample(5, given={"x0": {"a"}}, forbid=[{"x0": "a"}])
        with pytest.raises(ValueError, match="probability 0 under the model"):
            m.sample(5, given={"x0": "b"}, forbid=[{"x1": {"u", "v"}}])
        with pytest.raises(ValueError, match="empty set for column 'x0'"):
            m.sample(5, given={"x0": set()})
        with pytest.raises(ValueError, match="range .* for column 'x1', which is categorical"):
            m.sample(5, given={"x1": (0, 1)})
        with pytest.raises(ValueError, match="value 'z' of column 'x2' is not a value of the model"):
            m.sample(5, given={"x2": {"r", "z"}})
        with pytest.raises(TypeError, match="forbid must be a list"):
            m.sample(5, forbid={"x0": "a"})
    nb = bayesnb.NaiveBayes(features={0: Gaussian(), 1: Gaussian()}).fit(np.random.default_rng(0).normal(size=(50, 2)),
                                                                  np.arange(50) % 2)
    with pytest.raises(ValueError, match="set for column 0, which is numeric"):
        nb.sample(5, given={0: {1.0}})
    with pytest.raises(ValueError, match=r"empty \(low > high\)"):
        nb.sample(5, given={0: (2.0, 1.0)})


def test_a_range_of_histogram_values_outside_training_has_probability_zero():
    df = load_penguins().dropna()
    m = bayesnb.NaiveBayes().fit(df.drop(columns="species"), df["species"])
    fam = {n: b.family.name for b in m.posterior_.blocks for n in b.names}
    col = next(c for c, f in fam.items() if f == "histogram")
    top = df[col].max()
    with pytest.raises(ValueError, match="probability 0 under the model"):
        m.sample(5, given={col: (top + 1, None)})


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_twenty_random_conditions_are_always_met(structure):
    df = load_penguins()
    X, y = df.drop(columns="species"), df["species"]
    m = bayesnb.NaiveBayes(structure=structure).fit(X, y)
    rng = np.random.default_rng(7)
    cats = [c for c in X.columns if X[c].dtype == object or str(X[c].dtype) in ("str", "string", "category")]
    nums = [c for c in X.columns if c not in cats]
    for i in range(20):
        given, checks = {}, []
        for c in rng.choice(cats, rng.integers(0, len(cats) + 1), replace=False):
            vals = sorted(X[c].dropna().unique())
            keep = set(rng.choice(vals, rng.integers(1, len(vals) + 1), replace=False).tolist())
            given[c] = keep
            checks.append(lambda S, c=c, keep=keep: S[c].isin(keep))
        chosen = rng.choice(nums, rng.integers(1, 3), replace=False)
        for c in chosen:
            v = X[c].dropna().to_numpy(dtype=float)
            if i % 3 == 0:  # a tail of about 1% of the training values
                lo, hi = float(np.quantile(v, 0.99)), None
            else:
                a = rng.uniform(0.02, 0.6)
                lo, hi = float(np.quantile(v, a, method="lower")), float(np.quantile(v, a + 0.3, method="higher"))
            given[c] = (lo, hi)
            checks.append(lambda S, c=c, lo=lo, hi=hi: (S[c].astype(float) >= lo) & (S[c].astype(float) <= (
                np.inf if hi is None else hi)))
        forbid = None
        if i % 2:  # no female row with a value at most the median of a column not in given
            free = [c for c in nums if c not in chosen][i % 3]
            med = float(X[free].median())
            forbid = [{"sex": "female", free: (None, med)}]
            checks.append(lambda S, free=free, med=med: ~((S["sex"] == "female") & (S[free].astype(float) <= med)))
        S, _, p = m.sample(300, given=given, forbid=forbid, random_state=i, return_probability=True)
        assert 0 < p <= 1
        ok = np.logical_and.reduce([np.asarray(f(S), dtype=bool) for f in checks])
        assert ok.all(), (i, given, forbid)


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_a_forbidden_range_on_counts(structure):
    rng = np.random.default_rng(3)
    y = rng.choice([0, 1], 300)
    X = np.column_stack([rng.poisson(np.where(y == 0, 2.0, 6.0)), rng.poisson(3.0, 300)]).astype(float)
    m = bayesnb.NaiveBayes(features={0: Poisson(), 1: Poisson()} if structure == "naive" else "auto",
                           structure=structure).fit(X, y)
    S, ys, p = m.sample(4000, given={1: (1, 4)}, forbid=[{0: (2, 3)}, {0: 0}], random_state=0,
                        parameter_uncertainty=False, return_probability=True)
    x0, x1 = np.asarray(S[:, 0], float), np.asarray(S[:, 1], float)
    assert ((x1 >= 1) & (x1 <= 4)).all() and not np.isin(x0, [0, 2, 3]).any()
    assert (x0 == np.round(x0)).all() and (x1 == np.round(x1)).all()
    if structure == "naive":  # the exact plug-in conditional of x0 over its first values
        lam = np.column_stack([np.asarray(b.posterior.a)[:, list(b.columns).index(j)]
                               / np.asarray(b.posterior.b)[:, list(b.columns).index(j)]
                               for j in (0, 1) for b in m.posterior_.blocks if j in list(b.columns)])
        w = np.exp(m.posterior_.class_log_prior) * (stats.poisson.cdf(4, lam[:, 1]) - stats.poisson.cdf(0, lam[:, 1]))
        v = np.arange(0, 40)
        pmf = (w[:, None] * stats.poisson.pmf(v[None, :], lam[:, [0]])).sum(0) * ~np.isin(v, [0, 2, 3])
        pmf /= pmf.sum()
        counts = np.bincount(x0.astype(int), minlength=v.size)[:v.size]
        top = v < 12
        expected = np.append(pmf[top], pmf[~top].sum()) * len(x0)
        observed = np.append(counts[top], counts[~top].sum())
        ok = expected > 0
        assert stats.chisquare(observed[ok], expected[ok]).pvalue > 0.01


@pytest.mark.parametrize("kwargs", [{"structure": "tan", "latent": None}, {"structure": "naive", "latent": 2}])
def test_synthesizer_conditions(kwargs):
    df = load_penguins()
    df["when"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(df)) % 365, unit="D")
    synth = bayesnb.Synthesizer(target="species", random_state=0, **kwargs).fit(df)
    given = {"species": "Gentoo", "island": {"Biscoe", "Dream"}, "bill_length_mm": (45, 50),
             "when": (pd.Timestamp("2020-03-01"), None)}
    forbid = [{"sex": "male", "body_mass_g": (None, 5000)}]
    out, p = synth.sample(400, given=given, forbid=forbid, random_state=0, return_probability=True)
    assert list(out.columns) == list(df.columns) and out["when"].dtype == df["when"].dtype
    assert (out.species == "Gentoo").all() and out.island.isin(["Biscoe", "Dream"]).all()
    assert out.bill_length_mm.between(45, 50).all() and (out["when"] >= pd.Timestamp("2020-03-01")).all()
    assert not ((out.sex == "male") & (out.body_mass_g <= 5000)).any()
    assert 0 < p < 1
    # p is p(condition | species) under the model: the same number the model itself gives, a conditioned
    # column with a missing-indicator node (penguins have missing cells) being observed
    ind = synth.missing_indicators_
    assert {"bill_length_mm", "sex", "body_mass_g"} <= set(ind)
    model_given = {**{k: v for k, v in given.items() if k not in ("species", "when")},
                   "when": (pd.Timestamp("2020-03-01").value / 1e9, None),
                   **{ind[k]: False for k in given if k in ind}}
    model_forbid = [{**f, **{ind[k]: False for k in f if k in ind}} for f in forbid]
    # the model the rows are drawn from: a structure on its observed support (Synthesizer(support="observed"))
    drawn = synth.model_ if synth.latent_ is not None else observed_support(synth.model_)
    _, _, q = drawn.sample(3, y="Gentoo", given=model_given, forbid=model_forbid, random_state=0,
                           return_probability=True, **({} if synth.latent_ is None else {"latent": synth.latent_}))
    np.testing.assert_allclose(p, q, rtol=1e-12)
    # a forbidden combination holds only where its cells are observed: rows with sex missing may be light
    free, _ = synth.sample(2000, forbid=forbid, random_state=3, return_probability=True)
    assert not ((free.sex == "male") & (free.body_mass_g <= 5000)).any()
    assert (free.sex.isna() & (free.body_mass_g <= 5000)).any()
    with pytest.raises(ValueError, match="target"):
        synth.sample(5, given={"species": (1, 2)})
    two, p2 = synth.sample(300, given={"species": {"Gentoo", "Chinstrap"}, "island": {"Dream"}}, random_state=1,
                           return_probability=True)
    assert two.species.isin(["Gentoo", "Chinstrap"]).all() and (two.island == "Dream").all() and 0 < p2 < 1
    with pytest.raises(ValueError, match="probability 0 under the model"):
        synth.sample(5, given={"island": {"Dream"}}, forbid=[{"island": "Dream"}])


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb"])
def test_per_row_values_with_a_set(tiny, structure):
    """Per-row given values and a set: every row its own condition, its own probability."""
    X, y = tiny
    m = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X, y)
    x0 = np.array(["a", "b", "c", "a"] * 500)
    S, ys, p = m.sample(given={"x0": x0, "x2": {"s", "t"}}, random_state=4, parameter_uncertainty=False,
                        return_probability=True)
    assert (S.x0.to_numpy() == x0).all() and S.x2.isin(["s", "t"]).all() and p.shape == (x0.size,)
    grid, joint, _ = _exact(m, X, lambda g: g.x0 == g.x0)
    for v in "abc":
        keep = ((grid.x0 == v) & grid.x2.isin(["s", "t"])).to_numpy()
        np.testing.assert_allclose(p[x0 == v], joint[keep].sum(), rtol=1e-9)
        # the rows given x0 = v follow p(x1, x2, x3, y | x0 = v, x2 in {s, t})
        rows = x0 == v
        assert _chi2(m, X, S[rows], ys[rows], grid, joint, keep) > 0.01
    # a forbidden entry on a column given per-row values is refused
    with pytest.raises(ValueError, match="forbid names a column that given holds per-row values"):
        m.sample(given={"x0": x0}, forbid=[{"x0": "a"}])


def test_value_only_condition_returns_its_probability(tiny):
    X, y = tiny
    for structure in ("naive", "tan"):
        m = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X, y)
        S, _, p = m.sample(50, given={"x1": "v", "x3": "m"}, random_state=0, return_probability=True)
        grid, joint, keep = _exact(m, X, lambda g: (g.x1 == "v") & (g.x3 == "m"))
        np.testing.assert_allclose(p, joint[keep].sum(), rtol=1e-9)
        assert ((S.x1 == "v") & (S.x3 == "m")).all()


@pytest.mark.parametrize("forbid", [None, [{0: (2, 3)}, {0: 0}]])
def test_tan_count_nodes_follow_the_exact_conditional(forbid):
    """A TAN over two count columns (x1's parent is x0's bin): a range on x1 (and forbidden x0 values, or x0
    free: drawn within its bin), drawn rows against the exact conditional of the model enumerated over
    (class, x0, x1)."""
    rng = np.random.default_rng(5)
    y = rng.choice([0, 1], 1500)
    x0 = rng.poisson(np.where(y == 0, 2.0, 6.0))
    x1 = rng.poisson(1.0 + x0 / 2.0)
    m = bayesnb.NaiveBayes(structure="tan").fit(np.column_stack([x0, x1]).astype(float), y)
    mm = m._mixed
    assert [nd.family.name for nd in mm.nodes] == ["poisson", "poisson"] and mm.parents[1] == (0,)
    v = np.arange(60)
    lam = [np.asarray(p.a) / np.asarray(p.b) for p in mm.posteriors]  # plug-in rates per context
    B0 = mm.nodes[0].n_states
    s0 = np.searchsorted(mm.nodes[0].edges, v, side="right")  # x0's bin: x1's parent state
    w = np.exp(m.posterior_.class_log_prior)
    joint = np.zeros((2, v.size, v.size))
    for k in range(2):
        p0 = stats.poisson.pmf(v, lam[0][k, 0])
        p1 = stats.poisson.pmf(v[None, :], lam[1][k * B0 + s0, 0][:, None])  # (x0, x1)
        joint[k] = w[k] * p0[:, None] * p1
    allowed = ((v[None, :] >= 1) & (v[None, :] <= 4)) & ~np.isin(v, [0, 2, 3] if forbid else [])[:, None]
    exact = np.where(allowed[None], joint, 0.0)
    S, ys, p = m.sample(6000, given={1: (1, 4)}, forbid=forbid, random_state=1, parameter_uncertainty=False,
                        return_probability=True)
    a, b = np.asarray(S[:, 0], float).astype(int), np.asarray(S[:, 1], float).astype(int)
    assert allowed[a, b].all()
    counts = np.zeros_like(exact)
    np.add.at(counts, (np.searchsorted(m.classes_, ys), a, b), 1)
    probs = exact / exact.sum()
    big = probs * len(ys) >= 5  # cells with an expected count of 5 or more, the rest pooled
    observed = np.append(counts[big], counts[~big].sum())
    expected = np.append(probs[big], probs[~big].sum()) * len(ys)
    assert stats.chisquare(observed, expected).pvalue > 0.01
    assert 0 < p < 1


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_a_class_per_row(tiny, structure):
    """``y`` one label per row: each row's condition holds given its class, ``p`` is ``p(condition | y_i)``."""
    X, y = tiny
    m = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X, y)
    labels = np.array(["p", "q", "q"] * 200)
    S, ys, p = m.sample(y=labels, given={"x3": {"n"}}, forbid=[{"x1": "u"}], random_state=6, return_probability=True)
    assert (ys == labels).all() and (S.x3 == "n").all() and (S.x1 != "u").all()
    grid, joint, keep = _exact(m, X, lambda g: (g.x3 == "n") & (g.x1 != "u"))
    for k, label in enumerate(m.classes_):
        np.testing.assert_allclose(p[labels == label], joint[keep, k].sum() / joint[:, k].sum(), rtol=1e-9)


def test_per_row_values_with_missing_cells_and_a_range(gauss):
    X, y = gauss
    m = bayesnb.NaiveBayes(features={0: Gaussian(), 1: Gaussian()}).fit(X, y)
    given = {1: pd.array([1.0, pd.NA, 3.0, pd.NA] * 50, dtype="Float64"), 0: (-1.0, 1.0)}
    S, _, p = m.sample(given=given, random_state=0, return_probability=True)
    v = np.asarray(S[:, 1], dtype=float)
    assert p.shape == (200,) and ((S[:, 0] >= -1) & (S[:, 0] <= 1)).all()
    assert (v[::4] == 1.0).all() and (v[2::4] == 3.0).all()
    assert np.allclose(p[1::2], p[1]) and 0 < p[1] < 1  # rows with no value: the range's probability alone


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_a_set_of_classes(tiny, structure):
    X, y = tiny
    m = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X, y)
    kw = dict(given={"x0": {"b", "c"}}, random_state=0, parameter_uncertainty=False, return_probability=True)
    _, ys, p = m.sample(400, y={"q"}, **kw)
    assert (ys == "q").all() and np.isclose(p, m.sample(5, y="q", **kw)[2], rtol=1e-12)
    _, _, p_all = m.sample(5, y={"p", "q"}, **kw)
    assert np.isclose(p_all, m.sample(5, **kw)[2], rtol=1e-12)  # every class: p(condition)
    with pytest.raises(ValueError, match="not in classes"):
        m.sample(5, y={"r"})
    with pytest.raises(ValueError, match="empty set of classes"):
        m.sample(5, y=set())


@pytest.mark.parametrize("case", range(len(CASES)))
def test_kdb_draws_by_elimination_in_small_batches_follow_the_exact_conditional(tiny, case, monkeypatch):
    """The same draws and probability with every missing pattern summed out by variable elimination
    (bayesnb/structure/elimination.py), in batches of a few rows."""
    X, y = tiny
    m = bayesnb.NaiveBayes(structure="kdb", k=2, edge_score="mi").fit(X, y)  # every edge kept: two parents
    assert max(len(p) for p in m.structure_.values()) >= 2  # not a forest: enumeration or elimination
    monkeypatch.setattr(VE, "ENUMERATE_UP_TO", 1)
    monkeypatch.setattr(VE, "_BATCH_ENTRIES", 64)
    _check_case(m, X, case)
