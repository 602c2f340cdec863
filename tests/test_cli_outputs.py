"""The one output policy of the ``bayesnb`` command line, walked over every subcommand that writes
a file: an existing ``-o`` file is refused without ``--force`` (exit 2, one line, the file
untouched) and replaced with it; an input is never replaced, not even with ``--force``.
``model.save`` follows the same rule (``overwrite=False`` by default)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import build_parser, main
from bayesnb.datasets import load_play_tennis

OLD = b"keep me\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Play tennis (two cells missing) as CSV, a model fitted on it, a synthetic copy and a pool table."""
    d = tmp_path_factory.mktemp("outputs")
    df = load_play_tennis()
    df.iloc[0, 0] = None
    df.iloc[3, 1] = None
    df.to_csv(d / "data.csv", index=False)
    load_play_tennis().sample(frac=1.0, random_state=0).to_csv(d / "synth.csv", index=False)
    pd.DataFrame({".imputation": [1, 1, 2, 2], "term": ["a", "b", "a", "b"], "estimate": [1.0, 2.0, 1.2, 2.1],
                  "variance": [0.1, 0.2, 0.1, 0.2]}).to_csv(d / "estimates.csv", index=False)
    assert main(["-q", "fit", str(d / "data.csv"), "--target", "PlayTennis", "-o", str(d / "m.bnb")]) == 0
    return d


def _commands(d):
    """Every subcommand that writes a file, by name: its arguments before ``-o OUT``."""
    data, model = str(d / "data.csv"), str(d / "m.bnb")
    return {
        "fit": ["fit", data, "--target", "PlayTennis"],
        # the warmup of test_cli_mcmc (same model): its compiled NUTS program is reused, not compiled again
        "mcmc": ["mcmc", data, "--target", "PlayTennis", "--draws", "100", "--warmup", "150"],
        "predict": ["predict", model, data],
        "impute": ["impute", model, data],
        "impute-table": ["impute-table", data, "--configurations", "naive"],
        "fit-imputer": ["fit-imputer", data, "--configurations", "naive"],
        "sample": ["sample", model, "-n", "5"],
        "check": ["check", model, data, "--target", "PlayTennis", "--replicates", "5"],
        "outliers": ["outliers", model, data, "--target", "PlayTennis"],
        "posterior": ["posterior", model, "--draws", "20"],
        "explain": ["explain", model, data],
        "pool": ["pool", str(d / "estimates.csv")],
        "datasets": ["datasets", "export", "play_tennis"],
        "evaluate-synthetic": ["evaluate-synthetic", data, str(d / "synth.csv")],
        "synthesize": ["synthesize", data, "-n", "5", "--latent", "none"],
    }


def _writers():
    """The subcommands of the parser that take ``-o``/``--output``."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {name for name, q in sub.choices.items() if any("--output" in a.option_strings for a in q._actions)}


def test_the_walk_covers_every_subcommand_that_writes_a_file(tmp_path):
    assert set(_commands(tmp_path)) == _writers()


@pytest.mark.parametrize("name", sorted(_commands(__import__("pathlib").Path("."))))
def test_an_existing_output_is_replaced_only_with_force(name, files, tmp_path, capsys):
    argv = _commands(files)[name]
    out = tmp_path / ("out.nc" if name == "mcmc" else "out.bnb" if name in ("fit", "fit-imputer") else "out.csv")
    out.write_bytes(OLD)
    code = main(["-q", *argv, "-o", str(out)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert f"refusing to replace {out}: it exists (pass --force" in lines[0], lines[0]
    assert out.read_bytes() == OLD and sorted(p.name for p in tmp_path.iterdir()) == [out.name]
    if name == "mcmc":  # (its sampling is tested in test_cli_mcmc; here only that --force gets past the check)
        pytest.importorskip("h5netcdf")
    code = main(["-q", *argv, "-o", str(out), "--force"])
    assert code == 0, capsys.readouterr().err
    assert out.read_bytes() != OLD and sorted(p.name for p in tmp_path.iterdir()) == [out.name]


@pytest.mark.parametrize("argv, inp", [(["predict", "{m}", "{d}"], "{d}"),
                                       (["fit", "{d}", "--target", "PlayTennis"], "{d}"),
                                       (["fit-imputer", "{d}", "--configurations", "naive"], "{d}"),
                                       (["posterior", "{m}"], "{m}"), (["pool", "{e}"], "{e}")])
def test_an_input_is_never_replaced_even_with_force(argv, inp, files, capsys):
    names = {"{m}": str(files / "m.bnb"), "{d}": str(files / "data.csv"), "{e}": str(files / "estimates.csv")}
    target = names[inp]
    before = open(target, "rb").read()
    code = main([names.get(a, a) for a in argv] + ["-o", target, "--force"])
    line = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in line and f"it is the input file {target}" in line, line
    assert open(target, "rb").read() == before


def test_save_refuses_an_existing_file_unless_overwrite(tmp_path):
    X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    model = bayesnb.CategoricalNB().fit(X, [0, 1, 1, 0])
    path = tmp_path / "m.bnb"
    path.write_bytes(OLD)
    with pytest.raises(FileExistsError, match=r"m\.bnb exists; pass overwrite=True"):
        model.save(path)
    assert path.read_bytes() == OLD
    model.save(path, overwrite=True)
    np.testing.assert_array_equal(bayesnb.load(path).predict(X), model.predict(X))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bnb"]
