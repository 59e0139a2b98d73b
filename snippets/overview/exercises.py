"""Self-test for the overview; every answer is computed from the live package and checked
another way."""

import ast
import warnings
from pathlib import Path

import numpy as np

import ad_core
from ad_core import make_jvp, make_vjp
from ad_core import numpy as anp
from ad_core.core import backward_pass
from ad_core.numpy import wrapper
from ad_core.tracer import toposort
from bookkit import checked, collapsible, source_location, text

# 1. Where to look for the backward pass.
path, first, last = source_location(backward_pass)
topo_path, topo_first, _ = source_location(toposort)
# Another way: find the `def` lines in the files' syntax trees.
definitions = {
    node.name: node
    for file in {path, topo_path}
    for node in ast.walk(ast.parse((Path(ad_core.__file__).parent.parent / file).read_text()))
    if isinstance(node, ast.FunctionDef)
}
print(
    collapsible(
        "1. You want to read what happens to a cotangent at a node with two children. Which "
        "file and function do you open?",
        text(
            "`{path}`, function `backward_pass` (lines {first} to {last}). It calls `toposort` "
            "from `{topo_path}` (line {topo_first}) for the order, then stores the first "
            "contribution to each parent and adds every later one with `add_cotangents`. "
            "[The backward pass](backward-pass.md) and [Fan-out](fan-out.md) read both.",
            path=path,
            topo_path=topo_path,
            first=checked(first, against=definitions["backward_pass"].lineno),
            last=checked(last, against=definitions["backward_pass"].end_lineno),
            topo_first=checked(topo_first, against=definitions["toposort"].lineno),
        ),
    )
)
# Another way: count the engine's calls of `add_cotangents` in one backward pass. In
# sin(x) * x + x, three edges leave the input x and one leaves each of sin(x) and the product,
# so a pass that stores the first contribution to each parent and adds the later ones calls it
# twice (both for x); adding every contribution to a zero start would call it five times.
adds = []
real_add = ad_core.core.add_cotangents
ad_core.core.add_cotangents = lambda x, y: (adds.append(1), real_add(x, y))[1]
try:
    make_vjp(lambda x: anp.sin(x) * x + x)(np.array([0.5, 1.0]))[0](np.ones(2))
finally:
    ad_core.core.add_cotangents = real_add
assert len(adds) == 2, adds

# 2. How much of NumPy can be differentiated. `anp.__all__` repeats some names (the ones the
# wrapper redefines): count each name once.
names = list(dict.fromkeys(anp.__all__))
callables = [name for name in names if callable(getattr(anp, name))]
kind = {}
for name in callables:
    obj = getattr(anp, name)
    flag = getattr(obj, "is_primitive", None)
    if flag is True:
        kind[name] = "primitive"
    elif flag is False:
        kind[name] = "no derivative"
    elif isinstance(obj, type):
        kind[name] = "type"
    elif name == "metadata":
        kind[name] = "helper"  # reports (shape, ndim, dtype, iscomplex) to VJP rules
    else:
        kind[name] = "composed"
primitives = [name for name in callables if kind[name] == "primitive"]


def rule_for_argument_0(function, mode):
    """The rule the engine's nodes look up for argument 0 (VJPNode / JVPNode): a rule of its
    own, or the one registered for every argument (`defvjp_argnum`, `def_linear`)."""
    rules = function.vjps if mode == "vjp" else function.jvps
    return bool(rules.get(0) or getattr(function, f"{mode}_every_argnum", None))


with_vjp = [name for name in primitives if rule_for_argument_0(getattr(anp, name), "vjp")]
with_jvp = [name for name in primitives if rule_for_argument_0(getattr(anp, name), "jvp")]


