"""``import bayesnb`` stays light (issue 29): no scikit-learn ensemble, plotting, JAX, NumPyro or Dask.

Those are imported inside the functions that use them (the synthetic-data report's
classifiers, the plots, MCMC, the Dask fit). Checked in a fresh interpreter, as a user meets it: one forked
by a server that has already imported NumPy, pandas, SciPy (and, but for the command line's checks,
scikit-learn's naive_bayes), none of them a module a check here is about (asserted; ``tests/forkserver.py``);
``benchmarks/bench_import.py`` measures the time against ``import sklearn.naive_bayes``.
"""

from __future__ import annotations

import json

import pytest

#: modules (and their submodules) that ``import bayesnb`` must leave unloaded
HEAVY = ("sklearn.ensemble", "matplotlib", "jax", "numpyro", "dask")

CODE = """
import json, sys
import bayesnb
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


@pytest.fixture(scope="module")
def fresh(sklearn_fork_server):
    """Fresh interpreters (forked) holding NumPy, pandas, SciPy and ``sklearn.naive_bayes``, no module checked here."""
    sklearn_fork_server.assert_unloaded((*HEAVY, *MODEL_FILE_SPARES))
    return sklearn_fork_server


@pytest.fixture(scope="module")
def fresh_light(fork_server):
    """Fresh interpreters (forked) holding NumPy, pandas and SciPy: no module the command line's checks are about."""
    server = fork_server(("scipy.stats",))
    server.assert_unloaded(("bayesnb", *CLI_SPARES))
    return server


def _loaded_after(fresh, statement_code):
    r = fresh.run(["-c", statement_code])
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_import_bayesnb_loads_no_heavy_module(fresh):
    loaded = _loaded_after(fresh, CODE.format(heavy=HEAVY))
    assert loaded == [], f"import bayesnb loaded {loaded[:10]}: import them inside the functions that use them"


def test_the_check_sees_a_heavy_module(fresh):
    """The same check reports a heavy module once something has imported it."""
    code = CODE.format(heavy=HEAVY).replace("import bayesnb\n", "import bayesnb\nimport sklearn.ensemble\n")
    assert "sklearn.ensemble" in _loaded_after(fresh, code)


#: wings used only on call: ``import bayesnb`` reaches their names through its lazy table (PEP 562)
ON_CALL = ("bayesnb.synth", "bayesnb.impute.table", "bayesnb.impute.imputer", "bayesnb.impute.selfmasking",
           "bayesnb.impute.pooling", "bayesnb.criticism.checks", "bayesnb.io.imputer_file",
           "bayesnb.io.synthesizer_file")

LOADED = """
import json, sys
import bayesnb
{after}
print(json.dumps(sorted(m for m in sys.modules if m.startswith("bayesnb"))))
"""


def test_import_bayesnb_loads_only_its_helpers(fresh):
    """Every public name but the warnings, ``set_progress`` and ``__version__`` is loaded when first used."""
    loaded = set(_loaded_after(fresh, LOADED.format(after="")))
    assert loaded == {"bayesnb", "bayesnb._progress", "bayesnb._utils", "bayesnb._version"}, sorted(loaded)


def test_an_estimator_leaves_the_on_call_wings_unloaded(fresh):
    loaded = set(_loaded_after(fresh, LOADED.format(after="from bayesnb import CategoricalNB, NaiveBayes")))
    assert {"bayesnb.estimators.single", "bayesnb.estimators.naive_bayes"} <= loaded
    left = sorted(m for m in loaded if any(m == w or m.startswith(w + ".") for w in ON_CALL))
    assert left == [], f"the estimators loaded {left}: reach them through the lazy table of bayesnb/__init__.py"


def test_a_lazy_name_loads_its_wing_on_first_use(fresh):
    """``bayesnb.Synthesizer`` and ``bayesnb.impute_table`` import their modules when first used."""
    loaded = set(_loaded_after(fresh, LOADED.format(after="bayesnb.Synthesizer, bayesnb.impute_table")))
    assert {"bayesnb.synth.synthesizer", "bayesnb.impute.table"} <= loaded
    code = ("import bayesnb\nfrom bayesnb.synth.synthesizer import Synthesizer\n"
            "assert bayesnb.Synthesizer is Synthesizer and 'Synthesizer' in dir(bayesnb)\n"
            "assert set(bayesnb.__all__) <= set(dir(bayesnb))\n"
            "assert not {'TYPE_CHECKING', 'lazy_exports'} & set(dir(bayesnb))\n"
            "from bayesnb import plot, datasets\n"
            "print('[]')")
    assert _loaded_after(fresh, code) == []


