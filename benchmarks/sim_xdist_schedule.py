"""Replay pytest-xdist's own schedulers on a suite's measured test times: the wall time each would give.

``make test`` runs ``pytest -n 2``; xdist's default ``--dist load`` hands each worker chunks of the
collection and, once every test is handed out, lets a worker that has finished sit idle while the other
works through the rest of its queue. ``--dist worksteal`` gives each worker half the collection and moves
tests from the longer queue to a worker that runs out. This script drives xdist's ``LoadScheduling`` and
``WorkStealingScheduling`` classes themselves (the installed version) with simulated workers whose tests
take the times of one real run, in collection order, and prints each one's makespan and idle tail.

A worker runs its first queued test only once a second one is queued (pytest needs the next item) or it is
shutting down, as xdist's workers do; a steal request takes back the requested tests the worker has not
started. Tests are independent here (a module fixture or a compiled program that two tests share is
charged where it was measured), so the figures are the scheduling alone; keeping a module's tests on one
worker, as ``worksteal``'s halves do, saves further fixture and compile work that this leaves out.

Usage::

    .venv/bin/python -m pytest -n 2 -q --junitxml=/tmp/suite.xml          # any run: the tests' times
    .venv/bin/python -m pytest --collect-only -q > /tmp/collection.txt     # the collection order
    .venv/bin/python benchmarks/sim_xdist_schedule.py /tmp/suite.xml /tmp/collection.txt [-n 2]
"""

from __future__ import annotations

import argparse
import heapq
import types
import xml.etree.ElementTree as ET

import xdist.scheduler.load as xdist_load
import xdist.scheduler.worksteal as xdist_worksteal
from xdist.scheduler.load import LoadScheduling
from xdist.scheduler.worksteal import WorkStealingScheduling

SCHEDULERS = {"load": LoadScheduling, "worksteal": WorkStealingScheduling}


def junit_times(path) -> dict:
    """``{node id: seconds}`` (setup + call + teardown) of a pytest ``--junitxml`` file."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        parts, name = case.get("classname", "").split("."), case.get("name", "")
        # "tests.test_x.TestClass" + name is "tests/test_x.py::TestClass::name": every split of the dotted
        # path into file and classes is a candidate (only the real one is in the collection)
        for cut in range(len(parts), 0, -1):
            node = "/".join(parts[:cut]) + ".py::" + "::".join(parts[cut:] + [name])
            out[node] = out.get(node, 0.0) + float(case.get("time", 0.0))
    return out


def collection_order(path) -> list:
    """Node ids of ``pytest --collect-only -q`` output, in order."""
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if "::" in line]


class _Worker:
    """A simulated xdist worker: the methods the schedulers call on a ``WorkerController``."""

    def __init__(self, i, sim):
        self.gateway = types.SimpleNamespace(id=f"gw{i}")
        self.shutting_down = False
        self.queue, self.running, self.busy, self.sim, self.ran = [], False, 0.0, sim, []

    def send_runtest_some(self, indices):
        self.queue.extend(indices)
        self.sim.start(self)

    def shutdown(self):
        self.shutting_down = True
        self.sim.start(self)

    def send_steal(self, indices):
        started = set(self.queue[:1]) if self.running else set()
        given = [i for i in indices if i in self.queue and i not in started]
        self.queue = [i for i in self.queue if i not in set(given)]
        self.sim.unscheduled.append((self, given))


class _Simulation:
    def __init__(self, scheduler, seconds, n_workers):
        self.seconds, self.now, self.events, self.unscheduled = seconds, 0.0, [], []
        for module in (xdist_load, xdist_worksteal):  # the schedulers read the worker count from -n
            module.parse_tx_spec_config = lambda config: ["popen"] * n_workers
        config = types.SimpleNamespace(getoption=lambda name: None, getvalue=lambda name: None)
        log = types.SimpleNamespace(loadsched=lambda *a: None, workstealsched=lambda *a: None)
        self.sched = scheduler(config, log=log)
        self.workers = [_Worker(i, self) for i in range(n_workers)]
        names = [str(i) for i in range(len(seconds))]
        for w in self.workers:
            self.sched.add_node(w)
        for w in self.workers:
            self.sched.add_node_collection(w, names)

    def start(self, w):
        if not w.running and w.queue and (len(w.queue) >= 2 or w.shutting_down):
            w.running = True
            w.busy += self.seconds[w.queue[0]]
            heapq.heappush(self.events, (self.now + self.seconds[w.queue[0]], w.gateway.id, w))

    def _answer_steals(self):
        while self.unscheduled:
            w, given = self.unscheduled.pop(0)
            self.sched.remove_pending_tests_from_node(w, given)

    def run(self):
        self.sched.schedule()
        self._answer_steals()
        while self.events:
            self.now, _, w = heapq.heappop(self.events)
            done = w.queue.pop(0)
            w.running = False
            w.ran.append(done)
            self.sched.mark_test_complete(w, done, self.seconds[done])
            self._answer_steals()
            for other in self.workers:
                self.start(other)
        if any(w.queue for w in self.workers) or self.sched.pending:
            raise RuntimeError("sim_xdist_schedule: tests left unrun (the simulated workers stalled)")
        return self.now, [w.busy for w in self.workers], [w.ran for w in self.workers]


def simulate(seconds, n_workers=2, dist="load"):
    """Makespan and per-worker busy seconds of xdist's ``dist`` scheduler on tests of ``seconds`` (in order).

    Parameters
    ----------
    seconds : sequence of float
        Each test's time, in collection order.
    n_workers : int, default=2
    dist : {"load", "worksteal"}

    Returns
    -------
    makespan : float
    busy : list of float
        Seconds each worker spent running tests.
    ran : list of list of int
        The tests (positions in ``seconds``) each worker ran, in order.
    """
    if dist not in SCHEDULERS:
        raise ValueError(f"sim_xdist_schedule: dist must be one of {sorted(SCHEDULERS)}; received {dist!r}")
    return _Simulation(SCHEDULERS[dist], [float(s) for s in seconds], int(n_workers)).run()


def main(argv=None) -> int:
    """Print the makespan of each scheduler on the run's times."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit", help="pytest --junitxml file of a run (the tests' times)")
    ap.add_argument("collection", help="pytest --collect-only -q output (the collection order)")
    ap.add_argument("-n", type=int, default=2, help="workers (default 2)")
    args = ap.parse_args(argv)
    times, order = junit_times(args.junit), collection_order(args.collection)
    missing = [t for t in order if t not in times]
    seconds = [times.get(t, 0.0) for t in order]
    total = sum(seconds)
    print(f"{len(order)} tests collected, {len(missing)} without a time in the JUnit file (taken as 0 s); "
          f"{total:.0f} s of test time, {total / args.n:.0f} s per worker if split evenly")
    modules = [t.split("::")[0] for t in order]
    for dist in SCHEDULERS:
        end, busy, ran = simulate(seconds, args.n, dist)
        workers_of = {}
        for w, tests in enumerate(ran):
            for i in tests:
                workers_of.setdefault(modules[i], set()).add(w)
        split = sum(len(ws) > 1 for ws in workers_of.values())  # a module fixture is built once per worker
        print(f"--dist {dist:9s}  makespan {end:7.1f} s   busy per worker {', '.join(f'{b:.1f}' for b in busy)} s"
              f"   idle tail {end - min(busy):.1f} s   test files run on more than one worker: {split} "
              f"of {len(set(modules))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
