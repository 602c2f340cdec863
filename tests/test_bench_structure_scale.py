"""benchmarks/bench_structure_scale.py: its table is what it says, and a tiny run prints each fit's ratios."""

from __future__ import annotations

import numpy as np

import bench_structure_scale as bench


def test_table_is_mixed_with_the_stated_levels_and_missing_cells():
    X, y = bench.table(4000)
    cats = [c for c in X if str(X[c].dtype) == "category"]
    nums = [c for c in X if X[c].dtype == np.float64]
    assert len(cats) == 10 and len(nums) == 10 and X.shape == (4000, 20)
    assert [len(X[c].cat.categories) for c in cats] == list(bench.LEVELS)
    assert set(np.unique(y)) == {"a", "b", "c"}
    share = X.isna().to_numpy().mean()
    assert 0.01 < share < 0.03  # 2% of the cells missing
    assert (X[nums[-1]].dropna() % 1 == 0).all() and (X[nums[4]].dropna() > 0).all()  # counts, positive reals


def test_tiny_run_prints_the_ratios(capsys):
    assert bench.main(["--rows", "600", "--repeat", "1", "--fits", "tan"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] in (["naive"], ["tan"])}
    assert set(rows) == {"naive", "tan"}  # the naive reference is always run
    assert float(rows["naive"][3]) == 1.0 and float(rows["naive"][5]) == 1.0
    assert rows["tan"][1] == "tan" and float(rows["tan"][3]) > 0 and "load average" in out
