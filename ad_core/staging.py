r"""Staging: trace a function once into a flat program of primitive calls, then run the program.

    >>> import numpy as np
    >>> import ad_core.numpy as anp
    >>> from ad_core import grad, stage
    >>> f = stage(grad(lambda x: anp.sum(anp.tanh(x))))
    >>> x = np.array([0.0, 1.0])
    >>> bool(np.all(f(x) == grad(lambda x: anp.sum(anp.tanh(x)))(x)))
    True

Staging is one more trace level, the outermost. `stage(fun)(*args)` boxes every array in
`args` at a new trace level *below* any `grad` that `fun` calls, and runs `fun` once. A
`grad` inside `fun` traces at a higher level; its backward pass calls `ad_core.numpy`
primitives on values that are boxes of the staging level, so the staging level records them
too. The forward pass and the backward pass (and, for `grad(grad(f))` or a Hessian-vector
product, every further pass) end up in one flat list of primitive calls

$$t_k = p_k(t_{a_k}, t_{b_k}, \dots, c_k), \qquad k = 1, \dots, n,$$

where each $t_{a}$ is an input or an earlier result and each $c_k$ a constant. No rule is new:
the program holds exactly the primitive calls the eager engine makes at its innermost level,
with the same arguments, in the same order. Running the program calls the same NumPy
functions again, without boxes, nodes, rule makers or a toposort.

The engine contains no staging code. The tracer builds a `StageNode` for every primitive call
on boxes of the staging level, with the arguments any node gets, and that is the program line.
What the eager tracer lets leave a trace, because it has no derivative (integer and boolean
results, functions without a rule, a box's truth value, a traced index inside a tuple), is
watched from outside during the one staging call, as `ad_core.recorder` watches a backward
pass: `_watching` replaces a few engine functions by versions that record or refuse and puts
them back afterwards. Replays, and every other call, run the engine unchanged.

Before it runs, the program is optimised; each pass is a function from program to program,
and `Staged.program(...).passes` lists what each one did:

* **folding of shape-only work** (`fold_shape_only`): `zeros_like(t)`, `ones_like(t)` and the
  like depend only on $t$'s shape and dtype, which the cache key fixes, so they are computed
  once, at staging time, and so is every call whose arguments are then all constants. (Shape
  queries, `anp.shape(t)` and its kin, never enter the program: they are answered while
  tracing.)
* **common-subexpression elimination** (`eliminate_common_subexpressions`): two calls of the
  same function on the same arguments compute the same value (NumPy functions are pure), so
  the second is replaced by the first.
* **dead-code elimination** (`eliminate_dead_code`): a call whose result no output needs, directly
  or through later calls, is removed (the forward value of a loss that `grad` discards, say).
* **freeing after last use** (`Program.deaths`): each value is released (`del`) right after the
  last call that reads it; the listing can show where each value dies, and `peak_bytes` is the
  largest total size of the values alive at once, computed from the program's shapes and dtypes
  (a view, such as a reshape, costs no bytes of its own and keeps what it views alive).
* **calling NumPy directly** (`call_numpy_directly`): `ad_core.numpy`'s `sum`, `mean`, `max`,
  `min` and `var` check their argument's type and dtype on every call before they reach NumPy's
  C functions, its `reshape` checks the type, indexing is a Python function around `A[index]`,
  and NumPy's own public functions (`transpose`, `dot`, `where`, ...) first ask their arguments
  whether they override them (`__array_function__`).
  The cache key fixes every argument's type, shape and dtype, so the program calls the C
  functions these end in (`add.reduce`, `maximum.reduce`, `minimum.reduce`, `ndarray.reshape`,
  `ndarray.transpose`, `operator.getitem`, each public function's implementation), the same
  arithmetic in the same order; a `broadcast_to` that only elementwise ufuncs read is left to
  them.
* **reusing dead buffers** (`reuse_dead_buffers`): an elementwise ufunc whose argument dies at
  that call writes its result into the argument's buffer (`out=`), so a large temporary is not
  freed and allocated again.

What a program is specialised to, and what is refused:

* **The cache key** is the structure of the arguments (lists, tuples, dicts), the type, shape
  and dtype of every array (`numpy.ndarray` or NumPy scalar), and the value of every other
  argument (a Python `float` or `int`, a string, `None`). A call with a new key stages again;
  a call with a known key replays.
* **Inputs and constants.** Every array passed as an argument is an input, replaced on every
  call, integer arrays included: a batch of token ids indexing an embedding is an input, and so
  is every integer or boolean value computed from one. Arrays the function *closes over*
  (globals, closure cells, default arguments) are constants: the program keeps a read-only
  copy of each, made when the staging trace first meets it, and work that depends only on
  constants is done once, at staging time, on the same values. Changing a closed-over array in
  place after staging therefore changes nothing the program computes; pass an array as an
  argument if it changes between calls, or call `clear_cache()` to stage again.
* **Values cannot steer Python.** A staged program replays the same calls whatever the values,
  so Python control flow that depends on a traced value cannot be staged: `if t:`, `bool(t)`,
  `float(t)`, `int(t)`, `t.item()`, `t.tolist()` and passing `t` to a plain NumPy function raise
  `StagingError`, naming the function being staged and the file, line and source text where it
  happened. Replace the branch by `anp.where`, or pass the value as a non-array argument (it is
  then part of the cache key). Functions whose *output shape* depends on values (`nonzero`,
  `unique`, boolean-mask indexing, ...) and rules that read a value to choose indices (`sort`,
  `partition`) are refused the same way.
* **Random draws** made inside the function with NumPy's generators happen once, at staging
  time, and are constants of the program: pass random arrays as arguments instead.

Staged results equal the eager results to the last bit when the program's calls are the same
NumPy calls in the same order as the eager engine's at its innermost level, which is the case
for everything `tests/engine/test_staging.py` compares bitwise (the makemore MLP's
`value_and_grad`, `grad(grad(f))`, a Hessian-vector product): CSE and DCE only remove calls,
and folding runs the same calls earlier.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import linecache
import operator
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import tracer as _tracer
from .numpy import wrapper as _anp
from .numpy.array_box import ArrayBox
from .tracer import Box, Node, getval, trace_stack

__all__ = [
    "Program",
    "Staged",
    "StagingError",
    "call_numpy_directly",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fold_shape_only",
    "reuse_dead_buffers",
    "stage",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


class StagingError(TypeError):
    """A function cannot be staged: a traced value would have to steer Python or leave the trace."""


# ---------------------------------------------------------------------------------------------
# What a program is made of
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A reference, inside an argument template, to the value numbered `var`."""

    var: int


@dataclass
class Op:
    """One primitive call `out = fun(*args, **kwargs)`; `args` and `kwargs` are templates in
    which `Ref`s stand for values of the program and everything else is a constant."""

    fun: Callable
    name: str
    args: tuple
    kwargs: dict
    out: int
    shape_only: bool = False  # its value depends only on its arguments' shapes and dtypes
    value: Any = None  # the value seen while tracing (dropped once the program is compiled)
    reuses: int | None = None  # a dead argument whose buffer receives the result (`out=`)


@dataclass(frozen=True)
class VarInfo:
    shape: tuple
    dtype: np.dtype
    nbytes: int
    view_of: int | None  # the value whose memory this one views, if any
    ndarray: bool = True  # an `numpy.ndarray` (not a NumPy scalar or a Python number)


@dataclass
class PassReport:
    """What one optimisation pass did: calls before and after, the lines it removed, and the
    lines it changed without removing them."""

    name: str
    before: int
    after: int
    removed: list[str]
    changed: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.name}: {self.before} -> {self.after} primitive calls"


def _identifier(name: str) -> str:
    text = "".join(ch if ch.isalnum() else "_" for ch in name)
    return text if text and not text[0].isdigit() else f"f_{text}"


