"""Small real datasets shipped with bayesnb, loaded as pandas DataFrames.

- :func:`load_play_tennis` -- Quinlan (1986) / Mitchell (1997, Table 3.2), 14 rows.
- :func:`load_house_votes` -- UCI Congressional Voting Records (1984), 435 rows.
- :func:`load_temperature` -- the numeric temperature example of the lecture notes.
- :func:`load_penguins` -- Palmer penguins (Horst, Hill and Gorman 2020), 344 rows of mixed
  categorical, integer and real columns with missing values.
- :func:`read_20newsgroups` -- reader for the 20 Newsgroups "bydate" JSON-lines file (not
  shipped: 13 MB; the repository's benchmarks and examples find it in ``../shared/data``).
"""

from __future__ import annotations

from importlib import resources

import numpy as np

__all__ = ["load_play_tennis", "load_house_votes", "load_temperature", "load_penguins", "read_20newsgroups",
           "HOUSE_VOTES_COLUMNS"]

HOUSE_VOTES_COLUMNS = [
    "handicapped-infants", "water-project-cost-sharing", "adoption-of-the-budget-resolution",
    "physician-fee-freeze", "el-salvador-aid", "religious-groups-in-schools",
    "anti-satellite-test-ban", "aid-to-nicaraguan-contras", "mx-missile", "immigration",
    "synfuels-corporation-cutback", "education-spending", "superfund-right-to-sue", "crime",
    "duty-free-exports", "export-administration-act-south-africa",
]


def _path(name):
    return resources.files(__name__).joinpath(name)


def load_play_tennis():
    """The play-tennis table (Quinlan 1986; Mitchell 1997, Table 3.2).

    Returns
    -------
    DataFrame of shape (14, 5)
        Columns ``Outlook, Temperature, Humidity, Wind`` (strings) and the label
        ``PlayTennis`` (``"Yes"``/``"No"``), rows in the textbook order D1..D14.
    """
    import pandas as pd

    with _path("play_tennis.csv").open("r") as f:
        return pd.read_csv(f, dtype=str)


def load_house_votes(missing=True):
    """UCI Congressional Voting Records (1984): 435 members, 16 votes, party label.

    Schlimmer, J. C. (1987). *Concept acquisition through representational adjustment*.
    PhD thesis, UC Irvine; UCI Machine Learning Repository (CC BY 4.0). Data from the
    Congressional Quarterly Almanac, 98th Congress, 2nd session 1984.

    Parameters
    ----------
    missing : bool, default=True
        ``?`` (voted present / did not vote) becomes a missing value (``None``); with
        False it is kept as the string ``"?"``.

    Returns
    -------
    DataFrame of shape (435, 17)
        ``party`` (``"democrat"``/``"republican"``) and 16 vote columns with values
        ``"y"``/``"n"`` (and missing).
    """
    import pandas as pd

    with _path("house-votes-84.data").open("r") as f:
        df = pd.read_csv(f, header=None, names=["party"] + HOUSE_VOTES_COLUMNS, dtype=object,
                         keep_default_na=False)
    if missing:
        df = df.replace("?", None)
    return df


def load_temperature():
    """Numeric temperature (deg C) per play-tennis class from the lecture notes.

    The worked Gaussian example gives mu_yes = 21.64, sigma_yes = 2.35, mu_no = 23.88,
    sigma_no = 7.09; those sigmas use the n - 1 (sample) convention.

    Returns
    -------
    DataFrame of shape (14, 2)
        ``Temperature`` (float) and ``PlayTennis`` (``"Yes"``/``"No"``).
    """
    import pandas as pd

    yes = [25.2, 19.3, 18.5, 21.7, 20.1, 24.3, 22.8, 23.1, 19.8]
    no = [27.3, 30.1, 17.4, 29.5, 15.1]
    return pd.DataFrame({"Temperature": np.array(yes + no), "PlayTennis": ["Yes"] * 9 + ["No"] * 5})


def load_penguins():
    """Palmer penguins: 344 penguins of three species, a mixed table with missing values.

    Gorman, K. B., Williams, T. D. and Fraser, W. R. (2014). Ecological sexual dimorphism
    and environmental variability within a community of Antarctic penguins (genus
    *Pygoscelis*). PLoS ONE 9(3), e90081. Packaged by Horst, Hill and Gorman (2020), R
    package palmerpenguins; data CC0. The file is ``penguins.csv`` of the PyPI package
    palmerpenguins 0.1.6.

    Returns
    -------
    DataFrame of shape (344, 8)
        ``species`` (the usual label: Adelie, Chinstrap, Gentoo), ``island`` and ``sex``
        (strings; ``sex`` has 11 missing), ``bill_length_mm`` and ``bill_depth_mm``
        (float), ``flipper_length_mm`` and ``body_mass_g`` (nullable integers ``Int64``,
        2 missing each) and ``year`` (int, 2007-2009).
    """
    import pandas as pd

    with _path("penguins.csv").open("r") as f:
        return pd.read_csv(f, dtype={"species": object, "island": object, "sex": object,
                                     "flipper_length_mm": "Int64", "body_mass_g": "Int64"})


def read_20newsgroups(path):
    """Read the 20 Newsgroups "bydate" split from a gzip JSON-lines file.

    Each line is ``{"split": "train"|"test", "label": <newsgroup>, "id": .., "text": ..}``
    (Lang 1995; the file in ``../shared/data`` is byte-identical to Rennie's tarball).

    Parameters
    ----------
    path : str or os.PathLike
        The ``20news-bydate.jsonl.gz`` file.

    Returns
    -------
    train_texts : list of str
    train_labels : ndarray of object, shape (n_train,)
    test_texts : list of str
    test_labels : ndarray of object, shape (n_test,)
    """
    import gzip
    import json

    tr_x, tr_y, te_x, te_y = [], [], [], []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            (tr_x if r["split"] == "train" else te_x).append(r["text"])
            (tr_y if r["split"] == "train" else te_y).append(r["label"])
    return tr_x, np.array(tr_y, dtype=object), te_x, np.array(te_y, dtype=object)
