"""Issue 31 review (M5): a Histogram block's NumPyro static structure is its bin counts only; the tails' end-bin
``n`` (a training statistic) rides along host-side, so fits with the same shapes but other data share a compiled
program (the in-memory and on-disk caches are keyed by the spec's equality and repr)."""

from __future__ import annotations

import pickle

import numpy as np

from bayesnb import Histogram, NaiveBayes
from bayesnb.families import _histogram_bins as bins
from bayesnb.inference.numpyro_model import model_inputs


def _fit(seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(0, 1, 80), rng.exponential(2.0, 80)])
    w = rng.integers(1, 4, 80)  # weighted: the end bins' n depend on the data
    return NaiveBayes(features={(0, 1): Histogram(bins=5)}).fit(X, rng.integers(0, 2, 80), sample_weight=w), X


def test_same_shapes_other_data_give_the_same_spec_and_their_own_tails():
    (a, Xa), (b, _) = _fit(0), _fit(1)
    spec_a = model_inputs(a.posterior_, (a._encode_blocks(Xa, a.posterior_)[0], np.zeros(80)), likelihood="rows")[0]
    spec_b = model_inputs(b.posterior_, (b._encode_blocks(Xa, b.posterior_)[0], np.zeros(80)), likelihood="rows")[0]
    sa, sb = spec_a.blocks[0].static, spec_b.blocks[0].static
    assert sa.ends != sb.ends  # the end bins' n differ with the data ...
    assert spec_a == spec_b and hash(spec_a) == hash(spec_b) and repr(spec_a) == repr(spec_b)  # ... not the key
    far = np.array([[50.0, 50.0]])
    enc = a._encode_blocks(far, a.posterior_)[0][0]
    fam = a.posterior_.blocks[0].family
    got = fam.numpyro_row_args(enc, sa)["log_width"]
    want = bins.row_terms(enc, a.posterior_.blocks[0].prior).sum(axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-6)  # the tail with this fit's own n
    back = pickle.loads(pickle.dumps(sa))
    assert back == sa and back.ends == sa.ends and isinstance(back, bins.BinShapes)
