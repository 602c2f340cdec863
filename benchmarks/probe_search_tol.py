"""The latent-class component search of impute_table at two EM tolerances (issue 27, search_tol).

On the census table (--adult DIR, 5,000 rows), MCAR 30% masks of seeds 0 and 1, labels given, no hidden
cells: per tolerance the CPU seconds of NaiveBayes.fit_latent_class(n_components="auto", search_n_init=1),
the count chosen and each count's held-out score.

The tolerance is passed as ``tol`` (the search and the final fit alike).

Run:  python benchmarks/probe_search_tol.py DIR      (DIR: a folder holding UCI's adult.data)
"""
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.simplefilter("ignore")
from bench_impute import adult_table, blank, mask
from bayesnb import NaiveBayes
X, y = adult_table(sys.argv[1], 5000)
for seed in (0, 1):
    Xm = blank(X, mask(X, "MCAR 30%", np.random.default_rng(seed)))
    m = NaiveBayes().fit(Xm, y)
    for tol in (1e-6, 1e-5, 1e-4):
        t = time.process_time()
        fit = m.fit_latent_class(Xm, y, n_components="auto", tol=tol, random_state=np.random.default_rng(0), search_n_init=1)
        print(seed, tol, round(time.process_time() - t, 1), "chosen", fit.n_components, {k: round(v, 1) for k, v in fit.selection.items()}, "obj", round(fit.em_objective[-1], 1), len(fit.em_objective), flush=True)
