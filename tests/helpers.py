"""Small helpers several test files share: editing a saved model file's metadata (and checking that the
edited file is refused), walking a fitted posterior's arrays."""

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


def leaves(tree):
    """Every array of a fitted posterior's blocks (state, statistics, prior, posterior), in order."""
    if isinstance(tree, (np.ndarray, int, float, np.number)):
        yield np.asarray(tree)
    elif isinstance(tree, tuple):
        for t in tree:
            yield from leaves(t)


def cli_sample_as_python(synth, tmp_path, capsys, n, seed):
    """Save a fitted ``synth``, run ``bayesnb sample`` of the file, and check the CSV is ``synth.sample``'s
    (columns, values); returns the written table."""
    import pandas as pd

    from bayesnb.cli import main

    path, out = tmp_path / "synth.bnb", tmp_path / "rows.csv"
    synth.save(path)
    assert main(["-q", "sample", str(path), "-n", str(n), "--seed", str(seed), "-o", str(out)]) == 0, \
        capsys.readouterr().err
    written = pd.read_csv(out)
    expected = synth.sample(n, random_state=seed)
    assert list(written.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(written, expected.astype(written.dtypes.to_dict()), check_exact=False, rtol=1e-12)
    return written


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
