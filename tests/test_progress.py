"""Progress bars (issue 30): every long call shows one on a terminal and in Jupyter, verbose=False / -q /
set_progress(False) silence it. tqdm is replaced by a recorder, so nothing depends on time or a terminal."""

from __future__ import annotations

import sys
import types
from typing import ClassVar

import pytest

import bayesnb
from bayesnb import NaiveBayes, _progress, check_independence
from bayesnb.datasets import load_penguins


class FakeTqdm:
    """Records every bar made: its description and whether it was enabled."""

    made: ClassVar[list] = []

    def __init__(self, iterable=None, *, total=None, desc="", disable=False, delay=0.0, **kw):
        self.iterable, self.desc, self.disable, self.delay = iterable, desc, disable, delay
        FakeTqdm.made.append(self)

    def __iter__(self):
        return iter(self.iterable)

    def update(self, n=1):
        pass

    def set_postfix_str(self, s):
        pass

    def close(self):
        pass


@pytest.fixture
def bars(monkeypatch):
    import tqdm.auto

    FakeTqdm.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", FakeTqdm)
    old = bayesnb.set_progress(None)
    yield FakeTqdm.made
    bayesnb.set_progress(old)


def _shown(bars, word):
    """The bars whose description holds ``word`` and that were enabled."""
    return [b for b in bars if word in b.desc and not b.disable]


def test_interactive_in_a_jupyter_kernel_and_on_a_terminal(monkeypatch):
    class Kernel:
        kernel = object()

    class NotATerminal:
        def isatty(self):
            return False

    assert not _progress.interactive(NotATerminal())
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: None))
    assert not _progress.interactive(NotATerminal())  # IPython in a terminal, not a kernel
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=Kernel))
    assert _progress.interactive(NotATerminal())


@pytest.mark.parametrize("setting, verbose, shown", [(True, None, True), (False, None, False), (True, False, False),
                                                     (False, True, True)])
def test_the_long_calls_show_a_bar_that_verbose_and_set_progress_silence(bars, setting, verbose, shown):
    pg = load_penguins()
    X, y = pg.drop(columns="species"), pg["species"]
    bayesnb.set_progress(setting)
    model = NaiveBayes().fit(X, y)  # the family search follows the global setting only
    assert bool(_shown(bars, "family search")) == setting
    check_independence(model, X, y, n_replicates=3, random_state=0, verbose=verbose)
    assert bool(_shown(bars, "replicates")) == shown
    bayesnb.impute_table(X, y, configurations=("naive", "tan"), random_state=0, verbose=verbose)
    assert bool(_shown(bars, "impute_table")) == shown
    model.fit_latent_class(X.head(120), y.head(120), n_components="auto", candidates=(1, 2), n_init=1,
                           max_iter=5, random_state=0, verbose=verbose)
    assert bool(_shown(bars, "component counts")) == shown
    assert all(b.delay == _progress.DELAY for b in bars)  # quick calls never print


def test_the_command_line_q_flag_turns_bars_off(bars, tmp_path, capsys):
    from bayesnb.cli import main

    csv, model = tmp_path / "pg.csv", tmp_path / "pg.bnb"
    load_penguins().to_csv(csv, index=False)
    assert main(["fit", str(csv), "--target", "species", "-o", str(model), "-q"]) == 0
    bayesnb.set_progress(True)
    assert main(["check", str(model), str(csv), "--target", "species", "--replicates", "3", "-q"]) == 0
    assert bars and not _shown(bars, "")
    assert bayesnb.set_progress(None) is True  # -q turned bars off for the command only: the setting is restored


def test_set_progress_refuses_other_values():
    with pytest.raises(TypeError, match="expected True, False or None; received 'yes'"):
        bayesnb.set_progress("yes")
