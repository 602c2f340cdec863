"""sample(given=...): conditional draws from p(x_rest, y | x_given), checked against brute force."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayesnb import CategoricalNB, MultinomialNB, NaiveBayes
from bayesnb.datasets import load_penguins


@pytest.fixture(scope="module")
def tiny():
    """A tiny categorical table: x0 in {a, b, c}, x1 in {u, v}, x2 in {s, t}; classes p, q."""
    rng = np.random.default_rng(3)
    y = rng.choice(["p", "q"], 24, p=[0.6, 0.4])
    x0 = np.where(y == "p", rng.choice(list("abc"), 24, p=[0.6, 0.3, 0.1]), rng.choice(list("abc"), 24, p=[0.1, 0.3, 0.6]))
    x1 = np.where(y == "p", rng.choice(list("uv"), 24, p=[0.8, 0.2]), rng.choice(list("uv"), 24, p=[0.3, 0.7]))
    x2 = rng.choice(list("st"), 24)
    X = pd.DataFrame({"x0": x0, "x1": x1, "x2": x2})
    return X, y, CategoricalNB(alpha=1.0).fit(X, y)


def _plug_in(X, y, alpha=1.0, class_alpha=1.0):
    """Posterior-mean class weights and per-feature value probabilities, counted by hand."""
    classes = np.unique(y)
    n_k = np.array([(y == k).sum() for k in classes])
    pi = (n_k + class_alpha) / (n_k.sum() + class_alpha * len(classes))
    theta = {}
    for c in X.columns:
        vals = np.unique(X[c])
        counts = np.array([[((y == k) & (X[c] == v)).sum() for v in vals] for k in classes]) + alpha
        theta[c] = (vals, counts / counts.sum(1, keepdims=True))
    return classes, pi, theta


def test_plug_in_conditional_draws_match_the_enumerated_conditional(tiny):
    """p(y, x1 | x0='a') by enumeration of the plug-in joint; 20,000 draws agree (chi-square)."""
    X, y, m = tiny
    classes, pi, theta = _plug_in(X, y)
    a = list(theta["x0"][0]).index("a")
    post_k = pi * theta["x0"][1][:, a]
    post_k /= post_k.sum()
    joint = post_k[:, None] * theta["x1"][1]  # p(k, x1 | x0 = a), (K, 2)
    S, ys = m.sample(20000, given={"x0": "a"}, random_state=0, parameter_uncertainty=False)
    assert (S["x0"] == "a").all()
    obs = np.array([[((ys == k) & (S["x1"] == v)).sum() for v in theta["x1"][0]] for k in classes])
    assert stats.chisquare(obs.ravel(), joint.ravel() * 20000).pvalue > 1e-3
    # and the marginal of x1 alone, sum_k p(k | given) p(x1 | k), within 4 binomial sd
    p_v = joint[:, 1].sum()
    assert abs((S["x1"] == "v").mean() - p_v) < 4 * np.sqrt(p_v * (1 - p_v) / 20000)
    # p(y | x0) is predict_proba's on the partial row (categorical: plug-in = exact predictive)
    part = pd.DataFrame({"x0": ["a"], "x1": [None], "x2": [None]})
    assert np.allclose(m.predict_proba(part)[0], post_k)


def test_shared_draw_class_frequency_is_the_posterior_mean_of_the_conditional(tiny):
    """parameter_uncertainty=True: one draw per call, not updated by the given cells, so over
    calls a row's class frequency is E_theta[p(k | x0, theta)] under the Dirichlet posterior
    (computed here by Monte Carlo from the counts). On this table it is within 0.001 of
    predict_proba's p(k | x0), too close to tell apart by sampling, so only the mean is tested."""
    X, y, m = tiny
    classes, _, _ = _plug_in(X, y)
    rng = np.random.default_rng(1)
    n_k = np.array([(y == k).sum() for k in classes])
    pis = rng.dirichlet(n_k + 1.0, 200000)
    th = np.stack([rng.dirichlet([((y == k) & (X["x0"] == v)).sum() + 1.0 for v in "abc"], 200000)[:, 0]
                   for k in classes], 1)
    w = pis * th
    expected = (w[:, 0] / w.sum(1)).mean()  # E[p(y = p | x0 = a, theta)]
    means = np.array([(m.sample(25, given={"x0": "a"}, random_state=s)[1] == "p").mean() for s in range(250)])
    se = means.std(ddof=1) / np.sqrt(means.size)
    assert abs(means.mean() - expected) < 4 * se


def test_latent_state_given_a_cell_carries_the_dependence():
    """Within class x1 == x2 (two hidden components): given x1, latent sampling gives x2 == x1."""
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(["p", "q"], n)
    x = np.where(rng.integers(0, 2, n) == 0, "a", "b")
    X = pd.DataFrame({"x1": x, "x2": x, "x3": rng.choice(["u", "v"], n)})
    clf = CategoricalNB().fit(X, y)
    fit = clf.fit_latent_class(X, y, n_components=2, random_state=0)
    S, _ = clf.sample(2000, given={"x1": "a"}, latent=fit, random_state=1)
    assert (S["x1"] == "a").all() and (S["x2"] == "a").mean() > 0.95
    naive, _ = clf.sample(2000, given={"x1": "a"}, random_state=1)
    assert (naive["x2"] == "a").mean() < 0.7  # without components, x1 tells little about x2
    vals = np.where(np.arange(400) % 2 == 0, "a", "b")
    S, ys = clf.sample(given={"x1": vals}, y="q", latent=fit, random_state=2)
    assert (ys == "q").all() and (S["x1"] == vals).all() and (S["x2"] == vals).mean() > 0.95