def _fmt_shape(shape: tuple) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _describe_constant(value: Any) -> str:
    if isinstance(value, np.ndarray | np.generic):
        return f"{_fmt_shape(np.shape(value))} {np.result_type(value)}"
    return type(value).__name__ if not isinstance(value, type) else value.__name__


def _is_literal(value: Any) -> bool:
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is float:
        return bool(np.isfinite(value))
    return False


def _refs_in(template: Any) -> Iterator[int]:
    if isinstance(template, Ref):
        yield template.var
    elif isinstance(template, tuple | list):
        for item in template:
            yield from _refs_in(item)
    elif isinstance(template, dict):
        for item in template.values():
            yield from _refs_in(item)
    elif isinstance(template, slice):
        yield from _refs_in((template.start, template.stop, template.step))


def _constants_in(template: Any) -> Iterator[Any]:
    if isinstance(template, Ref) or template is Ellipsis or _is_literal(template):
        return
    if isinstance(template, tuple | list):
        for item in template:
            yield from _constants_in(item)
    elif isinstance(template, dict):
        for item in template.values():
            yield from _constants_in(item)
    elif isinstance(template, slice):
        yield from _constants_in((template.start, template.stop, template.step))
    else:
        yield template


def _substitute(template: Any, env: Callable[[int], Any]) -> Any:
    """The template with every `Ref` replaced by `env(var)`."""
    if isinstance(template, Ref):
        return env(template.var)
    if isinstance(template, tuple):
        return tuple(_substitute(item, env) for item in template)
    if isinstance(template, list):
        return [_substitute(item, env) for item in template]
    if isinstance(template, dict):
        return {key: _substitute(value, env) for key, value in template.items()}
    if isinstance(template, slice):
        return slice(*(_substitute(p, env) for p in (template.start, template.stop, template.step)))
    return template


