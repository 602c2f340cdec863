"""Small things a new user meets: help text, cut lists that say how much was cut, one-class data."""

from __future__ import annotations

import pytest

from bayesnb._utils import shown_list
from bayesnb.cli import build_parser, main
from bayesnb.datasets import load_house_votes, load_play_tennis


def _subparsers():
    return next(a for a in build_parser()._actions if a.dest == "command").choices


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_help_shows_no_doubled_percent_sign(name):
    text = _subparsers()[name].format_help()
    assert "%%" not in text
    if name in ("info", "posterior"):
        assert "94% " in text


def test_shown_list_says_how_many_more():
    assert shown_list(["a", "b"]) == "['a', 'b']"
    assert shown_list(list("abcdefgh")) == "['a', 'b', 'c', 'd', 'e'] and 3 more"
    assert shown_list(range(12), 10).endswith("and 2 more")


def test_missing_columns_are_counted_past_the_first_five(tmp_path, capsys):
    df = load_house_votes()
    df.to_csv(tmp_path / "votes.csv", index=False)
    assert main(["-q", "fit", str(tmp_path / "votes.csv"), "--target", "party", "-o", str(tmp_path / "m.bnb")]) == 0
    df.iloc[:, :4].to_csv(tmp_path / "few.csv", index=False)  # party and 3 of the 16 votes
    assert main(["predict", str(tmp_path / "m.bnb"), str(tmp_path / "few.csv")]) == 2
    line = capsys.readouterr().err.strip()
    assert "missing column(s) [" in line and "] and 8 more that the model was fitted on" in line, line


@pytest.mark.parametrize("chunked", [False, True])
def test_fit_on_one_class_warns_naming_it(chunked, tmp_path, capsys):
    df = load_play_tennis()
    df[df["PlayTennis"] == "Yes"].to_csv(tmp_path / "yes.csv", index=False)
    extra = ["--chunksize", "4"] if chunked else []
    assert main(["-q", "fit", str(tmp_path / "yes.csv"), "--target", "PlayTennis", "-o", str(tmp_path / "m.bnb"),
                 *extra]) == 0
    err = capsys.readouterr().err
    assert "warning: UserWarning:" in err and "the class 'Yes' in 'PlayTennis'" in err, err
    df.to_csv(tmp_path / "both.csv", index=False)
    assert main(["-q", "fit", str(tmp_path / "both.csv"), "--target", "PlayTennis", "-o", str(tmp_path / "b.bnb"),
                 *extra]) == 0
    assert "UserWarning" not in capsys.readouterr().err
