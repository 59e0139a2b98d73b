"""The glossary: one entry per term, printed as a table with one anchor per term.

To add a term, append one `Term(...)` line to `TERMS`. The anchor is computed from the English
term (`slug`), so other pages link to `../reference/glossary.md#<slug>`. The snippet refuses
duplicate terms or anchors, and links to pages that do not exist; the chapter test
(`tests/snippets/test_glossary.py`) checks that every page an entry links to mentions the term
(the term itself, or one of the entry's `mentions`, as a whole word of the built page).
"""

import importlib
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import checked, given, md_table, text
from bookkit.source import rule_registrations


class Term(NamedTuple):
    english: str
    chinese: str
    definition: str
    chapters: tuple[str, ...]  # pages (relative to docs/) where the term is explained or used most
    mentions: tuple[str, ...] = ()  # how those pages write it, when not as the term itself


# --- The entries whose definitions hold numbers, computed or read here ---------------------------

# The versions the book names: NumPy as it runs the build, PyTorch as the tests pin it.
NUMPY = given(np.__version__.split(".")[0] + ".x")
REPO = Path(__file__).resolve().parents[2]  # snippets/glossary/terms.py → the repository
PYPROJECT = (REPO / "pyproject.toml").read_text(encoding="utf-8")
(TORCH_PIN,) = set(re.findall(r'"torch==(\d+\.\d+)\.\d+"', PYPROJECT))
PYTORCH = given(TORCH_PIN)
NUMPY_BROADCASTING = "https://numpy.org/doc/stable/user/basics.broadcasting.html"
NUMPY_EINSUM = "https://numpy.org/doc/stable/reference/generated/numpy.einsum.html"
TORCH_EXPAND = "https://docs.pytorch.org/docs/" + TORCH_PIN + "/generated/torch.Tensor.expand.html"

BROADCASTING = text(
    "[NumPy's rule](" + NUMPY_BROADCASTING + ") (NumPy {numpy}) for combining arrays of "
    "different shapes: shapes are aligned from the right, missing leading axes are added, and "
    "size-$1$ axes are stretched, without copying, to the other operand's length.",
    numpy=NUMPY,
)
EINSUM = text(
    "[NumPy's `einsum`](" + NUMPY_EINSUM + ") (NumPy {numpy}): a subscript string names every "
    "axis of the operands, and the indices that do not appear in the output are summed over.",
    numpy=NUMPY,
)
EXPAND_VS_REPEAT = text(
    "Two ways to enlarge an array: [PyTorch {torch}'s `Tensor.expand`](" + TORCH_EXPAND + ") and "
    "NumPy's `broadcast_to` return a view whose enlarged axes have stride $0$, while "
    "`Tensor.repeat`, `np.repeat` and `np.tile` copy memory. When they build the same array "
    "their gradients are equal (`tests/snippets/test_glossary.py` runs PyTorch to check it).",
    torch=PYTORCH,
)

# Machine epsilon: the gap from 1 to the next float, read from NumPy and found by stepping.
eps64 = checked(np.finfo(np.float64).eps, against=np.nextafter(1.0, 2.0) - 1.0)
eps32 = checked(
    np.finfo(np.float32).eps, against=np.nextafter(np.float32(1.0), np.float32(2.0)) - np.float32(1.0)
)
MACHINE_EPSILON = text(
    "The gap between $1$ and the next larger representable float: about {eps64:.2g} in float64 "
    "and {eps32:.2g} in float32.",
    eps64=eps64,
    eps32=eps32,
)


def hand_and_rule_bits_agree(batch_size, seed=0):
    """Part III's hand line `(1.0/probs)*dlogprobs` against the engine's own rule for `log`, on
    `batch_size` rows of softmax probabilities over the names dataset's classes (the
    alphabet and the end marker), with Karpathy's `dlogprobs` (`-1/B` at each row's label):
    do the two agree in every bit?"""
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((batch_size, 27))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    dlogprobs = np.zeros_like(probs)
    dlogprobs[np.arange(batch_size), rng.integers(0, 27, batch_size)] = -1.0 / batch_size
    log_vjp, _ = make_vjp(anp.log)(probs)
    return bool(np.array_equal((1.0 / probs) * dlogprobs, log_vjp(dlogprobs)))


