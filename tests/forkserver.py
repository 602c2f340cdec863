"""Fresh interpreters for less: a fork server that imports a fixed set of modules once, then forks a child per run.

Tests that check what a statement loads (``sys.modules`` after ``import bayesnb``), or that need a new
process (the compile cache read back by a second process), each started ``python -c CODE``, paying the
imports of NumPy, pandas, SciPy, scikit-learn or JAX every time (1-3 s each). A :class:`ForkServer` is one
``python`` process that imports its ``preload`` modules, then, for each :meth:`ForkServer.run`, forks a
child that runs the code as ``python -c CODE ARGS`` would (``__main__``, ``sys.argv``, working folder,
environment, exit status, stdout and stderr of its own), with nothing loaded but what the server holds. A
server can fork a server that holds more (:meth:`ForkServer.extend`: scikit-learn, or JAX, on top of NumPy,
pandas and SciPy). A test states which modules its check is about (:meth:`ForkServer.assert_unloaded`): the
server must hold none of them, so every check sees a child as a user's fresh interpreter would, only with the
server's third-party modules already imported.

Variables read when a module is imported (``JAX_*``) or as the interpreter starts (``PYTHONPATH``: a child's
``sys.path`` is its server's, with its working folder first) are those of the server; a run may change only
variables read later (``XDG_CACHE_HOME``, ``BAYESNB_JAX_CACHE``, ``MPLBACKEND`` before matplotlib is imported),
and ``PYTHONWARNINGS``, which each child applies as an interpreter's start-up would.
Where ``os.fork`` is missing, :class:`Subprocesses` starts real interpreters behind the same interface.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile

#: the server starts no BLAS or OpenMP thread pool, so no pool's threads are lost in a fork (read at load)
#: (conftest sets the same variables for the test processes, unless already set; the server always)
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_NO_THREAD_POOLS = dict.fromkeys(THREAD_VARS, "1")

#: the server: preload, report its modules, then fork a child per request line (JSON) and answer its exit
#: status; a request with "preload" forks a server holding more, which serves on the request's two FIFOs
_SERVER = r'''
import atexit, json, os, sys, traceback, types, warnings
# the forks run while NumPy's BLAS or jemalloc keep an idle thread (Python 3.12 warns); the child runs one thread
warnings.filterwarnings("ignore", message=r"This process .* is multi-threaded", category=DeprecationWarning)


def preload(names):
    for name in names:
        __import__(name)
    if "jax" in sys.modules:  # a forked JAX backend would be unusable: a server must never start one
        from jax._src import xla_bridge
        assert not xla_bridge._backends, "the fork server started a JAX backend"


def run_child(req):
    status = 1
    try:
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
        # PYTHONWARNINGS is read as an interpreter starts: the server started without it, apply it as startup would
        options = [o for o in req["env"].get("PYTHONWARNINGS", "").split(",") if o]
        sys.warnoptions.extend(options)
        warnings._processoptions(options)
        try:
            if req["module"]:  # python -m MODULE ARGS
                import runpy
                sys.argv = [req["module"], *req["args"]]
                runpy.run_module(req["module"], run_name="__main__", alter_sys=True)
            else:
                sys.argv = ["-c", *req["args"]]
                main = types.ModuleType("__main__")
                sys.modules["__main__"] = main
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


def become_server(req, channels):
    status = 1
    try:
        for f in channels:
            f.close()
        os.environ.clear()
        os.environ.update(req["env"])
        requests, answer = open(req["requests"]), open(req["answer"], "w", buffering=1)
        try:
            preload(req["preload"])
        except BaseException:
            answer.write(json.dumps({"error": traceback.format_exc()}) + "\n")
            raise
        serve(requests, answer)
        status = 0
    finally:
        os._exit(status)


def serve(requests, answer):
    answer.write(json.dumps({"modules": sorted(sys.modules)}) + "\n")
    for line in requests:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            if "preload" in req:
                become_server(req, (requests, answer))
            run_child(req)
        if "preload" in req:  # the new server runs on: its pid is the answer
            answer.write(json.dumps(pid) + "\n")
            continue
        _, wait_status = os.waitpid(pid, 0)
        answer.write(json.dumps(os.waitstatus_to_exitcode(wait_status)) + "\n")


assert "PYTHONWARNINGS" not in os.environ, "start the fork server without PYTHONWARNINGS: each run sets its own"
preload(json.loads(sys.argv[1]))
serve(sys.stdin, os.fdopen(int(sys.argv[2]), "w", buffering=1))
'''


def _alive(pid):
    """Whether process ``pid`` runs (not exited, not a zombie); True where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc: the hang guard alone
        return True


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

    def __init__(self, preload, env=None, timeout=1800.0, _parent=None):
        self.preload, self.timeout, self._subs = tuple(preload), timeout, []
        self._env = dict(os.environ if env is None else env)
        self._tmp = tempfile.TemporaryDirectory(prefix="bayesnb-forkserver-")
        self._proc = self._pid = None
        if _parent is None:
            self._err = open(os.path.join(self._tmp.name, "server.err"), "w+")
            read, write = os.pipe()
            self._proc = subprocess.Popen([sys.executable, "-c", _SERVER, json.dumps(self.preload), str(write)],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._err,
                                          text=True, pass_fds=(write,),
                                          env={**{k: v for k, v in self._env.items() if k != "PYTHONWARNINGS"},
                                               **_NO_THREAD_POOLS})
            os.close(write)
            self._requests, self._answers = self._proc.stdin, os.fdopen(read, "r")
        else:
            self._err = _parent._err
            paths = [os.path.join(self._tmp.name, name) for name in ("requests", "answers")]
            for path in paths:
                os.mkfifo(path, 0o600)
            # read-write ends: neither open waits for the other side (the new server opens its own)
            fds = [os.open(path, os.O_RDWR) for path in paths]
            self._requests, self._answers = os.fdopen(fds[0], "w", buffering=1), os.fdopen(fds[1], "r")
            self._pid = _parent._ask({"preload": [m for m in self.preload if m not in _parent.preload],
                                      "env": self._env, "requests": paths[0], "answer": paths[1]})
        first = self._answer()
        if "error" in first:
            self.close()
            raise RuntimeError(f"fork server (preload {self.preload}) failed to start:\n{first['error'][-3000:]}")
        #: every module the server holds (each child starts with these and no other)
        self.modules = frozenset(first["modules"])

    def extend(self, extra, env=None):
        """A server forked from this one that also imports ``extra`` (with ``env``, default this one's, set first).

        Parameters
        ----------
        extra : sequence of str
            The modules it imports on top of this server's.
        env : dict, optional
            Its environment, set before it imports ``extra`` (the modules this server holds were imported
            with this server's).

        Returns
        -------
        ForkServer
            Stopped with this one (:meth:`close`).
        """
        sub = ForkServer((*self.preload, *extra), env=self._env if env is None else env, timeout=self.timeout,
                         _parent=self)
        self._subs.append(sub)
        return sub

    def _ask(self, request):
        self._requests.write(json.dumps(request) + "\n")
        self._requests.flush()
        return self._answer()

    def _answer(self):
        waited = 0.0
        while True:
            ready, _, _ = select.select([self._answers], [], [], 1.0)
            line = self._answers.readline() if ready else None
            if line or line == "":
                break
            waited += 1.0
            server_alive = self._proc.poll() is None if self._proc is not None else _alive(self._pid)
            if waited >= self.timeout or not server_alive:
                line = ""
                break
        if not line:
            self.close()
            self._err.seek(0)
            raise RuntimeError(f"fork server (preload {self.preload}) stopped or hung:\n{self._err.read()[-3000:]}")
        return json.loads(line)

    def assert_unloaded(self, prefixes):
        """Assert that the server holds none of ``prefixes`` (modules or packages): what a check is about."""
        held = sorted(m for m in self.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
        assert held == [], f"the fork server preloads {held[:10]}, which a check here is about"

    def run(self, args, env=None, cwd=None, updates=None) -> subprocess.CompletedProcess:
        """Run ``python -c CODE ARGS`` (or ``python -m MODULE ARGS``) as a forked child; like :func:`conftest.run_python`.

        Parameters
        ----------
        args : list
            ``["-c", code, *argv]`` or ``["-m", module, *argv]``.
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
        if len(args) < 2 or args[0] not in ("-c", "-m"):
            raise ValueError(f"ForkServer.run takes ['-c', CODE, *ARGS] or ['-m', MODULE, *ARGS], got {list(args)[:2]}")
        out, err = (os.path.join(self._tmp.name, f"child.{k}") for k in ("out", "err"))
        for path in (out, err):
            open(path, "w").close()
        child_env = dict(self._env if env is None else env, **(updates or {}))
        status = self._ask({"code": str(args[1]), "module": str(args[1]) if args[0] == "-m" else None,
                            "args": [str(a) for a in args[2:]], "env": child_env,
                            "cwd": str(cwd or os.getcwd()), "stdout": out, "stderr": err})
        with open(out) as fo, open(err) as fe:
            return subprocess.CompletedProcess(["<fork>", *map(str, args)], status, fo.read(), fe.read())

    def close(self):
        """Stop the server and those forked from it (their children have all exited: each run waits for its child)."""
        for sub in self._subs:
            sub.close()
        self._subs = []
        if self._proc is not None and self._proc.poll() is None:  # it holds nothing to save
            self._proc.kill()
            self._proc.wait()
        for f in (self._requests, self._answers):
            try:
                f.close()  # a forked server reads the end of its requests and exits
            except OSError:
                pass
        if self._proc is not None:
            self._err.close()
        self._tmp.cleanup()


class Subprocesses:
    """:class:`ForkServer`'s interface over real ``python -c`` interpreters, where ``os.fork`` is missing."""

    modules = frozenset()

    def __init__(self, preload=(), env=None, timeout=1800.0):
        self.preload, self.timeout = tuple(preload), timeout
        self._env = dict(os.environ if env is None else env)

    def extend(self, extra, env=None):
        """Another :class:`Subprocesses` (nothing is preloaded)."""
        return Subprocesses((*self.preload, *extra), self._env if env is None else env, self.timeout)

    def assert_unloaded(self, prefixes):
        """Nothing is preloaded: always holds."""

    def run(self, args, env=None, cwd=None, updates=None) -> subprocess.CompletedProcess:
        """``python *args`` in a new interpreter (see :meth:`ForkServer.run`)."""
        child_env = dict(self._env if env is None else env, **(updates or {}))
        return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=child_env,
                              cwd=cwd, timeout=self.timeout)

    def close(self):
        """Nothing to stop."""
