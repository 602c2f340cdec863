"""The bundled datasets load with the documented shapes, dtypes and missing cells."""

import hashlib
from importlib import resources

import numpy as np

from bayesnb.datasets import load_penguins


def test_penguins_file_is_the_published_one():
    raw = resources.files("bayesnb.datasets").joinpath("penguins.csv").read_bytes()
    # penguins.csv of the PyPI package palmerpenguins 0.1.6
    assert hashlib.sha256(raw).hexdigest() == PENGUINS_SHA256


def test_penguins_shape_dtypes_and_missing():
    df = load_penguins()
    assert df.shape == (344, 8)
    assert df["species"].value_counts().to_dict() == {"Adelie": 152, "Gentoo": 124, "Chinstrap": 68}
    assert str(df["flipper_length_mm"].dtype) == "Int64" and str(df["body_mass_g"].dtype) == "Int64"
    assert df["year"].dtype.kind == "i" and df["bill_length_mm"].dtype.kind == "f"
    assert df.isna().sum().to_dict() == {"species": 0, "island": 0, "bill_length_mm": 2, "bill_depth_mm": 2,
                                         "flipper_length_mm": 2, "body_mass_g": 2, "sex": 11, "year": 0}
    assert np.isclose(df["bill_length_mm"].mean(), 43.92193, atol=1e-4)


PENGUINS_SHA256 = "f204db2c753b0937caac3cb35258562c14f073e4bbc76be24b4c51ce22767a93"
