"""Inference routines beside the model: each produces or consumes an :class:`~bayesnb.NBPosterior`.

- :mod:`~bayesnb.inference.nb_posterior` -- :class:`~bayesnb.NBPosterior` and the pure functions
  written once: joint log-likelihood, normaliser, evidence, assembly
- :mod:`~bayesnb.inference.conjugate` -- sufficient statistics to the exact posterior
- :mod:`~bayesnb.inference.draws` -- exact conjugate draws and moments (NumPy)
- :mod:`~bayesnb.inference.numpyro_model` -- the one NumPyro plate model and its inputs
- :mod:`~bayesnb.inference.nuts` -- the NUTS runner and its compile cache
- :mod:`~bayesnb.inference.em` -- semi-supervised and latent-class EM (closed-form M-step)
- :mod:`~bayesnb.inference.mcmc_stats` -- vectorised ESS and split-R-hat of many elements at once
- :mod:`~bayesnb.inference.private_stats` -- differentially private releases of the counts

JAX and NumPyro are imported lazily, inside the functions that need them.
"""
