"""Feature families: one module per distribution, each the only place that knows it.

=============  ========================  ==============================  =====================
family         data                      prior -> posterior              exact predictive
=============  ========================  ==============================  =====================
Categorical    any discrete values       Dirichlet per (class, feature)  same as plug-in
Bernoulli      0/1                       Beta per (class, feature)       same as plug-in
Multinomial    counts (dense/sparse)     Dirichlet per class             Dirichlet-multinomial
Complement     counts, classified by     Dirichlet per class (as         (predict: complement
               complement weights        Multinomial)                    weights, a plug-in)
Gaussian       real values               Normal-Inverse-Gamma            Student-t
LogNormal      positive real values      Normal-Inverse-Gamma on log x   Student-t on log x
Poisson        counts, column by column  Gamma per (class, feature)      negative binomial
Hurdle         a point mass + a base     Beta per (class, feature)       pi and the base's
Histogram      numbers, binned           Dirichlet over quantile bins    same as plug-in
=============  ========================  ==============================  =====================

Every family is one class implementing :class:`Family`, the conjugate core and generation, and
registering the capabilities of :mod:`bayesnb.families.capabilities` it supports (every bayesnb
family registers them all); a subclass of one works everywhere a bayesnb family does.
"""

from ._contract import Family
from .bernoulli import Bernoulli
from .categorical import Categorical
from .complement import Complement
from .gaussian import Gaussian
from .histogram import Histogram
from .hurdle import Hurdle
from .lognormal import LogNormal
from .multinomial import Multinomial
from .poisson import Poisson

__all__ = ["BY_NAME", "Bernoulli", "Categorical", "Complement", "Family", "Gaussian", "Histogram", "Hurdle",
           "LogNormal", "Multinomial", "Poisson"]

#: the registry of families by name (each family's ``name``), e.g. ``bayesnb fit --family gaussian``
BY_NAME = {family.name: family for family in (Categorical, Gaussian, Multinomial, Complement, Bernoulli, Poisson,
                                              LogNormal, Histogram, Hurdle)}