@dataclass
class Program:
    """A flat program: inputs, primitive calls in order, and an output template.

    `str(program)` is the listing, one line per primitive call, like a jaxpr:
    `t7 = multiply(t3, t6)   # (32, 64) float64`.
    """

    name: str
    inputs: list[int]
    input_paths: list[str]
    ops: list[Op]
    outputs: Any
    info: dict[int, VarInfo]
    passes: list[PassReport] = field(default_factory=list)
    shape_queries: int = 0  # shape reads answered while tracing, which never entered the program

    # -- reading the program ------------------------------------------------------------------
    def var_name(self, var: int) -> str:
        if var in self._input_names:
            return self._input_names[var]
        return self._names.setdefault(var, f"t{len(self._names)}")

    def __post_init__(self) -> None:
        self._names: dict[int, str] = {}
        self._input_names = {var: f"i{k}" for k, var in enumerate(self.inputs)}
        self._constants: dict[int, tuple[str, Any]] = {}
        for op in self.ops:  # name results in program order
            self.var_name(op.out)
            for const in _constants_in((op.args, op.kwargs)):
                self._const_name(const)
        for const in _constants_in(self.outputs):
            self._const_name(const)

    def _const_name(self, value: Any) -> str:
        entry = self._constants.get(id(value))
        if entry is None:
            entry = self._constants[id(value)] = (f"c{len(self._constants)}", value)
        return entry[0]

    @property
    def constants(self) -> dict[str, Any]:
        """The program's array and object constants, by name."""
        return {name: value for name, value in self._constants.values()}

    def describe(self, var: int) -> str:
        info = self.info[var]
        return f"{_fmt_shape(info.shape)} {info.dtype}"

    def render(self, template: Any, code: bool = False) -> str:
        """An argument template as text: values by name, literals as Python literals."""
        if isinstance(template, Ref):
            return self.var_name(template.var)
        if isinstance(template, tuple):
            inner = ", ".join(self.render(item, code) for item in template)
            return f"({inner},)" if len(template) == 1 else f"({inner})"
        if isinstance(template, list):
            return "[" + ", ".join(self.render(item, code) for item in template) + "]"
        if isinstance(template, dict):
            return "{" + ", ".join(f"{key!r}: {self.render(v, code)}" for key, v in template.items()) + "}"
        if isinstance(template, slice):
            parts = (template.start, template.stop, template.step)
            if not code:
                text = ":".join("" if p is None else self.render(p) for p in parts[:2])
                return text + ("" if template.step is None else f":{self.render(template.step)}")
            return "slice(" + ", ".join(self.render(p, code) for p in parts) + ")"
        if template is Ellipsis:
            return "Ellipsis" if code else "..."
        if _is_literal(template):
            return repr(template)
        return self._const_name(template)

    def call_text(self, op: Op, code: bool = False) -> str:
        args = [self.render(arg, code) for arg in op.args]
        args += [f"{key}={self.render(value, code)}" for key, value in op.kwargs.items()]
        if code and op.reuses is not None:
            args.append(f"out={self.var_name(op.reuses)}")
        name = self._fun_names[id(op.fun)] if code else op.name
        return f"{name}({', '.join(args)})"

    def listing(self, deaths: bool = False, width: int = 44) -> str:
        """The program, one primitive call per line, each result's shape and dtype in a comment;
        with `deaths=True`, also the values each line frees and the live bytes after it."""
        lines = [f"{self.name}(" + ", ".join(
            f"{self.var_name(v)}: {self.describe(v)}" for v in self.inputs) + "):"]
        if self._constants:
            for name, value in self._constants.values():
                lines.append(f"    # {name} = constant {_describe_constant(value)}")
        dies = self.deaths()
        live = self.live_bytes()
        for index, op in enumerate(self.ops):
            text = f"    {self.var_name(op.out)} = {self.call_text(op)}"
            comment = f"# {self.describe(op.out)}"
            if deaths:
                freed = ", ".join(self.var_name(v) for v in dies[index])
                comment += f"; frees {freed}" if freed else ""
                if op.reuses is not None:
                    comment += f"; into {self.var_name(op.reuses)}'s buffer"
                comment += f"; live {live[index]:,} B"
            lines.append(f"{text.ljust(width)}   {comment}")
        lines.append(f"    return {self.render(self.outputs)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.listing()

    # -- liveness -----------------------------------------------------------------------------
    def last_uses(self) -> dict[int, int]:
        """For each value, the index of the last call that reads it (directly, or through a
        view of it); outputs and inputs are never freed by the program."""
        last: dict[int, int] = {}
        for index, op in enumerate(self.ops):
            for var in _refs_in((op.args, op.kwargs)):
                last[var] = index
        for op in reversed(self.ops):  # a view keeps its base alive as long as itself
            base = self.info[op.out].view_of
            if base is not None and op.out in last:
                last[base] = builtins.max(last.get(base, -1), last[op.out])
        kept = self.kept()
        return {var: index for var, index in last.items() if var not in kept}

    def kept(self) -> set[int]:
        """Values the program never frees: inputs, outputs, and what an output views."""
        kept = set(self.inputs) | set(_refs_in(self.outputs))
        return kept | {self.info[v].view_of for v in kept if self.info[v].view_of is not None}

    def deaths(self) -> list[list[int]]:
        """`deaths()[k]`: the values freed right after call `k`."""
        dies: list[list[int]] = [[] for _ in self.ops]
        last = self.last_uses()
        kept = self.kept()
        for index, op in enumerate(self.ops):
            if op.out in last:
                dies[last[op.out]].append(op.out)
            elif op.out not in kept:  # a result nobody reads dies at once
                dies[index].append(op.out)
        return dies

    def live_bytes(self) -> list[int]:
        """Bytes of the program's own values alive while each call runs (its arguments and its
        result), not counting the inputs, which the caller owns."""
        dies = self.deaths()
        alive = 0
        totals = []
        for index, op in enumerate(self.ops):
            alive += self.info[op.out].nbytes if op.reuses is None else 0
            totals.append(alive)
            alive -= builtins.sum(self.info[v].nbytes for v in dies[index] if v != op.reuses)
        return totals

    @property
    def peak_bytes(self) -> int:
        """The largest number of bytes of intermediate values alive at once, from the program."""
        return builtins.max(self.live_bytes(), default=0)

    @property
    def peak_bytes_without_freeing(self) -> int:
        """What the same program would hold if no value were freed before the end."""
        return builtins.sum(self.info[op.out].nbytes for op in self.ops)

    # -- code generation ----------------------------------------------------------------------
    @property
    def source(self) -> str:
        """The Python source the program runs: one line per call, `del` after last uses."""
        self._fun_names = {}
        for op in self.ops:
            if id(op.fun) not in self._fun_names:
                base = "".join(ch if ch.isalnum() else "_" for ch in op.name)
                name = base
                while name in self._fun_names.values() or name in ("slice", "Ellipsis", "_copy"):
                    name += "_"
                self._fun_names[id(op.fun)] = name
        dies = self.deaths()
        params = ", ".join(self.var_name(v) for v in self.inputs)
        lines = [f"def {_identifier(self.name)}({params}):"]
        for index, op in enumerate(self.ops):
            lines.append(f"    {self.var_name(op.out)} = {self.call_text(op, code=True)}")
            if dies[index]:
                lines.append("    del " + ", ".join(self.var_name(v) for v in dies[index]))
        lines.append(f"    return {self._render_output(self.outputs)}")
        return "\n".join(lines) + "\n"

    def _render_output(self, template: Any) -> str:
        if isinstance(template, Ref):
            return self.var_name(template.var)
        if isinstance(template, tuple | list):
            inner = ", ".join(self._render_output(item) for item in template)
            if isinstance(template, list):
                return f"[{inner}]"
            return f"({inner},)" if len(template) == 1 else f"({inner})"
        if isinstance(template, dict):
            return "{" + ", ".join(f"{k!r}: {self._render_output(v)}" for k, v in template.items()) + "}"
        if isinstance(template, np.ndarray):  # a constant output: a fresh copy on every call
            return f"_copy({self._const_name(template)})"
        return self.render(template, code=True)

    def compile(self) -> Callable:
        """The program as a Python function of its inputs, in `input_paths` order."""
        source = self.source
        namespace: dict[str, Any] = {"slice": slice, "Ellipsis": Ellipsis, "_copy": np.copy}
        namespace.update({name: value for name, value in self._constants.values()})
        for op in self.ops:
            namespace[self._fun_names[id(op.fun)]] = op.fun
        filename = f"<staged {self.name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        return namespace[_identifier(self.name)]

    @property
    def n_calls(self) -> int:
        return len(self.ops)

    def counts(self) -> dict[str, int]:
        """How many calls of each primitive the program makes."""
        counts: dict[str, int] = {}
        for op in self.ops:
            counts[op.name] = counts.get(op.name, 0) + 1
        return counts

    def copy_with(self, ops: list[Op], outputs: Any = None) -> Program:
        return Program(self.name, self.inputs, self.input_paths, ops,
                       self.outputs if outputs is None else outputs, self.info,
                       list(self.passes), self.shape_queries)


# ---------------------------------------------------------------------------------------------
# Passes: each takes a program and returns a new one, with a report of what it did
# ---------------------------------------------------------------------------------------------

# Functions whose output depends only on the shape and dtype of their array arguments.
SHAPE_ONLY = {np.zeros_like, np.ones_like, np.empty_like}
# Shape queries: answered while tracing, never recorded.
SHAPE_QUERIES = {
    np.ndim, np.shape, np.size, np.iscomplexobj, np.isrealobj, np.result_type, np.isscalar,
    np.broadcast_shapes, np.can_cast, np.promote_types, np.min_scalar_type, np.issubdtype,
    np.isdtype, np.shares_memory, np.may_share_memory,
}
# Type queries (`ad_core.builtins.isinstance`, `type`): answered while tracing.
TYPE_QUERIES = {builtins.isinstance, builtins.type}
# Functions whose output *shape* depends on values: a replay could not keep its shapes.
VALUE_SHAPED = {np.nonzero, np.flatnonzero, np.argwhere, np.unique, np.bincount, np.histogram}
# Rules that read a traced value with `getval` to choose indices: their programs would replay
# the indices of the staging call.
_VALUE_READING_PRIMITIVES = {"sort", "partition", "msort", "slogdet"}


def _report(name: str, program: Program, new_ops: list[Op]) -> PassReport:
    kept = {op.out for op in new_ops}
    removed = [f"{program.var_name(op.out)} = {program.call_text(op)}"
               for op in program.ops if op.out not in kept]
    return PassReport(name, len(program.ops), len(new_ops), removed)


_SHAPE_ONLY_IDENTITIES = {"reshape", "broadcast_to", "squeeze", "ravel"}


def _same_shape_reshape(program: Program, op: Op) -> int | None:
    """The input of a `reshape` or `broadcast_to` that leaves the shape as it is, else None."""
    if op.name not in _SHAPE_ONLY_IDENTITIES or not op.args or not isinstance(op.args[0], Ref):
        return None
    source = op.args[0].var
    same = program.info[source].shape == program.info[op.out].shape
    return source if same and program.info[source].dtype == program.info[op.out].dtype else None


def fold_shape_only(program: Program) -> Program:
    """Fold what the shapes alone decide: each call that depends only on its arguments' shapes
    (`zeros_like`, `ones_like`, ...) and then each call whose arguments are all constants
    becomes the constant it computed while tracing; a `reshape` (or `broadcast_to`) to the shape
    its argument already has becomes that argument."""
    folded: dict[int, Any] = {}  # value -> the constant it is
    alias: dict[int, int] = {}  # value -> the value it equals

    def replace(var: int) -> Any:
        var = alias.get(var, var)
        return folded[var] if var in folded else Ref(var)

    new_ops: list[Op] = []
    for op in program.ops:
        refs = [alias.get(var, var) for var in _refs_in((op.args, op.kwargs))]
        if op.shape_only or (refs and builtins.all(var in folded for var in refs)):
            folded[op.out] = op.value
            continue
        source = _same_shape_reshape(program, op)
        if source is not None:
            alias[op.out] = alias.get(source, source)
            continue
        if builtins.any(var in folded or var in alias for var in _refs_in((op.args, op.kwargs))):
            op = Op(op.fun, op.name, _substitute(op.args, replace), _substitute(op.kwargs, replace),
                    op.out, op.shape_only, op.value)
        new_ops.append(op)
    outputs = _substitute(program.outputs, replace)
    result = program.copy_with(new_ops, outputs)
    result.passes.append(_report("fold shape-only work", program, new_ops))
    return result


def _key(template: Any) -> Any:
    """A hashable stand-in for an argument template: literals by value, objects by identity."""
    if isinstance(template, Ref):
        return ("ref", template.var)
    if isinstance(template, tuple | list):
        return (type(template).__name__, *(_key(item) for item in template))
    if isinstance(template, dict):
        return ("dict", *((key, _key(value)) for key, value in template.items()))
    if isinstance(template, slice):
        return ("slice", _key(template.start), _key(template.stop), _key(template.step))
    if _is_literal(template) or template is Ellipsis:
        return (type(template).__name__, template)
    if isinstance(template, np.dtype | type):
        return ("type", template)
    return ("object", id(template))


def eliminate_common_subexpressions(program: Program) -> Program:
    """Replace a call by an earlier one of the same function on the same arguments."""
    seen: dict[Any, int] = {}
    alias: dict[int, int] = {}
    new_ops: list[Op] = []
    for op in program.ops:
        args = _substitute(op.args, lambda v: Ref(alias.get(v, v)))
        kwargs = _substitute(op.kwargs, lambda v: Ref(alias.get(v, v)))
        key = (id(op.fun), _key(args), _key(kwargs))
        if key in seen:
            alias[op.out] = seen[key]
            continue
        seen[key] = op.out
        new_ops.append(Op(op.fun, op.name, args, kwargs, op.out, op.shape_only, op.value))
    outputs = _substitute(program.outputs, lambda v: Ref(alias.get(v, v)))
    result = program.copy_with(new_ops, outputs)
    result.passes.append(_report("common-subexpression elimination", program, new_ops))
    return result


def eliminate_dead_code(program: Program) -> Program:
    """Remove each call whose result no output needs, directly or through later calls."""
    needed = set(_refs_in(program.outputs))
    kept: list[Op] = []
    for op in reversed(program.ops):
        if op.out in needed:
            kept.append(op)
            needed.update(_refs_in((op.args, op.kwargs)))
    kept.reverse()
    result = program.copy_with(kept)
    result.passes.append(_report("dead-code elimination", program, kept))
    return result


def _is_plain_ufunc(op: Op) -> bool:
    return isinstance(op.fun, np.ufunc) and not op.kwargs and op.fun.nout == 1


def reuse_dead_buffers(program: Program) -> Program:
    """Let an elementwise NumPy ufunc write its result into the buffer of an argument that dies
    at that call (`out=`), when shape and dtype match and the argument is itself the fresh result
    of a ufunc (never an input, a constant, an output or a view). The values are the same; a large
    array is then not freed and allocated again, which at batch 1024 costs page faults."""
    last = program.last_uses()
    fresh = {op.out for op in program.ops if _is_plain_ufunc(op) and program.info[op.out].shape}
    taken: set[int] = set()
    new_ops: list[Op] = []
    for index, op in enumerate(program.ops):
        reuses = None
        if _is_plain_ufunc(op) and program.info[op.out].shape:
            out = program.info[op.out]
            for var in _refs_in(op.args):
                info = program.info[var]
                if (var in fresh and var not in taken and last.get(var) == index
                        and info.shape == out.shape and info.dtype == out.dtype):
                    reuses = var
                    taken.add(var)
                    break
        new_ops.append(Op(op.fun, op.name, op.args, op.kwargs, op.out, op.shape_only, op.value, reuses))
    result = program.copy_with(new_ops)
    report = _report("reuse dead buffers", program, new_ops)
    report.changed = [f"{program.var_name(op.out)} = {program.call_text(op)}  (into "
                      f"{program.var_name(op.reuses)})" for op in new_ops if op.reuses is not None]
    result.passes.append(report)
    return result


# The functions `ad_core.numpy` wraps for `sum`, `mean`, `max`, `min`, `var` (each checks its
# argument's type and dtype on every call) and `reshape` (its type), then makes the calls below;
# the program knows both.
_SUM, _MEAN, _VAR, _RESHAPE = (_anp.DIRECT_IMPLEMENTATIONS[f] for f in (np.sum, np.mean, np.var, np.reshape))
# Bound once: each `np.add.reduce` is a new method object, and the generated source names a
# function by its identity.
_ADD_REDUCE = np.add.reduce
_REDUCTIONS = {_SUM: (_ADD_REDUCE, "add.reduce")} | {
    _anp.DIRECT_IMPLEMENTATIONS[f]: (reduce, f"{reduce.__self__.__name__}.reduce")
    for f, reduce in ((np.max, np.maximum.reduce), (np.amax, np.maximum.reduce),
                      (np.min, np.minimum.reduce), (np.amin, np.minimum.reduce))}
_GETITEM = _anp.array_getitem.fun
# The dtype kinds for which each wrapper's direct call is the one NumPy's function makes: for an
# ndarray, `np.sum`, `np.max` and `np.min` call the ufunc's `reduce` whatever the dtype (the
# wrappers check for floats only to stay out of the way of everything else); `np.mean` of
# integers divides in float64 and `np.var` of complex numbers takes absolute values, so these two
# are direct for the kinds the wrapper handles itself.
_DIRECT_KINDS = {_MEAN: "fc", _VAR: "f"} | {fun: "biufc" for fun in _REDUCTIONS}
# The type of NumPy's public functions (`np.dot`, `np.where`, ...): each first collects its
# arguments' `__array_function__` overrides, then calls `__wrapped__`, its implementation.
_DISPATCHER = type(np.dot)


def _plain_arrays_only(program: Program, op: Op) -> bool:
    """Whether every array `op` reads is an exact ndarray, and every constant an ndarray, a NumPy
    scalar or dtype, or a Python literal: no argument then overrides `__array_function__`."""
    refs_plain = builtins.all(program.info[var].ndarray for var in _refs_in((op.args, op.kwargs)))
    return refs_plain and builtins.all(
        type(const) is np.ndarray or isinstance(const, np.generic | np.dtype | type)
        for const in _constants_in((op.args, op.kwargs)))


def _reduction_arguments(op: Op) -> tuple:
    """`(a, axis, dtype, out, keepdims, ddof, extra)` of a call of `sum`, `mean`, `max`, `min` or
    `var`, bound by the wrapper's own signature (`max` has no `dtype`, only `var` a `ddof`)."""
    bound = inspect.signature(op.fun).bind(*op.args, **op.kwargs)
    bound.apply_defaults()
    given = bound.arguments
    return (given["a"], given["axis"], given.get("dtype"), given["out"], given["keepdims"],
            given.get("ddof", 0), given["kwargs"])


def _reduced_axes(shape: tuple, axis: Any) -> set[int]:
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    return {a % len(shape) for a in axes}


def _kept_shape(shape: tuple, axis: Any) -> tuple:
    """The shape of a reduction over `axis` with `keepdims=True`."""
    axes = _reduced_axes(shape, axis)
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _direct_calls(op: Op, program: Program, new_var: Callable[[tuple, np.dtype], int]) -> list[Op] | None:
    """The NumPy calls that `op`'s function makes for arguments of the shapes and dtypes the
    program fixes, as ops of their own; None to keep `op` as it is."""
    if op.fun is _GETITEM:  # `A[index]` is `getitem(A, index)`
        return [Op(operator.getitem, "getitem", op.args, op.kwargs, op.out)]
    if not op.args or not isinstance(op.args[0], Ref):
        return None
    a = program.info[op.args[0].var]
    if not a.ndarray:
        return None
    if op.fun is _RESHAPE:
        return [Op(np.ndarray.reshape, "ndarray.reshape", op.args, op.kwargs, op.out)]
    if op.fun is np.transpose and len(op.args) == 1 and not op.kwargs:
        return [Op(np.ndarray.transpose, "ndarray.transpose", op.args, {}, op.out)]
    if isinstance(op.fun, _DISPATCHER) and _plain_arrays_only(program, op):
        # NumPy's own function minus the `__array_function__` protocol, which only ever picks
        # this implementation when no argument is anything but an ndarray or a NumPy scalar.
        return [Op(op.fun.__wrapped__, op.name, op.args, op.kwargs, op.out)]
    if op.fun not in _REDUCTIONS and op.fun not in (_MEAN, _VAR):
        return None
    x, axis, dtype, out, keepdims, ddof, extra = _reduction_arguments(op)
    if dtype is not None or out is not None or extra or a.dtype.kind not in _DIRECT_KINDS[op.fun]:
        return None  # NumPy's function does something else with these
    if builtins.any(isinstance(arg, Ref) for arg in (axis, keepdims, ddof)):
        return None  # a traced axis or flag: left to the wrapper
    result = program.info[op.out]
    # `add.reduce(a, axis, dtype, out, keepdims)`, positional (the fastest call); the trailing
    # defaults are left out, so a line reads `add.reduce(t3, 0)`.
    reduce_args = (x, axis, None, None, True) if keepdims else (x, axis)
    if op.fun in _REDUCTIONS:
        reduce, name = _REDUCTIONS[op.fun]
        return [Op(reduce, name, reduce_args, {}, op.out)]
    kept = _kept_shape(a.shape, axis)
    count = 1  # the number of entries each result averages, as the wrapper counts them
    for reduced in _reduced_axes(a.shape, axis):
        count *= a.shape[reduced]
    if op.fun is _MEAN:
        total = new_var(result.shape, result.dtype)
        return [Op(_ADD_REDUCE, "add.reduce", reduce_args, {}, total),
                Op(np.divide, "divide", (Ref(total), count), {}, op.out)]
    # var, by the steps of ad_core.numpy's `var` (which are NumPy's own)
    total, mean, centred, squared, sum_sq = (new_var(kept, a.dtype), new_var(kept, a.dtype),
                                             new_var(a.shape, a.dtype), new_var(a.shape, a.dtype),
                                             new_var(result.shape, result.dtype))
    return [Op(_ADD_REDUCE, "add.reduce", (x, axis, None, None, True), {}, total),
            Op(np.divide, "divide", (Ref(total), count), {}, mean),
            Op(np.subtract, "subtract", (x, Ref(mean)), {}, centred),
            Op(np.multiply, "multiply", (Ref(centred), Ref(centred)), {}, squared),
            Op(_ADD_REDUCE, "add.reduce", (Ref(squared), *reduce_args[1:]), {}, sum_sq),
            Op(np.divide, "divide", (Ref(sum_sq), builtins.max(count - ddof, 0)), {}, op.out)]


def _ufunc_consumers_only(program: Program, var: int) -> bool:
    users = [op for op in program.ops if var in set(_refs_in((op.args, op.kwargs)))]
    return bool(users) and builtins.all(_is_plain_ufunc(op) for op in users)


def _broadcast_keeps_shape(program: Program, user: Op, var: int, source: int) -> bool:
    """Whether `user`, a ufunc reading `var` = broadcast_to(source), gives a result of the same
    shape when it reads `source` instead."""
    shapes = [program.info[source if isinstance(arg, Ref) and arg.var == var else arg.var].shape
              if isinstance(arg, Ref) else np.shape(arg) for arg in user.args]
    return np.broadcast_shapes(*shapes) == program.info[user.out].shape


def call_numpy_directly(program: Program) -> Program:
    r"""Call what NumPy would call: the cache key fixes every argument's type, shape and dtype, so
    the checks that `sum`, `mean`, `max`, `min`, `var` and `reshape` make on every call, and
    NumPy's `__array_function__` dispatch of `transpose` and of its other public functions
    (`dot`, `where`, ...), are made once, here, and the program calls what they end in:
    `add.reduce(a, axis, dtype, out, keepdims)` (NumPy's positional order) for `sum`,
    `maximum.reduce` and `minimum.reduce` for `max` and `min`, a reduction and a `divide` by the
    count for `mean`, NumPy's own steps for `var` ($\sum (a - \bar a)^2 / (n - \text{ddof})$),
    `ndarray.reshape`, `ndarray.transpose`, each public function's implementation
    (`__wrapped__`), and `operator.getitem` for `A[index]` (one Python frame fewer). A
    `broadcast_to` whose every reader is an elementwise ufunc is removed, since the ufunc
    broadcasts its arguments itself (to the same shape, which is checked). The same arithmetic
    runs in the same order, so the results are the same bits."""
    info = dict(program.info)
    next_var = builtins.max(info, default=-1) + 1

    def new_var(shape: tuple, dtype: np.dtype) -> int:
        nonlocal next_var
        var, next_var = next_var, next_var + 1
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        info[var] = VarInfo(tuple(shape), np.dtype(dtype), size, None, bool(shape))
        return var

    outputs = set(_refs_in(program.outputs))
    alias: dict[int, int] = {}
    new_ops: list[Op] = []
    changed: list[str] = []
    for op in program.ops:
        if alias:
            op = Op(op.fun, op.name, _substitute(op.args, lambda v: Ref(alias.get(v, v))),
                    _substitute(op.kwargs, lambda v: Ref(alias.get(v, v))), op.out, op.shape_only,
                    op.value)
        if (op.fun is np.broadcast_to and isinstance(op.args[0], Ref) and op.out not in outputs
                and _ufunc_consumers_only(program, op.out)
                and program.info[op.args[0].var].dtype == program.info[op.out].dtype
                and builtins.all(_broadcast_keeps_shape(program, user, op.out, op.args[0].var)
                                 for user in program.ops if op.out in set(_refs_in(user.args)))):
            alias[op.out] = op.args[0].var
            continue
        lowered = _direct_calls(op, program, new_var)
        if lowered is None:
            new_ops.append(op)
            continue
        new_ops.extend(lowered)
        changed.append(f"{program.var_name(op.out)} = {program.call_text(op)}  ->  "
                       + "; ".join(f"{lowered_op.name}(...)" for lowered_op in lowered))
    result = Program(program.name, program.inputs, program.input_paths, new_ops,
                     _substitute(program.outputs, lambda v: Ref(alias.get(v, v))), info,
                     list(program.passes), program.shape_queries)
    report = _report("call NumPy directly", program, new_ops)
    report.changed = changed
    result.passes.append(report)
    return result


# Direct calls before CSE, which then merges the reduction and division that `var` and a `mean`
# with keepdims=True over the same axis of one array share.
PASSES = (fold_shape_only, call_numpy_directly, eliminate_common_subexpressions, eliminate_dead_code,
          reuse_dead_buffers)


# ---------------------------------------------------------------------------------------------
# Recording: the staging trace level
# ---------------------------------------------------------------------------------------------


# The staging trace that is running, if any: `StageNode`s record into it.
_active: Any = None  # a _Recorder


class StageNode(Node):
    """A node of the staging trace: it only names the value its box holds.

    The tracer builds one for every primitive call on boxes of the staging level, with the
    same arguments as any node, `(value, fun, args, kwargs, parent_argnums, parents)`, which is
    exactly one line of the program."""

    __slots__ = ("var",)

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        recorder = _active
        template = list(args)
        for argnum, parent in zip(parent_argnums, parents, strict=True):
            template[argnum] = Ref(parent.var)
        template = tuple(recorder.template(arg) if i not in parent_argnums else arg
                         for i, arg in enumerate(template))
        name = getattr(fun, "__name__", repr(fun))
        if name in ("array_getitem", "untake") and len(template) > 1:
            recorder.check_index(template[1])
        if name in _VALUE_READING_PRIMITIVES:
            recorder.refuse(f"{name}'s derivative reads the values of its argument to choose "
                            "indices, which a replay would take from the staging call")
        self.var = recorder.record(fun.fun, name, template, recorder.template(kwargs), value)

    def initialize_root(self, var: int) -> None:
        self.var = var


# The engine, as the tracer built it: what `_watching` replaces for the staging trace and puts
# back. It recognises the wrappers `primitive` and `notrace_primitive` make by their code objects,
# as the recorder recognises engine functions.
_EAGER = {
    "new_box": _tracer.new_box,
    "getval": _tracer.getval,
    "Box.__bool__": Box.__bool__,
    "ArrayBox.__array__": ArrayBox.__array__,
}
_PRIMITIVE_CODE = _anp.add.__code__
_NOTRACE_CODE = _anp.shape.__code__
_COMPARISONS = {"__eq__": np.equal, "__ne__": np.not_equal, "__gt__": np.greater,
                "__ge__": np.greater_equal, "__lt__": np.less, "__le__": np.less_equal}


# Primitives that read or pack a container's structure: nothing to stage.
_STRUCTURE_PRIMITIVES = {"container_take", "container_pack"}


def _is_user_frame(filename: str) -> bool:
    path = os.path.abspath(filename)
    if path.startswith(_NUMPY_DIR) or filename.startswith("<frozen"):
        return False
    return not path.startswith(_PACKAGE_DIR + os.sep) or path.startswith(
        os.path.join(_PACKAGE_DIR, "test_util.py"))


class _Recorder:
    """The staging trace while it runs: numbers values, records calls, refuses leaks."""

    def __init__(self, name: str, level: int) -> None:
        self.name = name
        self.level = level
        self.ops: list[Op] = []
        self.values: dict[int, Any] = {}
        self.next_var = 0
        self.shape_queries = 0
        self.copies: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # id -> (array, its copy)

    # -- values and calls ---------------------------------------------------------------------
    def new_var(self, value: Any) -> int:
        var = self.next_var
        self.next_var += 1
        self.values[var] = value
        return var

    def record(self, fun: Callable, name: str, args: tuple, kwargs: dict, value: Any,
               shape_only: bool = False) -> int:
        var = self.new_var(value)
        self.ops.append(Op(fun, name, args, kwargs, var, shape_only, value))
        return var

    def is_ours(self, x: Any) -> bool:
        return isinstance(x, Box) and x._trace == self.level and type(x._node) is StageNode

    def template(self, x: Any) -> Any:
        """An argument as a template: our boxes, also inside tuples, lists and dicts, as `Ref`s."""
        if isinstance(x, Box):
            x = self.outermost(x)
            if self.is_ours(x):
                return Ref(x._node.var)
            return x
        if isinstance(x, tuple | list):
            items = [self.template(item) for item in x]
            return tuple(items) if isinstance(x, tuple) else items
        if isinstance(x, dict):
            return {key: self.template(value) for key, value in x.items()}
        if isinstance(x, slice):
            return slice(*(self.template(p) for p in (x.start, x.stop, x.step)))
        if isinstance(x, np.ndarray):
            if x.dtype == object:
                self.refuse("an object array holding traced values cannot be staged")
            return self.constant(x)
        return x

    def constant(self, array: np.ndarray) -> np.ndarray:
        """The program's copy of an array that is not traced (one the function closes over, or
        made while tracing): the value as it is now, so that a later in-place change of the
        caller's array cannot reach the calls the program replays while the work folded at
        staging time keeps the old value. One copy per array, so that two uses stay one
        constant (and common-subexpression elimination still sees the same argument)."""
        entry = self.copies.get(id(array))
        if entry is None:
            copy = array.copy()
            copy.flags.writeable = False
            entry = self.copies[id(array)] = (array, copy)  # the array kept alive: its id stays its own
        return entry[1]

    def outermost(self, x: Any) -> Any:
        """A box of a differentiation trace, opened down to our box (or its raw value)."""
        while isinstance(x, Box) and x._trace != self.level:
            x = x._value
        return x

    def holds_ours(self, x: Any) -> bool:
        """Whether one of our values is `x` or sits inside it (in tuples, lists, dicts)."""
        if isinstance(x, Box):
            return self.is_ours(self.outermost(x))
        if isinstance(x, tuple | list):
            return builtins.any(self.holds_ours(item) for item in x)
        if isinstance(x, dict):
            return builtins.any(self.holds_ours(item) for item in x.values())
        return False

    def box(self, value: Any, var: int) -> Box:
        node = StageNode.__new__(StageNode)
        node.initialize_root(var)
        return ArrayBox(value, self.level, node)

    def check_index(self, index: Any) -> None:
        """A traced boolean mask as an index gives a result whose shape depends on values."""
        for var in _refs_in(index):
            if np.result_type(self.values[var]).kind == "b":
                self.refuse("indexing with a traced boolean mask gives a result whose shape "
                            "depends on the mask's values; use anp.where instead")

    # -- what the tracer leaves out of the trace, seen from outside (see `_watching`) ----------
    def new_box(self, value: Any, trace: int, node: Node) -> Any:
        """`tracer.new_box` while staging: an integer or boolean result of a staged call stays
        traced (the eager engine drops it, as it has no derivative; a replay must recompute it)."""
        if type(node) is StageNode and isinstance(value, np.ndarray | np.generic | int | bool):
            return ArrayBox(value, trace, node)
        return _EAGER["new_box"](value, trace, node)

    def plain_call(self, f_wrapped: Callable, args: tuple, kwargs: dict) -> Any:
        """A primitive called on no box, with one of ours inside an argument (the cotangent seed
        of `x[rows, targets]` flowing into `untake`, traced `targets` in its index tuple): the
        tracer calls the raw function directly, so the call is recorded here."""
        if not self.holds_ours((args, kwargs)) or f_wrapped.__name__ in _STRUCTURE_PRIMITIVES:
            return f_wrapped(*args, **kwargs)
        template = self.template(args)
        if f_wrapped.__name__ in ("array_getitem", "untake") and len(template) > 1:
            self.check_index(template[1])
        value = f_wrapped.fun(*self.raw(args), **self.raw(kwargs))
        var = self.record(f_wrapped.fun, f_wrapped.__name__, template, self.template(kwargs), value)
        return self.box(value, var)

    def notrace(self, f_raw: Callable, args: tuple, kwargs: dict) -> Any:
        """A function without a derivative, called on values: shape and type queries are
        answered now; anything that reads one of our values is recorded, and its result stays
        traced."""
        if not self.holds_ours((args, kwargs)):
            return f_raw(*(getval(arg) for arg in args), **kwargs)
        if f_raw in SHAPE_QUERIES or f_raw in TYPE_QUERIES:
            self.shape_queries += f_raw in SHAPE_QUERIES
            return f_raw(*(getval(arg) for arg in args), **kwargs)
        name = getattr(f_raw, "__name__", repr(f_raw))
        if f_raw in VALUE_SHAPED:
            self.refuse(f"the shape of {name}'s result depends on the values of its argument")
        value = f_raw(*(self.raw(arg) for arg in args), **self.raw(kwargs))
        if not isinstance(value, np.ndarray | np.generic | int | float | bool | complex):
            self.refuse(f"{name} turns a traced value into a {type(value).__name__}")
        template = tuple(self.template(arg) for arg in args)
        var = self.record(f_raw, name, template, self.template(kwargs), value,
                          shape_only=f_raw in SHAPE_ONLY)
        return self.box(value, var)

    def raw(self, x: Any) -> Any:
        if isinstance(x, Box):
            return getval(x)
        if isinstance(x, tuple | list):
            items = [self.raw(item) for item in x]
            return tuple(items) if isinstance(x, tuple) else items
        if isinstance(x, dict):
            return {key: self.raw(value) for key, value in x.items()}
        return x

    def compare(self, ufunc: np.ufunc) -> Callable:
        """`ArrayBox.__gt__` and the other comparisons while staging: through the wrapped ufunc
        (which records), since the eager ones call NumPy on the raw values."""
        wrapped = getattr(_anp, ufunc.__name__)
        return lambda box, other: wrapped(box, other)

    def as_array(self, box: Box, dtype=None, copy=None) -> Any:
        """`ArrayBox.__array__` while staging. Inside the raw call of a staged primitive, NumPy
        converts a box of ours that sits in a tuple (`x[rows, targets]` with traced `targets`):
        the `StageNode` of that call records the box as an argument, so the raw value may go
        in. Anywhere else the conversion would cut the value out of the program."""
        if self.is_ours(box):
            frame = sys._getframe(1)
            while frame is not None and frame.f_code is not _PRIMITIVE_CODE:
                frame = frame.f_back
            local = frame.f_locals if frame is not None else {}
            if local.get("level") == self.level and local.get("parents") is not None:
                value = box._value
                return value if dtype is None else np.asarray(value, dtype=dtype)
            if frame is not None:  # the tracer called the raw function itself, unrecorded
                name = getattr(local.get("f_raw"), "__name__", "a primitive")
                self.refuse(f"{name} got a traced value inside an argument (an index tuple) "
                            "while its arrays were not traced at this level")
            self.refuse("a traced value was converted to a plain NumPy array (np.asarray, or a "
                        "NumPy function called on it), which would cut it out of the program")
        return _EAGER["ArrayBox.__array__"](box, dtype, copy)

    def on_bool(self, box: Box) -> bool:
        """`Box.__bool__` while staging: the truth value of one of our values is refused."""
        opened = self.outermost(box)
        if self.is_ours(opened):
            self.refuse(f"bool() of a traced value (shape {_fmt_shape(opened.shape)}, "
                        f"{np.result_type(getval(opened))}) would let the value steer Python "
                        "control flow")
        return _EAGER["Box.__bool__"](box)

    def on_getval(self, x: Any) -> Any:
        """`tracer.getval` while staging. The eager `notrace_primitive` wrapper is the one caller
        of the tracer's own `getval`; `_watching` replaces every such wrapper it finds in the
        package's namespaces, so a wrapper reached here was imported elsewhere by name. If it
        reads one of our values it is refused, since its plain result would leave the program;
        shape and type queries are answered. Any other caller (an observer from outside, such as
        the mutation tests' harness reading a rule's output) gets the value, as it would from the
        eager `getval`: only the wrapper's call, from its argument loop, is a leak."""
        if self.is_ours(self.outermost(x)):
            caller = sys._getframe(1)
            if caller.f_code.co_name == "<genexpr>":  # the wrapper's `(getval(arg) for ...)`
                caller = caller.f_back
            if caller is None or caller.f_code is not _NOTRACE_CODE:
                return getval(x)
            f_raw = caller.f_locals.get("f_raw")
            if f_raw not in SHAPE_QUERIES and f_raw not in TYPE_QUERIES:
                name = getattr(f_raw, "__name__", "a function without a derivative")
                self.refuse(f"{name} (a notrace_primitive imported by name) reads a traced value "
                            "and returns a plain one; call it through its module instead")
        return getval(x)

    def refuse(self, why: str, tb: Any = None) -> None:
        raise StagingError(self.message(why, tb))

    def message(self, why: str, tb: Any = None) -> str:
        frames = traceback.extract_tb(tb) if tb is not None else traceback.extract_stack()
        where = next((frame for frame in reversed(frames) if _is_user_frame(frame.filename)), None)
        location = ""
        if where is not None:
            location = (f" at {where.filename}:{where.lineno}, in {where.name}: "
                        f"`{(where.line or '').strip()}`")
        return (
            f"ad_core.stage({self.name}): cannot stage this function{location}: {why}. A staged "
            "program replays the same primitive calls whatever the values, so it cannot take a "
            "branch, or make a Python number, from a traced value. Use anp.where for a "
            "value-dependent choice, or pass the value as a non-array argument (it is then part "
            "of the cache key)."
        )


def _wrappers() -> Iterator[tuple[dict, str, Callable]]:
    """(namespace, name, wrapper) for every wrapper `primitive` or `notrace_primitive` made that
    a module of the package holds (the traced NumPy and its submodules, `ad_core.builtins`, ...)."""
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "ad_core" or module_name.startswith("ad_core.")):
            continue
        for namespace in (vars(module), getattr(module, "wrapped", None)):
            if not isinstance(namespace, dict):
                continue
            for name, value in list(namespace.items()):
                if getattr(value, "__code__", None) in (_NOTRACE_CODE, _PRIMITIVE_CODE):
                    yield namespace, name, value


