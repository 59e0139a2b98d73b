"""Why x / |x| is the norm's gradient: each line evaluated on random float64 inputs."""

from pathlib import Path

import numpy as np

from ad_core import grad
from bookkit import Derivation, central_differences, checked, load_snippet_module, text

rules = load_snippet_module(Path(__file__).with_name("_rules.py"))

derivation = Derivation(lambda rng: {"x": rng.standard_normal(4) * 3.0})
derivation.step(r"\nabla \lVert x \rVert &= \texttt{grad(norm)}(x)", lambda v: grad(rules.norm)(v["x"]))
derivation.step(r"&= \frac{1}{2\sqrt{\sum_j x_j^2}} \cdot 2x"
                r" \qquad \text{(the chain rule: sqrt, then the sum of squares)}",
                lambda v: 1 / (2 * np.sqrt(np.sum(v["x"] ** 2))) * 2 * v["x"])
derivation.step(r"&= \frac{x}{\lVert x \rVert}", lambda v: v["x"] / np.linalg.norm(v["x"]))
print(derivation.render(rtol=1e-14))

x = np.random.default_rng(5).standard_normal(4)
error = float(np.max(np.abs(central_differences(np.linalg.norm, x) - x / np.linalg.norm(x))))
print(text("\nCentral differences of the norm at a random $x$ agree with $x / \\lVert x \\rVert$ to {err}.",
           err=checked(error, against=0.0, atol=1e-8, shown_as=lambda e: f"{e:.0e}")))
