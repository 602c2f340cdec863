"""benchmarks/_references.py: the shared 10-bin labels, scikit-learn's CategoricalNB on them, and the
class posterior computed from pgmpy's TAN CPDs equal to pgmpy's own exact inference (where pgmpy is installed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import _references as R


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = (y + rng.integers(0, 2, n)) % 3
    X = pd.DataFrame({"num": rng.normal(size=n) + y, "a": np.char.add("a", a.astype(str)).astype(object),
                      "b": np.where(rng.random(n) < 0.5, "p", "q").astype(object)})
    X.loc[::17, "num"] = np.nan
    X.loc[::23, "a"] = None
    return X, np.array(["u", "v", "w"])[y]


def test_quantile_labels_bin_on_the_training_fold_and_keep_missing_as_a_label():
    X, _ = _table()
    Ltr, Lte = R.quantile_labels(X.iloc[:200], X.iloc[200:], bins=10)
    assert Ltr["num"].nunique() == 11 and set(Lte["num"]) <= set(Ltr["num"])  # 10 bins and "<missing>"
    assert (Ltr["num"][X["num"].iloc[:200].isna()] == R.MISSING).all()
    assert (Ltr["a"][X["a"].iloc[:200].isna()] == R.MISSING).all() and set(Ltr["b"]) == {"p", "q"}
    counts = Ltr["num"][Ltr["num"] != R.MISSING].value_counts()
    assert counts.min() >= 15 and counts.max() <= 25  # quantile bins of the training fold: ~19 rows each


def test_categorical_nb_gives_an_unseen_value_the_zero_count_probability():
    Ltr = pd.DataFrame({"a": ["x", "x", "y", "y"]}, dtype=object)
    ytr = np.array([0, 0, 1, 1])
    p, classes = R.sklearn_categorical_nb(Ltr, ytr, pd.DataFrame({"a": ["z", "x"]}, dtype=object))
    # alpha=1 over V + 1 = 3 codes: p(z | k) = 1/5 in both classes; p(x | 0) = 3/5, p(x | 1) = 1/5
    np.testing.assert_allclose(p, [[0.5, 0.5], [0.75, 0.25]])
    assert list(classes) == [0, 1]


def test_pgmpy_tan_posterior_is_pgmpys_exact_inference():
    pytest.importorskip("pgmpy")
    from pgmpy.estimators import BayesianEstimator, TreeSearch
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

    X, y = _table()
    Ltr, Lte = R.quantile_labels(X.iloc[:200], X.iloc[200:], bins=10)
    p, classes = R.pgmpy_tan(Ltr, y[:200], Lte, ess=5.0)
    assert list(classes) == ["u", "v", "w"] and np.allclose(p.sum(1), 1.0)
    # the same network by hand, queried with pgmpy's variable elimination on rows whose labels it has
    data = Ltr.assign(y=y[:200])
    dag = TreeSearch(data, root_node="num", n_jobs=1).estimate(estimator_type="tan", class_node="y", show_progress=False)
    net = DiscreteBayesianNetwork(dag.edges())
    net.add_nodes_from(data.columns)
    states = {c: sorted(pd.unique(Ltr[c])) + [R.UNSEEN] for c in Ltr.columns} | {"y": ["u", "v", "w"]}
    net.add_cpds(*BayesianEstimator(net, data, state_names=states).get_parameters(prior_type="BDeu",
                                                                                  equivalent_sample_size=5.0))
    ve = VariableElimination(net)
    for i in range(0, len(Lte), 20):
        q = ve.query(["y"], evidence=dict(Lte.iloc[i]), show_progress=False)
        want = q.values[[q.state_names["y"].index(c) for c in classes]]
        np.testing.assert_allclose(p[i], want, rtol=1e-8)