def test_the_static_imports_match_the_lazy_table():
    """The ``if TYPE_CHECKING:`` imports (for type checkers and the API docs) name the lazy table's homes."""
    import ast
    from pathlib import Path

    import bayesnb

    tree = ast.parse((Path(bayesnb.__file__)).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING")
    static = {a.name: node.module for node in block.body for a in node.names}
    assert static == bayesnb._HOMES


LAZY_USE = """
import sys
import numpy as np, pandas as pd
import bayesnb
rng = np.random.default_rng(0)
X = pd.DataFrame({{"a": rng.choice(["x", "y"], 60), "b": rng.choice(["u", "v", "w"], 60), "c": rng.normal(size=60)}})
X.loc[::7, "a"] = None
y = rng.integers(0, 2, 60)
if {step!r} == "save":
    bayesnb.NaiveBayes().fit(X, y).save(sys.argv[1] + "/nb.bnb")
    bayesnb.CategoricalNB().fit(X[["b"]], y).save(sys.argv[1] + "/cat.bnb")
    bayesnb.Imputer(configurations=["naive"]).fit(X, y).save(sys.argv[1] + "/imp.bnb")
    bayesnb.Synthesizer(structure="naive", latent=2).fit(X.assign(y=y)).save(sys.argv[1] + "/syn.bnb")
elif {step!r} == "fit":
    assert "bayesnb.impute.imputer" not in sys.modules
    m = bayesnb.NaiveBayes().fit(X, y, impute=True)
    print(type(m.imputer_).__name__)
else:
    assert "bayesnb.impute.imputer" not in sys.modules and "bayesnb.synth.synthesizer" not in sys.modules
    assert "bayesnb.estimators" not in sys.modules
    files = ("cat.bnb", "nb.bnb", "imp.bnb", "syn.bnb")
    print(" ".join(type(bayesnb.load(sys.argv[1] + "/" + f)).__name__ for f in files))
"""


def _fresh(fresh, step, *args):
    r = fresh.run(["-c", LAZY_USE.format(step=step), *args])
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""


def test_lazily_loaded_classes_still_register_where_they_are_needed(fresh, tmp_path):
    """A fresh interpreter that never named an estimator, ``Imputer`` or ``Synthesizer`` still loads their files
    and fits ``impute=True`` (their modules, loaded lazily, register them with the model file and the estimators)."""
    _fresh(fresh, "save", str(tmp_path))
    assert _fresh(fresh, "load", str(tmp_path)) == "CategoricalNB NaiveBayes Imputer Synthesizer"
    assert _fresh(fresh, "fit") == "Imputer"


ON_CALL = """
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
import bayesnb
rng = np.random.default_rng(0)
X = pd.DataFrame({"a": rng.choice(["x", "y"], 60), "b": rng.choice(["u", "v", "w"], 60), "c": rng.normal(size=60)})
y = rng.integers(0, 2, 60)
m = bayesnb.NaiveBayes().fit(X, y)
Xm = X.copy()
Xm.loc[::7, "c"] = np.nan
done = [
    bayesnb.check_independence(m, X, y).shape[0] > 0,
    bayesnb.check_marginals(m, X, y).shape[0] > 0,
    bayesnb.check_mcar(bayesnb.NaiveBayes().fit(Xm, y), Xm, y).shape[0] > 0,
    bayesnb.impute_table(Xm, random_state=0, configurations=["naive"]).table.isna().sum().sum() == 0,
    bayesnb.impute_mnar(Xm[["c"]].assign(d=rng.normal(size=60)), random_state=0) is not None,
    bayesnb.pool([np.array([1.0, 2.0]), np.array([1.5, 2.5])], [np.array([0.1, 0.1])] * 2).shape[0] == 2,
    bayesnb.synthetic_report(X, bayesnb.Synthesizer(structure="naive", latent=None).fit(X).sample(60, random_state=0))
    is not None,
]
det = bayesnb.NBOutlierDetector(contamination=0.1).fit(X)
det.save(sys.argv[1] + "/det.bnb")
done.append(np.array_equal(bayesnb.load(sys.argv[1] + "/det.bnb").predict(X), det.predict(X)))
import matplotlib
matplotlib.use("Agg")
from bayesnb import plot
plot.class_conditionals(m)
plot.plot_independence(bayesnb.check_independence(m, X, y))
print(sum(map(bool, done)), len(done))
"""


def test_the_on_call_functions_work_in_a_fresh_interpreter(fresh, tmp_path):
    """Each public function of a lazily loaded wing (criticism, imputation, pooling, synthetic data), the
    outlier detector's model file and the plots run in an interpreter that imported only ``bayesnb``."""
    r = fresh.run(["-c", ON_CALL, str(tmp_path)])
    assert r.returncode == 0, r.stderr[-3000:]
    ok, n = map(int, r.stdout.strip().splitlines()[-1].split())
    assert ok == n == 8


FIRST = """
import importlib, json, sys
import numpy, pandas, scipy.stats, sklearn.naive_bayes  # third-party modules stay loaded between the rounds
bad = []
for name in {names!r}:
    for m in [m for m in sys.modules if m == "bayesnb" or m.startswith("bayesnb.")]:
        del sys.modules[m]
    try:
        importlib.import_module(name)
    except Exception as e:
        bad.append(name + ": " + type(e).__name__ + ": " + str(e)[:200])
print(json.dumps(bad))
"""


def test_each_package_imports_first(fresh):
    """``import bayesnb`` no longer loads every wing in a fixed order, so each package (and top-level module)
    must import on its own as the first thing an interpreter does (``import bayesnb.structure`` once failed:
    its hierarchical prior loaded the families, which load the hierarchical prior)."""
    from pathlib import Path

    import bayesnb

    root = Path(bayesnb.__file__).parent
    names = sorted({f"bayesnb.{p.parent.name}" for p in root.glob("*/__init__.py")}
                   | {f"bayesnb.{p.stem}" for p in root.glob("*.py") if p.stem not in ("__init__", "__main__")})
    assert "bayesnb.structure" in names and "bayesnb.families" in names
    assert _loaded_after(fresh, FIRST.format(names=names)) == []


#: what the estimators use only on some calls (estimators/_on_call.py, generative/_lazy.py, io.saving): left
#: unloaded by defining, fitting and using a naive model, loaded by the first call that needs them
DEFERRED = ("bayesnb.structure.engine", "bayesnb.structure.select", "bayesnb.structure.exact_impute",
            "bayesnb.inference.nuts", "bayesnb.inference.numpyro_model", "bayesnb.inference.draws",
            "bayesnb.criticism", "bayesnb.generative.latent", "bayesnb.io.persistence", "bayesnb.io.tree",
            "bayesnb.io.loadcheck", "bayesnb.io.archive", "bayesnb.estimators.outlier")

ESTIMATOR_USE = """
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
from bayesnb import CategoricalNB, NaiveBayes
deferred = {deferred!r}
loaded = lambda: sorted(m for m in deferred if m in sys.modules)
rng = np.random.default_rng(0)
X = pd.DataFrame({{"a": rng.choice(["x", "y"], 80), "b": rng.choice(["u", "v", "w"], 80), "c": rng.normal(size=80)}})
y = rng.integers(0, 2, 80)
steps = {{"defined": loaded()}}
m = NaiveBayes().fit(X, y)
m.predict_proba(X), m.score(X, y), m.sample(5, random_state=0), m.impute(X.mask(X == "x"), random_state=0)
CategoricalNB().fit(X[["a", "b"]], y).predict(X[["a", "b"]])
steps["naive fit, predict, sample, impute"] = loaded()
tan = NaiveBayes(structure="tan").fit(X, y)
tan.predict(X), tan.sample_posterior(20, random_state=0)
steps["tan"] = loaded()
m.save(sys.argv[1] + "/m.bnb")
steps["save"] = loaded()
print(json.dumps(steps))
"""


def test_the_estimators_load_what_some_calls_use_on_those_calls(fresh, tmp_path):
    """``from bayesnb import NaiveBayes`` (and a naive fit, predict, sample, impute) loads none of the structure
    engine, NUTS, the NumPyro model, the ArviZ layouts or the model format; a structure loads its engine and
    ``sample_posterior`` its layouts on the call, and ``save`` the model format."""
    r = fresh.run(["-c", ESTIMATOR_USE.format(deferred=DEFERRED), str(tmp_path)])
    assert r.returncode == 0, r.stderr[-3000:]
    steps = json.loads(r.stdout.strip().splitlines()[-1])
    assert steps["defined"] == [] and steps["naive fit, predict, sample, impute"] == []
    assert {"bayesnb.structure.engine", "bayesnb.structure.select", "bayesnb.criticism"} <= set(steps["tan"])
    assert not {"bayesnb.inference.nuts", "bayesnb.io.persistence"} & set(steps["tan"])
    assert {"bayesnb.io.persistence", "bayesnb.io.tree", "bayesnb.io.archive"} <= set(steps["save"])
    assert "bayesnb.estimators.outlier" not in steps["save"]


def test_the_estimators_static_imports_match_their_lazy_table():
    """``bayesnb.estimators`` names its classes lazily too; its ``if TYPE_CHECKING:`` block (the API docs read
    it) lists the same names and homes."""
    import ast
    from pathlib import Path

    import bayesnb.estimators as est

    tree = ast.parse(Path(est.__file__).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING")
    assert {a.name: node.module for node in block.body for a in node.names} == est._HOMES
    assert "TYPE_CHECKING" not in dir(est) and set(est.__all__) <= set(dir(est))


#: what building the ``bayesnb`` parser (``--help``, ``datasets list``) leaves unloaded: the commands reach it
#: through :mod:`bayesnb.cli._when_run` when they run
CLI_SPARES = ("bayesnb.estimators", "bayesnb.families", "bayesnb.synth", "bayesnb.impute", "bayesnb.criticism",
              "bayesnb.io", "bayesnb.inference", "bayesnb.structure", "bayesnb.generative", "bayesnb.plot",
              "sklearn", "matplotlib", "jax", "numpyro", "dask")

CLI_LOADS = """
import contextlib, io, json, sys
from bayesnb.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main({argv!r})
{after}
spares = {spares!r}
print(json.dumps([status, sorted(m for m in sys.modules if any(m == s or m.startswith(s + ".") for s in spares))]))
"""


def _cli_loads(fresh_light, argv, after=""):
    r = fresh_light.run(["-c", CLI_LOADS.format(argv=argv, after=after, spares=CLI_SPARES)])
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], ["datasets", "list"], ["fit", "--help"]])
def test_building_the_cli_parser_loads_no_command_dependency(fresh_light, argv):
    """``bayesnb --help`` and ``bayesnb datasets list`` register every command without importing the estimators,
    the families, the imputer, the synthesizer, criticism, the model format, the plots, scikit-learn or JAX."""
    status, loaded = _cli_loads(fresh_light, argv)
    assert status == 0
    assert loaded == [], f"'bayesnb {' '.join(argv)}' loaded {loaded[:10]}: reach them through cli._when_run"