def works(function, mode, arity):
    """Differentiate `function` with respect to argument 0 by really calling it: True when the
    derivative comes back (and equals central differences of the raw ufunc, where it is smooth),
    False when the engine reports a missing rule."""
    rng = np.random.default_rng(0)
    args = [rng.uniform(0.2, 0.8, 3) for _ in range(arity)]
    if not np.all(np.isfinite(function.fun(*args))):  # outside the domain (arccosh): move right
        args = [arg + 1.0 for arg in args]

    def of_first(x):
        return function(x, *args[1:])

    try:
        if mode == "vjp":
            vjp, value = make_vjp(of_first)(args[0])
            derivative = vjp(np.ones_like(value))
        else:
            derivative = make_jvp(of_first)(args[0])(np.ones_like(args[0]))[1]
    except NotImplementedError as error:
        assert f"no {mode.upper()} rule" in str(error), error
        return False
    step = 1e-6
    raw = function.fun
    central = (raw(args[0] + step, *args[1:]) - raw(args[0] - step, *args[1:])) / (2 * step)
    # Elementwise, so a ones seed gives the derivative itself. The kinks and jumps of floor,
    # sign or fmod lie far from these points, so central differences see their derivative.
    np.testing.assert_allclose(
        derivative, central, rtol=1e-5, atol=1e-6, err_msg=f"{function.__name__} {mode}"
    )
    return True


# Another way to decide "has a rule": call it. NumPy's ufuncs are pure and take 1 or 2
# arrays, so every primitive ufunc with float inputs can be called without guessing arguments.
ufuncs = [
    name
    for name in primitives
    if isinstance(getattr(anp, name).fun, np.ufunc)
    and getattr(anp, name).fun.signature is None
    and "d" * getattr(anp, name).fun.nin + "->d" in getattr(anp, name).fun.types
]
called = {}
with warnings.catch_warnings(), np.errstate(all="ignore"):
    warnings.simplefilter("ignore")
    for name in ufuncs:
        function = getattr(anp, name)
        for mode in ("vjp", "jvp"):
            called[name, mode] = works(function, mode, function.fun.nin)
for (name, mode), result in called.items():
    assert result == rule_for_argument_0(getattr(anp, name), mode), (name, mode)


def verdicts(mode):
    return sum(
        called[name, mode] if name in ufuncs else rule_for_argument_0(getattr(anp, name), mode)
        for name in primitives
    )


# Counts made another way: the wrapper's own sets of functions without a derivative, found in
# NumPy's namespace; the types by identity with NumPy's; the composed functions by their `def`
# in wrapper.py.
wrapper_tree = ast.parse(Path(wrapper.__file__).read_text())
defined_in_wrapper = {node.name for node in wrapper_tree.body if isinstance(node, ast.FunctionDef)} | {
    target.id
    for node in wrapper_tree.body
    if isinstance(node, ast.Assign)
    for target in node.targets
    if isinstance(target, ast.Name)
}
without_derivative = wrapper.NOTRACE_FUNCTIONS | wrapper.CONSTANT_FUNCTIONS
composed_names = [
    name
    for name in callables
    if name in defined_in_wrapper and name != "metadata" and not hasattr(getattr(anp, name), "is_primitive")
]
count = {
    k: sum(1 for name in callables if kind[name] == k)
    for k in ("primitive", "no derivative", "type", "composed")
}
# Each kind counted another way than by `is_primitive`: primitives by the rule dicts `primitive`
# attaches to them, the others as below. Their sum (and `metadata`) must account for every
# callable, which a callable that none of these tests recognises would break.
other_count = {
    "primitive": sum(1 for name in callables if isinstance(getattr(getattr(anp, name), "vjps", None), dict)),
    "no derivative": sum(1 for name in callables if getattr(np, name, None) in without_derivative),
    "type": sum(
        1
        for name in callables
        if getattr(anp, name) is getattr(np, name, None) and isinstance(getattr(np, name), type)
    ),
    "composed": len(composed_names),
}
assert [name for name in callables if kind[name] == "helper"] == ["metadata"]
print(
    collapsible(
        "2. How many callables does `ad_core.numpy` export, and how many can carry a derivative "
        "in each mode?",
        text(
            "`ad_core.numpy.__all__` names {total} callables once each (it lists some names "
            "twice: the ones the wrapper redefines). {n_primitives} are traced primitives. "
            "For their first argument, {n_vjp} have a VJP rule (reverse mode) and {n_jvp} a JVP "
            "rule (forward mode), counting rules registered for every argument at once "
            "(`defvjp_argnum`, `def_linear`); a call confirms the verdict for each of the "
            "{n_ufuncs} primitives that are NumPy ufuncs. {n_none} are wrapped as functions "
            "without a derivative (shapes, comparisons, rounding, constant constructors, "
            "`argmax`...). {n_composed} are differentiable functions written in terms of "
            "primitives (`array`, `stack`, `concatenate`...), {n_types} are NumPy's types and "
            "classes, passed through unchanged, and `metadata` is the helper that tells VJP rules "
            "an input's shape and dtype. A primitive without a rule still "
            "computes its value. In reverse mode it raises an error naming itself only when "
            "the backward pass reaches it; in forward mode it raises as soon as it is called on "
            "a traced value, because the JVP rules run when the node is created.",
            total=checked(len(callables), against=sum(other_count.values()) + 1),
            n_primitives=checked(count["primitive"], against=other_count["primitive"]),
            # Another way: the verdict of a real call for the ufuncs, the lookup for the rest.
            n_vjp=checked(len(with_vjp), against=verdicts("vjp")),
            n_jvp=checked(len(with_jvp), against=verdicts("jvp")),
            n_ufuncs=checked(len(ufuncs), against=len({name for name, _ in called})),
            n_none=checked(count["no derivative"], against=other_count["no derivative"]),
            n_composed=checked(count["composed"], against=other_count["composed"]),
            n_types=checked(count["type"], against=other_count["type"]),
        ),
    )
)

