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