def test_the_cli_check_sees_what_a_command_uses(fresh_light):
    """A command's first use of ``when_run.NAME`` loads its home, and the same check reports it."""
    use = "from bayesnb.cli import _when_run\n_when_run.Imputer, _when_run.check_independence"
    _, loaded = _cli_loads(fresh_light, ["--help"], after=use)
    assert {"bayesnb.impute.imputer", "bayesnb.criticism.checks", "bayesnb.estimators"} <= set(loaded)


def test_every_name_of_the_cli_table_resolves():
    from bayesnb.cli import _when_run

    missing = [name for name in _when_run._HOMES if getattr(_when_run, name, None) is None]
    assert missing == [] and set(_when_run._HOMES) <= set(dir(_when_run))


#: what a command reading a classifier's model file has no use for: the imputer, the synthesizer, the outlier
#: detector, criticism, the plots, JAX, Dask
MODEL_FILE_SPARES = ("bayesnb.impute.imputer", "bayesnb.synth", "bayesnb.estimators.outlier", "bayesnb.criticism",
                     "bayesnb.plot", "sklearn.ensemble", "matplotlib", "jax", "numpyro", "dask")

MODEL_FILE_LOADS = """
import contextlib, io, json, sys
from bayesnb.cli import _when_run, main
from bayesnb import CategoricalNB
spares, out, clf = {spares!r}, {{}}, CategoricalNB()
homes = ("bayesnb.impute.imputer", "bayesnb.synth.synthesizer", "bayesnb.estimators.outlier",
         "bayesnb.estimators.naive_bayes")
kinds = ("Imputer", "Synthesizer", "NBOutlierDetector", "NaiveBayes")
out["is_a before"] = [[_when_run.is_a(clf, k) for k in kinds], [m for m in homes if m in sys.modules]]
for argv in {commands!r}:
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    out[argv[0]] = [status, sorted(m for m in sys.modules if any(m == s or m.startswith(s + ".") for s in spares))]
from bayesnb import NaiveBayes, NBOutlierDetector
out["is_a after"] = [_when_run.is_a(NaiveBayes(), "NaiveBayes"), _when_run.is_a(clf, "NaiveBayes"),
                     _when_run.is_a(NBOutlierDetector(clf), "NBOutlierDetector")]
print(json.dumps(out))
"""