# The last sentence, run: `fmod` is a primitive with no rule in either mode. Its value is
# computed; reverse mode raises only if the backward pass reaches it, forward mode at the call.
assert anp.fmod.is_primitive and not (anp.fmod.vjps or anp.fmod.jvps)
assert not hasattr(anp.fmod, "vjp_every_argnum") and not hasattr(anp.fmod, "jvp_every_argnum")
x = np.array([1.0, 3.0])


def fmod_unused(v):
    return (anp.fmod(v, 2.0), anp.sum(v**2))[1]


def fmod_used(v):
    return anp.sum(anp.fmod(v, 2.0) + v**2)


np.testing.assert_array_equal(ad_core.grad(fmod_unused)(x), 2 * x)  # never reached: no error
for mode, run in [("VJP", lambda: ad_core.grad(fmod_used)(x)), ("JVP", lambda: make_jvp(fmod_unused)(x)(x))]:
    try:
        run()
        raise AssertionError(f"{mode}: no error")
    except NotImplementedError as error:
        assert f"no {mode} rule is defined for fmod" in str(error), error

# 3. What the top-level package exports.
exported = sorted(ad_core.__all__)
assert "grad" in exported and "make_vjp" in exported
subpackages = {path.stem for path in Path(ad_core.__file__).parent.iterdir() if not path.name.startswith("_")}
assert subpackages - {
    "numpy",
    "extend",
    "recorder",
    "test_util",
    "misc",
    "builtins",
    "scipy",
    "wrap_util",
    "staging",
} <= {
    "core",
    "tracer",
    "differential_operators",
    "containers",
}, subpackages
print(
    collapsible(
        "3. Which names does `import ad_core` give you?",
        ", ".join(f"`{name}`" for name in exported)
        + ". The rest lives in `ad_core.numpy` (the traced NumPy), `ad_core.extend` (for rule "
        "authors), `ad_core.recorder` (the recorder), `ad_core.test_util`, `ad_core.staging` "
        "(the programs behind `stage`), and, laid out as in "
        "[HIPS/autograd](https://github.com/HIPS/autograd), `ad_core.misc`, `ad_core.builtins`, "
        "`ad_core.scipy` and `ad_core.wrap_util`.",
    )
)
