"""impute_table's "tan-mi" configuration: the Chow-Liu tree (NaiveBayes(structure="tan", edge_score="mi"))
beside the BDeu tree, chosen per column like any configuration."""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb import Imputer, NaiveBayes, impute_table, load
from bayesnb.datasets import load_house_votes
from bayesnb.impute.table import CONFIGURATIONS
from bayesnb.io.persistence import ModelFileError


def _votes(seed=0, p=0.2):
    hv = load_house_votes()
    X = hv.drop(columns="party")
    return X.mask(np.random.default_rng(seed).random(X.shape) < p), hv["party"].to_numpy()


def test_edge_score_mi_gives_a_spanning_tree_where_bdeu_gives_a_forest():
    X, y = _votes()
    rng = np.random.default_rng(1)
    X = X.assign(noise=rng.choice([f"v{i}" for i in range(30)], size=len(X)).astype(object))
    mi = NaiveBayes(structure="tan", edge_score="mi").fit(X, y).structure_
    bdeu = NaiveBayes(structure="tan").fit(X, y).structure_
    assert sum(len(p) for p in mi.values()) == X.shape[1] - 1  # every feature linked (noise too): d - 1 edges
    assert not bdeu["noise"] and not any("noise" in p for p in bdeu.values())  # BDeu leaves the noise out


def test_tan_mi_is_a_configuration_fitted_with_the_mi_tree(tmp_path):
    assert "tan-mi" in CONFIGURATIONS and CONFIGURATIONS.index("tan-mi") > CONFIGURATIONS.index("tan")
    X, y = _votes()
    imp = Imputer(configurations=("naive", "tan", "tan-mi"), random_state=0).fit(X, y)
    assert set(imp.scores_["configuration"]) == {"naive", "tan", "tan-mi"}
    if "tan-mi" in imp.models_:
        model = imp.models_["tan-mi"]
    else:
        model = Imputer(configurations="tan-mi", random_state=0).fit(X, y).models_["tan-mi"]
    assert model.edge_score == "mi"
    assert model.structure_ == NaiveBayes(structure="tan", edge_score="mi").fit(X, y).structure_
    one = Imputer(configurations="tan-mi", random_state=0).fit(X, y)
    one.save(tmp_path / "imp.bnb")
    back = load(tmp_path / "imp.bnb")
    assert back.models_["tan-mi"].edge_score == "mi" and back.impute(X).equals(one.impute(X))
    table = impute_table(X, y, configurations="tan-mi", random_state=0).table
    assert table.equals(NaiveBayes(structure="tan", edge_score="mi").fit(X, y).impute(X))



def test_auto_leaves_out_tan_mi_when_the_template_already_scores_edges_by_mi(monkeypatch):
    X, y = _votes()
    mi = NaiveBayes(edge_score="mi")
    assert Imputer(estimator=mi)._check_params(X, y, "Imputer")[0] == ("naive", "latent", "tan", "mvn")
    assert Imputer()._check_params(X, y, "Imputer")[0] == CONFIGURATIONS
    assert Imputer(estimator=mi, configurations=("tan", "tan-mi"))._check_params(X, y, "Imputer")[0] == ("tan", "tan-mi")

    class Fitted(Exception):
        pass

    def spy(self, X, y, configs, *args, **kwargs):  # the configurations impute_table fits, without fitting them
        raise Fitted(configs)

    monkeypatch.setattr(Imputer, "_fit", spy)
    with pytest.raises(Fitted) as got:
        impute_table(X, y, estimator=mi)
    assert got.value.args[0] == ("naive", "latent", "tan", "mvn")


@pytest.mark.parametrize("config, params", [("tan-mi", {"edge_score": "bdeu"}), ("tan", {"edge_score": "mi"}),
                                            ("tan-mi", {"structure": "naive"}), ("tan", {"structure": "naive"})])
def test_load_refuses_a_tan_member_without_its_structure_and_edge_score(tmp_path, config, params):
    X, y = _votes()
    imp = Imputer(configurations=config, random_state=0).fit(X, y)
    imp.save(tmp_path / "ok.bnb")
    load(tmp_path / "ok.bnb")  # as fitted: loads
    imp.models_[config].set_params(**params)
    imp.save(tmp_path / "bad.bnb")
    with pytest.raises(ModelFileError, match=config):
        load(tmp_path / "bad.bnb")
