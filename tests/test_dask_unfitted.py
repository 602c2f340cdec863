"""An unfitted estimator's predict methods on a Dask ``X`` raise scikit-learn's ``NotFittedError`` (as on
in-memory data), before any lazy graph is built: naive and structured alike."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import bayesnb as bn

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: pip install 'bayesnb[dask]'")


@pytest.mark.parametrize("structure", ["naive", "tan"])
@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba",
                                    "score_samples"])
def test_unfitted_predict_on_dask_raises_not_fitted(structure, method):
    X = dd.from_pandas(pd.DataFrame({"a": ["x", "y", "x", "y"], "b": np.arange(4.0)}), npartitions=2)
    with pytest.raises(NotFittedError, match="not fitted"):
        getattr(bn.NaiveBayes(structure=structure), method)(X)


@pytest.mark.parametrize("call", [lambda m, X: m.feature_log_contributions(X),
                                  lambda m, X: m.fit_latent_class(X, None, n_components=2)],
                         ids=["feature_log_contributions", "fit_latent_class"])
def test_a_method_that_needs_in_memory_data_says_so_for_a_dask_x(call):
    """Methods that do not map partitions name what they need and what they received (they failed inside
    pandas/NumPy code with Dask's 'cannot be converted to a boolean value')."""
    frame = pd.DataFrame({"a": ["x", "y", "x", "y"] * 3, "b": np.arange(12.0)})
    m = bn.NaiveBayes().fit(frame, np.array([0, 1] * 6))
    with pytest.raises(TypeError, match=r"NaiveBayes: this method needs in-memory data; received a Dask collection"):
        call(m, dd.from_pandas(frame, npartitions=2))
