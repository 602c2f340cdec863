"""Fresh interpreters for less: a fork server that imports a fixed set of modules once, then forks a child per run.

Tests that check what a statement loads (``sys.modules`` after ``import bayesnb``), or that need a new
process (the compile cache read back by a second process, JAX devices set before JAX starts), each started
``python -c CODE``, paying the imports of NumPy, pandas, SciPy, scikit-learn or JAX every time (1-3 s
each). A :class:`ForkServer` is one ``python`` process that imports its ``preload`` modules, then, for
each :meth:`ForkServer.run`, forks a child that runs the code as ``python -c CODE ARGS`` would
(``__main__``, ``sys.argv``, working folder, environment, exit status, stdout and stderr of its own), with
nothing loaded but what the server holds. A test states which modules its check is about
(:meth:`ForkServer.assert_unloaded`): the server must hold none of them, so every check sees a child as a
user's fresh interpreter would, only with the server's third-party modules already imported.

Variables read when a module is imported (``JAX_*``, ``PYTHONPATH``, ``PYTHONWARNINGS``) are the server's,
given when it starts; a run may change only variables read later (``XDG_CACHE_HOME``,
``BAYESNB_JAX_CACHE``, ``XLA_FLAGS`` before JAX starts a backend: the server never starts one).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile

#: the server: preload, report its modules, then fork a child per request line (JSON), answer its exit status
_SERVER = r'''
import atexit, json, os, sys, traceback, types, warnings
# the forks run while NumPy's BLAS or jemalloc keep an idle thread (Python 3.12 warns); the child runs one thread
warnings.filterwarnings("ignore", message=r"This process .* is multi-threaded", category=DeprecationWarning)
for name in json.loads(sys.argv[1]):
    __import__(name)
if "jax" in sys.modules:  # a forked JAX backend would be unusable: the server must never start one
    from jax._src import xla_bridge
    assert not xla_bridge._backends, "the fork server started a JAX backend"
answer = os.fdopen(int(sys.argv[2]), "w", buffering=1)
answer.write(json.dumps(sorted(sys.modules)) + "\n")
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            answer.close()
            fd = os.open(os.devnull, os.O_RDONLY)
            os.dup2(fd, 0)
            for i, path in ((1, req["stdout"]), (2, req["stderr"])):
                fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
                os.dup2(fd, i)
                os.close(fd)
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            os.chdir(req["cwd"])
            os.environ.clear()
            os.environ.update(req["env"])
            sys.argv = ["-c", *req["args"]]
            main = types.ModuleType("__main__")
            sys.modules["__main__"] = main
            try:
                exec(compile(req["code"], "<string>", "exec"), main.__dict__)
                status = 0
            except SystemExit as e:  # as the interpreter exits: None is 0, a message is printed and is 1
                if e.code is None or isinstance(e.code, int):
                    status = e.code or 0
                else:
                    print(e.code, file=sys.stderr)
                    status = 1
            except BaseException:
                traceback.print_exc()
                status = 1
            atexit._run_exitfuncs()
        finally:
            for f in (sys.stdout, sys.stderr):
                try:
                    f.flush()
                except Exception:
                    pass
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    answer.write(json.dumps(os.waitstatus_to_exitcode(wait_status)) + "\n")
'''


class ForkServer:
    """A ``python`` process that has imported ``preload`` and forks a child for each :meth:`run`.

    Parameters
    ----------
    preload : sequence of str
        Modules the server imports once (third-party ones: a check must not be about them).
    env : dict, optional
        The server's environment (default: this process's), read by the modules as they import.
    timeout : float
        Hang guard for the server's start and for each run, in seconds.
    """

    def __init__(self, preload, env=None, timeout=1800.0):
        self.preload, self.timeout = tuple(preload), timeout
        self._env = dict(os.environ if env is None else env)
        self._tmp = tempfile.TemporaryDirectory(prefix="bayesnb-forkserver-")
        self._err = open(os.path.join(self._tmp.name, "server.err"), "w+")
        read, write = os.pipe()
        self._proc = subprocess.Popen([sys.executable, "-c", _SERVER, json.dumps(self.preload), str(write)],
                                      stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._err,
                                      text=True, env=self._env, pass_fds=(write,))
        os.close(write)
        self._answers = os.fdopen(read, "r")
        #: every module the server holds (each child starts with these and no other)
        self.modules = frozenset(json.loads(self._answer()))

    def _answer(self):
        ready, _, _ = select.select([self._answers], [], [], self.timeout)
        line = self._answers.readline() if ready else ""
        if not line:
            self.close()
            self._err.seek(0)
            raise RuntimeError(f"fork server (preload {self.preload}) stopped or hung:\n{self._err.read()[-3000:]}")
        return line

    def assert_unloaded(self, prefixes):
        """Assert that the server holds none of ``prefixes`` (modules or packages): what a check is about."""
        held = sorted(m for m in self.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
        assert held == [], f"the fork server preloads {held[:10]}, which a check here is about"

    def run(self, args, env=None, cwd=None, updates=None) -> subprocess.CompletedProcess:
        """Run ``python -c CODE ARGS`` as a forked child; like :func:`conftest.run_python` for ``["-c", CODE, ...]``.

        Parameters
        ----------
        args : list
            ``["-c", code, *argv]``.
        env : dict, optional
            The child's environment (default: the server's); see the module docstring for what it can change.
        cwd : str or path-like, optional
            The child's working folder (default: this process's).
        updates : dict, optional
            Variables to set in the child's environment on top of ``env``.

        Returns
        -------
        subprocess.CompletedProcess
            ``returncode``, ``stdout`` and ``stderr`` (text) of the child.
        """
        if len(args) < 2 or args[0] != "-c":
            raise ValueError(f"ForkServer.run takes ['-c', CODE, *ARGS], got {list(args)[:2]}")
        out, err = (os.path.join(self._tmp.name, f"child.{k}") for k in ("out", "err"))
        for path in (out, err):
            open(path, "w").close()
        child_env = dict(self._env if env is None else env, **(updates or {}))
        req = {"code": str(args[1]), "args": [str(a) for a in args[2:]], "env": child_env,
               "cwd": str(cwd or os.getcwd()), "stdout": out, "stderr": err}
        self._proc.stdin.write(json.dumps(req) + "\n")
        self._proc.stdin.flush()
        status = json.loads(self._answer())
        with open(out) as fo, open(err) as fe:
            return subprocess.CompletedProcess(["<fork>", *map(str, args)], status, fo.read(), fe.read())

    def close(self):
        """Stop the server (its children have all exited: each run waits for its child)."""
        if self._proc.poll() is None:  # it holds nothing to save: no clean interpreter exit to wait for
            self._proc.kill()
            self._proc.wait()
        self._proc.stdin.close()
        self._answers.close()
        self._err.close()
        self._tmp.cleanup()
