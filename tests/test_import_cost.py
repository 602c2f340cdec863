"""``import bayesnb`` stays light (issue 29): no scikit-learn ensemble, plotting, JAX, NumPyro or Dask.

Those are imported inside the functions that use them (the synthetic-data report's
classifiers, the plots, MCMC, the Dask fit). Checked in a fresh interpreter, as a user meets it;
``benchmarks/bench_import.py`` measures the time against ``import sklearn.naive_bayes``.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_python

#: modules (and their submodules) that ``import bayesnb`` must leave unloaded
HEAVY = ("sklearn.ensemble", "matplotlib", "jax", "numpyro", "dask")

#: wings used only on call: ``import bayesnb`` reaches their names through its lazy table (PEP 562)
ON_CALL = ("bayesnb.synth", "bayesnb.impute.table", "bayesnb.impute.imputer", "bayesnb.impute.selfmasking",
           "bayesnb.impute.pooling", "bayesnb.criticism.checks", "bayesnb.io.imputer_file",
           "bayesnb.io.synthesizer_file")

#: one fresh interpreter, in steps, each step reporting what ``sys.modules`` then holds (as JSON): right after
#: ``import bayesnb``; a fit with ``impute=True`` (its imputer loaded lazily); the lazy names used; and last
#: ``sklearn.ensemble`` imported, to show that the check sees a heavy module once something has loaded it.
#: One interpreter instead of one per test (each start imports scikit-learn and pandas anew).
FRESH = """
import json, sys, warnings
warnings.simplefilter("ignore")
import bayesnb
heavy = {heavy!r}
def loaded(prefixes):
    return sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in prefixes))
out = {{"heavy": loaded(heavy), "bayesnb": loaded(["bayesnb"])}}
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
X = pd.DataFrame({{"a": rng.choice(["x", "y"], 60), "b": rng.choice(["u", "v", "w"], 60), "c": rng.normal(size=60)}})
X.loc[::7, "a"] = None
y = rng.integers(0, 2, 60)
out["imputer_before_fit"] = "bayesnb.impute.imputer" in sys.modules
out["fit"] = type(bayesnb.NaiveBayes().fit(X, y, impute=True).imputer_).__name__
out["lazy_before_use"] = loaded(["bayesnb.synth.synthesizer", "bayesnb.impute.table"])
bayesnb.Synthesizer, bayesnb.impute_table
out["after_lazy_use"] = loaded(["bayesnb"])
from bayesnb.synth.synthesizer import Synthesizer
assert bayesnb.Synthesizer is Synthesizer and "Synthesizer" in dir(bayesnb)
assert set(bayesnb.__all__) <= set(dir(bayesnb))
assert not {{"TYPE_CHECKING", "lazy_exports"}} & set(dir(bayesnb))
from bayesnb import plot, datasets
out["lazy_checks"] = "passed"
import sklearn.ensemble
out["heavy_after_sklearn_ensemble"] = loaded(heavy)
print(json.dumps(out))
"""


def _last_line(r):
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def fresh():
    """What a fresh interpreter holds after each step of :data:`FRESH`."""
    return json.loads(_last_line(run_python(["-c", FRESH.format(heavy=HEAVY)])))


def test_import_bayesnb_loads_no_heavy_module(fresh):
    loaded = fresh["heavy"]
    assert loaded == [], f"import bayesnb loaded {loaded[:10]}: import them inside the functions that use them"


def test_the_check_sees_a_heavy_module(fresh):
    """The same check reports a heavy module once something has imported it."""
    assert "sklearn.ensemble" in fresh["heavy_after_sklearn_ensemble"]


def test_import_bayesnb_leaves_the_on_call_wings_unloaded(fresh):
    loaded = set(fresh["bayesnb"])
    assert "bayesnb.estimators" in loaded
    left = sorted(m for m in loaded if any(m == w or m.startswith(w + ".") for w in ON_CALL))
    assert left == [], f"import bayesnb loaded {left}: reach them through the lazy table of bayesnb/__init__.py"


def test_a_lazy_name_loads_its_wing_on_first_use(fresh):
    """``bayesnb.Synthesizer`` and ``bayesnb.impute_table`` import their modules when first used."""
    assert fresh["lazy_before_use"] == []
    assert {"bayesnb.synth.synthesizer", "bayesnb.impute.table"} <= set(fresh["after_lazy_use"])
    assert fresh["lazy_checks"] == "passed"


def test_the_static_imports_match_the_lazy_table():
    """The ``if TYPE_CHECKING:`` imports (for type checkers and the API docs) name the lazy table's homes."""
    import ast
    from pathlib import Path

    import bayesnb

    tree = ast.parse((Path(bayesnb.__file__)).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING")
    static = {a.name: node.module for node in block.body for a in node.names}
    assert static == bayesnb._HOMES


LOAD = """
import sys
import bayesnb
assert "bayesnb.impute.imputer" not in sys.modules and "bayesnb.synth.synthesizer" not in sys.modules
print(" ".join(type(bayesnb.load(sys.argv[1] + "/" + f)).__name__ for f in ("nb.bnb", "imp.bnb", "syn.bnb")))
"""


def test_lazily_loaded_classes_still_register_where_they_are_needed(on_call, fresh):
    """A fresh interpreter that never named ``Imputer`` or ``Synthesizer`` still loads their files and fits
    ``impute=True`` (their modules, loaded lazily, register them with the model file and the estimators).
    The files are those :data:`ON_CALL`'s interpreter saved; the fit is a step of :data:`FRESH`."""
    folder, saved = on_call
    assert saved.returncode == 0, saved.stderr[-3000:]
    assert _last_line(run_python(["-c", LOAD, str(folder)])) == "NaiveBayes Imputer Synthesizer"
    assert fresh["imputer_before_fit"] is False and fresh["fit"] == "Imputer"


ON_CALL = """
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
import bayesnb
rng = np.random.default_rng(0)
X = pd.DataFrame({"a": rng.choice(["x", "y"], 60), "b": rng.choice(["u", "v", "w"], 60), "c": rng.normal(size=60)})
y = rng.integers(0, 2, 60)
Xs = X.copy()  # the files test_lazily_loaded_classes_still_register_where_they_are_needed loads
Xs.loc[::7, "a"] = None
bayesnb.NaiveBayes().fit(Xs, y).save(sys.argv[1] + "/nb.bnb")
bayesnb.Imputer(configurations=["naive"]).fit(Xs, y).save(sys.argv[1] + "/imp.bnb")
bayesnb.Synthesizer(structure="naive", latent=2).fit(Xs.assign(y=y)).save(sys.argv[1] + "/syn.bnb")
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


@pytest.fixture(scope="module")
def on_call(tmp_path_factory):
    """The folder :data:`ON_CALL`'s interpreter saved its files into, and its completed process."""
    folder = tmp_path_factory.mktemp("on-call")
    return folder, run_python(["-c", ON_CALL, str(folder)])


def test_the_on_call_functions_work_in_a_fresh_interpreter(on_call):
    """Each public function of a lazily loaded wing (criticism, imputation, pooling, synthetic data), the
    outlier detector's model file and the plots run in an interpreter that imported only ``bayesnb``
    (before them it saves a model, an imputer and a synthesizer for the loading test)."""
    ok, n = map(int, _last_line(on_call[1]).split())
    assert ok == n == 8
