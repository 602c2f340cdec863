"""Inference routines beside the model: each produces or consumes an :class:`~bayesnb.NBPosterior`.

- :mod:`~bayesnb.inference.draws` -- exact conjugate draws and moments (NumPy)
- :mod:`~bayesnb.inference.numpyro_model` -- the one NumPyro plate model and its inputs
- :mod:`~bayesnb.inference.nuts` -- the NUTS runner and its compile cache
- :mod:`~bayesnb.inference.em` -- semi-supervised and latent-class EM (closed-form M-step)

JAX and NumPyro are imported lazily, inside the functions that need them.
"""
