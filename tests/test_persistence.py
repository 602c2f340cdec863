"""save/load: exact round trip for every estimator, safe format, clear errors on bad files."""

from __future__ import annotations

import json
import pickle
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import bayesnb
from bayesnb import (Bernoulli, BernoulliNB, Categorical, CategoricalNB, Gaussian, GaussianNB, Histogram,
                     Multinomial, MultinomialNB, NaiveBayes)
from bayesnb.datasets import load_house_votes, load_play_tennis
from bayesnb.io.persistence import FORMAT_VERSION, ModelFileError
import cases


def _mixed_table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["pasta", "sushi", "tacos"], size=n)
    df = pd.DataFrame({
        "dish": rng.choice(["a", "b", "c"], size=n),
        "level": rng.choice([1, 2, 3], size=n),
        "w1": rng.poisson(2, n), "w2": rng.poisson(1, n), "w3": rng.poisson(3, n),
        "sleep": rng.normal(7, 1, n),
        "flag": rng.integers(0, 2, n),
    })
    df.loc[3, "dish"] = None
    df.loc[5, "sleep"] = np.nan
    return df, y


def _cases():
    rng = np.random.default_rng(1)
    counts = rng.poisson(1.0, (40, 12))
    yc = rng.integers(0, 3, 40)
    tennis = load_play_tennis()
    votes = load_house_votes()
    mixed, ym = _mixed_table()
    features = {"dish": Categorical(alpha={"a": 0.5, "b": 1.0, "c": 2.0}), "level": Categorical.m_estimate(m=3),
                ("w1", "w2", "w3"): Multinomial(alpha=0.5), "sleep": Gaussian(prior="reference"),
                "flag": Bernoulli(alpha=2.0)}
    return {
        "multinomial": (MultinomialNB(alpha=0.3), counts, yc),
        "multinomial-sparse": (MultinomialNB(alpha="auto"), sp.csr_matrix(counts), yc),
        "bernoulli": (BernoulliNB(alpha=0.7, binarize=1.0), counts, np.array(["x", "y"])[yc % 2]),
        "categorical-strings": (CategoricalNB(alpha=0.5), tennis.drop(columns="PlayTennis"), tennis["PlayTennis"]),
        "categorical-missing": (CategoricalNB(), votes.drop(columns="party"), votes["party"]),
        "categorical-ints": (CategoricalNB(min_categories=6), rng.integers(0, 4, (30, 3)), rng.integers(0, 2, 30)),
        "gaussian": (GaussianNB(prior=None, predictive="marginal"), rng.normal(size=(30, 4)) + yc[:30, None],
                     yc[:30]),
        "naive-bayes-mixed": (NaiveBayes(features=features), mixed, ym),
        "naive-bayes-auto": (NaiveBayes(), mixed[["dish", "sleep"]], ym),
        "naive-bayes-histogram": (NaiveBayes(features={("w1", "sleep"): Histogram(bins=5, alpha=0.5),
                                                       "dish": Categorical()}),
                                  mixed[["dish", "w1", "sleep"]], ym),
    }


#: the settings above, and every row of cases.py (so a new estimator is round-tripped too)
CASES = {**_cases(), **{f"cases-{c.id}": (c.make(), *c.data()) for c in cases.CASES}}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip_is_exact(name, tmp_path):
    model, X, y = CASES[name]
    model.fit(X, y)
    path = tmp_path / "model.bnb"
    model.save(path)
    again = bayesnb.load(path)
    assert type(again) is type(model)
    assert again.get_params().keys() == model.get_params().keys()
    np.testing.assert_array_equal(again.classes_, model.classes_)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    np.testing.assert_array_equal(again.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    assert again.log_evidence_ == model.log_evidence_
    # the loaded model keeps learning exactly like the original
    a = pickle.loads(pickle.dumps(model)).partial_fit(X, y)
    b = again.partial_fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_pickle_still_works():
    model, X, y = CASES["naive-bayes-mixed"]
    model.fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_metadata_is_documented_json(tmp_path):
    model, X, y = CASES["categorical-strings"]
    model.fit(X, y)
    path = tmp_path / "m.bnb"
    model.save(path)
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(bytes(npz["__meta__"]).decode())
    assert meta["format"] == "bayesnb-model" and meta["format_version"] == FORMAT_VERSION
    assert meta["bayesnb_version"] == bayesnb.__version__
    assert meta["estimator"] == "CategoricalNB"
    assert meta["summary"]["classes"] == ["No", "Yes"]
    assert meta["summary"]["blocks"][0]["categories"]["Outlook"] == ["Overcast", "Rain", "Sunny"]


def test_unfitted_model_cannot_be_saved(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CategoricalNB().save(tmp_path / "m.bnb")


@pytest.fixture
def saved(tmp_path):
    model, X, y = CASES["categorical-strings"]
    model.fit(X, y)
    path = tmp_path / "m.bnb"
    model.save(path)
    return path


def _rewrite(path, edit_meta=None, edit_arrays=None):
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(bytes(npz["__meta__"]).decode())
        arrays = {k: npz[k] for k in npz.files if k != "__meta__"}
    if edit_meta:
        edit_meta(meta)
    if edit_arrays:
        edit_arrays(arrays)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, __meta__=blob, **arrays)


def test_truncated_file(saved):
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match="truncated or corrupted"):
        bayesnb.load(saved)