# wrapper id -> (wrapper, its staging version); made once per wrapper, kept with the wrapper
# so that the id stays its own.
_STAGED_VERSIONS: dict[int, tuple[Callable, Callable]] = {}


def _staged_version(wrapper: Callable) -> Callable:
    """What stands in for a `primitive` or `notrace_primitive` wrapper during a staging trace."""
    entry = _STAGED_VERSIONS.get(id(wrapper))
    if entry is None:
        if wrapper.__code__ is _NOTRACE_CODE:
            def staged(*args, f_raw=wrapper.fun, **kwargs):
                return _active.notrace(f_raw, args, kwargs)
        else:
            def staged(*args, wrapper=wrapper, **kwargs):
                for arg in args:
                    if isinstance(arg, Box):  # the tracer records it: a StageNode
                        return wrapper(*args, **kwargs)
                return _active.plain_call(wrapper, args, kwargs)
        entry = _STAGED_VERSIONS[id(wrapper)] = (wrapper, functools.wraps(wrapper)(staged))
    return entry[1]


@contextmanager
def _watching(recorder: _Recorder) -> Iterator[None]:
    """Watch the engine from outside for the one staging trace: replace, and afterwards put back,
    the few places where the eager tracer lets a value leave the trace. The engine's code is not
    changed, and outside this block nothing of staging is installed, so replaying a program (and
    every eager call) runs the engine as it is.

    - `tracer.new_box`: keeps integer and boolean results of staged calls traced;
    - `Box.__bool__`: refuses the truth value of a traced value (`if t:`);
    - the `notrace_primitive` wrappers in the package's namespaces (`anp.equal`, `anp.floor`,
      `anp.zeros_like`, ...): record their calls on traced values, and refuse those whose result
      shape depends on values; `tracer.getval` refuses a wrapper reached another way;
    - the `primitive` wrappers there: a call on no box with a traced value inside an argument
      (an index tuple) is recorded, since the tracer would call the raw function directly;
    - the comparisons of `ArrayBox` (`t > 0`): go through the wrapped ufuncs, which record;
    - `ArrayBox.__array__`: lets NumPy open a traced index inside a tuple during a staged call.

    `float(t)`, `int(t)`, `t.item()`, `t.tolist()` already raise TypeError on a box; `Staged`
    turns that into a `StagingError` naming the line."""
    global _active
    replaced: list[tuple[dict, str, Callable]] = []
    comparisons = {name: ArrayBox.__dict__[name] for name in _COMPARISONS}

    _active = recorder
    try:
        for namespace, name, wrapper in list(_wrappers()):
            replaced.append((namespace, name, wrapper))
            namespace[name] = _staged_version(wrapper)
        _tracer.new_box = recorder.new_box
        _tracer.getval = recorder.on_getval
        # Functions, not bound methods: Python calls a special method found on the class with
        # the instance as its first argument.
        Box.__bool__ = lambda box: recorder.on_bool(box)
        ArrayBox.__array__ = lambda box, dtype=None, copy=None: recorder.as_array(box, dtype, copy)
        for name, ufunc in _COMPARISONS.items():
            setattr(ArrayBox, name, recorder.compare(ufunc))
        yield
    finally:
        for name, method in comparisons.items():
            setattr(ArrayBox, name, method)
        ArrayBox.__array__ = _EAGER["ArrayBox.__array__"]
        Box.__bool__ = _EAGER["Box.__bool__"]
        _tracer.getval = _EAGER["getval"]
        _tracer.new_box = _EAGER["new_box"]
        for namespace, name, wrapper in reversed(replaced):
            namespace[name] = wrapper
        _active = None


