"""benchmarks/bench_private_synthesis.py runs end to end on a tiny made-up census table (no peers)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_private_synthesis as bps  # noqa: E402
from _census import COLUMNS, TARGET  # noqa: E402


def _fake_adult(folder, n=400, seed=0, test_rows=0):
    """A census-shaped table in UCI's format, values drawn from the codebook (not the real rows);
    with ``test_rows``, an ``adult.test`` too (UCI's first line, labels ending in ``.``)."""
    rng = np.random.default_rng(seed)
    cols = {}
    for col in COLUMNS:
        if col == TARGET:
            continue
        if col in bps.ADULT_CATEGORIES:
            cats = bps.ADULT_CATEGORIES[col]
            cols[col] = [cats[i] for i in rng.integers(0, min(len(cats), 4), n)]
        else:
            lo, hi = bps.ADULT_BOUNDS[col]
            cols[col] = rng.integers(lo, min(hi, lo + 60) + 1, n)
    frame = pd.DataFrame(cols)
    rich = (frame["age"] > 40) ^ (rng.random(n) < 0.15)
    frame[TARGET] = np.where(rich, ">50K", "<=50K")
    frame.loc[3, "occupation"] = "?"  # a missing cell: complete rows only
    frame[COLUMNS].iloc[test_rows:].to_csv(folder / "adult.data", header=False, index=False, sep=",")
    if test_rows:
        test = frame[COLUMNS].iloc[:test_rows].assign(**{TARGET: frame[TARGET].iloc[:test_rows] + "."})
        (folder / "adult.test").write_text("|1x3 Cross validator\n" + test.to_csv(header=False, index=False))
    return frame


def test_codes_round_trip_and_two_way_tvd(tmp_path):
    _fake_adult(tmp_path, test_rows=100)
    train, test = bps.load(tmp_path)
    assert (len(train), len(test)) == (300, 99)  # the official split; the row with "?" dropped
    assert set(test[TARGET]) == {"<=50K", ">50K"}
    edges = bps.bin_edges(20)
    dom = bps.domains(edges)
    assert len(dom["education-num"]) == 16  # one bin per value: 1-16 declared
    assert len(dom["age"]) == 20 and len(dom["workclass"]) == 8  # declared, not the 4 values seen
    codes = bps.encode(train, edges, dom)
    back = bps.decode(codes, edges, dom, np.random.default_rng(0))
    for col, (lo, hi) in bps.ADULT_BOUNDS.items():
        assert back[col].between(lo, hi).all()
    pd.testing.assert_frame_equal(bps.encode(back, edges, dom), codes)
    assert bps.two_way_tvd(codes, codes, dom) == 0.0
    shifted = codes.copy()
    shifted["sex"] = 1 - shifted["sex"]  # every pair with sex moves all its mass
    tvd = bps.two_way_tvd(codes, shifted, dom)
    pairs_with_sex = len(COLUMNS) - 1
    assert 0 < tvd <= pairs_with_sex / (len(COLUMNS) * (len(COLUMNS) - 1) / 2) + 1e-12


def test_undeclared_category_is_refused(tmp_path):
    _fake_adult(tmp_path, test_rows=100)
    train, _ = bps.load(tmp_path)
    train.loc[0, "workclass"] = "Astronaut"
    edges = bps.bin_edges(20)
    with pytest.raises(ValueError, match="workclass"):
        bps.encode(train, edges, bps.domains(edges))


def test_runs_end_to_end_without_peers(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    big = _fake_adult(data, n=8400)  # 8,000 test rows are held out without adult.test
    assert len(big) == 8400
    frame = bps.main(["--data", str(data), "--seeds", "1", "--epsilons", "1", "--detect-rows", "150",
                      "--methods", "naive", "naive-binned", "tan", "synth", "mst", "--save", str(tmp_path / "run.csv")])
    out = capsys.readouterr().out
    assert "| 1 | naive | 1 |" in out and "| 1 | naive-binned | 1 |" in out
    assert "(left out, no peer Python given: mst)" in out
    assert "(reference: the same classifier trained on the 399 real training rows: accuracy" in out
    ok = frame[frame["method"].isin(["naive", "naive-binned"])]
    assert len(ok) == 2 and ok["TSTR acc"].between(0, 1).all() and ok["2-way TVD"].between(0, 1).all()
    assert ok["det. LR"].between(0, 1).all()
    synth = frame[frame["method"] == "synth"]  # the private Synthesizer (binned numeric columns)
    assert "| 1 | synth | 1 |" in out and synth["2-way TVD"].between(0, 1).all()
    tan = frame[frame["method"] == "tan"]
    # private structure: numbers once bayesnb learns it privately, else the refusal is shown
    failed = tan["error"].notna().all() if "error" in tan else False
    assert len(tan) == 1 and (failed or tan["TSTR acc"].between(0, 1).all())
    if failed:
        assert "| 1 | tan | 0 | not available |" in out
    bps.main(["--data", str(data), "--seeds", "1", "--first-seed", "1", "--epsilons", "1", "--detect-rows", "150",
              "--methods", "naive", "--mechanism", "gaussian", "--save", str(tmp_path / "run2.csv")])
    assert "bayesnb's mechanism gaussian, peers' delta 1e-09" in capsys.readouterr().out
    merged = bps.main(["--merge", str(tmp_path / "run.csv"), str(tmp_path / "run2.csv")])
    assert len(merged) == len(frame) + 1 and sorted(merged.loc[merged["method"] == "naive", "seed"]) == [0, 1]
    assert "| 1 | naive | 2 |" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("false") is None, reason="no `false` command")
def test_peer_failure_is_reported_not_raised(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    _fake_adult(data, n=500, test_rows=100)
    frame = bps.main(["--data", str(data), "--seeds", "1", "--epsilons", "1", "--detect-rows", "100",
                      "--methods", "naive", "mst", "--peer-python", shutil.which("false")])
    mst = frame[frame["method"] == "mst"]
    assert len(mst) == 1 and "mst failed" in mst["error"].iloc[0]
    assert "| 1 | mst | 0 | not available |" in capsys.readouterr().out