# The rule the sentence names is the engine's live registration, and the claim is run, not typed.
(log_rule,) = rule_registrations(importlib.import_module("ad_core.numpy.vjps"), ["anp.log"])
assert log_rule.text.endswith("lambda g: g / x)"), log_rule.text
POWER_OF_TWO, OTHER = given(32), given(30)
assert hand_and_rule_bits_agree(POWER_OF_TWO.value), "different operations, equal bits at B = 32"
assert not hand_and_rule_bits_agree(OTHER.value), "the same two lines differ in some bit at B = 30"
BIT_FOR_BIT = text(
    "Two floating-point results that agree in every bit, on the input at hand. The same "
    "operations in the same order on the same machine always agree; different operations may "
    "agree on one input and not on another, so the equality is a fact about that input. In a "
    "hand-versus-engine comparison table an *exact* row means this: the hand line "
    "`(1.0/probs)*dlogprobs` and the engine's rule `g / x` are different operations, and they "
    "agree bit for bit at a batch size of {b1}, where every nonzero `dlogprobs` entry is "
    "$-1/B$, a power of two (scaling a normal float by a power of two is exact), but not at a "
    "batch size of {b2}.",
    b1=POWER_OF_TWO,
    b2=OTHER,
)

TERMS = [
    Term("automatic differentiation", "自动微分",
         "Computing the derivatives of a program, exact up to floating-point rounding, by applying "
         "the chain rule to the primitive operations it runs.", ("part1/overview.md",)),
    Term("reverse mode", "反向模式",
         "Automatic differentiation that runs the program, then propagates cotangents from the "
         "output back to the inputs; one backward pass gives one vector-Jacobian product, which "
         "for a scalar output is the whole gradient.", ("part1/linear-maps.md",)),
    Term("forward mode", "前向模式",
         "Automatic differentiation that carries a tangent alongside every value while the program "
         "runs; one pass gives one Jacobian-vector product.", ("part1/forward-mode.md",)),
    Term("Jacobian", "雅可比矩阵",
         "The matrix of all first partial derivatives of a function's outputs with respect to its "
         "inputs; the derivative as a linear map.", ("part1/linear-maps.md",)),
    Term("vector-Jacobian product (VJP)", "向量-雅可比积",
         "The product $u^\\top J$ of an output-space covector $u$ with the Jacobian $J$: what a "
         "backward pass computes, and what each primitive's VJP rule computes for its own "
         "Jacobian.", ("part1/linear-maps.md",)),
    Term("Jacobian-vector product (JVP)", "雅可比-向量积",
         "The product $J v$ of the Jacobian with an input-space direction $v$: what a forward-mode "
         "pass computes.", ("part1/forward-mode.md",)),
    Term("cotangent", "余切向量",
         "What reverse mode carries back to an intermediate value: the sensitivity of the output "
         "(for a seed $u$, of $\\langle u, y\\rangle$) to that value. It has the value's shape.",
         ("part1/linear-maps.md",)),
    Term("tangent", "切向量",
         "A direction of change of an intermediate value, carried forward in forward mode; it has "
         "the shape of that value.", ("part1/forward-mode.md",)),
    Term("primal", "原值",
         "The ordinary value a program computes, as opposed to the tangent or cotangent carried "
         "with it.", ("part1/linear-maps.md",)),
    Term("adjoint", "伴随",
         "Two related uses. Of a variable $v$: its cotangent $\\bar v = \\partial y / \\partial v$, "
         "as in the adjoint trace of reverse mode. Of a linear map $F$: the map $F^\\ast$ with "
         "$\\langle F(a), g\\rangle = \\langle a, F^\\ast(g)\\rangle$, for real arrays the transpose; "
         "gather and scatter-add are adjoint maps. A VJP applies the adjoint of a derivative to "
         "the adjoint of the output.", ("part1/linear-maps.md", "part2/copies-and-gathers.md")),
    Term("broadcasting", "广播", BROADCASTING, ("part1/broadcasting-in-reverse.md",)),
    Term("unbroadcast", "反广播",
         "Summing a cotangent over the axes that broadcasting added or stretched, so it returns to "
         "the input's shape.", ("part1/broadcasting-in-reverse.md",)),
    Term("keepdims", "保留维度",
         "The NumPy reduction option that keeps a summed axis with length $1$, so the result keeps "
         "the input's number of dimensions.", ("part1/broadcasting-in-reverse.md",)),
    Term("computation graph", "计算图",
         "The directed acyclic graph of primitive calls a traced function performed, from inputs "
         "to output.", ("part1/tracing.md",)),
    Term("topological sort", "拓扑排序",
         "An ordering of graph nodes in which every node comes after all the nodes it depends on "
         "(or, for the backward pass, before them).", ("part1/backward-pass.md",)),
    Term("fan-out", "扇出",
         "One value used by several later operations, so several cotangent contributions flow back "
         "into it.", ("part1/fan-out.md",)),
    Term("gradient accumulation", "梯度累加",
         "Adding together every cotangent contribution that reaches the same node instead of "
         "keeping only the last. Training code also uses the phrase for summing the gradients of "
         "several minibatches before one optimizer step, a different thing.", ("part1/fan-out.md",)),
    Term("primitive", "原语",
         "A function the engine does not look inside: it records calls to it and knows its "
         "derivative rules.", ("part1/tracing.md",)),
    Term("box", "装箱",
         "A wrapper around a value that lets the engine notice every primitive applied to it "
         "while tracing.", ("part1/tracing.md",)),
    Term("trace", "追踪",
         "Running a function on boxed inputs to record which primitives it calls and on what.",
         ("part1/tracing.md",)),
    Term("node", "节点",
         "The record of one primitive call in the computation graph: the primitive, its parents "
         "and the argument positions they filled, the output's shape, and one VJP closure per "
         "parent. The value itself stays in the box.", ("part1/tracing.md",)),
    Term("vector space", "向量空间",
         "The set of values of one shape and dtype, with zero, addition and scaling; the engine's "
         "vspace describes it.", ("part1/vjp-rules.md",)),
    Term("VJP rule", "VJP 规则",
         "What `defvjp` registers for one argument of a primitive: called at trace time with the "
         "output and the inputs, it returns a VJP closure that maps the output's cotangent to that "
         "argument's contribution.", ("part1/vjp-rules.md",)),
    Term("linear function", "线性函数",
         "A function $f$ with $f(a x + b y) = a f(x) + b f(y)$; its derivative at every point is "
         "$f$ itself.", ("part1/vjp-rules.md",)),
    Term("JVP rule", "JVP 规则",
         "The function that, given the tangent of one input of a primitive, returns that input's "
         "contribution to the tangent of the output.", ("part1/forward-mode.md",)),
    Term("directional derivative", "方向导数",
         "The rate of change of a function along a direction $v$, equal to the Jacobian-vector "
         "product $J v$ where the function is differentiable.", ("part1/forward-mode.md",)),
    Term("Hessian", "黑塞矩阵",
         "The matrix of second partial derivatives of a scalar function; the Jacobian of its "
         "gradient.", ("part1/higher-order.md",)),
    Term("Hessian-vector product", "黑塞-向量积",
         "The product $H v$ of the Hessian with a vector, computed without forming $H$.",
         ("part1/higher-order.md",)),
    Term("forward-over-reverse", "前向套反向",
         "A second derivative computed by running forward mode through a reverse-mode gradient.",
         ("part1/higher-order.md",)),
    Term("reverse-over-reverse", "反向套反向",
         "A second derivative computed by running reverse mode through a reverse-mode gradient.",
         ("part1/higher-order.md",)),
    Term("finite difference", "有限差分",
         "An approximate derivative from function values at nearby points, such as "
         "$\\frac{f(x + h) - f(x - h)}{2h}$.", ("part1/checking-gradients.md",)),
    Term("central difference", "中心差分",
         "The finite difference $\\frac{f(x + h) - f(x - h)}{2h}$, whose truncation error shrinks like "
         "$h^2$.", ("part1/checking-gradients.md",)),
    Term("forward difference", "前向差分",
         "The finite difference $\\frac{f(x + h) - f(x)}{h}$, whose truncation error shrinks like $h$.",
         ("part1/checking-gradients.md",)),
    Term("truncation error", "截断误差",
         "The error a finite difference makes because it drops the higher terms of the Taylor "
         "series; it grows with the step.", ("part1/checking-gradients.md",)),
    Term("rounding error", "舍入误差",
         "The error floating-point arithmetic makes by storing results with finitely many bits; "
         "in a difference quotient it grows as the step shrinks.", ("part1/checking-gradients.md",)),
    Term("machine epsilon", "机器精度", MACHINE_EPSILON, ("part1/checking-gradients.md",)),
    Term("gradient check", "梯度检验",
         "Comparing a derivative from the engine with a finite-difference estimate, shapes first "
         "and then values.", ("part1/checking-gradients.md",)),
    Term("numerical stability", "数值稳定性",
         "Computing a formula in an order that avoids overflow, underflow and cancellation for "
         "every input it will meet.", ("part1/extending.md",)),
    Term("log-sum-exp", "对数-求和-指数 (LogSumExp)",
         "$\\log \\sum_i e^{x_i}$, computed stably as $m + \\log \\sum_i e^{x_i - m}$ with "
         "$m = \\max_i x_i$.", ("part1/extending.md",)),
    Term("softplus", "softplus (平滑整流)",
         "$\\log(1 + e^x)$, a smooth version of $\\max(0, x)$; its derivative is the logistic "
         "sigmoid.", ("part1/extending.md",)),
    Term("logistic regression", "逻辑回归",
         "A linear model whose output passes through the sigmoid to give the probability of the "
         "positive class.", ("part1/extending.md",)),
    Term("cross-entropy", "交叉熵",
         "The loss $-\\log p_{\\text{correct class}}$, averaged over a batch of $B$ rows; with "
         "softmax its gradient with respect to the logits is $(p - \\text{one-hot label}) / B$.",
         ("part3/loss-output-tanh.md",)),
    Term("softmax", "softmax (归一化指数函数)",
         "$e^{z_i} / \\sum_j e^{z_j}$: turns a vector of logits into probabilities that sum to "
         "one.", ("part3/loss-output-tanh.md",)),
    Term("logits", "logits (未归一化对数概率)",
         "The unnormalized scores a classifier outputs before softmax.",
         ("part3/loss-output-tanh.md",)),
    Term("batch normalization", "批归一化",
         "Normalizing each feature by the mean and variance of the current batch, then scaling "
         "and shifting it with learned parameters (Ioffe and Szegedy, [\"Batch Normalization: "
         "Accelerating Deep Network Training by Reducing Internal Covariate "
         "Shift\"](https://arxiv.org/abs/1502.03167)).", ("part3/batchnorm-embedding.md",)),
    Term("embedding", "嵌入",
         "A lookup table that maps an integer token to a learned vector; its backward pass is a "
         "scatter-add.", ("part3/batchnorm-embedding.md",)),
    Term("gather", "收集",
         "Reading array elements at given indices; its VJP is a scatter-add.",
         ("part2/copies-and-gathers.md",)),
    Term("scatter-add", "散射加",
         "Adding values into an array at given indices, accumulating where indices repeat; its VJP "
         "with respect to the added values is a gather.", ("part2/copies-and-gathers.md",)),
    Term("einsum", "爱因斯坦求和", EINSUM, ("part2/matmul.md",)),
    Term("Kronecker product", "克罗内克积",
         "The block matrix $A \\otimes B$ whose $(i, j)$ block is $a_{ij} B$; the Jacobian of "
         "broadcasting a vector along a new axis is a Kronecker product of an identity and a "
         "vector of ones.", ("part2/broadcasting-jacobian.md",)),
    Term("all-reduce", "全归约",
         "A collective operation that sums (or averages) a tensor across all workers and gives "
         "every worker the result.", ("part2/broadcasting-jacobian.md",)),
    Term("learning rate", "学习率",
         "The step size that multiplies the gradient in gradient descent.",
         ("part1/extending.md",)),
    Term("chain rule", "链式法则",
         "The derivative of a composition is the product of the derivatives of its parts, each "
         "taken at its own input: $J_{f \\circ g}(x) = J_f(g(x))\\, J_g(x)$.",
         ("part1/linear-maps.md",)),
    Term("vec", "向量化算子 (vec)",
         "The operator that flattens a matrix into one long vector, so that a linear map of "
         "matrices can be written as a matrix; column-major in math texts, row-major in NumPy's "
         "default `reshape`.", ("part2/broadcasting-jacobian.md",)),
    Term("make_vjp", "make_vjp",
         "The engine function that traces $f$ at $x$ once and returns the pair `(vjp, value)`, "
         "where `vjp(u)` computes $u^\\top J$ for any cotangent $u$.", ("part1/backward-pass.md",)),
    Term("stride", "步长 (stride)",
         "The number of bytes to step in memory to reach the next element along an axis; a "
         "stride of $0$ repeats one element without copying it.", ("part2/copies-and-gathers.md",)),
    Term("recorder", "记录器",
         "`ad_core.recorder`: watches the engine from outside while it runs (as a profiler does) "
         "and records its events, for the book's tables and diagrams.", ("part1/overview.md",)),
    Term("data parallel", "数据并行",
         "Training with the batch split across workers, each holding a full model copy, with "
         "gradients combined by an all-reduce.", ("part2/broadcasting-jacobian.md",)),
    Term("reduction", "归约",
         "An operation that combines the entries of an array along some axes into fewer entries "
         "(sum, mean, max); its VJP sends the cotangent back over those axes.",
         ("part1/broadcasting-in-reverse.md",)),
    Term("transpose (of a linear map)", "转置",
         "The linear map $J^\\top$ defined by $\\langle J v, u\\rangle = \\langle v, J^\\top u\\rangle$ "
         "for all $v$ and $u$; a VJP applies the transpose of a primitive's derivative, which is in "
         "general a different function.", ("part1/vjp-rules.md",)),
    Term("metadata (of an input)", "元数据",
         "The shape, number of dimensions, dtype and complexness of a rule's target, captured in "
         "the forward pass so the backward closure can return that space without keeping the "
         "array.", ("part1/broadcasting-in-reverse.md",)),
    Term("contribution", "贡献",
         "What one VJP call sends back along one edge to a parent; the parent's cotangent is the "
         "sum of all its contributions.", ("part1/fan-out.md",)),
    Term("leading axis", "前导轴",
         "An axis at the front of a shape; broadcasting aligns shapes from the right and adds "
         "missing leading axes, which unbroadcast sums away.", ("part1/broadcasting-in-reverse.md",)),
    Term("size-1 axis", "长度为一的轴",
         "An axis of length $1$ that broadcasting stretches to the other operand's length; its "
         "cotangent is summed with keepdims, so the axis stays.",
         ("part1/broadcasting-in-reverse.md",), ("size-1 axes",)),
    Term("shape contract", "形状契约",
         "The rule that a cotangent has exactly the shape of its value; backward_pass checks it "
         "after every VJP call and names the primitive and argument whose rule broke it.",
         ("part1/backward-pass.md",)),
    Term("state snapshot", "状态快照",
         "A table recorded from the engine while it runs an example: at each step, the point of "
         "execution, the object involved, its value and its shape.",
         ("part1/broadcasting-in-reverse.md",)),
    Term("call timeline", "调用时序",
         "The ordered sequence of calls and recorder events (forward, visit, vjp, accumulate) the "
         "engine goes through for one computation.", ("part1/backward-pass.md",)),
    Term("source map", "源码映射表",
         "A table computed from the engine's code that lists, for each function a chapter reads, "
         "its file, lines, callers, callees and role.", ("part1/overview.md",)),
    Term("holomorphic function", "全纯函数",
         "A function of a complex variable that is complex-differentiable, so its derivative "
         "$f'(z)$ is a single complex number; holomorphic_grad computes it.",
         ("reference/api.md",), ("holomorphic",)),
    Term("tie (in max/min)", "并列",
         "Several entries that attain the same maximum (or minimum); there max is not "
         "differentiable, and the engine's rule shares the cotangent equally among them.",
         ("part3/loss-output-tanh.md",)),
    Term("higher-order derivative", "高阶导数",
         "A derivative of a derivative, such as the Hessian; the engine gets one by "
         "differentiating a traced gradient.", ("part1/higher-order.md",)),
    Term("shape alignment rule", "维度对齐法则",
         "The gradient of a matrix-product factor has that factor's shape and is the upstream "
         "gradient times the other factor, transposed and placed on the side that makes the inner "
         "sizes match: for $C = AB$, $\\bar A = \\bar C B^\\top$ and $\\bar B = A^\\top \\bar C$.",
         ("part2/matmul.md",)),
    Term("expand vs repeat", "视图扩展与复制", EXPAND_VS_REPEAT, ("part2/copies-and-gathers.md",),
         ("expand versus repeat",)),
    Term("minibatch", "小批量",
         "A small batch of training examples drawn at random (in Part III with replacement, as in "
         "Karpathy's lecture), used for one gradient step; the loss averages over its rows.",
         ("part3/loss-output-tanh.md",)),
    Term("Bessel's correction", "贝塞尔校正",
         "Dividing the sum of squared deviations from the sample mean by $n - 1$ instead of $n$, "
         "which makes the sample variance an unbiased estimate of the population variance.",
         ("part3/batchnorm-embedding.md",)),
    Term("one-hot", "独热编码",
         "A vector of zeros with a single one at a class's index; the cross-entropy gradient with "
         "respect to the logits is the probabilities minus the one-hot label (divided by the "
         "batch size for a batch mean).", ("part3/loss-output-tanh.md",)),
    Term("running statistics", "滑动统计量",
         "Estimates of the mean and variance that a BatchNorm layer updates as moving averages "
         "during training, for use at inference.", ("part3/batchnorm-embedding.md",),
         ("running BatchNorm statistics",)),
    Term("BatchNorm calibration", "批归一化统计量校准",
         "Computing BatchNorm's mean and variance once over the whole training set after "
         "training, so that inference no longer depends on the batch.",
         ("part3/batchnorm-embedding.md",), ("Calibrating BatchNorm",)),
    Term("context window", "上下文窗口",
         "The fixed number of preceding characters (tokens) a language model reads to predict "
         "the next one.", ("part3/batchnorm-embedding.md",), ("context",)),
    Term("intermediate tensor", "中间张量",
         "A tensor the forward pass computes between the inputs and the loss; a hand-written "
         "backward pass gives each one a gradient of its own shape.",
         ("part3/loss-output-tanh.md",)),
    Term("bit-for-bit equality", "位级一致", BIT_FOR_BIT,
         ("part1/checking-gradients.md", "part3/loss-output-tanh.md")),
    Term("label smoothing", "标签平滑",
         "Training against a target that moves a little probability from the correct class to "
         "the others, so the target row is no longer one-hot.", ("part3/loss-output-tanh.md",)),
    Term("cosine similarity", "余弦相似度",
         "$\\langle a, b\\rangle / (\\lVert a\\rVert \\lVert b\\rVert)$, the cosine of the angle "
         "between two vectors: $1$ for the same direction, $0$ for orthogonal ones.",
         ("part3/loss-output-tanh.md",)),
    Term("evaluation trace", "求值轨迹",
         "The sequence of primitive operations a program actually ran on given inputs, each "
         "writing one intermediate value.", ("part1/linear-maps.md",)),
    Term("trace level", "追踪层级",
         "The integer a differentiation's trace gets from the trace stack; nested "
         "differentiations get higher levels, and a primitive unboxes only the highest.",
         ("part1/higher-order.md",)),
    Term("seed (the output's first cotangent)", "种子",
         "The cotangent a backward pass starts from at the output: $1$ for a scalar loss in "
         "grad, any array of the output's shape in a VJP.", ("part1/backward-pass.md",)),
    Term("pass (forward or backward)", "遍",
         "One sweep over the program: a forward pass runs it (carrying tangents in forward "
         "mode); a backward pass walks the graph from the output to the inputs.",
         ("part1/linear-maps.md",)),
    Term("VJP closure", "VJP 闭包",
         "The function `vjp(g)` that a VJP rule returns at trace time, holding the forward "
         "values it needs; the backward pass calls it with the node's cotangent.",
         ("part1/vjp-rules.md",), ("closure",)),
    Term("path (in a graph)", "路径",
         "A chain of edges from one node to another; the chain rule sums over all paths, and the "
         "backward pass computes that sum with one VJP call per edge.",
         ("part1/backward-pass.md",)),
    Term("aliasing", "别名",
         "Two references to the same array buffer, so that writing through one changes what the "
         "other holds.", ("part1/fan-out.md",), ("same buffer",)),
    Term("in-place update", "原地更新",
         "Writing a result into an existing array (`a += b`) instead of creating a new one; unsafe "
         "when that array is aliased.", ("part1/fan-out.md",), ("in-place",)),
    Term("piecewise-constant function", "分段常数函数",
         "A function that is constant between jumps, such as floor, sign or argmax; its "
         "derivative is zero wherever it exists.", ("part1/tracing.md",), ("piecewise constant",)),
    Term("Kahn's algorithm", "Kahn 算法",
         "A topological sort that keeps, for each node, a count of the edges from children not "
         "yet emitted, and releases the node when that count reaches zero; toposort runs it from "
         "the output.", ("part1/backward-pass.md",)),
    # terms of softmax
    Term("log-softmax", "对数 softmax",
         "$z - \\log \\sum_k e^{z_k}$, the logarithm of the softmax computed without forming the "
         "probabilities; its VJP is $g - p \\sum_i g_i$.", ("part2/softmax.md",)),
    Term("class weight", "类别权重",
         "A per-class factor $w_c$ that scales the cross-entropy of every row whose target is $c$; "
         "the weighted mean divides by the weights of the targets, not by the batch size.",
         ("part2/softmax.md",), ("class weights",)),
    Term("ignore index", "忽略索引",
         "A label value (`ignore_index` in [PyTorch's `cross_entropy`](https://docs.pytorch.org/docs/"
         + TORCH_PIN + "/generated/torch.nn.functional.cross_entropy.html)) that marks a row as "
         "no target: it adds nothing to the loss and is not counted in the mean.",
         ("part2/softmax.md",), ("ignore_index",)),
    Term("subnormal number", "次正规数",
         "A float smaller than the smallest normal one, stored with fewer significant bits; below "
         "the smallest subnormal a result underflows to zero.", ("part2/softmax.md",), ("subnormal",)),
    Term("dual number", "对偶数",
         "A pair $a + b\\varepsilon$ with $\\varepsilon^2 = 0$; arithmetic on it carries the derivative "
         "$b$ next to the value $a$, which is forward mode in its smallest form.",
         ("part1/forward-mode.md",), ("dual numbers",)),
    # terms of normalization
    Term("layer normalization", "层归一化",
         "Normalizing each example by the mean and variance of its own features, then scaling "
         "and shifting per feature (Ba, Kiros and Hinton, [\"Layer "
         "Normalization\"](https://arxiv.org/abs/1607.06450)).", ("part3/normalization.md",),
         ("LayerNorm",)),
    Term("RMS normalization", "均方根归一化",
         "Dividing each example by the root mean square of its features, without subtracting "
         "the mean, then scaling per feature (Zhang and Sennrich, [\"Root Mean Square Layer "
         "Normalization\"](https://arxiv.org/abs/1910.07467)).", ("part3/normalization.md",),
         ("RMSNorm",)),
    Term("inference mode", "推理模式",
         "Running a network to make predictions rather than to train it; BatchNorm then uses its "
         "frozen running statistics instead of the batch's.",
         ("part3/normalization.md",), ("inference",)),
    Term("batch coupling", "批内耦合",
         "The dependence of one example's output on the other examples of its batch, through "
         "batch statistics; it shows as nonzero off-diagonal blocks of the Jacobian.",
         ("part3/normalization.md",)),
    # terms of attention
    Term("scaled dot-product attention", "缩放点积注意力",
         "$\\operatorname{softmax}(QK^\\top/\\sqrt d + M)\\,V$: each query's output is an average of "
         "the values, weighted by the softmax of its scores against the keys.",
         ("part2/attention.md",), ("attention",)),
    Term("attention weights", "注意力权重",
         "The matrix $P$ of row-wise softmax probabilities in attention; row $i$ says how much query "
         "$i$ takes from each value.", ("part2/attention.md",)),
    Term("causal mask", "因果掩码",
         "An additive mask that is $-\\infty$ where a key comes after the query, so a position "
         "attends only to itself and earlier positions; masked weights and their gradients are "
         "zero.", ("part2/attention.md",)),
    # terms of convolution
    Term("cross-correlation", "互相关",
         "$y_i = \\sum_k x_{i+k} w_k$: the kernel slid along the input without flipping; what "
         "deep-learning libraries compute under the name convolution.", ("part2/convolution.md",)),
    Term("im2col", "im2col (图像块展开)",
         "Laying every window of the input out as a row of a matrix, with an integer index: a "
         "gather that turns a convolution into one matrix product.", ("part2/convolution.md",)),
    Term("transposed convolution", "转置卷积",
         "The adjoint of a convolution: the output gradient, zero-padded, correlated with the "
         "flipped kernel; it is the input gradient of the convolution.", ("part2/convolution.md",)),
    Term("max pooling", "最大池化",
         "Each window's largest entry; its gradient goes to the window's winner (at a tie, to one "
         "winner or shared among them).", ("part2/convolution.md",), ("max-pool",)),
    Term("average pooling", "平均池化",
         "Each window's mean; its gradient is the output gradient divided by the window width, "
         "broadcast over the window.", ("part2/convolution.md",)),
    # terms of custom_gradients
    Term("stop gradient", "停止梯度",
         "A primitive that returns its argument unchanged and whose VJP and JVP are zero, so "
         "that differentiation treats its output as a constant.", ("part1/custom-gradients.md",),
         ("stop_gradient",)),
    Term("custom VJP", "自定义向量-雅可比积",
         "A rule declared for one function in place of the derivative of its body, used for "
         "numerical stability or for a gradient that is deliberately not the derivative.",
         ("part1/custom-gradients.md",)),
    Term("straight-through estimator", "直通估计器",
         "A rule that uses a non-differentiable function (rounding, a step) in the forward pass "
         "and the identity in the backward pass.", ("part1/custom-gradients.md",)),
    Term("gradient clipping", "梯度裁剪",
         "Limiting a gradient's entries (by value) or its length (by global norm) after the "
         "backward pass, or limiting the cotangent at one point of the graph with a custom VJP.",
         ("part1/custom-gradients.md",)),
    Term("subgradient", "次梯度",
         "At a kink or a tie of a convex function, any slope of a line that stays below the "
         "function; an engine returns one of them where no derivative exists.",
         ("part1/custom-gradients.md",)),
    Term("temporal-difference target", "时序差分目标",
         "The reward plus the discounted value of the next state, used as a fixed target in "
         "reinforcement learning; its gradient is stopped.", ("part1/custom-gradients.md",),
         ("temporal-difference",)),
    # terms of higher_order (why levels)
    Term("perturbation confusion", "扰动混淆",
         "The wrong nested derivative of an engine that does not tell the perturbations of two "
         "derivatives in progress apart: the outer one's tangent leaks into the inner one.",
         ("part1/higher-order.md",)),
    # terms of tape_memory
    Term("checkpointing", "梯度检查点 (重计算)",
         "Keeping only a block's inputs on the tape and recomputing the block's intermediates in "
         "the backward pass (rematerialisation): less memory kept, one more forward evaluation.",
         ("part1/tape-memory.md",), ("checkpoint", "checkpointed")),
    Term("activation", "激活值",
         "A value a layer computes in the forward pass; the tape keeps the ones its VJP closures "
         "read until the backward pass has used them.", ("part1/tape-memory.md",), ("activations",)),
    # terms of linearize_and_transpose
    Term("linearize", "线性化",
         "Running a function's JVP with the primal fixed and keeping only what it does to the "
         "tangent: a linear tangent program, evaluated once per tangent.",
         ("part1/linearize-and-transpose.md",)),
    Term("tangent program", "切向量程序",
         "The calls the JVP rules apply to the tangent at a fixed primal, each to a linear "
         "primitive with primal constants; together they compute $v \\mapsto J v$.",
         ("part1/linearize-and-transpose.md",)),
    Term("transpose rule", "转置规则",
         "For a linear primitive, the map from the cotangent of its output to the cotangent of "
         "its linear input; running a tangent program backwards through these rules gives the VJP.",
         ("part1/linearize-and-transpose.md",)),
    # terms of your_own_backward
    Term("tolerance (rtol, atol)", "容差 (相对、绝对)",
         "How far a computed value $m$ may lie from a reference $r$ and still count as equal: "
         "$|m - r| \\le \\mathrm{atol} + \\mathrm{rtol}\\,|r|$, entry by entry.",
         ("part3/your-own-backward.md", "part3/gradient-checking-at-scale.md")),
    Term("relative error", "相对误差",
         "An error divided by the size of the value it is an error of, $|m - n| / |n|$; undefined "
         "where the value is zero, which is why a per-entry check adds an absolute floor.",
         ("part3/gradient-checking-at-scale.md",)),
    # terms of from_trace_to_program
    Term("staging", "分阶段 (追踪成程序)",
         "Tracing a function once into a flat program of primitive calls, forward and backward, "
         "and running that program on every call whose arrays have the same shapes and dtypes "
         "and whose other arguments have the same values.",
         ("part4/from-trace-to-program.md",), ("staged",)),
    Term("dead-code elimination", "死代码消除",
         "Removing each call of a program whose result no output needs, directly or through later "
         "calls.", ("part4/from-trace-to-program.md",)),
    Term("common-subexpression elimination", "公共子表达式消除",
         "Replacing a call by an earlier call of the same pure function on the same arguments.",
         ("part4/from-trace-to-program.md",)),
]