# ---------------------------------------------------------------------------------------------
# Arguments: flattening, the cache key
# ---------------------------------------------------------------------------------------------


def _flatten(x: Any, leaves: list, key: list) -> None:
    """Collect array leaves (inputs) and build the cache key: structure, and type, shape and dtype
    of arrays, values of everything else. This runs on every call of a staged function, so an
    array inside a list or tuple is handled without a call of its own."""
    kind = type(x)
    if kind is np.ndarray or isinstance(x, np.generic):
        leaves.append(x)
        key.append((kind, x.shape, x.dtype))
    elif kind is list or kind is tuple:
        key.append((kind, len(x)))
        for item in x:
            if type(item) is np.ndarray:
                leaves.append(item)
                key.append((np.ndarray, item.shape, item.dtype))
            else:
                _flatten(item, leaves, key)
    elif kind is dict:
        key.append((dict, tuple(x)))
        for item in x.values():
            _flatten(item, leaves, key)
    elif isinstance(x, Box):
        raise StagingError(
            "ad_core.stage: an argument is being differentiated (a traced value); stage the "
            "outermost function instead, e.g. stage(grad(f)) rather than grad(stage(f))"
        )
    else:
        hash(x)  # a TypeError here is reported by `Staged._key`, with the argument's path
        key.append((kind, x))


