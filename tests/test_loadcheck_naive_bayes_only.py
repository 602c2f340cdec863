"""Only a NaiveBayes may hold ``sample_support_`` or an imputer: one rule, ``bayesnb.io.loadcheck.check_naive_bayes_only``.

A file of another estimator holding either is refused with :class:`ModelFileError`, and so is one
naming a class that is merely called NaiveBayes (the rule asks for the registered class itself)."""

from __future__ import annotations

import pytest

import bayesnb
from bayesnb import GaussianNB, Imputer, NaiveBayes
from bayesnb.io.loadcheck import NAIVE_BAYES_ONLY
from bayesnb.io.names import type_key
from bayesnb.datasets import load_penguins
from bayesnb.io.persistence import ModelFileError, load, save
from helpers import edit_meta

#: a registered estimator whose class name is NaiveBayes but which is not bayesnb's
LOOKALIKE = type("NaiveBayes", (GaussianNB,), {"__module__": __name__})

COLS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm"]


@pytest.fixture(scope="module")
def table():
    pg = load_penguins().dropna(subset=[*COLS, "species"])
    return pg[COLS].astype(float), pg["species"].to_numpy(dtype=object)


@pytest.fixture(scope="module")
def imputer(table):
    X, y = table
    return NaiveBayes().fit(X, y, impute=Imputer(configurations=("naive",), random_state=0)).imputer_


def _held(model, attribute, imputer):
    if attribute == "imputer_":
        model.imputer_ = imputer
    else:
        model.sample_support_ = "observed"
    return model


@pytest.mark.parametrize("attribute", sorted(NAIVE_BAYES_ONLY))
@pytest.mark.parametrize("holder", ["GaussianNB", "CategoricalNB", "lookalike"])
def test_a_file_of_another_estimator_holding_a_naive_bayes_attribute_is_refused(table, imputer, tmp_path, attribute,
                                                                                holder):
    X, y = table
    if holder == "CategoricalNB":
        X = X.round(-1).astype(int).astype(str)
    model = _held((GaussianNB if holder != "CategoricalNB" else bayesnb.CategoricalNB)().fit(X, y), attribute,
                  imputer)
    path = tmp_path / "m.bnb"
    save(model, path)
    if holder == "lookalike":  # the same file, naming the class called NaiveBayes
        edit_meta(path, tmp_path / "bad.bnb", lambda m: m.update(estimator=type_key(LOOKALIKE)))
        path = tmp_path / "bad.bnb"
    name = type_key(LOOKALIKE) if holder == "lookalike" else holder
    with pytest.raises(ModelFileError, match=f"a {name} model must not hold {NAIVE_BAYES_ONLY[attribute][0]}"):
        load(path)


def test_the_lookalike_file_loads_without_the_attribute(table, tmp_path):
    """Control: the edited file is a valid file of the lookalike class when it holds neither attribute."""
    X, y = table
    path = tmp_path / "m.bnb"
    save(GaussianNB().fit(X, y), path)
    edit_meta(path, tmp_path / "ok.bnb", lambda m: m.update(estimator=type_key(LOOKALIKE)))
    assert type(load(tmp_path / "ok.bnb")) is LOOKALIKE


@pytest.mark.parametrize("attribute", sorted(NAIVE_BAYES_ONLY))
def test_a_naive_bayes_file_holding_either_attribute_loads(table, imputer, tmp_path, attribute):
    X, y = table
    path = tmp_path / "m.bnb"
    save(_held(NaiveBayes().fit(X, y), attribute, imputer), path)
    back = load(path)
    assert hasattr(back, attribute)
