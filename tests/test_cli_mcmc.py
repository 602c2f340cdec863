"""``bayesnb mcmc`` and ``bayesnb fit --chunksize`` against the Python API on bundled data."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import NaiveBayes, check_marginals, compare_posteriors
from bayesnb.cli import main
from bayesnb.cli import mcmc as cli_mcmc
from bayesnb.datasets import load_house_votes, load_penguins, load_play_tennis
from bayesnb.inference.draws import credible_interval, posterior_moments


@pytest.mark.slow  # one NUTS compile: a few seconds alone, up to a minute on 2 busy cores
def test_mcmc_writes_the_python_api_draws_and_prints_the_comparison(tmp_path, capsys):
    xr = pytest.importorskip("xarray")
    df = load_play_tennis()
    csv, out = tmp_path / "tennis.csv", tmp_path / "draws.nc"
    df.to_csv(csv, index=False)
    args = ["mcmc", str(csv), "--target", "PlayTennis", "-o", str(out), "--draws", "200", "--warmup", "150",
            "--seed", "3", "--rows", "0"]
    assert main(["-q", *args]) == 0
    printed = capsys.readouterr().out
    X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    clf = NaiveBayes().fit(X, y)  # what 'bayesnb fit' fits with the default --family auto
    # the command's default: 4 chains
    dt = clf.run_mcmc(X, y, num_warmup=150, num_samples=200, num_chains=4, random_state=3, progress_bar=False)
    got = xr.open_datatree(out, engine="h5netcdf")
    assert got["posterior"].sizes["chain"] == 4
    assert set(got["posterior"].data_vars) == set(dt["posterior"].data_vars) == {"pi", "theta_categorical"}
    for v in dt["posterior"].data_vars:
        np.testing.assert_array_equal(got["posterior"][v].values, dt["posterior"][v].values)
    assert list(got["posterior"]["class"].values) == ["No", "Yes"]
    np.testing.assert_array_equal(got["sample_stats"]["diverging"].values, dt["sample_stats"]["diverging"].values)
    table = compare_posteriors(posterior_moments(clf.posterior_), dt, verbose=False)
    assert len(table) == 22
    assert cli_mcmc.comparison_text(table, rows=0) in printed  # every element, the API's numbers to 6 digits
    assert table.attrs["verdict"] in printed
    # an existing file is kept unless --force
    before = out.read_bytes()
    assert main(["-q", *args]) == 2
    assert "it exists (pass --force" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_mcmc_user_mistakes_are_one_line_errors(tmp_path, capsys, monkeypatch):
    csv = tmp_path / "tennis.csv"
    load_play_tennis().to_csv(csv, index=False)
    cases = [(["--target", "nope", "-o", str(tmp_path / "d.nc")], "no column 'nope'"),
             (["--target", "PlayTennis", "-o", str(tmp_path / "no" / "d.nc")], "no such folder"),
             (["--target", "PlayTennis", "-o", str(tmp_path / "d.txt")], "expected a .nc (NetCDF) or .zarr"),
             (["--target", "PlayTennis", "-o", str(tmp_path / "d.nc"), "--draws", "0"], "--draws must be >= 1"),
             (["--target", "PlayTennis", "-o", str(tmp_path / "d.nc"), "--target-accept", "1"],
              "--target-accept must be a probability strictly between 0 and 1; received 1.0")]
    real = cli_mcmc.importlib.util.find_spec
    # with a NetCDF writer present or not, these mistakes are found before anything is written
    monkeypatch.setattr(cli_mcmc.importlib.util, "find_spec",
                        lambda name, *a: real("json") if name == "h5netcdf" else real(name, *a))
    for extra, message in cases:
        assert main(["mcmc", str(csv), *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    # no NetCDF writer installed: the error names the package (before any fitting)
    monkeypatch.setattr(cli_mcmc.importlib.util, "find_spec",
                        lambda name, *a: None if name in ("h5netcdf", "netCDF4", "zarr") else real(name, *a))
    for ext, package in ((".nc", "pip install 'bayesnb[netcdf]'"), (".zarr", "pip install zarr")):
        assert main(["mcmc", str(csv), "--target", "PlayTennis", "-o", str(tmp_path / f"d{ext}")]) == 2
        err = capsys.readouterr().err
        assert package in err and len(err.strip().splitlines()) == 1


def _votes_with_late_values():
    """House votes plus a column of numbers whose text value and category 'new' appear only in the last rows."""
    df = load_house_votes()
    late = np.where(np.arange(len(df)) % 2 == 0, "1", "2").astype(object)
    late[-20:] = "new"
    return df.assign(late=late)


@pytest.mark.parametrize("chunksize", [60])
def test_fit_chunksize_equals_the_in_memory_fit(tmp_path, capsys, chunksize):
    df = _votes_with_late_values()
    csv = tmp_path / "votes.csv"
    df.to_csv(csv, index=False)
    assert main(["-q", "fit", str(csv), "--target", "party", "-o", str(tmp_path / "mem.bnb")]) == 0
    assert main(["-q", "fit", str(csv), "--target", "party", "-o", str(tmp_path / "chunks.bnb"),
                 "--chunksize", str(chunksize)]) == 0
    capsys.readouterr()
    mem, chunks = bayesnb.load(tmp_path / "mem.bnb"), bayesnb.load(tmp_path / "chunks.bnb")
    assert len(df) > 4 * chunksize  # several chunks, the value 'new' only in the last ones
    np.testing.assert_array_equal(chunks.classes_, mem.classes_)
    np.testing.assert_allclose(chunks.class_count_, mem.class_count_, rtol=0, atol=1e-12)
    a, b = posterior_moments(mem.posterior_), posterior_moments(chunks.posterior_)
    assert a.keys() == b.keys()
    for k in a:
        for u, v in zip(a[k], b[k]):
            np.testing.assert_allclose(v, u, rtol=1e-12, atol=1e-12, equal_nan=True)
    cats = [list(c) for c in mem.posterior_.blocks[0].state.categories]
    assert cats == [list(c) for c in chunks.posterior_.blocks[0].state.categories]
    assert cats[-1] == ["1", "2", "new"]
    X = pd.read_csv(csv, dtype={"late": object}, na_values="?").drop(columns="party")
    np.testing.assert_array_equal(chunks.predict(X), mem.predict(X))
    np.testing.assert_allclose(chunks.predict_proba(X), mem.predict_proba(X), rtol=1e-12, atol=1e-15)


def test_fit_chunksize_refuses_what_it_cannot_stream(tmp_path, capsys):
    csv = tmp_path / "votes.csv"
    load_house_votes().to_csv(csv, index=False)
    for extra, message in ((["--alpha", "auto"], "--alpha auto"), (["--chunksize", "0"], "positive"),
                           ([], "reads a CSV/TSV file in chunks")):
        data = "-" if not extra else str(csv)
        argv = ["fit", data, "--target", "party", "-o", str(tmp_path / "m.bnb"), *extra]
        if "--chunksize" not in extra:
            argv += ["--chunksize", "50"]
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_every_table_input_reads_stdin(tmp_path, capsys, monkeypatch):
    """Each subcommand that reads a table takes '-' for stdin, with the output of the same file read by name."""
    df = load_house_votes()
    csv = tmp_path / "votes.csv"
    df.to_csv(csv, index=False)
    text = csv.read_text()
    assert main(["-q", "fit", str(csv), "--target", "party", "-o", str(tmp_path / "m.bnb")]) == 0
    model = str(tmp_path / "m.bnb")
    commands = [["fit", "{}", "--target", "party", "-o", str(tmp_path / "s.bnb"), "--force"],
                ["predict", model, "{}", "--proba"],
                ["score", model, "{}", "--target", "party"],
                ["impute", model, "{}"],
                ["outliers", model, "{}", "--target", "party"],
                ["check", model, "{}", "--target", "party", "--replicates", "5"],
                ["evaluate-synthetic", "{}", str(csv)]]
    for argv in commands:
        outs = []
        for data in (str(csv), "-"):
            monkeypatch.setattr("sys.stdin", io.StringIO(text))
            assert main(["-q", *[data if a == "{}" else a for a in argv]]) == 0, argv
            outs.append(capsys.readouterr().out)
        assert outs[0] == outs[1] and outs[0].strip() != "" or argv[0] == "fit", argv
    assert bayesnb.load(tmp_path / "s.bnb").predict_proba(df.drop(columns="party")).tolist() == \
        bayesnb.load(model).predict_proba(df.drop(columns="party")).tolist()


def test_predict_interval_and_check_marginals_equal_the_python_api(tmp_path, capsys):
    df = load_penguins()
    csv, model = tmp_path / "p.csv", tmp_path / "p.bnb"
    df.to_csv(csv, index=False)
    assert main(["-q", "fit", str(csv), "--target", "species", "-o", str(model)]) == 0
    out = tmp_path / "pred.csv"
    assert main(["-q", "predict", str(model), str(csv), "--interval", "0.9", "--draws", "300", "--seed", "4",
                 "-o", str(out)]) == 0
    m = bayesnb.load(model)
    X = df.drop(columns="species")
    lo, hi = credible_interval(m.predict_proba_draws(X, n_draws=300, random_state=4), ci=0.9)
    got = pd.read_csv(out)
    for k, c in enumerate(m.classes_):
        np.testing.assert_allclose(got[f"p({c}) lo"], lo[:, k], rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(got[f"p({c}) hi"], hi[:, k], rtol=1e-12, atol=1e-300)
    assert (lo < hi).any() and (lo <= hi).all()
    assert main(["-q", "predict", str(model), str(csv), "--interval", "1.5"]) == 2
    assert "--interval must be in (0, 1)" in capsys.readouterr().err
    table = tmp_path / "marginals.csv"
    assert main(["check", str(model), str(csv), "--target", "species", "--marginals", "--replicates", "20",
                 "--seed", "2", "-o", str(table)]) == 0
    printed = capsys.readouterr().out
    expected = check_marginals(m, X, df["species"].astype(str), n_replicates=20, random_state=2)
    assert printed.startswith(f"{len(expected)} (class, feature, statistic) checks, 20 replicates")
    pd.testing.assert_frame_equal(pd.read_csv(table), expected.reset_index(drop=True), check_dtype=False)


def test_fit_semi_supervised_equals_the_python_api(tmp_path, capsys):
    df = load_penguins()
    df.loc[df.index % 3 == 0, "species"] = np.nan  # a third of the rows unlabelled
    csv, model = tmp_path / "semi.csv", tmp_path / "semi.bnb"
    df.to_csv(csv, index=False)
    assert main(["fit", str(csv), "--target", "species", "-o", str(model)]) == 2
    assert "--semi-supervised to use them" in capsys.readouterr().err
    assert main(["fit", str(csv), "--target", "species", "-o", str(model), "--semi-supervised"]) == 0
    assert f"training accuracy (the {int(df['species'].notna().sum())} labelled rows)" in capsys.readouterr().out
    X, y = df.drop(columns="species"), df["species"]
    expected = NaiveBayes().fit_semi_supervised(X, y.to_numpy(dtype=object))
    got = bayesnb.load(model)
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.class_count_, expected.class_count_, rtol=1e-12)
    assert not np.allclose(got.class_count_, NaiveBayes().fit(X[y.notna()], y[y.notna()]).class_count_)
    assert main(["fit", str(csv), "--target", "species", "-o", str(model), "--semi-supervised",
                 "--chunksize", "50", "--force"]) == 2
    assert "cannot be combined" in capsys.readouterr().err
