"""benchmarks/bench_import.py: one round reports medians for each statement, ``--baseline``
times the ``bayesnb`` of the folder given (not this checkout's), and ``--own`` the second import
of each pair.

The warm-up interpreters of :func:`bench_import.run` are real ones; the round's are forked from a server that
has imported NumPy and pandas (``tests/forkserver.py``), which neither statement of a pair is about: a round
still starts each statement from nothing of bayesnb or scikit-learn.
"""

from __future__ import annotations

import json

import pytest

import bench_import as bench


@pytest.fixture(scope="module")
def forked_measure(fork_server):
    """:func:`bench_import.measure`, its interpreter forked from a server holding NumPy and pandas."""
    server = fork_server()
    server.assert_unloaded(("bayesnb", "sklearn", "scipy", *bench.HEAVY))

    def measure(statement, env=None, cwd=None, prelude=""):
        # ``python -c`` puts its working folder first on sys.path, a fork the same: --baseline's folder comes first
        code = bench.CHILD.format(prelude=prelude, statement=statement, heavy=bench.HEAVY)
        r = server.run(["-c", code], env=env, cwd=cwd)
        assert r.returncode == 0, r.stderr[-3000:]
        return json.loads(r.stdout.strip().splitlines()[-1])

    return measure


@pytest.mark.slow
def test_one_round_with_a_baseline(tmp_path, forked_measure):
    fake = tmp_path / "bayesnb"
    fake.mkdir()
    # a heavy module of bench.HEAVY that is cheap to import (sklearn.ensemble took ~1 s per interpreter)
    (fake / "__init__.py").write_text('"""A stand-in that loads a heavy module."""\nimport matplotlib\n'
                                      'NaiveBayes = None\n')
    res = bench.run(1, baseline=str(tmp_path), own=True, measure_rounds=forked_measure)
    assert set(res) == {*bench.STATEMENTS, *bench.BASELINE, *bench.OWN, bench.BASELINE_OWN}
    assert all(r["seconds"] > 0 and r["cpu"] > 0 and r["rss_mib"] > 10 for r in res.values())
    assert res["bayesnb"]["heavy"] == [] and res["sklearn.naive_bayes"]["heavy"] == []
    assert res["bayesnb (baseline)"]["heavy"] == ["matplotlib"]
    assert res["bayesnb: NaiveBayes"]["modules"] > 10 and res["bayesnb: NaiveBayes"]["pyc_kb"] > 10
    assert res["sklearn.naive_bayes"]["modules"] == 0 and res["bayesnb (baseline)"]["modules"] == 1
    assert res[bench.BASELINE_OWN]["modules"] == 1 and res[bench.BASELINE_OWN]["heavy"] == ["matplotlib"]
    for name in bench.OWN:  # the second import of a pair adds less than either alone
        assert res[name]["cpu"] < max(res["bayesnb"]["cpu"], res["sklearn.naive_bayes"]["cpu"])


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        bench.run(0)
    with pytest.raises(ValueError, match="no bayesnb package in --baseline"):
        bench.run(1, baseline=str(tmp_path))
