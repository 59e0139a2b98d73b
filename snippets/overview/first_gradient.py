"""A first gradient, checked: run `python snippets/overview/first_gradient.py` to see this
snippet print the Markdown the page shows."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import central_differences, checked, fmt_array, given, md_table, text

# --8<-- [start:example]
x = np.array([0.5, -1.0, 2.0])


def loss(w):
    return anp.sum(anp.tanh(w * x) ** 2)


w = np.array([1.0, 0.3, -0.7])
gradient = grad(loss)(w)  # an array of w's shape
# --8<-- [end:example]

step = 1e-6
central = central_differences(loss, w, step=step)
closed_form = 2 * np.tanh(w * x) * (1 - np.tanh(w * x) ** 2) * x


def shape_of(a):
    return checked(a.shape, against=w.shape, shown_as=lambda s: f"`{s}`")


print(
    md_table(
        ["", "value", "shape"],
        [
            # The engine and the closed form round differently: agreement to 1e-14, not bits.
            [
                "`grad(loss)(w)`",
                checked(gradient, against=closed_form, rtol=1e-14, shown_as=fmt_array),
                shape_of(gradient),
            ],
            [
                "closed form $2 \\tanh(w x)(1 - \\tanh^2(w x))\\, x$",
                checked(closed_form, against=gradient, rtol=1e-14, shown_as=fmt_array),
                shape_of(closed_form),
            ],
            # Central differences with step 1e-6 are accurate to about 1e-9 here.
            [
                text(
                    "central differences, step {step}",
                    step=given(step, shown_as=lambda h: f"$10^{{{round(np.log10(h))}}}$"),
                ),
                checked(central, against=closed_form, rtol=1e-8, shown_as=lambda a: fmt_array(a, 6)),
                shape_of(central),
            ],
        ],
    )
)
