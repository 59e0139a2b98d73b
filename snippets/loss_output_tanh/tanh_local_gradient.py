"""Through tanh: da = (1 - h**2) * dh, elementwise. h = 0.6, dh = 2 gives 1.28."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, text

h_value, dh_value = 0.6, 2.0
a_value = np.arctanh(h_value)            # the pre-activation whose tanh is 0.6
# --8<-- [start:tanh_backward]
da = (1.0 - h_value**2) * dh_value
# --8<-- [end:tanh_backward]
da_engine = dh_value * grad(anp.tanh)(a_value)
# By hand: 1 - 0.36 = 0.64, times 2.
in_your_head = 1.28
# 1 / cosh(a)**2 is tanh's derivative written without tanh's output
from_cosh = dh_value / np.cosh(a_value) ** 2
print(text(
    "With $h = {h}$ and $dh = {dh}$: $(1 - {h}^2) \\times {dh} = {da}$. `ad_core`, "
    "differentiating `tanh` at $a = \\operatorname{{artanh}}({h})$, gives {engine}. Note that "
    "the rule reads the *output* $h$: the forward pass already computed it, so the backward "
    "pass needs no new `tanh`.",
    h=given(h_value), dh=given(dh_value),
    da=checked(da, against=in_your_head, atol=1e-15),
    engine=checked(float(da_engine), against=float(from_cosh), rtol=1e-14,
                   shown_as=lambda v: np.format_float_positional(round(v, 12), trim="-")),
))
