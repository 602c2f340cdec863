"""Speed-ups of the Synthesizer's fit (issue 26) change nothing it does: with the hierarchical
smoothing's evidence over the non-empty cells only (``bayesnb.structure.hierarchical._level_evidence_fn``)
it chooses (``chosen_``, every ``selection_`` figure to the last bit) and samples (identical rows for a
seed) as with the dense evidence, in the same process; each rewritten sum is also checked bit for bit
against its dense form.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import digamma

from bayesnb import Synthesizer
from bayesnb.datasets import load_penguins
from bayesnb.structure import hierarchical
from bayesnb.structure.hierarchical import _level_evidence_fn, _level_log_evidence, expected_tables

SETTINGS = {"default": {}, "kdb": {"structure": "kdb"}}


def _fit(setting):
    """A penguins Synthesizer's choice, selection table and 300 rows drawn with seed 1."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer(target="species", latent_candidates=(1, 2, 3), random_state=0,
                            verbose=False, **SETTINGS[setting]).fit(load_penguins())
        return synth.chosen_, synth.selection_, synth.sample(300, random_state=1)


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_choice_and_rows_equal_those_of_the_dense_evidence(setting, monkeypatch):
    """The evidence over non-empty cells changes nothing the Synthesizer does: the same fit with the
    dense evidence (every cell of every context scored) chooses, tabulates and samples identically."""
    fast = _fit(setting)
    used = []
    monkeypatch.setattr(hierarchical, "_CACHE", type(hierarchical._CACHE)())  # refitted, not the fast fits kept
    monkeypatch.setattr(hierarchical, "_CACHE_TOTAL", [0])
    monkeypatch.setattr(hierarchical, "_level_evidence_fn",
                        lambda data, base: lambda c: used.append(1) or _level_log_evidence(c, data, base))
    dense = _fit(setting)
    assert used  # the dense evidence was computed
    assert fast[0] == dense[0]
    pd.testing.assert_frame_equal(fast[1], dense[1], check_exact=True)
    pd.testing.assert_frame_equal(fast[2], dense[2], check_exact=True)


def test_sparse_level_evidence_is_the_dense_sum_bit_for_bit():
    rng = np.random.default_rng(0)
    for _ in range(300):
        shape = tuple(rng.integers(1, 6, size=rng.integers(2, 5)))
        data = rng.poisson(rng.uniform(0.05, 3), size=shape) * rng.choice([1.0, 0.37, 1.5])
        base = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])
        if rng.random() < 0.3:  # one base for every context (broadcast)
            base = base.reshape(-1, shape[-1])[0]
        ev = _level_evidence_fn(data, base)
        for c in np.exp(rng.uniform(-9, 9, 4)):
            assert ev(c) == _level_log_evidence(c, data, base)


def test_sparse_expected_tables_is_the_dense_form_bit_for_bit():
    rng = np.random.default_rng(1)
    for _ in range(300):
        shape = tuple(rng.integers(1, 6, size=rng.integers(1, 5)))
        n = rng.poisson(rng.uniform(0.05, 3), size=shape) * rng.choice([1.0, 0.37])
        a = np.exp(rng.uniform(-5, 5, size=shape[-1:] if rng.random() < 0.3 else shape))
        full = np.broadcast_to(a, shape)
        dense = np.where(n > 0, full * (digamma(full + n) - digamma(full)), 0.0)
        got = expected_tables(n, a)
        assert got.shape == dense.shape and np.array_equal(got, dense)


def test_code_counts_of_every_column_equal_the_per_column_counts_bit_for_bit():
    from bayesnb.families._weighted_counts import code_counts, code_counts_columns

    rng = np.random.default_rng(2)
    for _ in range(100):
        n, d, K = int(rng.integers(1, 2000)), int(rng.integers(1, 8)), int(rng.integers(1, 40))
        sizes = rng.integers(1, 30, size=d)
        codes = np.stack([rng.integers(-1, v + 1, size=n) for v in sizes], axis=1)  # -1 and V_j left out
        resp = rng.dirichlet(np.ones(K), size=n)
        got = code_counts_columns(codes, resp, sizes)
        assert len(got) == d
        for j, v in enumerate(sizes):
            assert np.array_equal(got[j], code_counts(codes[:, j], resp, v))
    assert code_counts_columns(np.zeros((5, 0), int), np.ones((5, 2)), []) == ()
