"""Shared fixtures: paths to ../shared/data (skip when absent) and a JAX compile cache."""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import re
import subprocess
import sys
from pathlib import Path

# One BLAS / OpenMP thread per test process and its subprocesses, set before NumPy loads (each library reads
# these once): the suite runs a worker per core (``-n 2``) on small arrays, where a library's extra pool
# threads only spin against the other worker's (a synthetic_report of house votes: ~3 x slower with 2).
# A variable already set is kept.
from forkserver import THREAD_VARS  # noqa: E402 (standard library only)

for _threads in THREAD_VARS:
    os.environ.setdefault(_threads, "1")

import gc  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402


#: the benchmark scripts' data generators are the tests' too (one place): ``import bench_*``
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.append(str(BENCHMARKS))

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BAYESNB_SHARED_DATA", ROOT.parent / "shared" / "data"))

# Persistent JAX compilation cache: repeated NUTS compilations are much cheaper.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(ROOT / ".jax_cache"))

# One hypothesis profile for every module, loaded before any is imported (a module's @settings
# inherits the profile loaded when it is built): "ci" draws the same examples on every run
# (derandomized, no example database); BAYESNB_HYPOTHESIS_PROFILE=long searches far longer.
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", max_examples=100, derandomize=True, deadline=None, database=None,
                          print_blob=True, suppress_health_check=_SUPPRESS)
settings.register_profile("long", max_examples=3000, deadline=None, print_blob=True,
                          suppress_health_check=_SUPPRESS)
settings.load_profile(os.environ.get("BAYESNB_HYPOTHESIS_PROFILE", "ci"))


# The cyclic garbage collector in a test process. A full collection walks every tracked object, and JAX,
# NumPyro, scikit-learn and pandas leave millions of them: each worker spent ~10 s of the suite in ~35
# full collections, 3 s of it while the test modules were imported. The collector is off while they are
# imported (what they allocate lives to the end, or reference counting frees it); then what is alive is
# moved out of its sight (``gc.freeze``), and the tests run with it on, at its default thresholds,
# walking only what the tests made. (xdist's controller collects nothing and never calls these.)
def pytest_collection(session):
    """Import the test modules with the cyclic garbage collector off."""
    gc.disable()


def pytest_collection_finish(session):
    """Freeze what the imports left alive and turn the collector back on for the tests."""
    gc.collect()
    gc.freeze()
    gc.enable()


#: how the suite's Dask clusters start their worker processes (distributed's
#: ``worker.multiprocessing-method``): forked from a forkserver that imports dask, NumPy and pandas once,
#: rather than spawned (still separate processes, started ~0.4 s and closed ~1 s sooner, their first task
#: ~0.5 s sooner); spawned where the platform has no forkserver
DASK_WORKER_START = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


# A subprocess gets a hang guard, not a speed limit: a busy CI machine may be many times slower
# than a developer's, and a test must not fail for that. Override with BAYESNB_TEST_HANG_GUARD_S.
HANG_GUARD_S = float(os.environ.get("BAYESNB_TEST_HANG_GUARD_S", 1800))


def run_python(args, **kwargs) -> subprocess.CompletedProcess:
    """Run ``python *args`` in a subprocess (text output captured) with only a hang guard.

    Parameters
    ----------
    args : list of str
        Arguments after the interpreter, e.g. ``["-m", "bayesnb", "--help"]``.
    **kwargs
        Passed to :func:`subprocess.run` (``cwd``, ``env``, ...).

    Returns
    -------
    subprocess.CompletedProcess
    """
    kwargs.setdefault("timeout", HANG_GUARD_S)
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, **kwargs)


#: what every fork server holds (tests/forkserver.py): imported once per test process
FORK_BASE = ("numpy", "pandas")


@pytest.fixture(scope="session")
def fork_server():
    """``fork_server(extra=(), env=None)``: a :class:`forkserver.ForkServer` holding :data:`FORK_BASE` and
    ``extra`` (imported with ``env``, default this process's); one per (extra, env) in a test process, each
    forked from the one holding the longest start of ``extra`` with the same or the default environment (the
    first module of ``extra`` always gets one: ``("scipy.stats", "sklearn.naive_bayes")`` and ``("scipy.stats",
    "jax")`` share SciPy's import), all stopped at the end. Each run is a fresh interpreter, forked (a real one
    where ``os.fork`` is missing)."""
    from forkserver import ForkServer, Subprocesses

    servers = {}
    base = ((), None)

    def get(extra=(), env=None):
        extra = tuple(extra)
        key = (extra, None if env is None else tuple(sorted(env.items())))
        if base not in servers:
            servers[base] = (ForkServer if hasattr(os, "fork") else Subprocesses)(FORK_BASE, timeout=HANG_GUARD_S)
        if len(extra) > 1:
            get(extra[:1])
        if key not in servers:
            parent = max((k for k in servers if extra[:len(k[0])] == k[0] and k[1] in (None, key[1])),
                         key=lambda k: len(k[0]))
            servers[key] = servers[parent].extend(extra[len(parent[0]):], env)
        return servers[key]

    yield get
    if base in servers:
        servers[base].close()


