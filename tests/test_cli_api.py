"""The CLI equivalents of the remaining estimator methods against the Python API on bundled data:
``explain`` (feature_log_contributions), ``predict --log/--joint/--each-draw``, ``posterior --coef``
(coef_draws and their credible_interval), ``sample --prior``, ``pool`` and ``mcmc --model/--components``."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import main
from bayesnb.cli import mcmc as cli_mcmc
from bayesnb.cli.explain import LONG_COLUMNS
from bayesnb.cli.posterior import COEF_COLUMNS, INTERCEPT
from bayesnb.datasets import load_penguins, load_play_tennis
from bayesnb.inference.draws import credible_interval

TOL = {"rtol": 1e-12, "atol": 1e-12}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """House votes and penguins exported by the CLI, and a model of each fitted by the CLI."""
    d = tmp_path_factory.mktemp("api")
    for name, target, stem in (("house_votes", "party", "votes"), ("penguins", "species", "penguins")):
        assert main(["-q", "datasets", "export", name, "-o", str(d / f"{stem}.csv")]) == 0
        assert main(["-q", "fit", str(d / f"{stem}.csv"), "--target", target, "-o", str(d / f"{stem}.bnb")]) == 0
    return d


def test_explain_wide_and_long_equal_feature_log_contributions(files, tmp_path, capsys):
    model = bayesnb.load(files / "penguins.bnb")
    X = load_penguins().drop(columns="species")
    assert X.isna().any().any()  # missing cells contribute 0
    C, term = model.feature_log_contributions(X, return_class_term=True)
    assert main(["explain", str(files / "penguins.bnb"), str(files / "penguins.csv"), "-o", str(tmp_path / "w.csv")]) == 0
    assert "wrote the contributions of" in capsys.readouterr().out
    wide = pd.read_csv(tmp_path / "w.csv")
    assert list(wide.columns) == [*X.columns, "class_term", "log_density"]
    np.testing.assert_allclose(wide[list(X.columns)].to_numpy(), C.to_numpy(), **TOL)
    np.testing.assert_allclose(wide["class_term"], term, **TOL)
    np.testing.assert_allclose(wide["log_density"], model.score_samples(X), **TOL)
    np.testing.assert_allclose(wide[list(X.columns)].sum(axis=1) + wide["class_term"], wide["log_density"], rtol=1e-10)
    assert (wide[list(X.columns)].to_numpy()[X.isna().to_numpy()] == 0).all()
    # long, as JSON on stdout
    assert main(["explain", str(files / "penguins.bnb"), str(files / "penguins.csv"), "--long", "--format", "json"]) == 0
    long = pd.DataFrame(json.loads(capsys.readouterr().out))
    assert tuple(long.columns) == LONG_COLUMNS and len(long) == X.size
    np.testing.assert_allclose(long["contribution"], C.to_numpy().ravel(), **TOL)
    assert (long[".row"].to_numpy() == np.repeat(np.arange(1, len(X) + 1), X.shape[1])).all()
    assert (long["feature"] == np.tile(X.columns, len(X))).all()
    assert long["value"].isna().sum() == X.isna().sum().sum()
    assert long["value"].iloc[0] == str(X.iloc[0, 0])


def test_predict_log_joint_and_each_draw_equal_the_api(files, tmp_path, capsys):
    model = bayesnb.load(files / "penguins.bnb")
    X = load_penguins().drop(columns="species")
    args = ["predict", str(files / "penguins.bnb"), str(files / "penguins.csv")]
    assert main([*args, "--log", "--joint", "-o", str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv")
    L, J = model.predict_log_proba(X), model.predict_joint_log_proba(X)
    for k, c in enumerate(model.classes_):
        np.testing.assert_allclose(got[f"log p({c})"], L[:, k], **TOL)
        np.testing.assert_allclose(got[f"log p(x, {c})"], J[:, k], **TOL)
    assert (got["prediction"] == model.predict(X)).all()
    assert main([*args, "--each-draw", "--draws", "7", "--seed", "4", "-o", str(tmp_path / "d.parquet")
                 if _has_pyarrow() else str(tmp_path / "d.csv")]) == 0
    capsys.readouterr()
    d = pd.read_parquet(tmp_path / "d.parquet") if _has_pyarrow() else pd.read_csv(tmp_path / "d.csv")
    P = model.predict_proba_draws(X, n_draws=7, random_state=4)
    assert list(d.columns) == [".draw", ".row", *(f"p({c})" for c in model.classes_)]
    assert len(d) == 7 * len(X)
    for k, c in enumerate(model.classes_):
        np.testing.assert_allclose(d[f"p({c})"].to_numpy().reshape(7, len(X)), P[:, :, k], **TOL)
    assert (d[".draw"].to_numpy().reshape(7, len(X))[:, 0] == np.arange(1, 8)).all()
    assert main([*args, "--each-draw", "--proba"]) == 2
    assert "cannot be combined" in capsys.readouterr().err


def _has_pyarrow():
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def test_posterior_coef_equals_coef_draws_and_their_interval(files, tmp_path, capsys):
    model = bayesnb.load(files / "votes.bnb")
    out = tmp_path / "coef.csv"
    assert main(["posterior", str(files / "votes.bnb"), "--coef", "--draws", "500", "--seed", "2", "--ci", "0.9",
                 "-o", str(out)]) == 0
    assert "log-odds terms" in capsys.readouterr().out
    got = pd.read_csv(out)
    assert tuple(got.columns) == COEF_COLUMNS
    assert list(got["term"]) == [INTERCEPT, *map(str, model.coef_names_)]
    w, b = model.coef_draws(500, random_state=2)
    lo, hi = credible_interval(w, ci=0.9)
    np.testing.assert_allclose(got["lower"].iloc[1:], lo, **TOL)
    np.testing.assert_allclose(got["upper"].iloc[1:], hi, **TOL)
    np.testing.assert_allclose(got["coef"], np.concatenate([model.intercept_, model.coef_[0]]), **TOL)
    np.testing.assert_allclose(got["mean"], np.concatenate([[b.mean()], w.mean(0)]), **TOL)
    np.testing.assert_allclose(got["sd"].iloc[0], b.std(ddof=1), **TOL)
    assert main(["posterior", str(files / "votes.bnb"), "--coef", "--each-draw", "--draws", "5", "--seed", "2"]) == 0
    d = pd.read_csv(StringIO(capsys.readouterr().out))
    w5, b5 = model.coef_draws(5, random_state=2)
    np.testing.assert_allclose(d[INTERCEPT], b5, **TOL)
    np.testing.assert_allclose(d[list(map(str, model.coef_names_))].to_numpy(), w5, **TOL)
    # a model with no linear log odds, and --ci without --coef: one-line errors
    assert main(["posterior", str(files / "penguins.bnb"), "--coef"]) == 2
    err = capsys.readouterr().err
    assert "coef_/intercept_ exist only for binary problems" in err and "Traceback" not in err
    assert main(["posterior", str(files / "votes.bnb"), "--ci", "0.9"]) == 2
    assert "pass --coef" in capsys.readouterr().err


def test_sample_prior_equals_sample_with_prior(files, tmp_path):
    model = bayesnb.load(files / "penguins.bnb")
    assert main(["-q", "sample", str(files / "penguins.bnb"), "--prior", "-n", "40", "--seed", "9",
                 "-o", str(tmp_path / "s.json")]) == 0
    got = pd.DataFrame(json.loads((tmp_path / "s.json").read_text()))
    X, y = model.sample(40, random_state=9, prior=True)
    assert list(got.columns) == ["species", *X.columns]  # the label where it was in the training table
    assert (got["species"] == np.asarray(y)).all()
    for c in X.columns:
        if X[c].dtype.kind == "f":
            np.testing.assert_allclose(got[c].to_numpy(dtype=float), X[c].to_numpy(), **TOL)
        else:
            assert (got[c].astype(str) == X[c].astype(str)).all(), c
    # the prior predictive is not the posterior predictive
    Xs, _ = model.sample(40, random_state=9)
    assert not np.allclose(Xs["bill_length_mm"].to_numpy(dtype=float), X["bill_length_mm"].to_numpy(dtype=float))


def test_pool_equals_rubins_rules_on_cli_imputations(files, tmp_path, capsys):
    imputed = tmp_path / "imp.csv"
    assert main(["-q", "impute", str(files / "penguins.bnb"), str(files / "penguins.csv"), "--strategy", "draw",
                 "-m", "4", "--seed", "1", "-o", str(imputed)]) == 0
    imp = pd.read_csv(imputed)
    rows = []  # the analysis: each mean body mass and bill length, with its squared standard error
    for m, t in imp.groupby(".imputation"):
        for col in ("body_mass_g", "bill_length_mm"):
            rows.append({".imputation": m, "term": col, "estimate": t[col].mean(), "se": t[col].std() / np.sqrt(len(t))})
    table = pd.DataFrame(rows)
    table.to_csv(tmp_path / "est.csv", index=False)
    assert main(["pool", str(tmp_path / "est.csv"), "--std-error", "se", "--dfcom", "343", "-o",
                 str(tmp_path / "pooled.csv")]) == 0
    assert "pooled 2 parameter(s) over 4 imputations" in capsys.readouterr().out
    got = pd.read_csv(tmp_path / "pooled.csv")
    Q = table.pivot(index=".imputation", columns="term", values="estimate")[["body_mass_g", "bill_length_mm"]]
    U = table.pivot(index=".imputation", columns="term", values="se")[["body_mass_g", "bill_length_mm"]] ** 2
    want = bayesnb.pool(Q, U.to_numpy(), dfcom=343).reset_index()
    assert list(got.columns) == list(want.columns)
    assert list(got["parameter"]) == ["body_mass_g", "bill_length_mm"]
    np.testing.assert_allclose(got.drop(columns="parameter").to_numpy(), want.drop(columns="parameter").to_numpy(),
                               **TOL)
    # mistakes: a parameter missing from one imputation, a duplicate, a text estimate
    bad = table.drop(index=3)
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert main(["pool", str(tmp_path / "bad.csv"), "--std-error", "se"]) == 2
    assert "has no row in imputation" in capsys.readouterr().err
    pd.concat([table, table.iloc[:1]]).to_csv(tmp_path / "dup.csv", index=False)
    assert main(["pool", str(tmp_path / "dup.csv"), "--std-error", "se"]) == 2
    assert "appears twice" in capsys.readouterr().err
    one = pd.DataFrame({".imputation": [1, 2], "estimate": [1.0, "x"], "variance": [0.1, 0.1]})
    one.to_csv(tmp_path / "one.csv", index=False)
    assert main(["pool", str(tmp_path / "one.csv")]) == 2
    assert "row 2 has 'x'; expected a number" in capsys.readouterr().err


def test_mcmc_model_option_mistakes(files, tmp_path, capsys, monkeypatch):
    base = ["mcmc", str(files / "votes.csv"), "--model", str(files / "votes.bnb"), "-o", str(tmp_path / "d.nc")]
    real = cli_mcmc.importlib.util.find_spec  # with a NetCDF writer present or not, found before any sampling
    monkeypatch.setattr(cli_mcmc.importlib.util, "find_spec",
                        lambda name, *a: real("json") if name in ("h5netcdf", "h5py") else real(name, *a))
    for extra, message in ((["--alpha", "2"], "--alpha applies when mcmc fits the model"),
                           (["--components", "0"], "--components must be >= 1"),
                           (["--target", "nope"], "no column 'nope'")):
        assert main([*base, *extra]) == 2
        assert message in capsys.readouterr().err
    assert main(["mcmc", str(files / "votes.csv"), "-o", str(tmp_path / "d.nc")]) == 2
    assert "--target (or --model FILE)" in capsys.readouterr().err


@pytest.mark.slow  # one NUTS compile of the latent-class model
def test_mcmc_from_a_saved_model_with_latent_components_equals_run_mcmc(tmp_path, capsys):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    df = load_play_tennis()
    X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    model = bayesnb.NaiveBayes().fit(X, y)
    model.save(tmp_path / "m.bnb")
    df.to_csv(tmp_path / "t.csv", index=False)
    assert main(["-q", "mcmc", str(tmp_path / "t.csv"), "--model", str(tmp_path / "m.bnb"), "--components", "2",
                 "--draws", "60", "--warmup", "60", "--chains", "1", "--seed", "5", "--rows", "0", "-o", str(tmp_path / "d.nc")]) == 0
    printed = capsys.readouterr().out
    dt = bayesnb.load(tmp_path / "m.bnb").run_mcmc(X, np.asarray(y, dtype=object), num_warmup=60, num_samples=60,
                                                   random_state=5, n_components=2, progress_bar=False)
    got = xr.open_datatree(tmp_path / "d.nc", engine="h5netcdf")
    assert set(got["posterior"].data_vars) == {"pi", "w", "theta_categorical"}
    for v in dt["posterior"].data_vars:
        np.testing.assert_array_equal(got["posterior"][v].values, dt["posterior"][v].values)
    summary = cli_mcmc.draws_summary(dt)
    assert not summary.isna().any().any() and len(summary) == 2 + 4 + 2 * 2 * 10
    assert "no closed-form posterior to compare with (a latent-class model)" in printed
    shown = summary.iloc[np.argsort(-summary["r_hat"].to_numpy(), kind="stable")]
    assert shown.to_string(index=False, float_format=lambda v: f"{v:.6g}") in printed


def test_pool_synthetic_equals_the_python_rules_on_cli_synthetic_tables(files, tmp_path, capsys):
    real = pd.read_csv(files / "penguins.csv")
    rows = []  # three synthetic tables of 200 rows, drawn with one posterior sample each (--proper)
    for m in (1, 2, 3):
        out = tmp_path / f"syn{m}.csv"
        assert main(["-q", "synthesize", str(files / "penguins.csv"), "-n", "200", "--latent", "none", "--proper",
                     "--seed", str(m), "-o", str(out)]) == 0, capsys.readouterr().err
        t = pd.read_csv(out)
        rows.append({".imputation": m, "term": "body_mass_g", "estimate": t["body_mass_g"].mean(),
                     "variance": t["body_mass_g"].var() / t["body_mass_g"].notna().sum()})
    pd.DataFrame(rows).to_csv(tmp_path / "est.csv", index=False)
    argv = ["pool", str(tmp_path / "est.csv"), "--synthetic", "proper", "--n-original", str(len(real)),
            "--n-synthetic", "200", "-o", str(tmp_path / "pooled.csv")]
    assert main(argv) == 0
    assert "pooled 1 parameter(s) over 3 synthetic tables" in capsys.readouterr().out
    got = pd.read_csv(tmp_path / "pooled.csv")
    est = pd.DataFrame(rows)
    want = bayesnb.pool_synthetic(est["estimate"].to_numpy(), est["variance"].to_numpy(), n_original=len(real),
                                  n_synthetic=200, method="proper", names=["body_mass_g"]).reset_index()
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got.drop(columns="parameter").to_numpy(dtype=float),
                               want.drop(columns="parameter").to_numpy(dtype=float), **TOL)
    # to the real rows' estimate: T = Ubar k / n, whatever the synthesis
    assert main([*argv[:-2], "--inference", "original", "-o", str(tmp_path / "orig.csv")]) == 0
    capsys.readouterr()
    assert pd.read_csv(tmp_path / "orig.csv")["t"].iloc[0] == pytest.approx(
        est["variance"].mean() * 200 / len(real))
    # options that need --synthetic, or do not apply with it, in one line each
    for extra, says in ((["--n-original", "344"], "apply only with --synthetic"),
                        (["--synthetic", "simple"], "needs --n-original"),
                        (["--synthetic", "simple", "--n-original", "344", "--dfcom", "10"], "does not apply"),
                        (["--synthetic", "simple", "--n-original", "0"], "at least 1")):
        assert main(["pool", str(tmp_path / "est.csv"), *extra]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, err
