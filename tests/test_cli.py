"""The ``bayesnb`` command line, run as a user would: through a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.datasets import load_house_votes

ROOT = Path(__file__).resolve().parents[1]


def run(*args, cwd=None, timeout=120):
    """Run ``python -m bayesnb ARGS``; returns the CompletedProcess."""
    env = dict(os.environ, PYTHONWARNINGS="ignore", MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "bayesnb", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def votes_csv(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    df = load_house_votes()
    train, test = df.iloc[::2], df.iloc[1::2]
    train.to_csv(d / "train.csv", index=False)
    test.to_csv(d / "test.csv", index=False)
    return d


def test_fit_predict_score(votes_csv):
    d = votes_csv
    r = run("fit", d / "train.csv", "--target", "party", "-o", d / "m.bnb")
    assert r.returncode == 0, r.stderr
    assert "saved model to" in r.stdout and (d / "m.bnb").exists()
    r = run("predict", d / "m.bnb", d / "test.csv", "--proba", "-o", d / "pred.csv")
    assert r.returncode == 0, r.stderr
    pred = pd.read_csv(d / "pred.csv")
    assert list(pred.columns) == ["prediction", "p(democrat)", "p(republican)"]
    np.testing.assert_allclose(pred[["p(democrat)", "p(republican)"]].sum(axis=1), 1.0)
    # the CLI predicts exactly what the Python API predicts
    model = bayesnb.load(d / "m.bnb")
    test = load_house_votes().iloc[1::2]
    np.testing.assert_array_equal(pred["prediction"], model.predict(test.drop(columns="party")))
    acc = np.mean(pred["prediction"].to_numpy() == test["party"].to_numpy())
    r = run("score", d / "m.bnb", d / "test.csv", "--target", "party")
    assert r.returncode == 0, r.stderr
    assert f"accuracy: {acc:.4f}" in r.stdout and acc > 0.85
    r = run("info", d / "m.bnb")
    assert r.returncode == 0 and "NaiveBayes" in r.stdout and "republican" in r.stdout


def test_fit_families_and_alpha(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.poisson(2, 50), "b": rng.poisson(1, 50), "label": rng.choice(["s", "h"], 50)})
    df.to_csv(tmp_path / "counts.csv", index=False)
    from bayesnb.cli import main

    r = run("fit", tmp_path / "counts.csv", "--target", "label", "-o", tmp_path / "multinomial.bnb",
            "--family", "multinomial", "--alpha", "0.5")
    assert r.returncode == 0, r.stderr
    for family in ("bernoulli", "gaussian", "categorical"):
        extra = [] if family == "gaussian" else ["--alpha", "0.5"]
        argv = ["fit", str(tmp_path / "counts.csv"), "--target", "label", "-o", str(tmp_path / f"{family}.bnb"),
                "--family", family, *extra]
        assert main(argv) == 0, family
    assert type(bayesnb.load(tmp_path / "multinomial.bnb")).__name__ == "MultinomialNB"
    assert bayesnb.load(tmp_path / "multinomial.bnb").alpha == 0.5


@pytest.mark.skipif(not hasattr(bayesnb.BaseNB, "impute"), reason="generative impute not in this build")
def test_impute(votes_csv):
    d = votes_csv
    run("fit", d / "train.csv", "--target", "party", "-o", d / "m2.bnb")
    r = run("impute", d / "m2.bnb", d / "test.csv", "-o", d / "filled.csv")
    assert r.returncode == 0, r.stderr
    filled = pd.read_csv(d / "filled.csv", keep_default_na=False)
    before = pd.read_csv(d / "test.csv", na_values=["?"])
    assert (before.drop(columns="party").isna().sum().sum()) > 0
    assert set(np.unique(filled.drop(columns="party").to_numpy())) <= {"y", "n"}


@pytest.mark.skipif(not hasattr(bayesnb.BaseNB, "sample"), reason="generative sample not in this build")
def test_sample(votes_csv):
    d = votes_csv
    run("fit", d / "train.csv", "--target", "party", "-o", d / "m3.bnb")
    r = run("sample", d / "m3.bnb", "-n", 7, "--target", "party", "-o", d / "synth.csv")
    assert r.returncode == 0, r.stderr
    synth = pd.read_csv(d / "synth.csv")
    assert len(synth) == 7 and "party" in synth.columns and synth.shape[1] == 17


@pytest.mark.parametrize("args, message", [
    (["fit", "no-such.csv", "--target", "y", "-o", "m.bnb"], "no such file"),
    (["fit", "{bad}", "--target", "y", "-o", "m.bnb"], "cannot read as a table"),
    (["fit", "{votes}", "--target", "nope", "-o", "m.bnb"], "no column 'nope'"),
    (["fit", "{votes}", "--target", "party", "-o", "m.bnb", "--alpha", "-1"], "--alpha"),
    (["fit", "{votes}", "--target", "party", "-o", "m.bnb", "--family", "gaussian"], "must be numeric"),
    (["fit", "{votes}"], "required"),
    (["predict", "{votes}", "{votes}"], "not a bayesnb model file"),
    (["predict", "{truncated}", "{votes}"], "truncated or corrupted"),
    (["score", "{model}", "{votes}", "--target", "nope"], "no column 'nope'"),
    (["frobnicate"], "invalid choice"),
])
def test_user_mistakes_are_one_line_exit_2(args, message, votes_csv, tmp_path, capsys, monkeypatch):
    d = votes_csv
    (tmp_path / "bad.csv").write_bytes(b"\x00\xff\xfe garbage \x00\n\"unterminated")
    model = d / "mm.bnb"
    if not model.exists():
        assert run("fit", d / "train.csv", "--target", "party", "-o", model).returncode == 0
    data = model.read_bytes()
    (tmp_path / "trunc.bnb").write_bytes(data[: len(data) // 3])
    subs = {"{votes}": str(d / "train.csv"), "{bad}": str(tmp_path / "bad.csv"),
            "{model}": str(model), "{truncated}": str(tmp_path / "trunc.bnb")}
    argv = [subs.get(a, a) for a in args]
    monkeypatch.chdir(tmp_path)
    if args[0] in ("fit", "predict") and "{votes}" in args and message.startswith(("not a", "no column")):
        # a couple of cases go through a real subprocess (exit status, stderr, no traceback)
        r = run(*argv, cwd=tmp_path)
        code, err = r.returncode, r.stderr
    else:  # the rest in-process: same main(), much faster
        from bayesnb.cli import main

        code = main(argv)
        err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and message in lines[0] and lines[0].startswith("bayesnb")


def test_help(capsys):
    from bayesnb.cli import main

    r = run("fit", "--help")
    assert r.returncode == 0 and "usage: bayesnb fit" in r.stdout and "--target" in r.stdout
    for cmd in ["", "demo", "predict", "score", "info", "impute", "sample"]:
        if cmd in ("impute", "sample") and not hasattr(bayesnb.BaseNB, cmd):
            continue
        assert main(([cmd] if cmd else []) + ["--help"]) == 0
        assert "usage: bayesnb" in capsys.readouterr().out


def test_console_script_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'bayesnb = "bayesnb.cli:main"' in text


def test_demo_quick(tmp_path):
    out = tmp_path / "report"
    r = run("demo", "--quick", "--out", out, timeout=170)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "[1/8]" in r.stdout and "[8/8]" in r.stdout
    report = (out / "report.txt").read_text()
    for needle in ("cross-validated accuracy", "scikit-learn", "log-odds", "physician-fee-freeze",
                   "Most unusual members"):
        assert needle in report
    if hasattr(bayesnb.BaseNB, "impute"):
        assert "filled 392 missing votes" in report
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert {"reliability.png", "log_odds.png", "class_conditionals.png"} <= set(pngs)


def test_fit_minus_one_labels_are_classes_and_empty_labels_need_drop_unlabelled(tmp_path):
    """SVM-light labels {-1, +1} are two classes; a row with no label is an error or, asked, left out."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    df["label"] = np.where(np.arange(40) % 2 == 0, -1, 1)
    df.to_csv(tmp_path / "svm.csv", index=False)
    r = run("fit", tmp_path / "svm.csv", "--target", "label", "-o", tmp_path / "svm.bnb")
    assert r.returncode == 0, r.stderr
    model = bayesnb.load(tmp_path / "svm.bnb")
    assert model.classes_.tolist() == [-1, 1] and not hasattr(model, "em_objective_")
    np.testing.assert_array_equal(model.class_count_, [20, 20])
    df["label"] = df["label"].astype(object)
    df.loc[:4, "label"] = None  # written as empty cells
    df.to_csv(tmp_path / "some_empty.csv", index=False)
    r = run("fit", tmp_path / "some_empty.csv", "--target", "label", "-o", tmp_path / "e.bnb")
    assert r.returncode != 0 and "5 row(s) have no 'label' label" in r.stderr and "--drop-unlabelled" in r.stderr
    r = run("fit", tmp_path / "some_empty.csv", "--target", "label", "-o", tmp_path / "e.bnb", "--drop-unlabelled")
    assert r.returncode == 0, r.stderr
    dropped = bayesnb.load(tmp_path / "e.bnb")
    assert dropped.classes_.tolist() == [-1, 1] and dropped.class_count_.sum() == 35
