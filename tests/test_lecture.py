"""The lecture examples, reproduced exactly."""

import numpy as np
import pandas as pd
import pytest

from bayesnb import Categorical, CategoricalNB, GaussianNB, NaiveBayes
from bayesnb.datasets import load_play_tennis, load_temperature

QUERY = pd.DataFrame([["Sunny", "Cool", "High", "Strong"]], columns=["Outlook", "Temperature", "Humidity", "Wind"])


@pytest.fixture
def tennis():
    df = load_play_tennis()
    return df.drop(columns="PlayTennis"), df["PlayTennis"]


def test_play_tennis_unsmoothed_scores(tennis):
    X, y = tennis
    clf = CategoricalNB(alpha=0, class_alpha=0).fit(X, y)
    joint = dict(zip(clf.classes_, np.exp(clf.predict_joint_log_proba(QUERY))[0]))
    # Mitchell (1997): P(yes) prod P(a|yes) = 0.0053, P(no) prod P(a|no) = 0.0206
    assert joint["Yes"] == pytest.approx(9 / 14 * 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9, rel=1e-12)
    assert joint["No"] == pytest.approx(5 / 14 * 3 / 5 * 1 / 5 * 4 / 5 * 3 / 5, rel=1e-12)
    assert round(joint["Yes"], 4) == 0.0053 and round(joint["No"], 4) == 0.0206
    assert clf.predict(QUERY)[0] == "No"
    # the conditional probabilities listed in the data README
    probs = {c: np.exp(lp) for c, lp in zip(X.columns, clf.feature_log_prob_)}
    cats = dict(zip(X.columns, clf.categories_))
    yes, no = list(clf.classes_).index("Yes"), list(clf.classes_).index("No")
    sunny = list(cats["Outlook"]).index("Sunny")
    assert probs["Outlook"][yes, sunny] == pytest.approx(2 / 9)
    assert probs["Outlook"][no, sunny] == pytest.approx(3 / 5)


def test_alpha_to_zero_is_the_limit(tennis):
    X, y = tennis
    exact = CategoricalNB(alpha=0, class_alpha=0).fit(X, y).predict_joint_log_proba(QUERY)
    near = CategoricalNB(alpha=1e-9, class_alpha=0).fit(X, y).predict_joint_log_proba(QUERY)
    np.testing.assert_allclose(near, exact, rtol=1e-6)


def test_zero_frequency_problem_is_explicit(tennis):
    X, y = tennis
    clf = CategoricalNB(alpha=0, class_alpha=0).fit(X, y)
    overcast = QUERY.assign(Outlook="Overcast")
    # Overcast never occurs with No: the MLE says P(No | overcast, ...) = 0, not NaN
    p = clf.predict_proba(overcast)[0]
    assert np.all(np.isfinite(p)) and p[list(clf.classes_).index("No")] == 0.0


def test_m_estimate(tennis):
    """m-estimate (n_c + m p) / (n + m) for P(Outlook=Overcast | No): n_c = 0, n = 5.

    The lecture quotes 1/6 "with m=1, p=1/3"; the formula gives (0 + 1/3)/(5 + 1) = 1/18
    for those values. 1/6 is what m=5, p=1/3 gives; m=3, p=1/3 is Laplace (1/8).
    """
    X, y = tennis

    def p_overcast_no(family):
        clf = NaiveBayes(features={("Outlook", "Temperature", "Humidity", "Wind"): family}).fit(X, y)
        b = clf.posterior_.blocks[0]
        conc = b.posterior.concentration[0]
        k = list(clf.classes_).index("No")
        v = list(b.state.categories[0]).index("Overcast")
        return conc[k, v] / conc[k].sum()

    assert p_overcast_no(Categorical.m_estimate(m=1, p=1 / 3)) == pytest.approx(1 / 18)
    assert p_overcast_no(Categorical.m_estimate(m=5, p=1 / 3)) == pytest.approx(1 / 6)
    assert p_overcast_no(Categorical.m_estimate(m=3, p=1 / 3)) == pytest.approx(1 / 8)
    assert p_overcast_no(Categorical(alpha=1.0)) == pytest.approx(1 / 8)  # Laplace == m=3, p=1/3
    # per-value p as a dict, and the uniform default p = 1/V
    assert p_overcast_no(Categorical.m_estimate(m=5)) == pytest.approx(1 / 6)
    p = {"Sunny": 0.5, "Overcast": 0.25, "Rain": 0.25}
    clf = CategoricalNB(alpha={"Sunny": 2.0, "Overcast": 1.0, "Rain": 1.0}, class_alpha=0).fit(X[["Outlook"]], y)
    clf2 = NaiveBayes(features={"Outlook": Categorical.m_estimate(m=4, p=p)}, class_alpha=0).fit(X[["Outlook"]], y)
    np.testing.assert_allclose(clf.predict_proba(X[["Outlook"]]), clf2.predict_proba(X[["Outlook"]]))


def test_temperature_gaussian():
    df = load_temperature()
    X, y = df[["Temperature"]], df["PlayTennis"]
    mle = GaussianNB(prior=None).fit(X, y)
    ref = GaussianNB(prior="reference").fit(X, y)
    k = {c: i for i, c in enumerate(mle.classes_)}
    # means 21.64 (yes) and 23.88 (no)
    assert round(mle.theta_[k["Yes"], 0], 2) == 21.64 and round(mle.theta_[k["No"], 0], 2) == 23.88
    np.testing.assert_allclose(ref.theta_, mle.theta_)
    # the lecture's sigmas 2.35 / 7.09 use the n-1 convention: the reference-prior plug-in
    assert round(np.sqrt(ref.var_[k["Yes"], 0]), 2) == 2.35
    assert round(np.sqrt(ref.var_[k["No"], 0]), 2) == 7.09
    # maximum likelihood divides by n: 2.22 / 6.34
    yes = df.Temperature[df.PlayTennis == "Yes"].to_numpy()
    np.testing.assert_allclose(np.sqrt(mle.var_[k["Yes"], 0]), yes.std(ddof=0))
    np.testing.assert_allclose(np.sqrt(ref.var_[k["Yes"], 0]), yes.std(ddof=1))
    assert round(np.sqrt(mle.var_[k["Yes"], 0]), 2) == 2.22 and round(np.sqrt(mle.var_[k["No"], 0]), 2) == 6.34
