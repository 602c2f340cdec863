"""The ``bayesnb`` command line: mostly in-process through ``main([...])``, a few cases through a
fresh process (exit status, stderr, no traceback) as a user would run it: ``python -m bayesnb``, forked
from a server that has imported NumPy, pandas, SciPy and scikit-learn (``tests/forkserver.py``)."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import main
from bayesnb.datasets import load_house_votes

ROOT = Path(__file__).resolve().parents[1]


#: a command run in a fresh process as a user's shell would, its warnings off and figures drawn with Agg
QUIET = {"PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg"}


@pytest.fixture(scope="module")
def fresh(sklearn_fork_server):
    """Fresh processes (forked) holding NumPy, pandas, SciPy and scikit-learn, none of bayesnb or matplotlib."""
    sklearn_fork_server.assert_unloaded(("matplotlib",))
    return sklearn_fork_server


@pytest.fixture
def run(fresh):
    """``run(*ARGS, cwd=None)``: ``python -m bayesnb ARGS`` in a fresh process; returns the CompletedProcess."""
    def run(*args, cwd=None):
        return fresh.run(["-m", "bayesnb", *args], cwd=cwd, updates=QUIET)

    return run


def cli(capsys, *args):
    """Run ``main(ARGS)`` in-process; returns (exit status, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, status=2):
    """The single stderr line of a failed command (asserting status, one line, no traceback)."""
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith("bayesnb") and ": error: " in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def votes_csv(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    df = load_house_votes()
    train, test = df.iloc[::2], df.iloc[1::2]
    train.to_csv(d / "train.csv", index=False)
    test.to_csv(d / "test.csv", index=False)
    assert main(["fit", str(d / "train.csv"), "--target", "party", "-o", str(d / "m.bnb")]) == 0
    return d


def test_fit_predict_score(votes_csv, tmp_path, capsys):
    d = votes_csv
    code, out, err = cli(capsys, "fit", d / "train.csv", "--target", "party", "-o", tmp_path / "m.bnb")
    assert code == 0, err
    assert "saved model to" in out and (tmp_path / "m.bnb").exists()
    code, out, err = cli(capsys, "predict", tmp_path / "m.bnb", d / "test.csv", "--proba", "-o", tmp_path / "pred.csv")
    assert code == 0, err
    pred = pd.read_csv(tmp_path / "pred.csv")
    assert list(pred.columns) == ["prediction", "p(democrat)", "p(republican)"]
    np.testing.assert_allclose(pred[["p(democrat)", "p(republican)"]].sum(axis=1), 1.0)
    # the CLI predicts exactly what the Python API predicts
    model = bayesnb.load(tmp_path / "m.bnb")
    test = load_house_votes().iloc[1::2]
    np.testing.assert_array_equal(pred["prediction"], model.predict(test.drop(columns="party")))
    acc = np.mean(pred["prediction"].to_numpy() == test["party"].to_numpy())
    code, out, err = cli(capsys, "score", tmp_path / "m.bnb", d / "test.csv", "--target", "party")
    assert code == 0, err
    assert f"accuracy: {acc:.4f}" in out and acc > 0.85
    code, out, err = cli(capsys, "info", tmp_path / "m.bnb")
    assert code == 0 and "NaiveBayes" in out and "republican" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bnb", "pred.csv"]  # no temporary file left


def test_fit_families_and_alpha(tmp_path, capsys):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.poisson(2, 50), "b": rng.poisson(1, 50), "label": rng.choice(["s", "h"], 50)})
    df.to_csv(tmp_path / "counts.csv", index=False)
    for family in ("multinomial", "complement", "bernoulli", "gaussian", "categorical"):
        extra = [] if family == "gaussian" else ["--alpha", "0.5"]
        code, _, err = cli(capsys, "fit", tmp_path / "counts.csv", "--target", "label",
                           "-o", tmp_path / f"{family}.bnb", "--family", family, *extra)
        assert code == 0, (family, err)
    assert type(bayesnb.load(tmp_path / "multinomial.bnb")).__name__ == "MultinomialNB"
    assert bayesnb.load(tmp_path / "multinomial.bnb").alpha == 0.5
    assert type(bayesnb.load(tmp_path / "complement.bnb")).__name__ == "ComplementNB"
    for family in ("poisson", "lognormal"):
        data = df.assign(a=df["a"] + 1, b=df["b"] + 0.5) if family == "lognormal" else df  # positive values
        data.to_csv(tmp_path / f"{family}.csv", index=False)
        code, _, err = cli(capsys, "fit", tmp_path / f"{family}.csv", "--target", "label",
                           "-o", tmp_path / f"{family}.bnb", "--family", family)
        assert code == 0, (family, err)
        model = bayesnb.load(tmp_path / f"{family}.bnb")
        assert [type(b.family).__name__.lower() for b in model.posterior_.blocks] == [family]
        code, out, err = cli(capsys, "sample", tmp_path / f"{family}.bnb", "-n", 20, "--seed", 1)
        synth = pd.read_csv(io.StringIO(out))
        assert code == 0 and (synth[["a", "b"]].to_numpy() >= 0).all(), err
    data = df.assign(b=df["b"] + rng.normal(0, 0.1, 50))  # an integer and a real column
    data.to_csv(tmp_path / "histogram.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "histogram.csv", "--target", "label",
                       "-o", tmp_path / "histogram.bnb", "--family", "histogram", "--alpha", "0.5")
    assert code == 0, err
    model = bayesnb.load(tmp_path / "histogram.bnb")
    assert type(model.posterior_.blocks[0].family).__name__ == "Histogram" and model.posterior_.blocks[0].family.alpha == 0.5
    code, out, err = cli(capsys, "sample", tmp_path / "histogram.bnb", "-n", 20, "--seed", 1)
    synth = pd.read_csv(io.StringIO(out))
    assert code == 0 and synth["a"].isin(data["a"]).all() and synth["b"].isin(data["b"]).all(), err
    code, _, err = cli(capsys, "fit", tmp_path / "histogram.csv", "--target", "label", "-o", tmp_path / "x.bnb",
                       "--family", "histogram", "--alpha", "auto")
    assert code == 2 and "number > 0" in err
    data = df.assign(a=np.where(df["a"] > 1, df["a"] * 1.5, 0.0), b=df["b"] * 0.5)  # zeros and positive reals
    data.to_csv(tmp_path / "hurdle.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "hurdle.csv", "--target", "label",
                       "-o", tmp_path / "hurdle.bnb", "--family", "hurdle", "--alpha", "2")
    assert code == 0, err
    fam = bayesnb.load(tmp_path / "hurdle.bnb").posterior_.blocks[0].family
    assert type(fam).__name__ == "Hurdle" and fam.alpha == 2.0
    code, out, err = cli(capsys, "sample", tmp_path / "hurdle.bnb", "-n", 200, "--seed", 1)
    synth = pd.read_csv(io.StringIO(out))
    assert code == 0 and (synth[["a", "b"]] >= 0).all().all() and (synth["a"] == 0).any(), err
    code, _, err = cli(capsys, "fit", tmp_path / "hurdle.csv", "--target", "label", "-o", tmp_path / "x.bnb",
                       "--family", "hurdle", "--alpha", "auto")
    assert code == 2 and "Beta pseudo-count" in err
    code, _, err = cli(capsys, "fit", tmp_path / "counts.csv", "--target", "label", "-o", tmp_path / "x.bnb",
                       "--family", "lognormal")
    assert code == 2 and "strictly positive" in err and "Traceback" not in err  # counts hold zeros
    code, _, err = cli(capsys, "fit", tmp_path / "counts.csv", "--target", "label", "-o", tmp_path / "x.bnb",
                       "--family", "poisson", "--alpha", "1")
    assert code == 2 and "no alpha" in err


