"""benchmarks/sim_xdist_schedule.py: xdist's own schedulers replayed on test times."""

from __future__ import annotations

import pytest

import sim_xdist_schedule as sim


def test_load_leaves_a_tail_that_worksteal_takes_back():
    """A slow test near the end of the collection: ``load`` has handed the tests after it to the same worker, which
    runs them while the other idles; ``worksteal`` moves them. Every test runs once either way."""
    seconds = [0.01] * 400 + [30.0] + [1.0] * 20
    total = sum(seconds)
    end_load, busy_load, ran_load = sim.simulate(seconds, 2, "load")
    end_steal, busy_steal, ran_steal = sim.simulate(seconds, 2, "worksteal")
    assert sum(busy_load) == pytest.approx(total) and sum(busy_steal) == pytest.approx(total)
    assert end_steal == pytest.approx(max(busy_steal)) and end_steal < end_load
    assert end_steal <= 30.0 + 4.0 + 1.0  # the slow test and the 0.01 s tests beside it, at worst a few of the rest
    assert end_load - min(busy_load) > 10.0
    for ran in (ran_load, ran_steal):
        assert sorted(i for r in ran for i in r) == list(range(len(seconds)))


def test_junit_times_and_collection_order(tmp_path):
    junit = tmp_path / "j.xml"
    junit.write_text('<testsuites><testsuite><testcase classname="tests.test_a" name="test_x[1]" time="1.5"/>'
                     '<testcase classname="tests.families.test_b.TestC" name="test_y" time="0.25"/>'
                     '</testsuite></testsuites>')
    times = sim.junit_times(junit)
    assert times["tests/test_a.py::test_x[1]"] == 1.5 and times["tests/families/test_b.py::TestC::test_y"] == 0.25
    order = tmp_path / "c.txt"
    order.write_text("tests/test_a.py::test_x[1]\ntests/families/test_b.py::TestC::test_y\n\n2 tests collected\n")
    assert sim.collection_order(order) == ["tests/test_a.py::test_x[1]", "tests/families/test_b.py::TestC::test_y"]
    with pytest.raises(ValueError, match="dist must be one of"):
        sim.simulate([1.0], 2, "each")