def test_corrupted_bytes(saved):
    data = bytearray(saved.read_bytes())
    for i in range(60, len(data) - 200, 7):
        data[i] ^= 0xFF
    saved.write_bytes(bytes(data))
    with pytest.raises(ModelFileError):
        bayesnb.load(saved)


def test_not_a_model_file(tmp_path):
    p = tmp_path / "notes.bnb"
    p.write_text("hello")
    with pytest.raises(ModelFileError, match="not a zip archive"):
        bayesnb.load(p)
    q = tmp_path / "plain.npz"
    np.savez(q, x=np.arange(3))
    with pytest.raises(ModelFileError, match="no __meta__"):
        bayesnb.load(q)
    with pytest.raises(ModelFileError, match="no such model file"):
        bayesnb.load(tmp_path / "absent.bnb")


def _bump_first_array(arrays):
    k = sorted(arrays)[0]
    arrays[k] = arrays[k] + 1 if arrays[k].dtype.kind in "iuf" else arrays[k]


def _posterior_type_popen(meta):
    meta["fitted"]["posterior"]["__nt__"] = "Popen"


#: (id, edit of the metadata, edit of the arrays, what the error says): each edited file is refused.
#: The loader instantiates only allow-listed classes and never unpickles: no code from the file runs.
EDITED_FILES = [
    ("newer format version", lambda m: m.update(format_version=FORMAT_VERSION + 1), None, "upgrade bayesnb"),
    ("wrong format name", lambda m: m.update(format="something-else"), None, "not a bayesnb model file"),
    ("tampered array", None, _bump_first_array, "checksum"),
    ("unknown class name", lambda m: m.update(estimator="os.system"), None, "unknown estimator"),
    ("unknown posterior type", _posterior_type_popen, None, "unknown posterior type"),
    ("pickled arrays", None, lambda a: a.update(a0=np.array([object()], dtype=object)), None),
]


@pytest.mark.parametrize("edit_meta, edit_arrays, what", [pytest.param(*row[1:], id=row[0]) for row in EDITED_FILES])
def test_edited_file_is_refused(saved, edit_meta, edit_arrays, what):
    _rewrite(saved, edit_meta=edit_meta, edit_arrays=edit_arrays)
    with pytest.raises(ModelFileError, match=what):
        bayesnb.load(saved)


def test_file_is_a_zip_of_npy(saved):
    names = zipfile.ZipFile(saved).namelist()
    assert "__meta__.npy" in names and all(n.endswith(".npy") for n in names)


def test_outlier_threshold_and_em_state_survive_save_load(tmp_path):
    from bayesnb.datasets import HOUSE_VOTES_COLUMNS, load_house_votes

    df = load_house_votes()
    X, y = df[HOUSE_VOTES_COLUMNS], df["party"].to_numpy(dtype=object)
    m = CategoricalNB().fit(X, y).set_outlier_threshold(X, contamination=0.1)
    m.save(tmp_path / "o.bnb")
    again = bayesnb.load(tmp_path / "o.bnb")
    assert again.offset_ == m.offset_ and again.contamination_ == m.contamination_
    np.testing.assert_array_equal(again.is_outlier(X), m.is_outlier(X))
    y_semi = y.copy()
    y_semi[::3] = None
    s = CategoricalNB().fit_semi_supervised(X, y_semi)
    s.save(tmp_path / "s.bnb")
    again = bayesnb.load(tmp_path / "s.bnb")
    np.testing.assert_array_equal(again.em_objective_, s.em_objective_)
    np.testing.assert_array_equal(again.transduction_, s.transduction_)
    assert again.n_iter_ == s.n_iter_ and again.converged_ == s.converged_