def test_impute(votes_csv, tmp_path, capsys):
    d = votes_csv
    code, out, err = cli(capsys, "impute", d / "m.bnb", d / "test.csv", "-o", tmp_path / "filled.csv")
    assert code == 0, err
    filled = pd.read_csv(tmp_path / "filled.csv", keep_default_na=False)
    before = pd.read_csv(d / "test.csv")
    n_missing = int(before.drop(columns="party").isna().sum().sum())
    assert n_missing > 0 and f"filled {n_missing} missing cell(s)" in out
    assert set(np.unique(filled.drop(columns="party").to_numpy())) <= {"y", "n"}


def test_sample(votes_csv, tmp_path, capsys):
    d = votes_csv
    code, _, err = cli(capsys, "sample", d / "m.bnb", "-n", 7, "--target", "party", "-o", tmp_path / "synth.csv")
    assert code == 0, err
    synth = pd.read_csv(tmp_path / "synth.csv")
    assert len(synth) == 7 and "party" in synth.columns and synth.shape[1] == 17


# ------------------------------------------------------------------- user mistakes
@pytest.mark.parametrize("args, message", [
    (["fit", "no-such.csv", "--target", "y", "-o", "m.bnb"], "no such file"),
    (["fit", "{bad}", "--target", "y", "-o", "m.bnb"], "cannot read as a table"),
    (["fit", "{votes}", "--target", "nope", "-o", "m.bnb"], "no column 'nope'"),
    (["fit", "{votes}", "--target", "party", "-o", "m.bnb", "--alpha", "-1"], "--alpha"),
    (["fit", "{votes}", "--target", "party", "-o", "m.bnb", "--family", "gaussian"], "must be numeric"),
    (["fit", "{votes}", "--target", "party", "-o", "m.bnb", "--family", "multinomial"], "MultinomialNB"),
    (["fit", "{votes}", "--target", "party", "-o", "m.bnb", "--numeric", "nope"], "--numeric names no column"),
    (["fit", "{votes}", "--target", "party", "-o", "no-dir/m.bnb"], "no such folder no-dir"),
    (["fit", "{votes}"], "required"),
    (["predict", "{votes}", "{votes}"], "not a bayesnb model file"),
    (["predict", "{truncated}", "{votes}"], "truncated or corrupted"),
    (["predict", "{model}", "{votes}", "-o", "."], "is a folder"),
    (["score", "{model}", "{votes}", "--target", "nope"], "no column 'nope'"),
    (["sample", "{model}", "-n", "0"], "-n must be at least 1"),
    (["sample", "{model}", "-n", "x"], "invalid int value"),
    (["demo", "--out", "{votes}"], "is a file"),
    (["frobnicate"], "invalid choice"),
])
def test_user_mistakes_are_one_line_exit_2(args, message, votes_csv, tmp_path, capsys, monkeypatch):
    d = votes_csv
    (tmp_path / "bad.csv").write_bytes(b"\x00\xff\xfe garbage \x00\n\"unterminated")
    data = (d / "m.bnb").read_bytes()
    (tmp_path / "trunc.bnb").write_bytes(data[: len(data) // 3])
    subs = {"{votes}": str(d / "train.csv"), "{bad}": str(tmp_path / "bad.csv"),
            "{model}": str(d / "m.bnb"), "{truncated}": str(tmp_path / "trunc.bnb")}
    argv = [subs.get(a, a) for a in args]
    monkeypatch.chdir(tmp_path)
    line = one_line_error(*cli(capsys, *argv)[::2])
    assert message in line, line


def test_output_into_missing_folder_is_one_line_exit_2(votes_csv, tmp_path, run):
    # through a fresh process: the exit status and stderr a user sees, no traceback
    d = votes_csv
    r = run("predict", d / "m.bnb", d / "test.csv", "-o", tmp_path / "missing" / "pred.csv")
    line = one_line_error(r.returncode, r.stderr)
    assert f"no such folder {tmp_path / 'missing'}" in line and not (tmp_path / "missing").exists()
    # fit's "no column 'nope'" (a second interpreter here before) is a case of test_user_mistakes_are_one_line_exit_2


def test_debug_flag_shows_traceback(votes_csv, tmp_path, capsys, run):
    from bayesnb.cli import UsageError
    from bayesnb.io.persistence import ModelFileError

    d = votes_csv
    argv = ["predict", str(d / "m.bnb"), str(d / "test.csv"), "-o", str(tmp_path / "missing" / "p.csv")]
    assert main(argv) == 2
    with pytest.raises(UsageError, match="no such folder"):
        main(["--debug", *argv])
    with pytest.raises(UsageError, match="no such folder"):
        main([*argv, "--debug"])  # after the subcommand, too
    with pytest.raises(ModelFileError):
        main(["--debug", "info", str(d / "test.csv")])
    r = run("--debug", *argv)
    assert r.returncode != 0 and "Traceback (most recent call last)" in r.stderr and "UsageError" in r.stderr


def test_permission_denied_is_one_line_exit_2(votes_csv, tmp_path, capsys, monkeypatch):
    import tempfile

    d = votes_csv

    def denied(*a, dir=None, **k):
        raise PermissionError(13, "Permission denied", os.path.join(dir or ".", ".p.csv.x1y2.tmp.csv"))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    line = one_line_error(*cli(capsys, "predict", d / "m.bnb", d / "test.csv", "-o", tmp_path / "p.csv")[::2])
    assert line.endswith(f"cannot write {tmp_path / 'p.csv'}: Permission denied") and "tmp" not in line.split("/")[-1]


#: Run the CLI twice in one process: once into a writable folder (so every lazy import is done while
#: the interpreter, which may live in root's home, is still readable), then, privileges dropped to
#: the user ``nobody`` when running as root, into the read-only folder; prints the second exit status.
_AS_NOBODY = """
import contextlib, io, os, sys
from bayesnb.cli import main
model, data, warm, target = sys.argv[1:5]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    assert main(["predict", model, data, "-o", warm]) == 0
if os.geteuid() == 0:
    import pwd
    user = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
    assert os.geteuid() == user.pw_uid
sys.exit(main(["predict", model, data, "-o", target]))
"""


def test_read_only_folder_is_one_line_exit_2(votes_csv, fresh):
    """Writing into a folder the user may not write to is one line, exit 2, and writes nothing.

    Root may write anywhere, so as root the command drops its privileges to the user ``nobody``
    first, on copies of the inputs that ``nobody`` can read.
    """
    import shutil
    import tempfile

    if os.name != "posix":
        pytest.skip("folder permissions are POSIX-only: this system has none to deny")
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("running as root, and there is no user 'nobody' to drop privileges to")
    d = Path(tempfile.mkdtemp(prefix="bayesnb-ro-"))
    ro = d / "ro"
    try:
        d.chmod(0o755)
        for name in ("m.bnb", "test.csv"):
            shutil.copy(votes_csv / name, d / name)
            (d / name).chmod(0o644)
        ro.mkdir()
        ro.chmod(0o555)
        r = fresh.run(["-c", _AS_NOBODY, d / "m.bnb", d / "test.csv", d / "warm.csv", ro / "p.csv"], cwd=str(d),
                      updates=QUIET)
        if "PermissionError" in r.stderr and "setuid" in r.stderr:  # e.g. a container without CAP_SETUID
            pytest.skip(f"running as root and cannot drop privileges to 'nobody' here: {r.stderr.strip()[-200:]}")
        line = one_line_error(r.returncode, r.stderr)
        assert "Permission denied" in line and f"cannot write {ro / 'p.csv'}" in line, line
        assert list(ro.iterdir()) == []
    finally:
        if ro.exists():
            ro.chmod(0o755)
        shutil.rmtree(d, ignore_errors=True)


# --------------------------------------------------------------- never lose data
def test_predict_refuses_to_overwrite_its_input(votes_csv, tmp_path, capsys):
    d = votes_csv
    data = tmp_path / "test.csv"
    data.write_bytes((d / "test.csv").read_bytes())
    model = tmp_path / "m.bnb"
    model.write_bytes((d / "m.bnb").read_bytes())
    (tmp_path / "link.csv").symlink_to(data)
    os.link(data, tmp_path / "hard.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for src, dst in [(data, data), (tmp_path / "link.csv", data), (data, tmp_path / "link.csv"),
                     (data, tmp_path / "hard.csv"), (data, model), (tmp_path / "sub" / ".." / "test.csv", data)]:
        (tmp_path / "sub").mkdir(exist_ok=True)
        for cmd in ("predict", "impute"):
            line = one_line_error(*cli(capsys, cmd, model, src, "-o", dst)[::2])
            assert "refusing to write" in line and "input file" in line, line
    (tmp_path / "sub").rmdir()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_fit_refuses_to_overwrite_the_training_csv(votes_csv, tmp_path, capsys):
    train = tmp_path / "train.csv"
    train.write_bytes((votes_csv / "train.csv").read_bytes())
    before = train.read_bytes()
    line = one_line_error(*cli(capsys, "fit", train, "--target", "party", "-o", train)[::2])
    assert "refusing to write" in line and train.read_bytes() == before
    model = tmp_path / "m.bnb"
    model.write_bytes((votes_csv / "m.bnb").read_bytes())
    line = one_line_error(*cli(capsys, "sample", model, "-o", model)[::2])
    assert "refusing to write" in line and bayesnb.load(model) is not None


def test_failed_write_leaves_no_partial_file_and_no_temp_name(votes_csv, tmp_path, capsys, monkeypatch):
    import bayesnb.io.persistence

    d = votes_csv
    out = tmp_path / "pred.csv"
    out.write_text("precious,data\n1,2\n")
    model = tmp_path / "m.bnb"
    model.write_bytes((d / "m.bnb").read_bytes())
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def to_csv_fails(self, path=None, *a, **k):  # half a file, then the disk is full
        with open(path, "w") as f:
            f.write("prediction\ndemoc")
        raise OSError(28, "No space left on device", str(path))

    def save_fails(model, path, **kw):  # like persistence.save: its own temporary file next to ``path``
        with open(f"{path}.tmp-{os.getpid()}", "wb") as f:
            f.write(b"PK\x03\x04 half a zip")
        raise OSError(28, "No space left on device", f"{path}.tmp-{os.getpid()}")

    with monkeypatch.context() as m:
        m.setattr(pd.DataFrame, "to_csv", to_csv_fails)
        line = one_line_error(*cli(capsys, "predict", model, d / "test.csv", "-o", out, "--force")[::2])
        assert line.endswith(f"cannot write {out}: No space left on device"), line
    with monkeypatch.context() as m:
        m.setattr(bayesnb.io.persistence, "save", save_fails)
        line = one_line_error(*cli(capsys, "fit", d / "train.csv", "--target", "party", "-o", model, "--force")[::2])
        assert line.endswith(f"cannot write {model}: No space left on device"), line
    assert "tmp" not in line.replace(str(tmp_path), "")
    # the old files are intact and no temporary file is left behind
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_outputs_keep_permissions_and_write_through_symlinks(votes_csv, tmp_path, capsys):
    d = votes_csv
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    real.chmod(0o640)
    (tmp_path / "link.csv").symlink_to(real)
    code, _, err = cli(capsys, "predict", d / "m.bnb", d / "test.csv", "-o", tmp_path / "link.csv", "--force")
    assert code == 0, err
    assert (tmp_path / "link.csv").is_symlink() and len(pd.read_csv(real)) == len(pd.read_csv(d / "test.csv"))
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


# ------------------------------------------------------------------ reading CSVs
def _pima_like(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"glucose": rng.normal(120, 30, n).round(1), "age": rng.integers(20, 60, n),
                         "label": rng.choice(["pos", "neg"], n)})


def test_text_cell_in_numeric_column_warns_with_column_row_value(tmp_path, capsys):
    df = _pima_like().astype({"glucose": object})
    df.loc[4, "glucose"] = "high"  # row 5 (the header not counted)
    df.to_csv(tmp_path / "pima.csv", index=False)
    code, out, err = cli(capsys, "fit", tmp_path / "pima.csv", "--target", "label", "-o", tmp_path / "m.bnb")
    assert code == 0, err
    warnings = [ln for ln in err.splitlines() if ": warning: " in ln]
    assert len(warnings) == 1 and warnings[0].startswith("bayesnb fit: warning: "), err
    assert "'glucose'" in warnings[0] and "'high' (row 5)" in warnings[0] and "--numeric glucose" in warnings[0]
    # without an override it stays categorical (as before), now visibly
    assert "block Categorical: glucose" in out
    # a column of text is not warned about, nor a column of numbers
    df.loc[4, "glucose"] = 99.0
    df.to_csv(tmp_path / "clean.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "clean.csv", "--target", "label", "-o", tmp_path / "m2.bnb")
    assert code == 0 and "warning" not in err


def test_numeric_and_categorical_overrides(tmp_path, capsys):
    df = _pima_like().astype({"glucose": object})
    df.loc[6, "glucose"] = "high"  # row 7
    df.to_csv(tmp_path / "pima.csv", index=False)
    fit = ["fit", tmp_path / "pima.csv", "--target", "label", "-o", tmp_path / "m.bnb"]
    # --numeric: a text cell is an error naming the column, row and value ...
    line = one_line_error(*cli(capsys, *fit, "--numeric", "glucose")[::2])
    assert "--numeric glucose" in line and "row 7" in line and "'high'" in line
    # ... unless it is listed in --na-values (then missing, and glucose is Gaussian)
    code, out, err = cli(capsys, *fit, "--numeric", "glucose", "--na-values", "high", "--categorical", "age")
    assert code == 0 and "warning" not in err, err
    model = bayesnb.load(tmp_path / "m.bnb")
    blocks = {type(b.family).__name__: [str(n) for n in b.names] for b in model.posterior_.blocks}
    assert blocks.pop("Categorical") == ["age"] and list(blocks.values()) == [["glucose"]]  # numeric: by evidence
    cats = model.posterior_.blocks[0].state.categories[0]
    assert sorted(cats) == sorted(str(a) for a in df["age"].unique())
    # predict reads the model's categorical columns as text, numeric ones as numbers: same as the API
    test = _pima_like(seed=1)
    test.to_csv(tmp_path / "new.csv", index=False)
    code, out, err = cli(capsys, "predict", tmp_path / "m.bnb", tmp_path / "new.csv", "--proba")
    assert code == 0, err
    pred = pd.read_csv(__import__("io").StringIO(out))
    X = test[["glucose", "age"]].astype({"age": str})
    np.testing.assert_allclose(pred.iloc[:, 1:].to_numpy(), model.predict_proba(X))
    # conflicting or unknown names
    line = one_line_error(*cli(capsys, *fit, "--force", "--numeric", "age", "--categorical", "age")[::2])
    assert "both" in line and "age" in line
    line = one_line_error(*cli(capsys, *fit, "--force", "--categorical", "weight")[::2])
    assert "--categorical names no column(s) ['weight']" in line


def test_spaces_after_separators_are_stripped(tmp_path, capsys):
    text = "colour, size, label\n" + "".join(
        f"{c}, {s}, {lab}\n" for c, s, lab in [("red", 1.5, "a"), ("blue", 2.0, "b"), ("red", 1.0, "a"),
                                               ("blue", 2.5, "b"), ("red", 1.2, "b"), ("blue", 2.2, "a")])
    (tmp_path / "uci.csv").write_text(text)
    code, _, err = cli(capsys, "fit", tmp_path / "uci.csv", "--target", "label", "-o", tmp_path / "m.bnb")
    assert code == 0 and "warning" not in err, err
    model = bayesnb.load(tmp_path / "m.bnb")
    assert [str(c) for c in model.feature_names_in_] == ["colour", "size"]
    assert list(model.classes_) == ["a", "b"]
    blocks = {type(b.family).__name__: b for b in model.posterior_.blocks}
    assert list(blocks["Categorical"].state.categories[0]) == ["blue", "red"]
    numeric = [b for name, b in blocks.items() if name != "Categorical"]  # size: chosen by evidence
    assert [[str(n) for n in b.names] for b in numeric] == [["size"]]


def test_question_mark_is_missing_by_default(votes_csv, tmp_path, capsys):
    raw = load_house_votes()
    uci = raw.fillna("?")
    uci.to_csv(tmp_path / "uci.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "uci.csv", "--target", "party", "-o", tmp_path / "m.bnb")
    assert code == 0, err
    model = bayesnb.load(tmp_path / "m.bnb")
    assert all(sorted(c) == ["n", "y"] for c in model.posterior_.blocks[0].state.categories)
    ref = bayesnb.CategoricalNB().fit(raw.drop(columns="party"), raw["party"])
    np.testing.assert_allclose(model.log_evidence_, ref.log_evidence_)
    # pandas' missing texts and empty cells are missing too; --na-values replaces the list
    (tmp_path / "na.csv").write_text("a,b,label\nx,NA,p\n?,y,q\nx,,p\nz,y,q\n")
    code, _, err = cli(capsys, "fit", tmp_path / "na.csv", "--target", "label", "-o", tmp_path / "na.bnb")
    assert code == 0, err
    assert [sorted(c) for c in bayesnb.load(tmp_path / "na.bnb").posterior_.blocks[0].state.categories] == \
        [["x", "z"], ["y"]]
    code, _, err = cli(capsys, "fit", tmp_path / "na.csv", "--target", "label", "-o", tmp_path / "na2.bnb",
                       "--na-values", "NA")
    assert code == 0, err
    assert [sorted(c) for c in bayesnb.load(tmp_path / "na2.bnb").posterior_.blocks[0].state.categories] == \
        [["?", "x", "z"], ["y"]]


def test_unseen_categories_warn_at_predict(votes_csv, tmp_path, capsys):
    d = votes_csv
    test = pd.read_csv(d / "test.csv")
    test.loc[[0, 3], "crime"] = "maybe"
    test.loc[5, "immigration"] = "abstain"
    test.to_csv(tmp_path / "test.csv", index=False)
    code, out, err = cli(capsys, "predict", d / "m.bnb", tmp_path / "test.csv", "--proba")
    assert code == 0, err
    warnings = [ln for ln in err.splitlines() if ": warning: " in ln]
    assert len(warnings) == 2, err
    crime = next(w for w in warnings if "'crime'" in w)
    assert "'maybe'" in crime and "(2 row(s))" in crime and "prior pseudo-count" in crime
    assert any("'immigration'" in w and "'abstain'" in w for w in warnings)
    # they are scored as the model scores them (the CLI does not change the rows)
    model = bayesnb.load(d / "m.bnb")
    pred = pd.read_csv(__import__("io").StringIO(out))
    np.testing.assert_allclose(pred.iloc[:, 1:].to_numpy(), model.predict_proba(test.drop(columns="party")))


def test_model_warnings_are_one_line_on_stderr(tmp_path, capsys):
    (tmp_path / "z.csv").write_text("a,b,label\nx,p,u\ny,q,v\nx,q,u\n")
    (tmp_path / "new.csv").write_text("a,b\nw,p\nx,p\n")
    code, _, err = cli(capsys, "fit", tmp_path / "z.csv", "--target", "label", "--alpha", "0",
                       "--family", "categorical", "-o", tmp_path / "z.bnb")
    assert code == 0, err
    code, out, err = cli(capsys, "predict", tmp_path / "z.bnb", tmp_path / "new.csv")
    assert code == 0 and out.splitlines()[0] == "prediction" and len(out.splitlines()) == 3
    lines = err.strip().splitlines()
    assert [ln.split(": warning: ")[0] for ln in lines] == ["bayesnb predict"] * 2, err
    assert "ZeroProbabilityWarning: CategoricalNB: 1 row(s) (index 0) have probability zero" in lines[1]
    assert "'w'" in lines[0] and "zero when alpha = 0" in lines[0]


# -------------------------------------------------------------------------- score
def _printed_log_loss(out):
    return float(re.search(r"log loss: ([0-9.]+)", out).group(1))


def test_score_log_loss_equals_sklearn(votes_csv, tmp_path, capsys):
    from sklearn.metrics import log_loss

    from bayesnb.cli import score_model

    # alpha=0: exact zero probabilities for values seen with one class only
    df = pd.DataFrame({"a": ["x", "x", "y", "x", "y", "x", "z", "z"], "b": ["p", "q", "p", "p", "q", "q", "p", "q"],
                       "label": ["u", "u", "v", "v", "v", "u", "v", "u"]})
    df.to_csv(tmp_path / "train.csv", index=False)
    test = pd.DataFrame({"a": ["y", "x", "z", "y"], "b": ["p", "q", "q", "q"], "label": ["u", "v", "u", "u"]})
    test.to_csv(tmp_path / "test.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "train.csv", "--target", "label", "-o", tmp_path / "m.bnb",
                       "--family", "categorical", "--alpha", "0")
    assert code == 0, err
    cases = [(tmp_path / "m.bnb", tmp_path / "test.csv", test, "label"),
             (votes_csv / "m.bnb", votes_csv / "test.csv", pd.read_csv(votes_csv / "test.csv"), "party")]
    for model_path, data_path, frame, target in cases:
        model = bayesnb.load(model_path)
        X, y = frame.drop(columns=target), frame[target].to_numpy()
        P = model.predict_proba(X)
        expected = log_loss(y, P, labels=model.classes_)
        if target == "label":
            assert (P == 0).any()  # the case that used to be clipped at 1e-300
        acc, ll, n_known = score_model(model, X, y)
        assert abs(ll - expected) <= 1e-12 and n_known == len(y)
        assert acc == np.mean(model.predict(X) == y)
        code, out, err = cli(capsys, "score", model_path, data_path, "--target", target)
        assert code == 0, err
        assert _printed_log_loss(out) == round(expected, 4)


# --------------------------------------------------------------------------- misc
def test_help(capsys, run):
    r = run("fit", "--help")
    assert r.returncode == 0 and "usage: bayesnb fit" in r.stdout and "--target" in r.stdout
    for cmd in ["", "demo", "predict", "score", "info", "impute", "sample"]:
        assert main(([cmd] if cmd else []) + ["--help"]) == 0
        out = capsys.readouterr().out
        assert "usage: bayesnb" in out and "--debug" in out


def test_console_script_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'bayesnb = "bayesnb.cli:main"' in text


# --------------------------------------------------------------------------- demo
def test_demo_quick(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    out = tmp_path / "report"
    code, stdout, err = cli(capsys, "demo", "--quick", "--out", out)
    assert code == 0, err[-2000:]
    assert "[1/8]" in stdout and "[8/8]" in stdout and "skipped" not in stdout
    report = (out / "report.txt").read_text()
    for needle in ("cross-validated accuracy", "scikit-learn", "log-odds", "physician-fee-freeze",
                   "Most unusual members"):
        assert needle in report
    # the MCMC, impute and sample steps actually ran
    assert re.search(r"NUTS: 4 chains of \d+ warm-up \+ \d+ draws", report)
    assert float(re.search(r"max r_hat (\d\.\d+)", report).group(1)) <= 1.01  # 4 chains mix: no r-hat warning
    assert "filled 392 missing votes" in report and "hidden observed votes: imputation accuracy" in report
    assert "(first 6 of 16 votes shown)" in report and "republican" in report.split("Synthetic members")[1]
    pngs = sorted(p.name for p in out.iterdir() if p.name != "report.txt")
    assert pngs == ["class_conditionals.png", "exact_vs_mcmc.png", "log_odds.png", "reliability.png"]


@pytest.mark.parametrize("step, number", [("mcmc", 5), ("impute", 6), ("sample", 7)])
def test_demo_fails_when_a_step_fails(step, number, tmp_path, capsys, monkeypatch):
    """A failing step is one line naming it (exit 1), no later step runs and no report is written. The demo
    runs here as where matplotlib is missing (its figures, ~1.4 s a run, are test_demo_quick's)."""
    import bayesnb.cli.demo as demo
    import bayesnb.plot

    def no_matplotlib():
        raise ImportError("matplotlib is not installed here (test)")

    monkeypatch.setattr(bayesnb.plot, "pyplot", no_matplotlib)

    def boom(*a, **k):
        raise RuntimeError(f"{step} exploded")

    if step == "mcmc":
        monkeypatch.setattr(demo, "_demo_mcmc", boom)
    else:
        monkeypatch.setattr(demo, "_demo_mcmc", lambda *a, **k: None)  # keep the test fast
        monkeypatch.setattr(bayesnb.CategoricalNB, step, boom)
    code, stdout, err = cli(capsys, "demo", "--quick", "--out", tmp_path / "r")
    line = one_line_error(code, err, status=1)
    assert f"step {number}/8" in line and f"RuntimeError: {step} exploded" in line
    assert "skipped" not in stdout and f"[{number + 1}/8]" not in stdout and f"[{number}/8]" in stdout
    assert not (tmp_path / "r" / "report.txt").exists() and list((tmp_path / "r").iterdir()) == []  # no figure
    if step == "mcmc":  # --debug: the traceback, with the step's own error as the cause
        with pytest.raises(demo.DemoStepError, match="step 5/8") as info:
            main(["--debug", "demo", "--quick", "--out", str(tmp_path / "r")])
        assert isinstance(info.value.__cause__, RuntimeError)


def test_fit_minus_one_labels_are_classes_and_empty_labels_need_drop_unlabelled(tmp_path, capsys):
    """SVM-light labels {-1, +1} are two classes; a row with no label is an error or, asked, left out."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    df["label"] = np.where(np.arange(40) % 2 == 0, -1, 1)
    df.to_csv(tmp_path / "svm.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "svm.csv", "--target", "label", "-o", tmp_path / "svm.bnb")
    assert code == 0, err
    model = bayesnb.load(tmp_path / "svm.bnb")
    assert model.classes_.tolist() == [-1, 1] and not hasattr(model, "em_objective_")
    np.testing.assert_array_equal(model.class_count_, [20, 20])
    df["label"] = df["label"].astype(object)
    df.loc[:4, "label"] = None  # written as empty cells
    df.to_csv(tmp_path / "some_empty.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "some_empty.csv", "--target", "label", "-o", tmp_path / "e.bnb")
    line = one_line_error(code, err)
    assert "5 row(s) have no 'label' label" in line and "--drop-unlabelled" in line
    code, _, err = cli(capsys, "fit", tmp_path / "some_empty.csv", "--target", "label", "-o", tmp_path / "e.bnb",
                       "--drop-unlabelled")
    assert code == 0, err
    dropped = bayesnb.load(tmp_path / "e.bnb")
    assert dropped.classes_.tolist() == [-1, 1] and dropped.class_count_.sum() == 35


def test_key_file_signs_and_is_required_to_read_a_model(votes_csv, tmp_path, capsys):
    """--key-file: fit signs the model file; every command that reads it needs the same key."""
    d = votes_csv
    key = tmp_path / "secret.key"
    key.write_bytes(b"correct horse battery staple\n")
    code, _, err = cli(capsys, "fit", d / "train.csv", "--target", "party", "-o", tmp_path / "m.bnb",
                       "--key-file", key)
    assert code == 0, err
    model = bayesnb.load(tmp_path / "m.bnb", key=b"correct horse battery staple")  # the newline is not the key
    for cmd in (["predict", tmp_path / "m.bnb", d / "test.csv"], ["info", tmp_path / "m.bnb"],
                ["score", tmp_path / "m.bnb", d / "test.csv", "--target", "party"],
                ["impute", tmp_path / "m.bnb", d / "test.csv"], ["sample", tmp_path / "m.bnb", "-n", "3"]):
        code, out, err = cli(capsys, *cmd, "--key-file", key)
        assert code == 0 and out, (cmd, err)
        line = one_line_error(*cli(capsys, *cmd)[::2])
        assert "signed with a key" in line and "--key-file" in line
    other = tmp_path / "other.key"
    other.write_bytes(b"another key")
    line = one_line_error(*cli(capsys, "predict", tmp_path / "m.bnb", d / "test.csv", "--key-file", other)[::2])
    assert "HMAC does not match" in line
    code, out, _ = cli(capsys, "predict", tmp_path / "m.bnb", d / "test.csv", "--key-file", key)
    np.testing.assert_array_equal(out.splitlines()[1:],
                                  model.predict(load_house_votes().iloc[1::2].drop(columns="party")))
    # an unsigned model with a key is refused too: a key promises a signed file
    line = one_line_error(*cli(capsys, "predict", d / "m.bnb", d / "test.csv", "--key-file", key)[::2])
    assert "not signed" in line
    # the key file is an input: never written over; an empty or huge one is refused
    line = one_line_error(*cli(capsys, "fit", d / "train.csv", "--target", "party", "-o", key, "--key-file", key)[::2])
    assert "refusing to write" in line and key.read_bytes() == b"correct horse battery staple\n"
    (tmp_path / "empty.key").write_bytes(b"\n")
    line = one_line_error(*cli(capsys, "fit", d / "train.csv", "--target", "party", "-o", tmp_path / "e.bnb",
                               "--key-file", tmp_path / "empty.key")[::2])
    assert "empty" in line and not (tmp_path / "e.bnb").exists()
    (tmp_path / "big.key").write_bytes(b"k" * 5000)
    line = one_line_error(*cli(capsys, "info", tmp_path / "m.bnb", "--key-file", tmp_path / "big.key")[::2])
    assert "larger than" in line


def test_fit_auto_chooses_families_and_info_shows_the_scores(tmp_path, capsys):
    from bayesnb.datasets import load_penguins

    load_penguins().to_csv(tmp_path / "penguins.csv", index=False)
    code, _, err = cli(capsys, "fit", tmp_path / "penguins.csv", "--target", "species", "-o", tmp_path / "m.bnb")
    assert code == 0, err
    model = bayesnb.load(tmp_path / "m.bnb")
    chosen = model.family_scores_[model.family_scores_.chosen].set_index("column").family.to_dict()
    assert chosen["year"].startswith("Histogram(") and chosen["bill_length_mm"] == "LogNormal"
    code, out, err = cli(capsys, "info", tmp_path / "m.bnb")
    assert code == 0 and "numeric families chosen by evidence" in out
    assert out.count("Histogram") >= 3 and "LogNormal" in out
    code, out, err = cli(capsys, "sample", tmp_path / "m.bnb", "-n", 300, "--seed", 2)
    synth = pd.read_csv(io.StringIO(out))
    assert code == 0 and synth["year"].isin([2007, 2008, 2009]).all()
    assert synth["year"].dtype.kind == "i" and synth["body_mass_g"].dtype.kind == "i"  # written as whole numbers


# ------------------------------------------------------------------ dtype errors and --format
def test_dtype_error_names_only_the_bad_column_row_and_value(penguins, tmp_path, capsys):
    d = penguins
    df = pd.read_csv(d / "penguins.csv").astype(object)
    df.loc[4, "bill_length_mm"] = "abc"  # row 5 of the file (header not counted)
    df.to_csv(tmp_path / "bad.csv", index=False)
    line = one_line_error(*cli(capsys, "predict", d / "penguins.bnb", tmp_path / "bad.csv")[::2])
    assert "'bill_length_mm'" in line and "row 5" in line and "'abc'" in line and "expected a number" in line
    others = ["bill_depth_mm", "flipper_length_mm", "body_mass_g", "year", "island", "sex"]
    assert not any(c in line for c in others), line
    # a column of another type: text throughout
    df = pd.read_csv(d / "penguins.csv")
    df["body_mass_g"] = "g" + df["body_mass_g"].astype(str)
    df.to_csv(tmp_path / "bad2.csv", index=False)
    line = one_line_error(*cli(capsys, "impute", d / "penguins.bnb", tmp_path / "bad2.csv")[::2])
    assert "'body_mass_g'" in line and "row 1" in line and "'g3750" in line and "bill_length_mm" not in line
    # --categorical on a column the model reads as numbers
    line = one_line_error(*cli(capsys, "predict", d / "penguins.bnb", d / "penguins.csv", "--categorical", "year")[::2])
    assert "'year'" in line and "as numbers" in line
    # fit with a numeric family on text columns: only the text columns are named
    line = one_line_error(*cli(capsys, "fit", d / "penguins.csv", "--target", "species", "--family", "gaussian",
                               "-o", tmp_path / "g.bnb")[::2])
    assert "must be numeric" in line and "'island'" in line and "'Torgersen'" in line and "bill_length_mm" not in line


def test_format_json_equals_csv_for_sample_and_predict(penguins, tmp_path, capsys):
    d = penguins
    for cmd in (["sample", d / "penguins.bnb", "-n", "25"], ["predict", d / "penguins.bnb", d / "penguins.csv", "--proba"]):
        code, out_csv, err = cli(capsys, *cmd)
        assert code == 0, err
        code, out_json, err = cli(capsys, *cmd, "-o", "-", "--format", "json")
        assert code == 0, err
        a = pd.read_csv(io.StringIO(out_csv))
        b = pd.DataFrame(json.loads(out_json))
        assert list(a.columns) == list(b.columns)
        pd.testing.assert_frame_equal(a, b, check_dtype=False)
        # by extension, and --format overriding it
        assert cli(capsys, *cmd, "-o", tmp_path / "t.json", "--force")[0] == 0
        pd.testing.assert_frame_equal(pd.DataFrame(json.loads((tmp_path / "t.json").read_text())), b)
        assert cli(capsys, *cmd, "-o", tmp_path / "t.json", "--format", "csv", "--force")[0] == 0
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.json"), a)
        assert cli(capsys, *cmd, "-o", tmp_path / "t.tsv", "--force")[0] == 0
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.tsv", sep="\t"), a)
        assert cli(capsys, *cmd, "-o", tmp_path / "t.dat", "--force")[0] == 0  # unknown extension: CSV
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.dat"), a)


def test_format_errors(penguins, tmp_path, capsys):
    d = penguins
    line = one_line_error(*cli(capsys, "sample", d / "penguins.bnb", "--format", "xml")[::2])
    assert "--format" in line and "'xml'" in line
    line = one_line_error(*cli(capsys, "datasets", "export", "penguins", "-o", "-", "--format", "parquet")[::2])
    assert "stdout" in line
    code, _, err = cli(capsys, "posterior", d / "penguins.bnb", "--draws", "50", "-o", tmp_path / "post.parquet")
    if importlib.util.find_spec("pyarrow") is None:
        assert "pip install pyarrow" in one_line_error(code, err) and not (tmp_path / "post.parquet").exists()
    else:
        assert code == 0, err
        assert len(pd.read_parquet(tmp_path / "post.parquet")) > 0


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="pyarrow (optional) is not installed")
def test_format_parquet_equals_csv(penguins, tmp_path, capsys):
    d = penguins
    code, out, err = cli(capsys, "sample", d / "penguins.bnb", "-n", "20")
    assert code == 0, err
    assert cli(capsys, "sample", d / "penguins.bnb", "-n", "20", "-o", tmp_path / "s.out", "--format", "parquet")[0] == 0
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "s.out"), pd.read_csv(io.StringIO(out)),
                                  check_dtype=False)
