"""Small helpers several test files share: editing a saved model file's metadata, walking a
fitted posterior's arrays."""

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


def leaves(tree):
    """Every array of a fitted posterior's blocks (state, statistics, prior, posterior), in order."""
    if isinstance(tree, (np.ndarray, int, float, np.number)):
        yield np.asarray(tree)
    elif isinstance(tree, tuple):
        for t in tree:
            yield from leaves(t)