def test_given_on_a_mixed_frame_keeps_values_and_dtypes():
    df = load_penguins()
    X, y = df.drop(columns="species"), df["species"]
    m = NaiveBayes().fit(X, y)
    free, _ = m.sample(300, random_state=0)
    given = pd.DataFrame({"island": np.where(np.arange(300) % 3 == 0, "Dream", "Biscoe"),
                          "bill_length_mm": np.linspace(35.0, 55.0, 300)})
    S, ys = m.sample(given=given, random_state=0)
    assert S.shape == (300, X.shape[1]) and list(S.columns) == list(X.columns)
    assert (S["island"].to_numpy() == given["island"].to_numpy()).all()
    assert (S["bill_length_mm"].to_numpy() == given["bill_length_mm"].to_numpy()).all()
    assert (S.dtypes == free.dtypes).all()
    assert not S.isna().any().any()
    # the class follows the given cells: long bills on Biscoe are Gentoo, no Chinstrap off Dream
    assert (ys[(given["island"] == "Biscoe") & (given["bill_length_mm"] > 50)] == "Gentoo").mean() > 0.9
    assert not (ys[given["island"] == "Biscoe"] == "Chinstrap").any()
    # a given integer column comes back in its training dtype when every cell is given
    S2, _ = m.sample(50, given={"year": 2008, "flipper_length_mm": 200}, random_state=1)
    assert (S2["year"] == 2008).all() and S2["year"].dtype == X["year"].dtype
    assert (S2["flipper_length_mm"] == 200).all() and S2["flipper_length_mm"].dtype == X["flipper_length_mm"].dtype


def test_missing_given_values_are_unconditioned(tiny):
    _, _, m = tiny
    a = m.sample(200, random_state=4)
    b = m.sample(given={"x0": [None] * 200, "x1": np.full(200, np.nan)}, random_state=4)
    pd.testing.assert_frame_equal(a[0], b[0])
    assert (a[1] == b[1]).all()
    vals = np.array(["a", None] * 100, dtype=object)
    S, _ = m.sample(given={"x0": vals}, random_state=5)
    assert (S["x0"][::2] == "a").all() and set(S["x0"][1::2]) == {"a", "b", "c"}
    assert S["x0"].notna().all()


def test_bad_given_is_a_clear_error(tiny):
    _, _, m = tiny
    with pytest.raises(ValueError, match="column 'zz', which is not a feature"):
        m.sample(3, given={"zz": "a"})
    with pytest.raises(ValueError, match="given value 'd' of column 'x0' is not a value of the model"):
        m.sample(3, given={"x0": ["a", "d", "b"]})
    with pytest.raises(ValueError, match="n_samples=5, but given has 3 values"):
        m.sample(5, given={"x0": ["a", "b", "c"]})
    with pytest.raises(ValueError, match="one length"):
        m.sample(given={"x0": ["a", "b", "c"], "x1": ["u", "v"]})
    with pytest.raises(ValueError, match="one length"):
        m.sample(given={"x0": ["a", "b", "c"]}, y=["p", "q"])
    with pytest.raises(TypeError, match="dict"):
        m.sample(3, given=[("x0", "a")])
    df = load_penguins()
    nb = NaiveBayes().fit(df.drop(columns="species"), df["species"])
    with pytest.raises(TypeError, match="given value 'long' of column 'bill_length_mm' is not valid"):
        nb.sample(2, given={"bill_length_mm": [40.0, "long"]})
    counts = np.random.default_rng(0).poisson(3.0, (60, 4))
    mn = MultinomialNB().fit(counts, np.arange(60) % 2)
    with pytest.raises(ValueError, match=r"part of the multinomial block \['x0', 'x1', 'x2', 'x3'\].*all or none"):
        mn.sample(5, given={0: 2, 1: 1})
    with pytest.raises(ValueError, match="an int in"):
        mn.sample(5, given={"x0": 2})
    full = {j: [3, 0] for j in range(4)}
    full[2] = [3, np.nan]  # row 1 gives part of the block
    with pytest.raises(ValueError, match=r"1 row\(s\) \(index 1\)"):
        mn.sample(given=full)
    S, _ = mn.sample(given={j: [3, 0, 1] for j in range(4)}, random_state=0)  # the whole block: fine
    assert (S == np.array([[3] * 4, [0] * 4, [1] * 4])).all()


def test_docs_snippet_runs_as_pasted(capsys):
    text = (Path(__file__).resolve().parents[1] / "docs" / "generative.md").read_text(encoding="utf-8")
    block = text[text.index("**Conditional sampling.**"):]
    start = block.index("```python\n") + len("```python\n")
    code = textwrap.dedent(block[start:block.index("```", start)])
    exec(compile(code, "generative.md", "exec"), {})  # noqa: S102 - the docs snippet, from this repository
    out = capsys.readouterr().out
    assert "Biscoe  female" in out
