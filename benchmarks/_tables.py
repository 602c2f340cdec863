"""Tables as the benchmarks use them: bundled ones, and the public CSV files a user downloads into a folder."""

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


def csv_tables(folder, target=None, n_rows=None, na_values=None):
    """Every ``*.csv`` in ``folder`` as ``(name, X, y)``, in name order: public tables a user downloads.

    ``y`` is the column named ``target`` (default, or where a file has no such column: its last column), as strings.
    A feature pandas reads as numbers is numeric (float) when it has more than 10 distinct values, categorical
    (object) otherwise. ``n_rows``: a random subsample of that many rows (seed 0) of a longer file. ``na_values``:
    more strings that mark a missing cell (e.g. ``["?"]``, UCI's mark), besides pandas' own.
    """
    from pathlib import Path

    import numpy as np
    import pandas as pd

    for path in sorted(Path(folder).glob("*.csv")):
        df = pd.read_csv(path, na_values=na_values, skipinitialspace=True)
        if n_rows is not None and len(df) > n_rows:
            rows = np.sort(np.random.default_rng(0).choice(len(df), size=n_rows, replace=False))
            df = df.iloc[rows].reset_index(drop=True)
        label = target if target in df.columns else df.columns[-1]
        X = df.drop(columns=label)
        for c in X.columns:
            if pd.api.types.is_numeric_dtype(X[c]):
                X[c] = X[c].astype(float) if X[c].nunique() > 10 else X[c].astype(object)
        yield path.stem, X, df[label].astype(str)
