"""tests/forkserver.py: a forked child is a fresh ``python -c`` interpreter as far as the tests that use it can tell."""

from __future__ import annotations

import os
import sys

import pytest

from conftest import FORK_BASE

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: the fork server is POSIX-only")

CHILD = """
import json, os, sys
print(json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "var": os.environ.get("FORKSERVER_TEST"),
                  "main": __name__, "bayesnb": "bayesnb" in sys.modules}))
print("to stderr", file=sys.stderr)
"""


def test_a_child_runs_as_python_dash_c_would(fork_server, tmp_path):
    server = fork_server()
    assert set(FORK_BASE) <= server.modules and not any(m.startswith("bayesnb") for m in server.modules)
    r = server.run(["-c", CHILD, "a", 1], cwd=tmp_path, updates={"FORKSERVER_TEST": "x"})
    assert r.returncode == 0 and r.stderr == "to stderr\n", r.stderr
    import json

    assert json.loads(r.stdout) == {"argv": ["-c", "a", "1"], "cwd": str(tmp_path), "var": "x", "main": "__main__",
                                    "bayesnb": False}
    again = server.run(["-c", "import os, sys; print(os.environ.get('FORKSERVER_TEST'), 'json' in dir())"])
    assert again.stdout.split() == ["None", "False"]  # nothing of the run before is left


def test_dash_m_and_pythonwarnings_as_an_interpreter_starts(fork_server):
    r = fork_server().run(["-m", "json.tool", "--indent", "1"])  # stdin is empty
    assert r.returncode == 1 and "Expecting value" in r.stderr, r
    code = "import warnings, sys; warnings.warn('loud'); print(sys.warnoptions)"
    assert "UserWarning: loud" in fork_server().run(["-c", code]).stderr
    quiet = fork_server().run(["-c", code], updates={"PYTHONWARNINGS": "ignore"})
    assert quiet.stderr == "" and quiet.stdout == "['ignore']\n"


@pytest.mark.parametrize("code, status, err", [("raise ValueError('boom')", 1, "ValueError: boom"),
                                               ("import sys; sys.exit(3)", 3, ""),
                                               ("import sys; sys.exit('bye')", 1, "bye"),
                                               ("import os; os._exit(4)", 4, "")])
def test_a_failing_child_reports_its_status_and_error(fork_server, code, status, err):
    r = fork_server().run(["-c", code])
    assert r.returncode == status and err in r.stderr, r


def test_an_extended_server_holds_more_and_one_that_cannot_start_says_why(fork_server):
    server = fork_server(("json.tool",), env=dict(os.environ, FORKSERVER_TEST="ext"))
    assert "json.tool" in server.modules and set(FORK_BASE) <= server.modules
    r = server.run(["-c", "import os, sys; print('json.tool' in sys.modules, os.environ['FORKSERVER_TEST'])"])
    assert r.stdout.split() == ["True", "ext"]
    with pytest.raises(AssertionError, match="json.tool"):
        server.assert_unloaded(("json",))
    with pytest.raises(RuntimeError, match="No module named 'no_such_module_here'"):
        fork_server(("no_such_module_here",))
    assert fork_server().run(["-c", "print('still serving')"]).stdout == "still serving\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