@pytest.fixture(scope="session")
def sklearn_fork_server(fork_server):
    """Fresh processes (forked) with SciPy and scikit-learn's naive_bayes imported too, none of bayesnb; each
    test asserts that the server holds none of the other modules its check is about."""
    server = fork_server(("scipy.stats", "sklearn.naive_bayes"))
    server.assert_unloaded(("bayesnb",))
    return server


@pytest.fixture(scope="session")
def jax_fork_server(fork_server):
    """Fresh processes (forked) with JAX, NumPyro, scikit-learn and xarray imported, no JAX backend started and no
    compile cache configured: a run chooses its own (``XDG_CACHE_HOME``, ``BAYESNB_JAX_CACHE``, read when
    bayesnb samples), or sets its devices before JAX starts."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("JAX_COMPILATION_CACHE_DIR", "BAYESNB_JAX_CACHE", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
                        "XDG_CACHE_HOME")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")  # (a fork's path is its server's)
    # and what sampling loads on its way (ArviZ's xarray, which loads Dask): ~0.7 s less per process
    server = fork_server(("scipy.stats", "jax", "numpyro", "numpyro.infer", "sklearn.naive_bayes", "xarray",
                          "arviz_base", "dask.array"), env)
    server.assert_unloaded(("bayesnb",))  # and no JAX backend (each server checks it)
    return server


def shared_file(name: str) -> Path:
    """Path of a large dataset in ../shared/data, or skip the test with the reason."""
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{name} not found in {SHARED} (large datasets live in ../shared/data beside the checkout)")
    return path


@pytest.fixture(scope="session")
def news20():
    """20 Newsgroups bydate as (train_texts, train_labels, test_texts, test_labels)."""
    from bayesnb.datasets import read_20newsgroups

    tr_x, tr_y, te_x, te_y = read_20newsgroups(shared_file("20news-bydate.jsonl.gz"))
    return tr_x, list(tr_y), te_x, list(te_y)


@pytest.fixture(scope="module")
def votes():
    """House Votes 1984 as (X, y): the 16 votes a DataFrame with "?" missing, the party an object array."""
    from cases import load_votes

    return load_votes()


@pytest.fixture(scope="module")
def votes_codes():
    """House Votes 1984 with "?" a third value, as (X, y): X the votes coded n=0, y=1, ?=2 (int ndarray)."""
    from cases import load_votes

    return load_votes(missing=False, codes={"n": 0, "y": 1, "?": 2})


def same_printout(got, shown):
    """The same text, with every number within 0.02 (absolute) or 2% of the one the page shows
    (another BLAS or platform may round the last printed digits differently)."""
    number = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
    assert re.sub(number, "#", got) == re.sub(number, "#", shown), got
    for a, b in zip(re.findall(number, got), re.findall(number, shown)):
        assert abs(float(a) - float(b)) <= max(0.02, 0.02 * abs(float(b))), (a, b, got)


def run_docs_snippets(page, heading=None):
    """Run the python blocks of ``docs/<page>`` (after ``heading``, if given) as pasted and
    check that each prints its following text block (:func:`same_printout`)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / page).read_text(encoding="utf-8")
    if heading is not None:
        text = text[text.index(heading):]
    # each python block is checked against the first text block after it (before the next python
    # block); a block marked ``<!-- not-run: REASON -->`` (test_readme.py's marker) is only compiled
    pieces = re.findall(r"(<!--\s*not-run:[^>]*-->\s*)?```(python|text)\n(.*?)```", text, flags=re.DOTALL)
    blocks = []
    for i, (marker, kind, body) in enumerate(pieces):
        if kind != "python":
            continue
        if marker:
            compile(body, f"docs/{page}", "exec")
            continue
        after = next((b for _, k, b in pieces[i + 1:] if k == "text"), None)
        nxt = next((j for j in range(i + 1, len(pieces)) if pieces[j][1] == "python"), len(pieces))
        assert any(k == "text" for _, k, _ in pieces[i + 1:nxt]), (page, body[:80])
        blocks.append((body, after))
    assert blocks, page
    for code, expected in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/{page}", "exec"), {})  # noqa: S102 - the page's own snippets
        same_printout(out.getvalue().strip(), expected.strip())
    return len(blocks)


@pytest.fixture(scope="session")
def penguins(tmp_path_factory):
    """A folder with ``penguins.csv`` (``bayesnb datasets export``) and the model the CLI fits on it
    (``penguins.bnb``, target ``species``); tests must not modify either."""
    from bayesnb.cli import main as cli_main  # here, not at the top: xdist's controller starts its workers sooner

    d = tmp_path_factory.mktemp("penguins")
    assert cli_main(["datasets", "export", "penguins", "-o", str(d / "penguins.csv")]) == 0
    assert cli_main(["fit", str(d / "penguins.csv"), "--target", "species", "-o", str(d / "penguins.bnb")]) == 0
    return d