def _unhashable_path(x: Any, path: str) -> tuple[str, str] | None:
    """Path and type name of the first argument `_flatten` cannot put in a cache key."""
    kind = type(x)
    if kind is np.ndarray or isinstance(x, np.generic):
        return None
    if kind is list or kind is tuple or kind is dict:
        items = x.items() if kind is dict else enumerate(x)
        for name, item in items:
            found = _unhashable_path(item, f"{path}[{name!r}]" if kind is dict else f"{path}[{name}]")
            if found is not None:
                return found
        return None
    try:
        hash(x)
    except TypeError:
        return path, kind.__name__
    return None


def _leaf_paths(x: Any, path: str, paths: list) -> None:
    """Where each leaf `_flatten` collects sits in the arguments (`args[0][2]`), in its order;
    needed only when staging, for the listing and for messages."""
    kind = type(x)
    if kind is np.ndarray or isinstance(x, np.generic):
        paths.append(path)
    elif kind is list or kind is tuple:
        for index, item in enumerate(x):
            _leaf_paths(item, f"{path}[{index}]", paths)
    elif kind is dict:
        for name, item in x.items():
            _leaf_paths(item, f"{path}[{name!r}]", paths)


def _unflatten(x: Any, leaves: Iterator) -> Any:
    kind = type(x)
    if kind is np.ndarray or isinstance(x, np.generic):
        return next(leaves)
    if kind is list or kind is tuple:
        return kind(_unflatten(item, leaves) for item in x)
    if kind is dict:
        return {name: _unflatten(item, leaves) for name, item in x.items()}
    return x


