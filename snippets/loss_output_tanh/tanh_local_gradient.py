"""Through tanh: da = (1 - h**2) * dh, elementwise. The seed's h = 0.6, dh = 2 gives 1.28."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import fmt_number

h_value, dh_value = 0.6, 2.0
a_value = np.arctanh(h_value)            # the pre-activation whose tanh is 0.6
# --8<-- [start:tanh_backward]
da = (1.0 - h_value**2) * dh_value
# --8<-- [end:tanh_backward]
da_engine = dh_value * grad(anp.tanh)(a_value)
assert abs(da_engine - da) < 1e-14
assert abs(da - 1.28) < 1e-15
print(
    f"With $h = {fmt_number(h_value)}$ and $dh = {fmt_number(dh_value)}$: "
    f"$(1 - {fmt_number(h_value)}^2) \\times {fmt_number(dh_value)} = {fmt_number(da)}$. "
    f"`ad_core`, differentiating `tanh` at $a = \\operatorname{{artanh}}({fmt_number(h_value)})$, "
    f"gives {fmt_number(float(da_engine), precision=12)}. Note that the rule reads the *output* "
    "$h$: the forward pass already computed it, so the backward pass needs no new `tanh`."
)
