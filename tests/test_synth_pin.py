"""The Synthesizer's choice and rows are pinned: speed-ups of its fit (issue 26) must not change what it
chooses (``chosen_``, every ``selection_`` figure to the last bit) or samples (identical rows for a seed).

The digests below were taken with the code before the hierarchical smoothing's evidence was evaluated
on the non-empty cells only (``bayesnb.structure.hierarchical._level_evidence_fn``); the exactness
of that evaluation is also checked directly, bit for bit, against the dense form.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
from scipy.special import digamma

from bayesnb import Synthesizer
from bayesnb.datasets import load_penguins
from bayesnb.structure.hierarchical import _level_evidence_fn, _level_log_evidence, expected_tables

#: sha256 of (chosen_, selection_ with floats as hex, 300 sampled rows with seed 1) per setting
PINNED = {
    "default": "8fa244fe20fcc595b6b48911cf21b09d2bf5eeb51f1386867f725627485abcaa",
    "kdb": "d8898b777e359f843c753f625a03f646a0c99f36cc08c305ac0e77e1b788caaa",
}
SETTINGS = {"default": {}, "kdb": {"structure": "kdb"}}


def digest(setting):
    """sha256 of a penguins Synthesizer's choice, selection table and 300 rows (see :data:`PINNED`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer(target="species", latent_candidates=(1, 2, 3), random_state=0,
                            verbose=False, **SETTINGS[setting]).fit(load_penguins())
        rows = synth.sample(300, random_state=1)
    sel = synth.selection_.map(lambda v: float(v).hex() if isinstance(v, float) else repr(v))
    text = "\n".join([synth.chosen_, sel.to_csv(), rows.to_csv(float_format="%.17g")])
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_choice_and_rows_pinned(setting):
    assert digest(setting) == PINNED[setting]


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
