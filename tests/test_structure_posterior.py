"""Exact posterior draws, NUTS and the structure plot of a structured CategoricalNB (TAN, k-DB)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from cases import check_structured_mcmc_refusals

import bayesnb
from bayesnb.structure import learn as S
from bayesnb.datasets import load_house_votes, load_play_tennis
from bayesnb.structure import engine as MX


def _votes(cols=6):
    d = load_house_votes()
    X = d.drop(columns="party")
    return X.iloc[:, :cols], d["party"]


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_exact_draws_layout_and_means(structure):
    X, y = _votes()
    m = bayesnb.CategoricalNB(structure=structure, k=2).fit(X, y)
    n = 4000
    post = m.sample_posterior(n, random_state=0)["posterior"]
    cats = {c: [str(v) for v in m.categories_[j]] for j, c in enumerate(X.columns)}
    for j, (c, pa) in enumerate(m.structure_.items()):
        v = post[f"theta_{c}"]
        assert v.dims == ("chain", "draw", "class", *(f"{p}_state" for p in pa), f"{c}_category")
        assert list(v[f"{c}_category"].values) == cats[c]
        for p in pa:
            assert list(v[f"{p}_state"].values) == cats[p]
        assert list(v["class"].values) == list(m.classes_)
        draws = v.values[0]
        np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-12)
        mean, sd = draws.mean(0), draws.std(0)
        want = np.exp(MX.log_table(m._mixed, j))  # the fitted table = the posterior mean
        assert want.shape == mean.shape
        assert np.all(np.abs(mean - want) <= 4.5 * sd / np.sqrt(n) + 1e-12)
    counts = m.class_count_ + 1.0
    np.testing.assert_allclose(post["pi"].values[0].mean(0), counts / counts.sum(), atol=4.5 * 0.5 / np.sqrt(n))
    assert post.attrs["structure"] == structure


def test_exact_sd_matches_closed_form():
    X, y = _votes()
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    dt = m.sample_posterior(20000, random_state=1)["posterior"]
    mom = m._exact_moments()
    for var, (mean, sd) in mom.items():
        got = dt[var].values[0].std(0)
        np.testing.assert_allclose(got, sd, rtol=0.05)


def test_naive_structure_draws_are_todays():
    X, y = _votes()
    a = bayesnb.CategoricalNB(structure="naive").fit(X, y).sample_posterior(50, random_state=3)["posterior"]
    b = bayesnb.CategoricalNB().fit(X, y).sample_posterior(50, random_state=3)["posterior"]
    assert set(a.data_vars) == set(b.data_vars) == {"pi", "theta_categorical"}
    for v in a.data_vars:
        np.testing.assert_array_equal(a[v].values, b[v].values)


def test_run_mcmc_refuses_what_it_does_not_do():
    X, y = _votes(4)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    check_structured_mcmc_refusals(m, X, y)
    # naive-only methods that would silently use the naive posterior are refused
    for name in ("coef_", "intercept_", "coef_names_", "coef_draws"):
        assert not hasattr(m, name)
    with pytest.raises(AttributeError) as err:
        m.coef_draws()
    assert "no linear view under its fitted structure 'tan'" in str(err.value.__cause__)
    with pytest.raises(AttributeError, match="no linear view under its fitted structure 'tan'"):
        m.coef_  # a property says why itself
    assert hasattr(bayesnb.CategoricalNB().fit(X, y), "coef_")


def test_plot_structure_tan_arrows_and_labels():
    X, y = _votes(8)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    ax = bayesnb.plot.plot_structure(m)
    d = X.shape[1]
    edges = [c for c in ax.get_children() if getattr(c, "get_gid", lambda: None)() == "bayesnb-edge"]
    labels = [t for t in ax.texts if t.get_gid() == "bayesnb-weight"]
    nodes = [t for t in ax.texts if t.get_gid() == "bayesnb-node"]
    assert len(edges) == d + (d - 1)  # class -> every feature, and the tree's d - 1 edges
    assert len(labels) == d - 1 and len(nodes) == d + 1
    # the labels are the CMI weights the tree was built on
    codes = m._encoded(X)[0]
    cmi = S.conditional_mutual_information(codes, np.searchsorted(m.classes_, y), list(m.n_categories_), 2)
    want = sorted(f"{cmi[j, p]:.3f}" for j, pa in enumerate(m._mixed.parents) for p in pa)
    assert sorted(t.get_text() for t in labels) == want
    naive = bayesnb.plot.plot_structure(bayesnb.CategoricalNB().fit(X, y), edge_labels=True)
    assert not [t for t in naive.texts if t.get_gid() == "bayesnb-weight"]
    import matplotlib.pyplot as plt

    plt.close("all")


def test_plot_structure_kdb_into_given_axes():
    import matplotlib.pyplot as plt

    X, y = _votes(5)
    m = bayesnb.CategoricalNB(structure="kdb", k=2).fit(X, y)
    fig, ax = plt.subplots()
    assert bayesnb.plot.plot_structure(m, ax=ax, edge_labels=False) is ax
    n_par = sum(len(p) for p in m._mixed.parents)
    edges = [c for c in ax.get_children() if getattr(c, "get_gid", lambda: None)() == "bayesnb-edge"]
    assert len(edges) == X.shape[1] + n_par and not [t for t in ax.texts if t.get_gid() == "bayesnb-weight"]
    plt.close(fig)


@pytest.mark.slow  # compiles a new NUTS sampler (cached by the persistent JAX cache afterwards)
def test_nuts_agrees_with_exact_on_play_tennis_tan():
    d = load_play_tennis()
    X, y = d.drop(columns="PlayTennis"), d["PlayTennis"]
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    assert any(m.structure_.values())
    exact = m.sample_posterior(4000, random_state=0)
    # 1,500 draws: at 600 the family-wise verdict false-alarmed on 1 of 8 seeds (an Overcast cell with no
    # count, whose skewed posterior's MCSE is least reliable in a short chain), before and after the
    # flat-vector sampler alike
    mcmc = m.run_mcmc(X, y, num_warmup=300, num_samples=1500, random_state=0)
    assert set(mcmc["posterior"].data_vars) == set(exact["posterior"].data_vars)
    assert int(mcmc["sample_stats"]["diverging"].values.sum()) == 0
    table = bayesnb.compare_posteriors(exact, mcmc, verbose=False, rhat_threshold=1.1)
    assert table.attrs["ok"], table.attrs["verdict"]
    # the NUTS means are those of the fitted tables (posterior means), within a few MC errors
    t = MX.log_table(m._mixed, 1)  # Temperature | Outlook
    got = mcmc["posterior"]["theta_Temperature"].values.mean((0, 1))
    assert np.all(np.abs(got - np.exp(t)) < 0.1)


def test_names_with_slashes_and_a_loaded_model(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)
    a = rng.integers(0, 2, 120)
    X = pd.DataFrame({"a/b": a, "a_b": np.where(rng.random(120) < 0.8, a, 1 - a), "c": rng.integers(0, 3, 120)})
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    post = m.sample_posterior(10, random_state=0)["posterior"]
    assert {"theta_a_b_0", "theta_a_b_1", "theta_c_2"} <= set(post.data_vars)
    m.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb").sample_posterior(10, random_state=0)["posterior"]
    for v in post.data_vars:
        np.testing.assert_array_equal(back[v].values, post[v].values)
