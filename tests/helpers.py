"""Small helpers several test files share: editing a saved model file's metadata (and checking that the
edited file is refused), the self-masking tests' two-valued table, walking a fitted posterior's arrays."""

from __future__ import annotations

import json

import numpy as np


def edit_meta(path, out, change):
    """Write ``path`` to ``out`` with its metadata changed by ``change`` (checksums cover the arrays only)."""
    with np.load(path) as f:
        entries = {n: f[n] for n in f.files}
    meta = json.loads(entries["__meta__"].tobytes())
    change(meta)
    entries["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(out, "wb") as f:  # a file object: savez would add ".npz" to a path
        np.savez_compressed(f, **entries)


def assert_damaged_file_refused(model, tmp_path, change, match, load):
    """Save ``model``, change its file's metadata with ``change`` (:func:`edit_meta`) and check that ``load`` refuses
    the changed file with the package's ``ModelFileError`` matching ``match``."""
    import pytest

    from bayesnb.io.persistence import ModelFileError

    path, bad = tmp_path / "model.bnb", tmp_path / "bad.bnb"
    model.save(path)
    edit_meta(path, bad, change)
    with pytest.raises(ModelFileError, match=match):
        load(bad)


def two_valued_table(n=500, d=8, seed=0):
    """The self-masking tests' table ``(X, y)``: two-level columns that depend on the class (two classes: a
    two-level column's self-masking is identified, docs/mnar.md); ``a`` is each column's most frequent level."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.random((n, d)) < np.where(y[:, None] == 0, 0.8, 0.35)
    X = pd.DataFrame(np.where(a, "a", "b").astype(object), columns=[f"c{j}" for j in range(d)])
    return X, np.where(y == 1, "yes", "no").astype(object)


def self_masked_blank(X, self_masking, seed=1):
    """:func:`two_valued_table`'s ``X`` blanked, ``(X with missing cells, mask)``: hide ``a`` with probability 0.55
    and the others with 0.1 (self-masking), or every cell with 0.25."""
    rng = np.random.default_rng(seed)
    p = np.where(X.to_numpy() == "a", 0.55, 0.1) if self_masking else np.full(X.shape, 0.25)
    M = rng.random(X.shape) < p
    return X.mask(M), M


def leaves(tree):
    """Every array of a fitted posterior's blocks (state, statistics, prior, posterior), in order."""
    if isinstance(tree, (np.ndarray, int, float, np.number)):
        yield np.asarray(tree)
    elif isinstance(tree, tuple):
        for t in tree:
            yield from leaves(t)


def cli_sample_as_python(synth, tmp_path, capsys, n, seed):
    """Save a fitted ``synth``, run ``bayesnb sample`` of the file, and check the CSV is ``synth.sample``'s
    (columns, values), and with ``--proper`` ``synth.sample(..., parameter_uncertainty=True)``'s; returns
    the table written without ``--proper``."""
    import pandas as pd

    from bayesnb.cli import main

    path = tmp_path / "synth.bnb"
    synth.save(path)
    tables = []
    for proper in (False, True):
        out = tmp_path / f"rows-{proper}.csv"
        argv = ["-q", "sample", str(path), "-n", str(n), "--seed", str(seed), "-o", str(out)]
        assert main(argv + ["--proper"] * proper) == 0, capsys.readouterr().err
        written = pd.read_csv(out)
        expected = synth.sample(n, random_state=seed, **({"parameter_uncertainty": True} if proper else {}))
        assert list(written.columns) == list(expected.columns)
        pd.testing.assert_frame_equal(written, expected.astype(written.dtypes.to_dict()), check_exact=False,
                                      rtol=1e-12)
        tables.append(written)
    assert not tables[0].equals(tables[1])  # the plug-in and a posterior draw give other rows
    return tables[0]


def votes_xy():
    """House votes (bundled) as ``(X, party)``, missing cells kept."""
    from bayesnb.datasets import load_house_votes

    df = load_house_votes()
    return df.drop(columns=["party"]), df["party"]


def complete_penguins_xy():
    """Penguins (bundled), rows with a missing cell dropped, as ``(X, species)``."""
    from bayesnb.datasets import load_penguins

    df = load_penguins().dropna().reset_index(drop=True)
    return df.drop(columns=["species"]), df["species"]
