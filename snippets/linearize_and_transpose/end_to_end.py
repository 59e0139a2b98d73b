"""A small function: its tangent program from the JVP rules, transposed, against `grad`."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import central_differences, checked, given, load_snippet_module, md_table, text

transposer = load_snippet_module(Path(__file__).with_name("_transpose.py"))

rng = np.random.default_rng(2204)
A = rng.normal(size=(2, 3))


# --8<-- [start:function]
def f(x):
    return anp.sum(anp.tanh(anp.dot(A, x)) * anp.sin(x[:2]))
# --8<-- [end:function]


x = rng.normal(size=(3,))
value, nodes, root, end = transposer.linearize(f, x)
names = {id(node): f"t{index}" for index, node in enumerate(nodes)}


def describe_args(node):
    """The node's arguments: tangents by name; the rest are constants of the primal."""
    linear = dict(zip(node.parent_argnums, node.parents, strict=True))
    parts = []
    for argnum, arg in enumerate(node.args):
        if argnum in linear:
            parts.append(f"`{names[id(linear[argnum])]}`")
        elif isinstance(arg, slice | tuple | int):
            parts.append("index")
        else:
            parts.append("constant")
    return ", ".join(parts)


rows = [["`t0`", "input tangent", "—", given(root.shape)]]
for node in nodes:
    if node is root:
        continue
    rows.append([f"`{names[id(node)]}`", f"`{node.fun.__name__}`", describe_args(node),
                 checked(node.shape, against=np.shape(node.fun(*node.args, **node.kwargs)))])
print(md_table(["line", "primitive", "arguments", "shape"], rows))
print()

derived = transposer.derived_vjp(f, x)(1.0)
engine = grad(f)(x)
differences = central_differences(f, x)
print(text(
    "Transposed once, with seed {seed} at the output, the program gives {derived}; `grad` gives "
    "{engine}; central differences give {fd}. The tangent program has {count} lines, every one "
    "of them a call to a linear primitive.",
    seed=given(1.0),
    derived=checked(derived, against=engine, rtol=1e-12),
    engine=checked(engine, against=differences, rtol=1e-6, atol=1e-8),
    fd=checked(differences, against=derived, rtol=1e-6, atol=1e-8),
    count=checked(len(nodes) - 1, against=sum(1 for n in nodes if n.fun in transposer.TRANSPOSE_RULES)),
))
