"""benchmarks/bench_synthetic_inference.py: its population values are the population's, and a short run
reports every estimand and kind of table."""

from __future__ import annotations

import numpy as np
import pytest

import bench_synthetic_inference as bench


def test_population_values_match_a_large_sample():
    table = bench.draw_table(200_000, np.random.default_rng(0))
    truth = bench.population_values()
    est = bench.analyse(table)
    assert est["mean income"][0] == pytest.approx(truth["mean income"], abs=0.05)
    assert est["slope on age"][0] == pytest.approx(truth["slope on age"], abs=0.005)


def test_a_short_run_reports_each_estimand_and_kind_of_table():
    res = bench.run(reps=2, n=200, m=2, seed=0)
    out = bench.summary(res)
    assert set(out.index) == {(e, t) for e in ("mean income", "slope on age") for t in ("simple", "proper")}
    assert out["coverage"].between(0, 1).all() and (out["width / real"] > 0).all()
