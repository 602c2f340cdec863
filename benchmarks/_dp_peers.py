"""Peer private synthesisers for ``bench_private_synthesis.py``, run by a *peer* Python (not bayesnb's).

Run as ``PEER_PYTHON benchmarks/_dp_peers.py JOB.json``. The job file names a CSV of integer
codes (one column per attribute, every column already discretised by the benchmark), the
declared domain (the number of codes of each column, public: from the codebook, never from the
data), the method, epsilon, delta, a seed, the number of rows to draw and the output CSV. The
script fits the method, draws the rows, writes them as codes, and writes ``fit_s``, ``sample_s``
and the package version next to the output (``OUT.json``).

Methods:

- ``mst`` and ``aim``: smartnoise-synth's ``MSTSynthesizer`` / ``AIMSynthesizer`` (McKenna et al.;
  private-pgm ``mbi``). The codes go straight into their private-pgm ``Domain`` with the declared
  sizes, through the classes' own ``MST`` / ``AIM`` methods: smartnoise's ``fit`` would instead
  build a transformer whose categories are the values seen in the data (not private). AIM's
  ``rounds`` (default ``16 * columns``, each a mirror-descent fit of 1,000 steps) is capped by
  the job's ``aim_rounds``: fewer rounds spend the same budget on fewer, less noisy measurements.
  It must exceed the number of columns: AIM first measures every 1-way marginal at one round's
  share each, and with fewer rounds than columns that overspends (smartnoise's loop then fails
  on a negative remaining budget).
- ``privbayes``: dpmm's ``PrivBayesGM`` (degree 2, ``n_jobs=1``), domain declared.

Nothing here imports bayesnb: the peers live in their own virtual environments (see
docs/privacy.md for the pip commands).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from importlib.metadata import version

import numpy as np
import pandas as pd


def _mst(data, cards, job):
    from mbi import Dataset, Domain
    from snsynth.mst import MSTSynthesizer

    names = list(data.columns)
    synth = MSTSynthesizer(epsilon=float(job["epsilon"]), delta=float(job["delta"]))
    t = time.perf_counter()
    synth.MST(Dataset(data.to_numpy(), Domain(names, cards)), synth.epsilon, synth.delta)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    out = synth.undo_compress_fn(synth.synthesizer.synthetic_data(rows=int(job["rows"]))).df
    return out[names], fit_s, time.perf_counter() - t, "smartnoise-synth " + version("smartnoise-synth")


def _aim(data, cards, job):
    from mbi import Dataset, Domain
    from snsynth.aim import AIMSynthesizer
    from snsynth.utils import cdp_rho

    names = list(data.columns)
    if job.get("aim_rounds") is not None and job["aim_rounds"] <= len(names):
        # AIM spends one round's budget on each 1-way marginal first: fewer rounds than columns overspend
        raise ValueError(f"aim_rounds={job['aim_rounds']} must exceed the number of columns ({len(names)})")
    synth = AIMSynthesizer(epsilon=float(job["epsilon"]), delta=float(job["delta"]),
                           rounds=job.get("aim_rounds"), max_model_size=float(job.get("aim_model_mb", 80)))
    t = time.perf_counter()
    ds = Dataset(data, Domain(names, cards))
    synth.rho = cdp_rho(synth.epsilon, synth.delta)
    with contextlib.redirect_stdout(io.StringIO()):
        synth.AIM(ds, synth.get_workload(ds, degree=2, max_cells=synth.max_cells))
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    out = synth.synthesizer.synthetic_data(rows=int(job["rows"])).df
    return out[names], fit_s, time.perf_counter() - t, "smartnoise-synth " + version("smartnoise-synth")


def _privbayes(data, cards, job):
    from dpmm.models.priv_bayes import PrivBayesGM

    names = list(data.columns)
    model = PrivBayesGM(epsilon=float(job["epsilon"]), delta=float(job["delta"]), degree=2, n_jobs=1,
                        domain=dict(zip(names, cards)), random_state=np.random.RandomState(int(job["seed"])))
    t = time.perf_counter()
    model.fit(data)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    out = model.generate(n_records=int(job["rows"]))
    return out[names], fit_s, time.perf_counter() - t, "dpmm " + version("dpmm")


METHODS = {"mst": _mst, "aim": _aim, "privbayes": _privbayes}


def main(path):
    with open(path, encoding="utf-8") as fh:
        job = json.load(fh)
    np.random.seed(int(job["seed"]))  # private-pgm and smartnoise draw from numpy's global generator
    data = pd.read_csv(job["input"]).astype(np.int64)
    cards = [int(c) for c in job["cards"]]
    out, fit_s, sample_s, pkg = METHODS[job["method"]](data, cards, job)
    out.astype(np.int64).to_csv(job["output"], index=False)
    with open(job["output"] + ".json", "w", encoding="utf-8") as fh:
        json.dump({"fit_s": fit_s, "sample_s": sample_s, "package": pkg,
                   "python": sys.version.split()[0]}, fh)


if __name__ == "__main__":
    main(sys.argv[1])