def slug(english: str) -> str:
    """The anchor of a term: lowercase, parenthesized abbreviations dropped, words joined by '-'."""
    without_abbreviation = re.sub(r"\s*\([^)]*\)", "", english)
    return re.sub(r"[^a-z0-9]+", "-", without_abbreviation.lower()).strip("-")


def docs_folder() -> Path:
    """docs/ of this repository, found from this file's place in it."""
    return REPO / "docs"


def chapter_title(page: Path) -> str:
    """The page's first-level heading, so the glossary shows what the reader will see."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem


def shown_term(english: str) -> str:
    """The term as the table shows it: a digit inside a hyphenated name goes into math."""
    return re.sub(r"-(\d)\b", r"-$\1$", english)


# --8<-- [start:checks]
english_names = [term.english.lower() for term in TERMS]
anchors = [slug(term.english) for term in TERMS]
assert len(set(english_names)) == len(english_names), "a term is listed twice"
assert len(set(anchors)) == len(anchors), "two terms share an anchor"
assert all(term.chinese and term.definition.endswith(".") and term.chapters for term in TERMS)
docs = docs_folder()
missing = sorted({page for term in TERMS for page in term.chapters if not (docs / page).is_file()})
assert not missing, f"glossary links to pages that do not exist: {missing}"
# --8<-- [end:checks]

rows = []
for term, anchor in sorted(zip(TERMS, anchors, strict=True), key=lambda pair: pair[0].english.lower()):
    # The glossary lives in docs/reference/, so chapter links climb one folder.
    links = ", ".join(f"[{chapter_title(docs / page)}](../{page})" for page in term.chapters)
    rows.append([f'<span id="{anchor}"></span>**{shown_term(term.english)}**', term.chinese,
                 term.definition, links])

print("The terms are sorted by their English name.\n")
print(md_table(["Term", "中文", "Definition", "Where it is explained"], rows))
