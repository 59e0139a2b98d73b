"""Why sigmoid is softplus's derivative: each line evaluated on random float64 inputs."""

import numpy as np

from bookkit import Derivation, central_differences

derivation = Derivation(lambda rng: {"x": rng.standard_normal(4) * 3.0})
derivation.step(r"\frac{d}{dx}\log(1 + e^{x}) &\approx \frac{f(x + h) - f(x - h)}{2h}",
                lambda v: np.array([central_differences(lambda t: np.log1p(np.exp(t)), xi) for xi in v["x"]]))
derivation.step(r"&= \frac{e^{x}}{1 + e^{x}}", lambda v: np.exp(v["x"]) / (1 + np.exp(v["x"])))
derivation.step(r"&= \frac{1}{1 + e^{-x}} = \sigma(x)", lambda v: 1 / (1 + np.exp(-v["x"])))
print(derivation.render(rtol=1e-7))