def test_commands_reading_a_model_file_load_only_what_they_use(fresh, tmp_path):
    """``bayesnb info`` / ``predict`` / ``score`` / ``posterior`` on a classifier's file (one fresh interpreter, the
    commands in turn) load no imputer, synthesizer, outlier detector or plots, and only ``posterior`` criticism:
    which kind of model a file holds is asked without importing the kinds it cannot be (``cli._when_run.is_a``:
    False, importing nothing, while a class's module is not loaded, as no object of it can exist yet;
    ``isinstance`` once it is)."""
    from bayesnb import NaiveBayes
    from bayesnb.datasets import load_house_votes

    df = load_house_votes()
    df.to_csv(tmp_path / "votes.csv", index=False)
    NaiveBayes().fit(df.drop(columns="party"), df["party"]).save(tmp_path / "votes.bnb")
    model, table = str(tmp_path / "votes.bnb"), str(tmp_path / "votes.csv")
    commands = [["info", model], ["predict", model, table, "-o", str(tmp_path / "p.csv")],
                ["score", model, table, "--target", "party"], ["posterior", model, "-o", str(tmp_path / "post.csv")]]
    r = fresh.run(["-c", MODEL_FILE_LOADS.format(spares=MODEL_FILE_SPARES, commands=commands)])
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out.pop("is_a before") == [[False] * 4, []] and out.pop("is_a after") == [True, False, True]
    assert {cmd: status for cmd, (status, _) in out.items()} == dict.fromkeys(["info", "predict", "score",
                                                                                "posterior"], 0)
    uses = {"posterior": "bayesnb.criticism"}  # the ArviZ layout of the draws (criticism.diagnostics.block_layouts)
    unneeded = {cmd: [m for m in loaded if not (cmd in uses and m.startswith(uses[cmd]))]
                for cmd, (_, loaded) in out.items()}
    assert {cmd: loaded for cmd, loaded in unneeded.items() if loaded} == {}


SUBPACKAGES = """
import sys
import bayesnb as bn
before = sorted(m for m in sys.modules if m in ("bayesnb.families", "bayesnb.datasets", "bayesnb.structure"))
assert before == [], before
assert bn.families.Gaussian.__name__ == "Gaussian" and bn.datasets.load_play_tennis().shape == (14, 5)
assert bn.structure.__name__ == "bayesnb.structure" and callable(bn.plot.plot_structure)
try:
    bn.no_such_name
except AttributeError as e:
    assert "no_such_name" in str(e)
else:
    raise AssertionError("an unknown name must raise AttributeError")
print("ok")
"""


def test_subpackages_are_attributes_of_the_package_loaded_on_first_use(fresh):
    """``import bayesnb as bn; bn.families.Gaussian`` works as it did when the subpackages loaded eagerly."""
    r = fresh.run(["-c", SUBPACKAGES])
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == "ok"
