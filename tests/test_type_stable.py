"""Type-stable categorical prediction (issue 31, item 7).

A categorical column given values of another type than it was fitted on is converted when
that is lossless ("1" <-> 1, 1.0 -> 1, bool <-> 0/1, a pandas categorical of those), refused
with an error naming the column otherwise, and never silently scored as unseen.
"""

import numpy as np
import pandas as pd
import pytest

from bayesnb import CategoricalNB, NaiveBayes

Y = np.array([0, 1, 0, 1, 0, 1, 1, 0])


def _frame(a, b):
    return pd.DataFrame({"a": a, "b": b})


STR_A = ["1", "2", "1", "2", "1", "2", "2", "1"]
BOOL_B = [True, False, True, True, False, False, True, False]
INT_A = [int(v) for v in STR_A]
INT_B = [int(v) for v in BOOL_B]


@pytest.mark.parametrize("given", [
    _frame(INT_A, INT_B),  # ints for strings, 0/1 for bools
    _frame([float(v) for v in INT_A], [float(v) for v in INT_B]),  # floats holding integers
    _frame(pd.Categorical(INT_A), pd.Categorical(INT_B)),  # pandas categoricals of those
    _frame(np.array(INT_A, dtype=np.int8), np.array(BOOL_B)),
], ids=["ints", "floats", "pandas-categorical", "int8"])
def test_a_lossless_type_change_predicts_as_the_fitted_type(given):
    model = NaiveBayes().fit(_frame(STR_A, BOOL_B), Y)
    expected = model.predict_proba(_frame(STR_A, BOOL_B))
    assert np.ptp(expected[:, 0]) > 0  # the columns matter: a marginalised column would show
    np.testing.assert_array_equal(model.predict_proba(given), expected)
    np.testing.assert_array_equal(model.score_samples(given), model.score_samples(_frame(STR_A, BOOL_B)))


def test_int_categories_accept_strings_floats_and_bools():
    X = np.array([[1, 0], [2, 1], [1, 1], [2, 0], [1, 0], [2, 1]])
    y = np.array([0, 1, 0, 1, 0, 1])
    model = CategoricalNB().fit(X, y)
    expected = model.predict_proba(X)
    for other in (X.astype(str).astype(object), X.astype(float), np.column_stack([X[:, 0], X[:, 1].astype(bool)])):
        np.testing.assert_array_equal(model.predict_proba(other), expected)


@pytest.mark.parametrize(("fit_col", "bad", "got"), [
    ([1, 2, 1, 2], "a", "str"),  # a word for integer categories
    ([1, 2, 1, 2], 1.5, "float"),  # a fraction for integer categories
    ([True, False, True, False], 2, "int"),  # 2 for a bool column
    (["1", "2", "1", "2"], 1.5, "float"),
])
def test_a_lossy_type_change_raises_naming_the_column(fit_col, bad, got):
    X = pd.DataFrame({"colour": ["r", "g", "r", "g"], "level": fit_col})
    model = CategoricalNB().fit(X, [0, 1, 0, 1])
    Q = pd.DataFrame({"colour": ["r", "g"], "level": pd.Series([bad, bad], dtype=object)})
    with pytest.raises(TypeError, match=rf"feature 'level' was fitted on .* categories .*received the {got} value"):
        model.predict(Q)


def test_an_unseen_value_of_the_right_type_is_still_unseen():
    X = pd.DataFrame({"level": [1, 2, 1, 2], "w": ["x", "y", "x", "y"]})
    model = CategoricalNB().fit(X, [0, 1, 0, 1])
    unseen = pd.DataFrame({"level": [3, 1], "w": ["z", "x"]})  # 3 and "z": never seen, of the fitted types
    p = model.predict_proba(unseen)
    assert np.isfinite(p).all() and not np.allclose(p[0], p[1])
    # an unseen int is the same as an unseen int given as a string or a float holding it
    np.testing.assert_array_equal(model.predict_proba(unseen.assign(level=["3", "1"])), p)
    np.testing.assert_array_equal(model.predict_proba(unseen.assign(level=[3.0, 1.0])), p)


def test_a_converted_column_matching_no_category_raises():
    """Ints for the categories "a"/"b" convert to "1"/"2" losslessly but match nothing: a type error."""
    model = CategoricalNB().fit(pd.DataFrame({"grade": ["a", "b", "a", "b"]}), [0, 1, 0, 1])
    with pytest.raises(TypeError, match=r"feature 'grade' was fitted on str categories \['a', 'b'\] but received "
                                        r"int value\(s\) \[1, 2\], none of which"):
        model.predict(pd.DataFrame({"grade": [1, 2]}))
    with pytest.raises(TypeError, match="feature 'grade'"):
        model.partial_fit(pd.DataFrame({"grade": [1, 2]}), [0, 1])


def test_a_structure_converts_too():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.choice(["1", "2", "3"], 200), "b": rng.choice(["1", "2"], 200)})
    y = (X["a"] == "1").to_numpy().astype(int)
    model = CategoricalNB(structure="tan").fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X.astype(int)), model.predict_proba(X))


def test_partial_fit_joins_converted_values_to_the_fitted_categories():
    X = _frame(STR_A, BOOL_B)
    once = NaiveBayes().fit(pd.concat([X, X], ignore_index=True), np.concatenate([Y, Y]))
    batched = NaiveBayes().fit(X, Y).partial_fit(_frame(INT_A, INT_B), Y)
    cats = batched.posterior_.blocks[0].state.categories
    assert list(cats[0]) == ["1", "2"] and list(cats[1]) == [False, True]
    np.testing.assert_allclose(batched.predict_joint_log_proba(X), once.predict_joint_log_proba(X), rtol=1e-12)
    with pytest.raises(TypeError, match="feature 'a'"):
        batched.partial_fit(_frame(["1"] * 7 + ["x"], BOOL_B).assign(a=[1] * 7 + [1.5]), Y)