def _output_template(x: Any, recorder: _Recorder) -> Any:
    if isinstance(x, Box):
        opened = recorder.outermost(x)
        if recorder.is_ours(opened):
            return Ref(opened._node.var)
        raise StagingError(f"ad_core.stage({recorder.name}): the function returned a value of "
                           "an unfinished differentiation trace")
    if isinstance(x, tuple | list):
        items = [_output_template(item, recorder) for item in x]
        return tuple(items) if isinstance(x, tuple) else items
    if isinstance(x, dict):
        return {key: _output_template(value, recorder) for key, value in x.items()}
    return recorder.constant(x) if isinstance(x, np.ndarray) else x


def _var_info(values: dict[int, Any]) -> dict[int, VarInfo]:
    """Shape, dtype and bytes of each value; a NumPy view costs no bytes of its own."""
    owners: dict[int, int] = {}
    info: dict[int, VarInfo] = {}
    for var, value in values.items():
        array = value if isinstance(value, np.ndarray) else None
        root = array
        while root is not None and isinstance(root.base, np.ndarray):
            root = root.base
        view_of = None
        nbytes = int(np.asarray(value).nbytes) if not isinstance(value, np.ndarray) else int(value.nbytes)
        if array is not None and id(array) in owners:  # the very array of an earlier value
            view_of = owners[id(array)]
            nbytes = 0
        elif array is not None and root is not array and id(root) in owners:
            view_of = owners[id(root)]
            nbytes = 0
        elif array is not None and id(root) not in owners:
            owners[id(root)] = var
        info[var] = VarInfo(tuple(np.shape(value)), np.result_type(value), nbytes, view_of,
                            type(value) is np.ndarray)
    return info


