"""The CLI's outliers and posterior subcommands against the Python API on bundled data,
the exit codes in ``bayesnb --help`` and the global ``--quiet``."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import EXIT_CODES, main
from bayesnb.cli import files as cli_io
from bayesnb.cli.posterior import COLUMNS, hdi
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.inference.draws import posterior_moments


@pytest.fixture(scope="module")
def votes(tmp_path_factory):
    """House votes exported by the CLI and a model fitted on them by the CLI."""
    d = tmp_path_factory.mktemp("votes")
    assert main(["-q", "datasets", "export", "house_votes", "-o", str(d / "votes.csv")]) == 0
    assert main(["-q", "fit", str(d / "votes.csv"), "--target", "party", "-o", str(d / "votes.bnb")]) == 0
    return d


def test_outliers_equal_python_api(votes, tmp_path, capsys):
    out = tmp_path / "scored.csv"
    assert main(["outliers", str(votes / "votes.bnb"), str(votes / "votes.csv"), "-o", str(out),
                 "--contamination", "0.1", "--target", "party"]) == 0
    printed = capsys.readouterr().out
    df = load_house_votes()
    X = df.drop(columns="party")
    model = bayesnb.load(votes / "votes.bnb")
    det = bayesnb.NBOutlierDetector(model, contamination=0.1, range_tails=False, statistic="density").fit(X)
    got = pd.read_csv(out)
    assert list(got.columns) == [*df.columns, "log_density", "outlier"]
    assert (got["party"] == df["party"]).all()
    np.testing.assert_allclose(got["log_density"], model.score_samples(X), rtol=1e-12)
    expected = det.predict(X) == -1
    assert (got["outlier"].to_numpy() == expected).all()
    assert 0 < expected.sum() < len(X)
    assert printed.startswith(f"{int(expected.sum())} of {len(X)} rows flagged as outliers")


def test_outliers_of_a_saved_detector(tmp_path, capsys):
    X = load_penguins().drop(columns=["species"])
    det = bayesnb.NBOutlierDetector(contamination=0.3).fit(X.iloc[:150])  # range tails on the first 150 rows
    det.save(tmp_path / "det.bnb")
    new = X.iloc[150:].assign(body_mass_g=lambda d: d["body_mass_g"] * np.where(np.arange(len(d)) % 7, 1, 10))
    new.to_csv(tmp_path / "new.csv", index=False)
    assert main(["outliers", str(tmp_path / "det.bnb"), str(tmp_path / "new.csv")]) == 0  # CSV on stdout
    cap = capsys.readouterr()
    got = pd.read_csv(StringIO(cap.out))
    back = pd.read_csv(tmp_path / "new.csv")  # the table as the CLI read it
    # the default detector scores by its cells' surprise, written as "score" (not log p(x))
    assert det.statistic_ == "surprise" and "log_density" not in got.columns
    np.testing.assert_allclose(got["score"], det.score_samples(back), rtol=1e-12)
    assert (got["outlier"].to_numpy() == (det.predict(back) == -1)).all() and got["outlier"].any()
    assert "the detector's threshold (contamination 0.3)" in cap.err
    # --contamination recalibrates on DATA's scores; a bad one is a usage error
    assert main(["-q", "outliers", str(tmp_path / "det.bnb"), str(tmp_path / "new.csv"), "--contamination", "0.5",
                 "-o", str(tmp_path / "o.csv")]) == 0
    scores = det.score_samples(back)
    assert (pd.read_csv(tmp_path / "o.csv")["outlier"].to_numpy() == (scores < np.median(scores))).all()
    assert main(["-q", "outliers", str(tmp_path / "det.bnb"), str(tmp_path / "new.csv"), "--contamination", "0.6",
                 "-o", str(tmp_path / "o2.csv")]) == 2
    assert "--contamination must be in (0, 0.5]; received 0.6" in capsys.readouterr().err
    # only 'bayesnb outliers' reads a detector file
    assert main(["predict", str(tmp_path / "det.bnb"), str(tmp_path / "new.csv")]) == 2
    assert "holds an NBOutlierDetector" in capsys.readouterr().err


def test_outliers_use_an_old_files_stored_threshold(tmp_path, capsys):
    df = load_house_votes()
    X = df.drop(columns="party")
    model = bayesnb.CategoricalNB().fit(X, df["party"])
    old = bayesnb.NBOutlierDetector(model, contamination=0.3, range_tails=False, statistic="density").fit(X.iloc[:100])
    model.offset_, model.contamination_ = old.offset_, 0.3  # what set_outlier_threshold of an older bayesnb stored
    model.save(tmp_path / "m.bnb")
    X.iloc[200:].to_csv(tmp_path / "new.csv", index=False)
    assert main(["outliers", str(tmp_path / "m.bnb"), str(tmp_path / "new.csv")]) == 0  # CSV on stdout
    cap = capsys.readouterr()
    got = pd.read_csv(StringIO(cap.out))
    assert (got["outlier"].to_numpy() == (old.predict(X.iloc[200:]) == -1)).all()
    assert "stored in the model file by an older bayesnb's set_outlier_threshold (contamination 0.3)" in cap.err
    # an explicit --contamination recalibrates on DATA
    assert main(["outliers", str(tmp_path / "m.bnb"), str(tmp_path / "new.csv"), "--contamination", "0.1",
                 "-o", str(tmp_path / "o.csv")]) == 0
    assert "the 0.1 quantile of" in capsys.readouterr().out


def test_outliers_errors(votes, tmp_path, capsys):
    args = ["outliers", str(votes / "votes.bnb"), str(votes / "votes.csv"), "-o", str(tmp_path / "o.csv")]
    assert main([*args, "--target", "crime"]) == 2
    assert "one of the model's feature columns" in capsys.readouterr().err
    assert main([*args, "--target", "nope"]) == 2
    assert "no column 'nope'" in capsys.readouterr().err


def test_posterior_table_means_match_the_model(votes, tmp_path, capsys):
    out = tmp_path / "post.csv"
    assert main(["posterior", str(votes / "votes.bnb"), "-o", str(out), "--draws", "4000", "--seed", "5"]) == 0
    assert "wrote 66 parameter rows" in capsys.readouterr().out
    got = pd.read_csv(out, keep_default_na=False)
    assert tuple(got.columns) == COLUMNS
    model = bayesnb.load(votes / "votes.bnb")
    # exactly the draws of model.sample_posterior with the same seed
    ds = model.sample_posterior(4000, random_state=5)["posterior"]
    theta = got[got["parameter"] == "theta"]
    expect = ds["theta_categorical"].mean(("chain", "draw"))
    for r in theta.itertuples():
        assert r.mean == pytest.approx(float(expect.sel({"class": r[3], "feature": r.feature,
                                                         "category": r.value})), rel=1e-12)
    # and the closed-form posterior means to Monte Carlo error
    mom = posterior_moments(model.posterior_)
    mean, sd = mom["theta_categorical"]
    K, d, V = mean.shape
    assert len(theta) == K * d * V
    cls = {c: k for k, c in enumerate(model.classes_)}
    feats = {f: j for j, f in enumerate(model.feature_names_in_)}
    cats = {v: i for i, v in enumerate(model.posterior_.blocks[0].family.value_labels(model.posterior_.blocks[0].state)[0])}
    for r in theta.itertuples():
        k, j, v = cls[r[3]], feats[r.feature], cats[r.value]
        assert abs(r.mean - mean[k, j, v]) < 5 * sd[k, j, v] / np.sqrt(4000)
        assert r.sd == pytest.approx(sd[k, j, v], rel=0.1)
        assert r[8] < r.mean < r[9]
    pi = got[got["parameter"] == "pi"]
    np.testing.assert_allclose(pi["mean"], mom["pi"][0], atol=5 * mom["pi"][1].max() / np.sqrt(4000))


def test_posterior_mixed_blocks_and_stdout(tmp_path, capsys):
    df = load_penguins()
    model = bayesnb.NaiveBayes().fit(df.drop(columns="species"), df["species"])
    model.save(tmp_path / "p.bnb")
    assert main(["posterior", str(tmp_path / "p.bnb"), "--draws", "300"]) == 0


    got = pd.read_csv(StringIO(capsys.readouterr().out), keep_default_na=False)
    mom = posterior_moments(model.posterior_)
    n_expected = sum(int(np.size(m)) for m, _ in mom.values())
    # every parameter element, less the padding of the categorical block (sex has 2 values, island 3) and of
    # the histogram blocks (columns with fewer bins than the block's largest)
    K = len(model.classes_)
    padding = 0
    for b in model.posterior_.blocks:
        labels = b.family.param_value_labels(b.state)
        if labels is not None:
            padding += K * sum(max(map(len, labels)) - len(c) for c in labels)
    assert 3 * K <= padding and len(got) == n_expected - padding
    hist = got[got["block"].str.startswith("histogram")]
    assert hist["value"].str.fullmatch(r"\d+(\.\.\d+)?").all()  # whole-number columns: the bins' integers
    # features="auto" may give histograms of different bins or alpha: one block each
    blocks = set(got["block"])
    assert {"class", "categorical", "lognormal"} < blocks
    assert all(b.startswith("histogram") for b in blocks - {"class", "categorical", "lognormal"})
    assert set(got.loc[got["feature"] == "sex", "value"]) == {"female", "male"}
    assert got[["mean", "sd", "hdi_3%", "hdi_97%"]].notna().all().all()


def test_hdi_is_the_narrowest_94_percent_window():
    rng = np.random.default_rng(0)
    a = rng.gamma(2.0, size=(1000, 3))
    lo, hi = hdi(a)
    s = np.sort(a, axis=0)
    for c in range(3):  # brute force over every window of floor(0.94 n) + 1 draws
        widths = [s[i + 940, c] - s[i, c] for i in range(60)]
        i = int(np.argmin(widths))
        assert (lo[c], hi[c]) == (s[i, c], s[i + 940, c])


def test_posterior_bad_draws(votes, capsys):
    assert main(["posterior", str(votes / "votes.bnb"), "--draws", "1"]) == 2
    assert "--draws must be a whole number >= 2; received 1" in capsys.readouterr().err


def test_help_documents_exit_codes_and_quiet(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "exit status:" in text and "--quiet" in text
    for code in EXIT_CODES:
        assert f"  {code} " in text
    assert set(EXIT_CODES) == {0, 1, 2, 130}


def test_quiet_before_or_after_the_command(votes, tmp_path, capsys):
    for args in (["-q", "posterior"], ["posterior", "--quiet"]):
        assert main([*args, str(votes / "votes.bnb"), "--draws", "10", "-o", str(tmp_path / "p.csv"), "--force"]) == 0
        assert capsys.readouterr().out == ""
    assert main(["posterior", str(votes / "votes.bnb"), "--draws", "10", "-o", str(tmp_path / "p2.csv")]) == 0
    assert "wrote" in capsys.readouterr().out


def test_quiet_fit_prints_nothing_and_still_saves(votes, tmp_path, capsys):
    """``-q fit``: the model file is the output; the summary is shown only without -q."""
    csv = votes / "votes.csv"
    assert main(["-q", "fit", str(csv), "--target", "party", "-o", str(tmp_path / "q.bnb")]) == 0
    assert capsys.readouterr().out == "" and (tmp_path / "q.bnb").stat().st_size > 0
    assert main(["fit", str(csv), "--target", "party", "-o", str(tmp_path / "v.bnb")]) == 0
    out = capsys.readouterr().out
    assert "training accuracy" in out and "saved model to" in out


def test_status_lines_only_on_a_terminal_without_quiet(monkeypatch, capsys):
    """Slow steps say what they do on a terminal's stderr; never into a pipe or a log, never with -q."""
    monkeypatch.setattr(cli_io.sys.stderr, "isatty", lambda: True, raising=False)
    cli_io.status("comparing the tables")
    assert capsys.readouterr().err == "bayesnb: comparing the tables ...\n"
    with cli_io.command_context("bayesnb check", quiet=False):
        cli_io.status("comparing the tables")
    assert capsys.readouterr().err == "bayesnb check: comparing the tables ...\n"
    with cli_io.command_context("bayesnb check", quiet=True):
        cli_io.status("comparing the tables")
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(cli_io.sys.stderr, "isatty", lambda: False, raising=False)
    cli_io.status("comparing the tables")
    assert capsys.readouterr().err == ""
