"""Run HyperImpute on a table of float codes, in another Python environment (issue 27).

``bench_impute.py --hyperimpute-python PYTHON`` runs this script with ``PYTHON`` (an environment
where hyperimpute works, e.g. with scikit-learn < 1.8) so that the benchmark's own environment
never imports hyperimpute. It reads ``IN`` (a ``.npy`` float matrix, NaN where missing) and
``META`` (JSON: ``columns``, ``seed``, optionally ``options``), runs ``Imputers().get("hyperimpute",
random_state=seed, **options).fit_transform`` (hyperimpute's defaults without ``options``) on a DataFrame
with those columns, and writes the imputed matrix to ``OUT`` (``.npy``, same shape, float). It runs in one
process (``JOBLIB_MULTIPROCESSING=0``: hyperimpute's ``n_jobs=-1`` learners do not fork) with torch
on one thread, as every method in the benchmark. Nothing from bayesnb is imported here.

Run:  PYTHON benchmarks/_hyperimpute_run.py IN META OUT
"""

from __future__ import annotations

import json
import os
import sys
import warnings


def main(argv):
    """Impute ``argv = [IN, META, OUT]`` with HyperImpute (see the module docstring)."""
    os.environ.setdefault("JOBLIB_MULTIPROCESSING", "0")  # its n_jobs=-1 learners: in this process, one at a time
    import numpy as np
    import pandas as pd
    import torch

    warnings.filterwarnings("ignore")  # its FutureWarnings go to stderr, which the benchmark reads on failure only
    torch.set_num_threads(1)  # one thread, as every method in bench_impute.py
    from hyperimpute.plugins.imputers import Imputers

    path_in, path_meta, path_out = argv
    with open(path_meta) as f:
        meta = json.load(f)
    A = np.load(path_in, allow_pickle=False)
    Z = pd.DataFrame(A, columns=[str(c) for c in meta["columns"]])
    out = Imputers().get("hyperimpute", random_state=int(meta["seed"]), **meta.get("options", {})).fit_transform(Z)
    np.save(path_out, np.asarray(out, dtype=float), allow_pickle=False)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.splitlines()[-1].strip())
    main(sys.argv[1:])
