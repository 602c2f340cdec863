"""Bundled tables as the imputation benchmarks use them."""

from __future__ import annotations

from bayesnb.datasets import load_penguins


def penguins_xy():
    """Penguins without ``year``: features (nullable integer columns as float, missing NaN) and species labels."""
    pg = load_penguins()
    X = pg.drop(columns=["species", "year"])
    for c in X.columns:
        if str(X[c].dtype) == "Int64":
            X[c] = X[c].astype(float)
    return X, pg["species"].to_numpy(dtype=object)
