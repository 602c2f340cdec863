"""Smoke test of benchmarks/bench_kdb_elimination.py on the bundled table (the public ones are not shipped)."""

import bench_kdb_elimination as bench


def test_bench_kdb_elimination_runs_on_house_votes(capsys, tmp_path):
    bench.main(["--k", "2", "--data-dir", str(tmp_path)])  # an empty folder: house votes alone
    out = capsys.readouterr().out
    assert "house votes: 435 rows" in out and "TAN accuracy" in out
    line = next(s for s in out.splitlines() if "k-DB k=2" in s)
    assert "same fills there: True" in line and "(0 refused)" in line
    accuracy = float(line.split("accuracy ")[1].split(";")[0])
    assert 0.6 < accuracy < 1.0
