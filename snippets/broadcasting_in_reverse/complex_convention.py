"""The convention for complex cotangents: what `grad` returns for a real loss of a complex input,
and how a cotangent pairs with a nudge."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.test_util import check_vjp
from bookkit import checked, given, md_table, show_excerpt, text

# --8<-- [start:convention]
z = 1.0 + 2.0j


def loss(z):
    return anp.abs(z) ** 2  # |z|^2 = x^2 + y^2 for z = x + iy


g = grad(loss)(z)
# --8<-- [end:convention]

step = 1e-6
d_dx = (abs(z + step) ** 2 - abs(z - step) ** 2) / (2 * step)
d_dy = (abs(z + 1j * step) ** 2 - abs(z - 1j * step) ** 2) / (2 * step)
rng = np.random.default_rng(7)
nudge = complex(rng.standard_normal(), rng.standard_normal())
change = (abs(z + step * nudge) ** 2 - abs(z - step * nudge) ** 2) / (2 * step)


def complex_number(value):
    return f"{value.real:g} {'-' if value.imag < 0 else '+'} {abs(value.imag):g}i"


def complex_cell(value):
    return f"${complex_number(value)}$"


print(md_table(
    ["", "value"],
    [
        ["`grad(loss)(z)`", checked(complex(g), against=complex(d_dx, -d_dy), rtol=1e-9,
                                    shown_as=complex_cell)],
        ["$\\partial L/\\partial x - i\\,\\partial L/\\partial y$ (central differences)",
         checked(complex(d_dx, -d_dy), against=2 * np.conj(z), rtol=1e-9,
                 shown_as=lambda v: complex_cell(complex(round(v.real, 6), round(v.imag, 6))))],
        ["$2\\bar z$", checked(2 * np.conj(z), against=complex(g), shown_as=complex_cell)],
    ],
))
print()
print(text(
    "For $z = {z}$ the engine returns $\\partial L/\\partial x - i\\,\\partial L/\\partial y$: the "
    "conjugate of the gradient $(\\partial L/\\partial x, \\partial L/\\partial y)$ written as one "
    "complex number. With it, a nudge "
    "$dz$ changes the loss by $\\mathrm{{Re}}(g\\, dz)$, with no conjugate: along the random direction "
    "$dz = {nudge}$ that is {predicted}, and central differences of $L$ along $dz$ give {measured}.",
    z=given(z, shown_as=complex_number),
    nudge=given(nudge, shown_as=lambda v: complex_number(complex(round(v.real, 4), round(v.imag, 4)))),
    predicted=checked((g * nudge).real, against=change, rtol=1e-8, shown_as=lambda v: f"{v:.6f}"),
    measured=checked(change, against=(g * nudge).real, rtol=1e-8, shown_as=lambda v: f"{v:.6f}"),
))
print()
print(text(
    "`check_vjp` in `ad_core.test_util` pairs a cotangent with a direction the same way. Its inner "
    "product $\\langle u, v\\rangle = \\mathrm{{Re}} \\sum_i \\bar u_i v_i$ conjugates its first "
    "argument, the direction $v$; the cotangent $g$ goes in second, conjugated by `covector`. Both "
    "factors are then conjugated, and a real part does not change under conjugation, so the pair is "
    "$\\mathrm{{Re}} \\sum_i v_i g_i$, with no conjugate:"
    "\n<!-- tested: tests/snippets/test_broadcasting_in_reverse.py::"
    "test_check_vjp_pairs_direction_and_cotangent_without_a_conjugate -->",
))
print()
print(show_excerpt(check_vjp, r"cotangent = vjp\(y_space\.covector", r"exact = x_space\.inner_prod",
                   full_listing="[Checking gradients](checking-gradients.md)"))
check_vjp(loss, z, np.random.default_rng(0))  # passes: the convention and the check agree