def test_training_dtypes_survive_save_load(tmp_path):
    rng = np.random.default_rng(4)
    n = 50
    df = pd.DataFrame({
        "size": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "hi", "xl"], ordered=True),
        "code": pd.Categorical(rng.choice([3, 1], n)),
        "name": pd.array(rng.choice(["x", "y"], n), dtype="string"),
        "w": pd.array(rng.poisson(2, n), dtype="Int64"), "k": rng.poisson(2, n).astype(np.int32),
        "ok": pd.array(rng.random(n) < 0.5, dtype="boolean"), "flag": rng.random(n) < 0.3,
        "t": rng.normal(size=n).astype(np.float32),
    })
    y = rng.integers(0, 2, n)
    model = NaiveBayes(features={("size", "code", "name"): Categorical(), ("w", "k"): Multinomial(),
                                 ("ok", "flag"): Bernoulli(binarize=None), "t": Gaussian()}).fit(df, y)
    model.save(tmp_path / "d.bnb")
    again = bayesnb.load(tmp_path / "d.bnb")
    assert list(again.feature_dtypes_) == list(df.dtypes)
    assert again.feature_dtypes_[0].ordered and list(again.feature_dtypes_[1].categories) == [1, 3]
    a, _ = model.sample(30, random_state=0)
    b, _ = again.sample(30, random_state=0)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_series_equal(b.dtypes, df.dtypes)
    # arrays: no dtypes stored, nothing to load
    arr = CategoricalNB().fit(df[["size"]].to_numpy(dtype=object), y)
    arr.save(tmp_path / "a.bnb")
    assert not hasattr(bayesnb.load(tmp_path / "a.bnb"), "feature_dtypes_")

    def edit(m):  # dtypes are names looked up by pandas, never code: an unknown name is refused
        m["fitted"]["extra"]["feature_dtypes_"]["__objarray__"][3] = {"__dtype__": "__import__('os')"}
    _rewrite(tmp_path / "d.bnb", edit_meta=edit)
    with pytest.raises(ModelFileError, match="unknown column dtype"):
        bayesnb.load(tmp_path / "d.bnb")


def _bits_equal(a, b, where):
    """Float arrays (and floats) with identical bits; containers compared item by item."""
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)), where
    elif isinstance(a, float):
        assert np.array_equal(np.float64(a).view(np.uint64), np.float64(b).view(np.uint64)), where
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b)):
            _bits_equal(u, v, f"{where}[{i}]")


def _bit_exact_cases():
    rng = np.random.default_rng(7)
    # enough columns that NumPy's pairwise sums of an F-ordered table differ from a C-ordered copy
    counts = rng.poisson(0.7, (120, 300))
    yc = rng.integers(0, 4, 120)
    w = rng.random(120)
    votes = load_house_votes()
    Xv, yv = votes.drop(columns="party"), votes["party"].to_numpy(dtype=object).copy()
    yv[::3] = None  # semi-supervised EM
    mixed, ym = _mixed_table(120)
    features = {"dish": Categorical(), "level": Categorical(alpha=0.3), ("w1", "w2", "w3"): Multinomial(alpha=0.5),
                "sleep": Gaussian(), "flag": Bernoulli(alpha=2.0)}
    return {
        "categorical": (CategoricalNB(alpha=0.5), Xv, votes["party"], None),
        "bernoulli": (BernoulliNB(alpha=0.7), counts, yc, w),
        "multinomial": (MultinomialNB(alpha=0.37), counts, yc, w),
        "multinomial-sparse": (MultinomialNB(alpha="auto"), sp.csr_matrix(counts), yc, None),
        "complement": (bayesnb.ComplementNB(alpha=0.37), counts, yc, w),
        "complement-norm-sparse": (bayesnb.ComplementNB(norm=True), sp.csr_matrix(counts), yc, None),
        "gaussian": (GaussianNB(), rng.normal(size=(120, 40)) + yc[:, None], yc, w),
        "naive-bayes-mixed": (NaiveBayes(features=features), mixed, ym, None),
        "semi-supervised": (CategoricalNB(), Xv, yv, "semi"),
        "partial-fit": (NaiveBayes(features=features), mixed, ym, "partial"),
    }


@pytest.mark.parametrize("name", sorted(_bit_exact_cases()))
def test_save_load_is_bit_exact(name, tmp_path):
    """Defect 8: save -> load was up to 1e-12 off (F-ordered tables came back C-ordered), flipping ties."""
    model, X, y, w = _bit_exact_cases()[name]
    if isinstance(w, str) and w == "semi":
        model.fit_semi_supervised(X, y)
    elif isinstance(w, str):  # three batches
        n = X.shape[0]
        for part in np.array_split(np.arange(n), 3):
            model.partial_fit(X.iloc[part], y[part], classes=np.unique(y))
    else:
        model.fit(X, y, sample_weight=w)
    model.save(tmp_path / "m.bnb")
    again = bayesnb.load(tmp_path / "m.bnb")
    _bits_equal(model.predict_joint_log_proba(X), again.predict_joint_log_proba(X), "predict_joint_log_proba")
    _bits_equal(model.predict_proba(X), again.predict_proba(X), "predict_proba")
    _bits_equal(tuple(model.posterior_), tuple(again.posterior_), "posterior_")
    _bits_equal(model._caches, again._caches, "_caches")
    fitted = {a for a in vars(model) if a.endswith("_") and not a.startswith("_")}
    assert fitted == {a for a in vars(again) if a.endswith("_") and not a.startswith("_")}
    for a in fitted:
        _bits_equal(getattr(model, a), getattr(again, a), a)
    if getattr(model, "family_scores_", None) is not None:
        pd.testing.assert_frame_equal(model.family_scores_, again.family_scores_)
