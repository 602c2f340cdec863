"""NUTS vs the exact posterior over several seeds, optionally with XLA compiler options for the sampler.

The penguins TAN model of ``tests/test_structure_mixed_mcmc.py`` (island, bill depth, flipper
length; 300 warmup + 600 draws, target_accept_prob 0.9), seeds 0..N-1: each seed's
:func:`bayesnb.compare_posteriors` verdict and largest |z|. Used to check that a compile option
leaves the sampler's law alone (``--options '{"xla_backend_optimization_level": 1}'`` did not)::

    python benchmarks/nuts_seed_agreement.py [--seeds 6] [--options JSON]
"""

from __future__ import annotations

import argparse
import json
import os
import warnings

os.environ["BAYESNB_JAX_CACHE"] = "0"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--options", default=None, help="XLA compiler options of the sampler's compiles, JSON")
    args = ap.parse_args(argv)
    import bayesnb
    from bayesnb.datasets import load_penguins
    from bayesnb.inference import nuts

    if args.options:
        opts = json.loads(args.options)
        real_build = nuts._build_fn

        def build(*a, **k):  # the runner's jitted functions, compiled with the options
            init_fn, chunk_fn, n, layout = real_build(*a, **k)
            return _with_options(init_fn, opts), _with_options(chunk_fn, opts), n, layout

        nuts._build_fn = build
    d = load_penguins()
    X, y = d[["island", "bill_depth_mm", "flipper_length_mm"]], d["species"]
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    exact = m.sample_posterior(4000, random_state=0)
    out = []
    for s in range(args.seeds):
        mc = m.run_mcmc(X, y, num_warmup=300, num_samples=600, random_state=s, target_accept_prob=0.9,
                        progress_bar=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = bayesnb.compare_posteriors(exact, mc, verbose=False, rhat_threshold=1.1)
        out.append(f"seed {s}: {'AGREE' if t.attrs['ok'] else 'DISAGREE'} (max |z| {t['z'].abs().max():.2f})")
    print(f"options {args.options or 'none'}:\n  " + "\n  ".join(out))


class _with_options:
    """A jitted function whose ``lower(...).compile()`` passes ``compiler_options``."""

    def __init__(self, fn, opts):
        self.fn, self.opts = fn, opts

    def __call__(self, *a):
        return self.fn(*a)

    def lower(self, *a):
        lowered = self.fn.lower(*a)
        opts = self.opts

        class _L:
            def compile(self, compiler_options=None):
                return lowered.compile(compiler_options={**(compiler_options or {}), **opts})

        return _L()


if __name__ == "__main__":
    main()
