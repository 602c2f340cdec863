"""The UCI Adult (census income) table, for benchmarks that take ``--adult DIR``.

The table is public (Kohavi 1996; https://archive.ics.uci.edu/dataset/2/adult) but is not
shipped with bayesnb or in ``../shared/data``: it stands for "a public table the project has
not seen". Put UCI's ``adult.data`` (32,561 rows, 3,974,305 bytes) and ``adult.test``
(16,281 rows; UCI's file starts with a ``|1x3 Cross validator`` line, which is skipped) in one
folder and pass it as ``--adult DIR``. Missing cells are ``?``; test labels end with ``.``,
which is stripped.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
           "native-country", "income"]
NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
TARGET = "income"
NOT_GIVEN = "census table not given: pass --adult DIR with adult.data and adult.test from UCI"


def _read(path):
    with open(path, encoding="ascii") as fh:
        first = fh.readline()
    skip = 1 if first.startswith("|") else 0
    frame = pd.read_csv(path, header=None, names=COLUMNS, skipinitialspace=True, na_values="?",
                        skiprows=skip)
    frame = frame.dropna(how="all")
    frame[TARGET] = frame[TARGET].str.rstrip(".")
    return frame.reset_index(drop=True)


def load_adult(folder):
    """Read the official train/test split.

    Parameters
    ----------
    folder : str or Path or None
        Folder holding ``adult.data`` and ``adult.test``.

    Returns
    -------
    (train, test) : tuple of DataFrame or None
        The two tables with the columns of :data:`COLUMNS` (numeric columns int64, the others
        object with NaN for ``?``), or None when ``folder`` is None or lacks either file (the
        caller prints :data:`NOT_GIVEN` and skips its census part).
    """
    if folder is None:
        return None
    folder = Path(folder)
    if not (folder / "adult.data").is_file() or not (folder / "adult.test").is_file():
        return None
    return _read(folder / "adult.data"), _read(folder / "adult.test")


def load_adult_train(folder):
    """Read ``adult.data`` only (the benchmarks that sample its rows need no ``adult.test``).

    Parameters
    ----------
    folder : str or Path or None
        Folder holding ``adult.data``.

    Returns
    -------
    DataFrame or None
        The table as :func:`load_adult`'s ``train``, or None when ``folder`` is None or lacks
        ``adult.data``.
    """
    if folder is None or not (Path(folder) / "adult.data").is_file():
        return None
    return _read(Path(folder) / "adult.data")
