"""benchmarks/_impute_peers.py (issue 27): a peer run in another Python through files.

HyperImpute runs under ``bench_impute.py --hyperimpute-python PYTHON``: the blanked table (float
codes) goes to a script under that Python through files in a temporary folder and the imputed
table comes back the same way, so the benchmark's environment never imports hyperimpute. These
tests put a fake peer script (this interpreter, no hyperimpute) in its place.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import _impute_peers as peers
import bench_impute as bench

# Fills each missing cell with its column's observed mean and records what it was given.
FAKE_PEER = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    path_in, path_meta, path_out = sys.argv[1:]
    A = np.load(path_in)
    meta = json.load(open(path_meta))
    with open(os.environ["FAKE_PEER_RECORD"], "w") as f:
        json.dump({"meta": meta, "missing": int(np.isnan(A).sum()), "shape": list(A.shape),
                   "folder": os.path.dirname(path_in)}, f)
    np.save(path_out, np.where(np.isnan(A), np.nanmean(A, axis=0), A))
""")


def _table(n, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    X = pd.DataFrame({"a": np.where(z > 0, "hi", "lo").astype(object),
                      "b": 2.0 * z + rng.normal(scale=0.1, size=n),
                      "d": rng.choice(np.array(["p", "q", "r"], dtype=object), size=n)})
    M = bench.mask(X, "MCAR 30%", rng)
    return X, M, bench.blank(X, M)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    script = tmp_path / "fake_peer.py"
    script.write_text(FAKE_PEER)
    record = tmp_path / "record.json"
    monkeypatch.setenv("FAKE_PEER_RECORD", str(record))
    monkeypatch.setattr(peers, "HYPERIMPUTE_SCRIPT", str(script))
    return script, record


def test_the_table_goes_out_and_comes_back_through_files(fake):
    script, record = fake
    X, M, Xm = _table(200, 0)
    F = peers.hyperimpute_impute(Xm, ["a", "d"], seed=7, python=sys.executable)
    seen = json.loads(record.read_text())
    assert seen["meta"] == {"columns": ["a", "b", "d"], "seed": 7}
    assert seen["shape"] == [200, 3] and seen["missing"] == int(M.sum())
    assert not os.path.exists(seen["folder"])  # the temporary folder is removed
    assert list(F.columns) == ["a", "b", "d"] and (F.index == Xm.index).all() and not F.isna().any().any()
    for j, c in enumerate(X.columns):  # observed cells come back unchanged
        assert (F[c].to_numpy()[~M[:, j]] == X[c].to_numpy()[~M[:, j]]).all()
    assert np.allclose(F["b"].to_numpy()[M[:, 1]], Xm["b"].mean())  # the fake peer's fill
    # categorical cells: the mean code rounded to a level ("lo"/"hi": codes 0/1; "p","q","r": 0..2)
    codes = {"a": ["hi", "lo"], "d": ["p", "q", "r"]}
    for j, c in ((0, "a"), (2, "d")):
        mean_code = Xm[c].map({v: i for i, v in enumerate(codes[c])}).mean()
        assert set(F[c].to_numpy()[M[:, j]]) == {codes[c][int(np.rint(mean_code))]}


def test_hyperimpute_options_reach_the_other_python(fake, monkeypatch):
    script, record = fake
    options = {"class_threshold": 50, "classifier_seed": ["logistic_regression", "random_forest"]}
    monkeypatch.setattr(peers, "HYPERIMPUTE_OPTIONS", options)
    X, M, Xm = _table(80, 3)
    peers.hyperimpute_impute(Xm, ["a", "d"], seed=2, python=sys.executable)
    assert json.loads(record.read_text())["meta"] == {"columns": ["a", "b", "d"], "seed": 2, "options": options}


def test_peer_methods_runs_hyperimpute_elsewhere_without_importing_it(fake, monkeypatch):
    script, record = fake
    monkeypatch.setitem(sys.modules, "hyperimpute", None)  # importing it here would raise ImportError
    monkeypatch.setattr(peers, "HYPERIMPUTE_PYTHON", sys.executable)
    X, M, Xm = _table(120, 1)
    y = (X["b"] > 0).to_numpy()
    out = peers.peer_methods(Xm, ["a", "d"], ["b"], y, 3, ["HyperImpute"])
    assert list(out) == ["HyperImpute +y"]
    F, seconds = out["HyperImpute +y"]
    assert list(F.columns) == ["a", "b", "d"] and seconds > 0 and not F.isna().any().any()
    assert json.loads(record.read_text())["meta"]["columns"] == ["a", "b", "d", peers.LABEL]  # the label, observed


def test_a_failing_or_wrong_peer_script_raises_a_clear_error(tmp_path):
    X, M, Xm = _table(50, 2)
    Z, _ = peers._codes(Xm, ["a", "d"])
    crash = tmp_path / "crash.py"
    crash.write_text("import sys\nsys.stderr.write('no module named hyperimpute\\n')\nsys.exit(3)\n")
    with pytest.raises(RuntimeError, match="exited with 3: no module named hyperimpute"):
        peers.run_external(sys.executable, str(crash), Z, 0)
    silent = tmp_path / "silent.py"
    silent.write_text("")
    with pytest.raises(RuntimeError, match="wrote no imputed table"):
        peers.run_external(sys.executable, str(silent), Z, 0)
    short = tmp_path / "short.py"
    short.write_text("import sys, numpy as np\nnp.save(sys.argv[3], np.zeros((3, 3)))\n")
    with pytest.raises(RuntimeError, match=r"shape \(3, 3\).*expected \(50, 3\)"):
        peers.run_external(sys.executable, str(short), Z, 0)
    holes = tmp_path / "holes.py"
    holes.write_text("import sys, numpy as np\nnp.save(sys.argv[3], np.load(sys.argv[1]))\n")
    with pytest.raises(RuntimeError, match="missing cells"):
        peers.run_external(sys.executable, str(holes), Z, 0)


def test_the_miceforest_leaf_variant_passes_min_data_in_leaf_to_every_lightgbm_model(monkeypatch):
    """``miceforest(min_data_in_leaf=20)``: miceforest's defaults but LightGBM's own leaf size."""
    calls = []

    class Kernel:  # records what mice() is given; fills with the column's first observed value
        def __init__(self, data, num_datasets, random_state):
            self.data = data

        def mice(self, iterations, **kw):
            calls.append((iterations, kw))

        def complete_data(self, dataset):
            return self.data.apply(lambda c: c.fillna(c.dropna().iloc[0]))

    monkeypatch.setitem(sys.modules, "miceforest", type(sys)("miceforest"))
    sys.modules["miceforest"].ImputationKernel = Kernel
    X, M, Xm = _table(40, 3)
    out = peers.peer_methods(Xm, ["a", "d"], ["b"], np.zeros(40, dtype=int), 0, ["miceforest", peers.MICEFOREST_LEAF])
    assert list(out) == ["miceforest +y", "miceforest(min_data_in_leaf=20) +y"]
    assert calls == [(5, {"num_threads": 1}), (5, {"num_threads": 1, "min_data_in_leaf": 20})]
    assert peers.MICEFOREST_LEAF not in peers.DEFAULT_PEERS