# ---------------------------------------------------------------------------------------------
# The public API
# ---------------------------------------------------------------------------------------------


@dataclass
class _Entry:
    program: Program
    raw: Program
    run: Callable


class Staged:
    """`stage(fun)`: call it like `fun`. The first call with a new cache key traces `fun` into a
    program, optimises and compiles it; later calls with that key run the compiled program."""

    def __init__(self, fun: Callable, name: str | None = None) -> None:
        self.fun = fun
        self.name = name or getattr(fun, "__name__", type(fun).__name__)
        self.cache: dict[Any, _Entry] = {}
        self.stagings = 0  # how many times `fun` was traced
        self.__wrapped__ = fun
        self.__name__ = f"staged_{self.name}"
        self.__doc__ = getattr(fun, "__doc__", None)

    def _key(self, args: tuple, kwargs: dict) -> tuple[tuple, list]:
        leaves: list = []
        key: list = []
        try:
            _flatten(args, leaves, key)
            if kwargs:
                _flatten(dict(sorted(kwargs.items())), leaves, key)
        except TypeError:
            found = _unhashable_path(args, "args") or _unhashable_path(kwargs, "kwargs")
            if found is None:
                raise
            raise TypeError(
                f"ad_core.stage({self.name}): argument {found[0]} of type {found[1]} is neither an "
                "array, a list, tuple or dict, nor hashable, so it cannot be part of the cache key"
            ) from None
        return tuple(key), leaves

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key, leaves = self._key(args, kwargs)
        entry = self.cache.get(key)
        if entry is None:
            entry = self.cache[key] = self._stage(args, kwargs, leaves)
        return entry.run(*leaves)

    def program(self, *args: Any, **kwargs: Any) -> Program:
        """The optimised program for the cache key of these arguments (staging it if needed)."""
        return self._entry(args, kwargs).program

    def raw_program(self, *args: Any, **kwargs: Any) -> Program:
        """The program as traced, before any optimisation pass."""
        return self._entry(args, kwargs).raw

    def _entry(self, args: tuple, kwargs: dict) -> _Entry:
        key, leaves = self._key(args, kwargs)
        if key not in self.cache:
            self.cache[key] = self._stage(args, kwargs, leaves)
        return self.cache[key]

    def clear_cache(self) -> None:
        self.cache.clear()

    def _stage(self, args: tuple, kwargs: dict, leaves: list) -> _Entry:
        if _active is not None or trace_stack.top != -1:
            raise StagingError(
                f"ad_core.stage({self.name}): a staged function was called inside a staging or "
                "differentiation trace; stage the outermost function instead, e.g. "
                "stage(grad(f)) rather than grad(stage(f))")
        self.stagings += 1
        paths: list[str] = []
        _leaf_paths(args, "args", paths)
        if kwargs:
            _leaf_paths(dict(sorted(kwargs.items())), "kwargs", paths)
        with trace_stack.new_trace() as level:
            recorder = _Recorder(self.name, level)
            boxes = []
            for leaf in leaves:
                node = StageNode.__new__(StageNode)
                node.initialize_root(recorder.new_var(leaf))
                boxes.append(ArrayBox(leaf, level, node))
            inputs = [box._node.var for box in boxes]
            boxed = iter(boxes)
            boxed_args = _unflatten(args, boxed)
            boxed_kwargs = _unflatten(dict(sorted(kwargs.items())), boxed) if kwargs else {}
            try:
                with _watching(recorder):
                    out = self.fun(*boxed_args, **boxed_kwargs)
            except StagingError:
                raise
            except TypeError as error:
                if "ArrayBox" in str(error) or "traced value" in str(error):
                    raise StagingError(recorder.message(
                        f"a traced value was converted to a Python or plain NumPy value ({error})",
                        error.__traceback__)) from error
                raise
            outputs = _output_template(out, recorder)
        raw = Program(self.name, inputs, paths, recorder.ops, outputs, _var_info(recorder.values),
                      shape_queries=recorder.shape_queries)
        program = raw
        for optimise in PASSES:
            program = optimise(program)
        run = program.compile()
        # Trace-time values are needed only by the passes: keep those that folding turned into
        # constants (so that the passes can run again on `raw`), and drop the rest.
        folded = {op.out for op in raw.ops} - {op.out for op in fold_shape_only(raw).ops}
        for op in (*raw.ops, *program.ops):
            if op.out not in folded:
                op.value = None
        return _Entry(program, raw, run)

    def __repr__(self) -> str:
        return f"stage({self.name}) with {len(self.cache)} cached program(s)"


def stage(fun: Callable, name: str | None = None) -> Staged:
    r"""Stage `fun`: trace it once per cache key into a flat program of primitive calls, optimise
    the program (shape-only folding, direct NumPy calls, CSE, DCE, freeing after last use, dead
    buffers reused) and replay it.

    `fun` may be any function built from `ad_core.numpy` calls, including a differentiated
    one: `stage(value_and_grad(loss))`, `stage(grad(grad(f)))`, a Hessian-vector product. The
    result is called like `fun` and returns what `fun` returns (lists, tuples and dicts of
    arrays). See the module docstring for the cache key, inputs versus constants, and what is
    refused; `Staged.program(*args)` returns the program, whose `str` is its listing.
    """
    return Staged(fun, name)

