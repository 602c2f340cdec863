"""How ``bayesnb`` ends: a user's mistake is one line and exit 2, a bug is one line asking for a report and exit 1,
and nothing a command sets outlives it; ``--family`` names come from the families' registry."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb._progress import set_progress
from bayesnb._utils import DataError, UserError
from bayesnb.cli import datasets as cli_datasets
from bayesnb.cli import files as cli_io
from bayesnb.cli import main
from bayesnb.families import BY_NAME, Family
from bayesnb.io.persistence import ModelFileError


@pytest.mark.parametrize("error", [RuntimeError("boom"), TypeError("boom"), KeyError("boom"), ValueError("boom")])
def test_an_internal_error_is_a_one_line_bug_report_exit_1(monkeypatch, capsys, error):
    """A programming error is not a user mistake: it names itself, asks for a report, shows no traceback."""
    def broken(args):
        raise error

    monkeypatch.setattr(cli_datasets, "cmd_datasets", broken)
    assert main(["datasets", "list"]) == 1
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"bayesnb {bayesnb.__version__}: internal error in 'bayesnb datasets': "
                               f"{type(error).__name__}: "), lines
    assert "boom" in lines[0] and "please report" in lines[0]


def test_a_hyperparameter_error_of_an_estimator_is_the_users_exit_2(monkeypatch, capsys):
    """scikit-learn's InvalidParameterError (a bad estimator setting) is a user mistake, though the CLI module
    never imports scikit-learn itself (the estimator that raised it did)."""
    from sklearn.utils._param_validation import InvalidParameterError

    def bad_setting(args):
        raise InvalidParameterError("The 'k' parameter of NaiveBayes must be an int in the range [1, inf).")

    monkeypatch.setattr(cli_datasets, "cmd_datasets", bad_setting)
    assert main(["datasets", "list"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "bayesnb datasets: error: The 'k' parameter of NaiveBayes must be an int in the " \
                                "range [1, inf).\n"


def test_debug_shows_the_internal_error_itself(monkeypatch):
    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli_datasets, "cmd_datasets", broken)
    with pytest.raises(RuntimeError, match="boom"):
        main(["--debug", "datasets", "list"])


def test_the_packages_own_errors_are_user_errors(monkeypatch, capsys):
    """Any of the package's user errors raised by a command is one line, exit 2 (not a bug report)."""
    for error in (cli_io.UsageError("bad option"), DataError("bad cell"), ModelFileError("bad file"),
                  FileNotFoundError(2, "No such file or directory", "x.csv")):
        assert isinstance(error, (UserError, OSError))

        def broken(args, error=error):
            raise error

        monkeypatch.setattr(cli_datasets, "cmd_datasets", broken)
        assert main(["datasets", "list"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("bayesnb datasets: error: ") and err.count("\n") == 1 and "internal" not in err, err


def test_bad_values_in_a_table_are_a_data_error_still_a_type_error():
    """The estimators' message for a text cell in a numeric block: a DataError, and a TypeError as before."""
    X = pd.DataFrame({"a": ["x", "y", "z", "w"]})
    with pytest.raises(DataError, match="numeric") as info:
        bayesnb.GaussianNB().fit(X, [0, 1, 0, 1])
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    with pytest.raises(DataError, match="row"):
        bayesnb.MultinomialNB().fit(np.array([[1.0, -2.0], [0.0, 1.0]]), [0, 1])


def test_a_command_leaves_no_process_state_behind(tmp_path, capsys):
    """Progress setting, warning display and filters, print options, environment, message prefix: as before."""
    previous = set_progress(True)
    try:
        before = (warnings.showwarning, list(warnings.filters), np.get_printoptions(), dict(os.environ))
        assert main(["-q", "datasets", "export", "play_tennis", "-o", str(tmp_path / "t.csv")]) == 0
        assert main(["datasets", "export", "nope", "-o", str(tmp_path / "u.csv")]) == 2
        capsys.readouterr()
        after = (warnings.showwarning, list(warnings.filters), np.get_printoptions(), dict(os.environ))
        assert after == before
        assert cli_io.prog() == "bayesnb" and cli_io.quiet() is False
        assert set_progress(True) is True  # the user's setting, not the -q command's
    finally:
        set_progress(previous)


def test_family_names_are_the_registry(tmp_path, capsys, monkeypatch):
    """``--family NAME`` and ``--family COL=NAME`` take the registry's names: a family registered there is usable."""
    assert all(BY_NAME[name].name == name and issubclass(BY_NAME[name], Family) for name in BY_NAME)
    df = pd.DataFrame({"a": [1.0, 2.0, 3.5, 4.0, 0.5, 2.5], "y": list("ababab")})
    df.to_csv(tmp_path / "t.csv", index=False)

    class Shifted(BY_NAME["gaussian"]):
        name = "shifted"

    monkeypatch.setitem(BY_NAME, "shifted", Shifted)
    for family in ("shifted", "a=shifted"):
        out = tmp_path / f"{family}.bnb"
        assert main(["-q", "fit", str(tmp_path / "t.csv"), "--target", "y", "--family", family, "-o", str(out)]) == 0
        model = bayesnb.load(out)
        assert [type(b.family) for b in model.posterior_.blocks] == [Shifted]
    assert main(["fit", str(tmp_path / "t.csv"), "--target", "y", "--family", "gauss", "-o", str(tmp_path / "x.bnb")]) == 2
    err = capsys.readouterr().err
    assert "no such family" in err and ", ".join(BY_NAME) in err


@pytest.mark.parametrize("args, message", [
    (["sample", "MODEL", "--seed", "-1"], "argument --seed: expected a whole number >= 0; received '-1'"),
    (["sample", "MODEL", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    (["fit", "DATA", "--target", "y", "--alpha", "inf", "-o", "OUT"], "--alpha must be at most 2**53"),
    (["fit", "DATA", "--target", "y", "--alpha", "1e300", "-o", "OUT"], "--alpha must be at most 2**53"),
])
def test_option_values_the_library_would_refuse_are_usage_errors(tmp_path, capsys, args, message):
    """The command line checks its own option values: one line naming the option, exit 2."""
    df = pd.DataFrame({"a": list("xyxyxy"), "y": list("ababab")})
    df.to_csv(tmp_path / "t.csv", index=False)
    assert main(["-q", "fit", str(tmp_path / "t.csv"), "--target", "y", "-o", str(tmp_path / "m.bnb")]) == 0
    where = {"MODEL": tmp_path / "m.bnb", "DATA": tmp_path / "t.csv", "OUT": tmp_path / "o.bnb"}
    assert main([str(where.get(a, a)) for a in args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
