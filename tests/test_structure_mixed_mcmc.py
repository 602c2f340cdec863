"""NUTS and the structure plot on a mixed structure (NaiveBayes(structure=...) on categorical + numeric columns)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cases import check_structured_mcmc_refusals

import bayesnb
from bayesnb.structure import engine as MX
from bayesnb.datasets import load_penguins
from bayesnb.inference.numpyro_model import estimator_inputs, structure_inputs


def _penguins(cols=("sex", "bill_depth_mm", "flipper_length_mm")):
    """Penguins' columns ``cols`` and species; the default's TAN is bill depth <- sex <- flipper length."""
    d = load_penguins()
    return d[list(cols)], d["species"]


def _model_terms(m, X, y):
    """The NumPyro model's inputs for ``m`` on (X, y), as ``run_mcmc`` builds them."""
    post, model = m.posterior_, m._mixed
    yc = np.searchsorted(post.classes, np.asarray(y))
    data = MX.node_data(model.nodes, m._encode_blocks(m._check_X(X, reset=False), post)[0])
    counted = MX.fit_nodes(model.nodes, data, yc, np.ones(len(yc)), len(post.classes), model.parents)
    return structure_inputs(post, model, data, yc), counted


def test_model_counts_the_rows_of_the_exact_fit_and_its_sites_follow_the_contexts():
    X, y = _penguins()
    X = X.copy()
    X.loc[X.index[:7], "flipper_length_mm"] = np.nan  # rows left out of flipper length's child (sex)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    assert m.structure_["sex"] == ("flipper_length_mm",) and m.structure_["bill_depth_mm"] == ("sex",)
    (spec, priors, data), counted = _model_terms(m, X, y)
    # unit weights: the statistics NUTS sees are those the exact posterior was updated with
    for a, b in zip(counted.stats, m._mixed.stats):
        for fa, fb in zip(a, b):
            np.testing.assert_allclose(np.asarray(fa, float), np.asarray(fb, float), rtol=1e-12)
    K = len(m.classes_)
    assert spec.fixed_pi is False and data["class_count"].tolist() == np.bincount(
        np.searchsorted(m.classes_, y), minlength=K).tolist()
    for j, (nd, pa) in enumerate(zip(m._mixed.nodes, m._mixed.parents)):
        C = K * int(np.prod([m._mixed.nodes[p].n_states for p in pa]))  # one set per (class, parents' states)
        for arr in (*priors["blocks"][j].values(), *data["stats"][j].values()):  # per context, or a scalar total
            assert np.ndim(arr) == 0 or np.shape(arr)[:2] == (C, 1), (j, np.shape(arr))
        for got, want in zip(data["stats"][j].values(), nd.family.numpyro_stats_args(counted.stats[j]).values()):
            np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-6)
        b = spec.blocks[j]
        assert type(b.code.family) is type(nd.family) and b.context_plate == f"context_{j}"
        assert b.parent_states == (C // K if pa else 0)


def test_the_likelihood_forms_agree_and_are_the_exact_engines_on_complete_rows():
    """Labelled rows through statistics or one factor each: the same log-likelihood at the plug-in
    (cells missing: a feature adds its term when it and its parents are observed, in both forms);
    on complete rows it is the exact engine's ``sum_i log pi_y + log p(x_i | y_i)``."""
    from scipy.special import logsumexp

    from bayesnb.inference.numpyro_model import model_log_likelihood
    from bayesnb.structure import infer as SI

    X, y = _penguins(("island", "sex", "bill_depth_mm", "flipper_length_mm", "body_mass_g"))
    X = X.copy()
    X.loc[X.index[::9], "sex"] = np.nan  # a parent missing now and then
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    assert any(m.structure_.values())
    lls = {}
    for form in ("suffstats", "rows"):
        spec, priors, data = estimator_inputs(m, X, y, likelihood=form)
        lls[form] = model_log_likelihood(spec, priors, data, m._point_sites(spec, priors))
    assert lls["rows"] == pytest.approx(lls["suffstats"], rel=2e-5)
    full = X.notna().all(axis=1).to_numpy()
    Xc, yc = X[full], y[full]
    spec, priors, data = estimator_inputs(m, Xc, yc, likelihood="rows")
    ll = model_log_likelihood(spec, priors, data, m._point_sites(spec, priors))
    post, model = m.posterior_, m._mixed
    jll = SI.log_likelihood(model, MX.node_data(model.nodes, m._encode_blocks(m._check_X(Xc, reset=False),
                                                                              post)[0])) + post.class_log_prior
    codes = np.searchsorted(m.classes_, np.asarray(yc))
    assert ll == pytest.approx(jll[np.arange(len(codes)), codes].sum(), rel=2e-5)
    # the unlabelled factor is its log-sum-exp over the classes (every row unlabelled)
    spec, priors, data = estimator_inputs(m, Xc, [None] * len(Xc))
    ll = model_log_likelihood(spec, priors, data, m._point_sites(spec, priors))
    assert ll == pytest.approx(logsumexp(jll, axis=1).sum(), rel=2e-5)


def test_run_mcmc_refuses_what_it_does_not_do():
    X, y = _penguins()
    check_structured_mcmc_refusals(bayesnb.NaiveBayes(structure="tan").fit(X, y), X, y)


@pytest.mark.slow  # compiles a new NUTS sampler (cached by the persistent JAX cache afterwards)
def test_nuts_agrees_with_exact_on_a_mixed_tan_and_not_with_another_posterior():
    X, y = _penguins()
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    assert m.structure_ == {"sex": ("flipper_length_mm",), "bill_depth_mm": ("sex",), "flipper_length_mm": ()}
    exact = m.sample_posterior(4000, random_state=0)
    mcmc = m.run_mcmc(X, y, num_warmup=300, num_samples=600, random_state=0, target_accept_prob=0.9)
    post = mcmc["posterior"]
    assert set(post.data_vars) == set(exact["posterior"].data_vars)
    assert post["mu_bill_depth_mm"].dims == ("chain", "draw", "class", "sex_state")
    assert post["theta_sex"].dims == ("chain", "draw", "class", "flipper_length_mm_state", "sex_category")
    assert int(mcmc["sample_stats"]["diverging"].values.sum()) == 0
    table = bayesnb.compare_posteriors(exact, mcmc, verbose=False, rhat_threshold=1.1)
    assert table.attrs["ok"], table.attrs["verdict"]
    moments = bayesnb.compare_posteriors(m._exact_moments(), mcmc, verbose=False, rhat_threshold=1.1)
    assert moments.attrs["ok"], moments.attrs["verdict"]
    # negative controls: the same structure's exact posterior under another prior (categorical
    # smoothing alpha=30), and the numeric child's naive posterior (no parent) in the place of
    # its per-context one, must both be told apart
    other = bayesnb.NaiveBayes(structure="tan", alpha=30.0).fit(X, y)
    assert other.structure_ == m.structure_
    bad = bayesnb.compare_posteriors(other.sample_posterior(4000, random_state=0), mcmc, verbose=False,
                                     rhat_threshold=1.1)
    assert not bad.attrs["ok"] and "theta_sex" in set(bad.loc[bad["z"].abs() > bad.attrs["limit"], "variable"])
    naive = bayesnb.NaiveBayes().fit(X, y)  # the same families (features="auto"), no parents
    naive = naive.sample_posterior(4000, random_state=0)["posterior"]
    swapped = exact.copy()
    ds = swapped["posterior"].to_dataset()
    for v in ("mu", "sigma2"):  # bill_depth_mm's family (LogNormal) has mu and sigma2
        (name,) = [n for n in naive.data_vars if n.startswith(f"{v}_") and "bill_depth_mm" in
                   naive[n].coords[naive[n].dims[-1]].values]
        one = naive[name].sel({naive[name].dims[-1]: "bill_depth_mm"}).values  # (1, 4000, K)
        ds[f"{v}_bill_depth_mm"] = (ds[f"{v}_bill_depth_mm"].dims,
                                    np.broadcast_to(one[..., None], ds[f"{v}_bill_depth_mm"].shape).copy())
    swapped["posterior"] = ds
    worse = bayesnb.compare_posteriors(swapped, mcmc, verbose=False, rhat_threshold=1.1)
    assert not worse.attrs["ok"]
    failed = set(worse.loc[worse["z"].abs() > worse.attrs["limit"], "variable"])
    assert failed <= {"mu_bill_depth_mm", "sigma2_bill_depth_mm"} and failed, failed


def test_plot_structure_draws_numeric_nodes_as_ellipses():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import BoxStyle

    X, y = _penguins(("island", "bill_length_mm", "bill_depth_mm", "sex", "body_mass_g"))
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    ax = bayesnb.plot.plot_structure(m, class_label="species")
    assert isinstance(ax.figure, matplotlib.figure.Figure)
    nodes = {t.get_text(): t for t in ax.texts if t.get_gid() == "bayesnb-node"}
    assert set(nodes) == {"species", *X.columns}
    shapes = {n: type(t.get_bbox_patch().get_boxstyle()) for n, t in nodes.items()}
    assert {n for n, s in shapes.items() if s is BoxStyle.Ellipse} == {"bill_length_mm", "bill_depth_mm",
                                                                         "body_mass_g"}
    assert shapes["island"] is shapes["sex"] is BoxStyle.Round
    edges = [c for c in ax.get_children() if getattr(c, "get_gid", lambda: None)() == "bayesnb-edge"]
    n_par = sum(len(p) for p in m.structure_.values())
    assert 1 <= n_par <= X.shape[1] - 1 and len(edges) == X.shape[1] + n_par  # class -> each, and the forest
    # every parent arrow goes from the parent's node to the child's
    pos = {n: t.get_position() for n, t in nodes.items()}
    got = sorted((tuple(np.round(e.xyann, 6)), tuple(np.round(e.xy, 6))) for e in edges)
    want = sorted([(tuple(np.round(pos["species"], 6)), tuple(np.round(pos[c], 6))) for c in X.columns]
                  + [(tuple(np.round(pos[p], 6)), tuple(np.round(pos[c], 6)))
                     for c, pa in m.structure_.items() for p in pa])
    assert got == want
    plt.close("all")


@pytest.mark.slow  # the NUTS sampler of the test above (a persistent-cache hit after it)
def test_cli_mcmc_on_a_saved_mixed_structure(tmp_path, capsys):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    from bayesnb.cli import main

    X, y = _penguins()
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    m.save(tmp_path / "m.bnb")
    csv, out = tmp_path / "penguins.csv", tmp_path / "draws.nc"
    X.assign(species=y).to_csv(csv, index=False)
    assert main(["-q", "mcmc", str(csv), "--model", str(tmp_path / "m.bnb"), "--target", "species", "-o", str(out),
                 "--warmup", "300", "--draws", "600", "--chains", "1", "--seed", "0", "--target-accept", "0.9"]) == 0
    printed = capsys.readouterr().out
    dt = m.run_mcmc(X, y, num_warmup=300, num_samples=600, random_state=0, target_accept_prob=0.9)
    got = xr.open_datatree(out, engine="h5netcdf")["posterior"]
    assert set(got.data_vars) == set(dt["posterior"].data_vars)
    np.testing.assert_allclose(got["mu_bill_depth_mm"].values, dt["posterior"]["mu_bill_depth_mm"].values)
    assert got["mu_bill_depth_mm"].dims == ("chain", "draw", "class", "sex_state")
    assert "AGREE" in printed and "DISAGREE" not in printed


def test_exact_moments_are_those_of_the_exact_draws():
    # a numeric column shifted by a categorical one that is rare outside its class: the edge u <- a pays,
    # and some of u's (class, a) contexts have 0 or 1 rows
    rng = np.random.default_rng(0)
    yv = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.93, yv, rng.integers(0, 3, 300))
    X = pd.DataFrame({"a": np.array(["p", "q", "r"], dtype=object)[a], "u": rng.normal(10 + 2 * yv + 2.5 * a, 1.0),
                      "w": rng.normal(5 + yv, 1.0)})
    y = np.array(["s", "t", "v"], dtype=object)[yv]
    m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    assert m.structure_["u"] == ("a",)
    n = 8000
    draws = m.sample_posterior(n, random_state=0)["posterior"]
    moments = m._exact_moments()
    assert list(moments) == list(draws.data_vars)
    for var, (mean, sd) in moments.items():
        d = draws[var].values[0]  # (n, ...)
        assert mean.shape == sd.shape == d.shape[1:], var
        ok = np.isfinite(sd) & (sd > 0)  # a finite variance: the draws' mean is within 5 standard errors
        assert np.all(np.abs(d.mean(0)[ok] - mean[ok]) < 5 * sd[ok] / np.sqrt(n)), var
    # a (log-)normal variance in a context with 0 or 1 rows (a_n <= 2) has no finite sd, and is left unchecked
    s2 = np.concatenate([sd.ravel() for v, (_, sd) in moments.items() if v.startswith("sigma2_")])
    assert np.isnan(s2).any() and np.isfinite(s2).any()


def test_compare_posteriors_leaves_elements_without_a_finite_variance_unchecked():
    from bayesnb.criticism.diagnostics import datatree_from_layout

    rng = np.random.default_rng(0)
    draws = {"v": rng.normal(0, 1, (1, 2000, 2))}
    draws["v"][0, :, 1] = 3.0 / rng.chisquare(3.0, 2000)  # heavy-tailed: its sd is called undefined below
    dt = datatree_from_layout(draws, {"v": ["e"]}, {"e": ["a", "b"]})
    ok = bayesnb.compare_posteriors({"v": (np.array([0.0, 1.0]), np.array([1.0, np.nan]))}, dt, verbose=False)
    assert ok.attrs["ok"] and "1 element(s) with no finite posterior variance not checked (e.g. v[b])" in \
        ok.attrs["verdict"]
    wrong = bayesnb.compare_posteriors({"v": (np.array([0.5, 1.0]), np.array([1.0, np.nan]))}, dt, verbose=False)
    assert not wrong.attrs["ok"] and wrong.attrs["failed"] == ["v[a]"]
