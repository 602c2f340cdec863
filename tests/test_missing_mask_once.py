"""The missing cells are found once, where the raw table is read (validation, encoding): fit, predict,
impute and sample then read the mask the encoded blocks carry (``Family.gen_missing``) and never call
:func:`bayesnb._utils.missing_mask` on the table again."""

from __future__ import annotations

import collections
import sys
import traceback

import numpy as np

import bayesnb._utils as U
from bayesnb import NaiveBayes
from bayesnb.families import Categorical, Gaussian, Poisson

#: the modules that read user data, where the mask is built
ENTRY = ("estimators/", "families/")


def _counting(monkeypatch):
    calls = collections.Counter()
    orig = U.missing_mask

    def counted(values):
        calls[traceback.extract_stack()[-2].filename.replace("\\", "/").split("bayesnb/")[-1]] += 1
        return orig(values)

    for name, mod in list(sys.modules.items()):
        if name.startswith("bayesnb") and getattr(mod, "missing_mask", None) is orig:
            monkeypatch.setattr(mod, "missing_mask", counted)
    return calls


def _table(n=240, seed=0):
    rng = np.random.default_rng(seed)
    src = rng.poisson(2, n).astype(float)
    X = np.empty((n, 4), dtype=object)  # an object table: its numeric blocks' cells are read once each
    X[:, 0], X[:, 1], X[:, 2] = rng.normal(size=n), rng.choice(["x", "y", "z"], n), src
    X[:, 3] = np.where(src == 0, 0.0, rng.normal(5, 1, n))  # 0 wherever column 2 is 0: a zero link
    X[rng.random(X.shape) < 0.2] = None
    return X, rng.integers(0, 2, n)


def test_fit_predict_impute_sample_read_the_carried_mask(monkeypatch):
    X, y = _table()
    calls = _counting(monkeypatch)
    est = NaiveBayes(features={0: Gaussian(), 1: Categorical(), 2: Poisson(), 3: Gaussian()}).fit(X, y)
    assert est.zero_links_  # the impute route below keeps a link: it needs the imputed cells
    counts = {}
    for step, call in [("predict", lambda: est.predict(X)),
                       ("impute", lambda: est.impute(X, strategy="draw", n_imputations=3, random_state=0)),
                       ("sample", lambda: est.sample(20, random_state=0))]:
        calls.clear()
        call()
        assert all(where.startswith(ENTRY) for where in calls), (step, dict(calls))
        counts[step] = sum(calls.values())
    assert counts["predict"] > 0  # the table's reading builds it ...
    assert counts["impute"] == counts["predict"]  # ... once, not again for each completed table
    assert counts["sample"] == 0
