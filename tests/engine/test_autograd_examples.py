"""HIPS/autograd's examples, ported: each runs once with autograd and once with ad_core.

Each example is written once against a `lib` namespace (`lib.np`, `lib.grad`, `lib.adam`, ...)
holding what the original imports, so the two runs differ only in where those names come from.
Sizes and iteration counts are small so the file runs in a few seconds; the results (values,
gradients, trained parameters) must agree to 1e-10. Changes from the originals: scipy is not
used (`scipy.optimize.minimize` becomes a few plain gradient steps, `autograd.scipy.special.logsumexp`
a max-shifted NumPy one), MNIST and text files become small seeded random data, and plotting is
left out. `examples/fixed_points.py` (needs `autograd.misc.fixed_points`) and `rkhs.py` (Python 2
only) are not ported; the examples built on `autograd.scipy` are in
`test_autograd_examples_scipy.py`.
"""

from __future__ import annotations

import contextlib
import io
import itertools

import numpy as np

from ._engines import AD_CORE, AUTOGRAD, assert_trees_close


def run_both(example, *args) -> None:
    assert_trees_close(example(AD_CORE, *args), example(AUTOGRAD, *args))


# --- shared model pieces, as the examples define them -----------------------------------------


def sigmoid(lib, x):
    return 0.5 * (lib.np.tanh(x) + 1.0)


def logsumexp(lib, x, axis=None, keepdims=False):
    # autograd.scipy.special.logsumexp needs scipy; this is the same function, max-shifted.
    shift = lib.np.max(x, axis=axis, keepdims=True)
    total = shift + lib.np.log(lib.np.sum(lib.np.exp(x - shift), axis=axis, keepdims=True))
    return total if keepdims else lib.np.squeeze(total, axis=axis)


def init_random_params(scale, layer_sizes, seed=0):
    rs = np.random.RandomState(seed)
    return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in itertools.pairwise(layer_sizes)]


def concat_and_multiply(lib, weights, *args):
    cat_state = lib.np.hstack((*args, lib.np.ones((args[0].shape[0], 1))))
    return lib.np.dot(cat_state, weights)


def one_hot_sequences(rng, sequence_length, num_sequences, alphabet_size):
    codes = rng.integers(0, alphabet_size, size=(sequence_length, num_sequences))
    return (codes[..., None] == np.arange(alphabet_size)).astype(float)


# --- the examples -------------------------------------------------------------------------------


def tanh_derivatives(lib):
    """examples/tanh.py: six nested elementwise_grads of a tanh written with exp."""

    def tanh(x):
        return (1.0 - lib.np.exp(-x)) / (1.0 + lib.np.exp(-x))

    x = np.linspace(-7, 7, 15)
    derivatives, fun = [tanh(x)], tanh
    for _ in range(6):
        fun = lib.elementwise_grad(fun)
        derivatives.append(fun(x))
    return derivatives


def test_tanh_example_six_nested_elementwise_derivatives() -> None:
    run_both(tanh_derivatives)


def sinusoid_derivatives(lib):
    """examples/sinusoid.py: sin and a Taylor series that stops on a data-dependent test."""

    def taylor_sine(x):
        currterm = x
        ans = currterm
        for i in range(1000):
            currterm = -currterm * x**2 / ((2 * i + 3) * (2 * i + 2))
            ans = ans + currterm
            if lib.np.abs(currterm) < 0.2:  # a branch on a traced value
                break
        return ans

    results = []
    for fun in (lib.np.sin, taylor_sine):
        d_fun = lib.grad(fun)
        dd_fun = lib.grad(d_fun)
        xs = np.linspace(-10, 10, 9)
        results.append([[fun(x), d_fun(x), dd_fun(x)] for x in xs])
    return results


def test_sinusoid_example_grad_of_grad_through_a_taylor_series() -> None:
    run_both(sinusoid_derivatives)


def rosenbrock_descent(lib):
    """examples/rosenbrock.py: value_and_grad; scipy's CG becomes 100 gradient steps."""

    def rosenbrock(x):
        return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2

    rosenbrock_with_grad = lib.value_and_grad(rosenbrock)
    x, history = np.array([0.0, 0.0]), []
    for _ in range(100):
        value, gradient = rosenbrock_with_grad(x)
        history.append((value, gradient))
        x = x - 1e-3 * gradient
    return history, x


def test_rosenbrock_example_value_and_grad_descent() -> None:
    run_both(rosenbrock_descent)


def logistic_regression(lib):
    """examples/logistic_regression.py: a tanh-sigmoid model, boolean targets, gradient steps."""
    rs = np.random.RandomState(0)
    num_weights, num_data = 5, 30
    true_weights = rs.randn(num_weights)
    inputs = rs.randn(num_data, num_weights)

    def predictions(weights, inputs):
        return sigmoid(lib, lib.np.dot(inputs, weights))

    targets = rs.rand(num_data) > predictions(true_weights, inputs)

    def training_loss(weights):
        preds = predictions(weights, inputs)
        log_lik = lib.np.sum(lib.np.log(preds) * targets) + lib.np.sum(lib.np.log(1 - preds) * (1 - targets))
        return -log_lik

    loss_with_grad = lib.value_and_grad(training_loss)
    weights, history = rs.randn(num_weights), []
    for _ in range(20):
        value, gradient = loss_with_grad(weights)
        history.append(value)
        weights = weights - 0.01 * gradient
    return history, weights


def test_logistic_regression_example_training_on_boolean_targets() -> None:
    run_both(logistic_regression)


def optimizer_convergence(lib):
    """examples/optimizer_convergence.py: adam with a callback that reports convergence."""
    rs = np.random.RandomState(1)
    inputs = rs.randn(40, 5)
    targets = rs.randint(0, 2, (40,))

    def training_loss(weights, t=None):
        preds = sigmoid(lib, lib.np.dot(inputs, weights))
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        return -lib.np.sum(lib.np.log(label_probabilities))

    converged = []

    def callback(params, t, g):
        converged.append(bool(lib.np.sum(lib.np.abs(g)) < 1e-5))
        return converged[-1]

    weights = lib.adam(lib.grad(training_loss), np.zeros(5), step_size=0.1, num_iters=60, callback=callback)
    return training_loss(weights), weights, converged


def test_optimizer_convergence_example_adam_with_a_callback() -> None:
    run_both(optimizer_convergence)


def define_gradient(lib):
    """examples/define_gradient.py: a primitive logsumexp with a hand-written VJP."""

    @lib.primitive
    def logsumexp_primitive(x):
        max_x = np.max(x)
        return max_x + np.log(np.sum(np.exp(x - max_x)))

    def logsumexp_vjp(ans, x):
        x_shape = x.shape
        return lambda g: lib.np.full(x_shape, g) * lib.np.exp(x - lib.np.full(x_shape, ans))

    lib.defvjp(logsumexp_primitive, logsumexp_vjp)

    def example_func(y):
        return lib.np.sum(logsumexp_primitive(y**2))

    y = np.random.RandomState(0).randn(10)
    lib.check_grads(example_func, modes=["rev"])(y)
    # Second order: the VJP is written with traced functions (`full` of a traced `ans` included).
    gradient_norm = lib.grad(lambda y: lib.np.sum(lib.grad(example_func)(y) ** 2))
    return lib.grad(example_func)(y), gradient_norm(y)


def test_define_gradient_example_custom_primitive_and_vjp() -> None:
    run_both(define_gradient)


def print_trace(lib):
    """examples/print_trace.py: a Node subclass that prints each primitive as it is traced."""

    def make_varname_generator():
        yield from (chr(i) for i in range(65, 91))

    class PrintNode(lib.Node):
        def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
            self.varname_generator = parents[0].varname_generator
            self.varname = next(self.varname_generator)
            args_or_vars = list(args)
            for argnum, parent in zip(parent_argnums, parents, strict=True):
                args_or_vars[argnum] = parent.varname
            print(f"{self.varname} = {fun.__name__}({','.join(map(str, args_or_vars))}) = {value}")

        def initialize_root(self, x):
            self.varname_generator = make_varname_generator()
            self.varname = next(self.varname_generator)
            print(f"{self.varname} = {x}")

    def fun(x):
        y = lib.np.sin(x + x)
        return (y + y) / 2

    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        lib.trace(PrintNode.new_root(1.23), fun, 1.23)
    return output.getvalue()


def test_print_trace_example_prints_the_same_trace() -> None:
    printed = print_trace(AD_CORE)
    assert printed == print_trace(AUTOGRAD)
    assert printed.splitlines()[0] == "A = 1.23"
    assert len(printed.splitlines()) == 5


def neural_net_training(lib):
    """examples/neural_net.py: an MLP classifier with an L2 penalty through flatten, trained by adam."""
    rs = np.random.RandomState(0)
    inputs = rs.randn(24, 6)
    targets = np.eye(3)[rs.randint(0, 3, 24)]
    batch_size, l2_reg = 8, 0.1

    def neural_net_predict(params, inputs):
        for W, b in params:
            outputs = lib.np.dot(inputs, W) + b
            inputs = lib.np.tanh(outputs)
        return outputs - logsumexp(lib, outputs, axis=1, keepdims=True)

    def l2_norm(params):
        flattened, _ = lib.flatten(params)
        return lib.np.dot(flattened, flattened)

    def objective(params, iter):
        idx = slice((iter % 3) * batch_size, (iter % 3 + 1) * batch_size)
        log_lik = lib.np.sum(neural_net_predict(params, inputs[idx]) * targets[idx])
        return l2_reg * l2_norm(params) - log_lik

    init_params = init_random_params(0.1, [6, 5, 4, 3])
    first_gradient = lib.grad(objective)(init_params, 0)
    trained = lib.adam(lib.grad(objective), init_params, step_size=0.01, num_iters=10)
    return first_gradient, trained


def test_neural_net_example_mlp_with_flatten_l2_trained_by_adam() -> None:
    run_both(neural_net_training)


def neural_net_predict_relu(lib, params, inputs):
    """The GAN's network: relu layers with batch normalization in between."""

    def relu(x):
        return lib.np.maximum(0, x)

    def batch_normalize(activations):
        mbmean = lib.np.mean(activations, axis=0, keepdims=True)
        return (activations - mbmean) / (lib.np.std(activations, axis=0, keepdims=True) + 1)

    inpW, inpb = params[0]
    inputs = relu(lib.np.dot(inputs, inpW) + inpb)
    for W, b in params[1:-1]:
        inputs = relu(batch_normalize(lib.np.dot(inputs, W) + b))
    outW, outb = params[-1]
    return lib.np.dot(inputs, outW) + outb


def generative_adversarial_net(lib):
    """examples/generative_adversarial_net.py: adam_minimax on both nets' flattened parameters."""
    noise_dim, batch_size = 3, 6
    real_images = np.random.RandomState(2).rand(12, 8)

    def logsigmoid(x):
        return x - lib.np.logaddexp(0, x)

    def gan_objective(gen_params, dsc_params, real_data, rs):
        fake_data = sigmoid(lib, neural_net_predict_relu(lib, gen_params, rs.rand(batch_size, noise_dim)))
        logprobs_fake = logsigmoid(neural_net_predict_relu(lib, dsc_params, fake_data))
        logprobs_real = logsigmoid(neural_net_predict_relu(lib, dsc_params, real_data))
        return lib.np.mean(logprobs_real) - lib.np.mean(logprobs_fake)

    seed = np.random.RandomState(0)

    def objective(gen_params, dsc_params, iter):
        idx = slice((iter % 2) * batch_size, (iter % 2 + 1) * batch_size)
        return gan_objective(gen_params, dsc_params, real_images[idx], seed)

    grad_both = lib.grad(objective, argnum=(0, 1))
    b1, b2, eps, step_size = 0.9, 0.999, 10**-8, 0.01
    x_max, unflatten_max = lib.flatten(init_random_params(0.1, [noise_dim, 5, 4, 8], seed=1))
    x_min, unflatten_min = lib.flatten(init_random_params(0.1, [8, 5, 4, 1], seed=2))
    m_max, v_max = np.zeros(len(x_max)), np.zeros(len(x_max))
    m_min, v_min = np.zeros(len(x_min)), np.zeros(len(x_min))
    for i in range(6):
        g_max_uf, g_min_uf = grad_both(unflatten_max(x_max), unflatten_min(x_min), i)
        g_max, _ = lib.flatten(g_max_uf)
        g_min, _ = lib.flatten(g_min_uf)
        m_max = (1 - b1) * g_max + b1 * m_max
        v_max = (1 - b2) * (g_max**2) + b2 * v_max
        mhat_max, vhat_max = m_max / (1 - b1 ** (i + 1)), v_max / (1 - b2 ** (i + 1))
        x_max = x_max + step_size * mhat_max / (np.sqrt(vhat_max) + eps)
        m_min = (1 - b1) * g_min + b1 * m_min
        v_min = (1 - b2) * (g_min**2) + b2 * v_min
        mhat_min, vhat_min = m_min / (1 - b1 ** (i + 1)), v_min / (1 - b2 ** (i + 1))
        x_min = x_min - step_size * mhat_min / (np.sqrt(vhat_min) + eps)
    return unflatten_max(x_max), unflatten_min(x_min)


def test_generative_adversarial_net_example_adam_minimax() -> None:
    run_both(generative_adversarial_net)


def rnn_training(lib):
    """examples/rnn.py: a character RNN with dict parameters, trained by adam."""
    rs = np.random.RandomState(0)
    input_size = output_size = 6
    state_size = 4
    params = {
        "init hiddens": rs.randn(1, state_size) * 0.1,
        "change": rs.randn(input_size + state_size + 1, state_size) * 0.1,
        "predict": rs.randn(state_size + 1, output_size) * 0.1,
    }
    train_inputs = one_hot_sequences(np.random.default_rng(3), 5, 3, input_size)

    def rnn_predict(params, inputs):
        def hiddens_to_output_probs(hiddens):
            output = concat_and_multiply(lib, params["predict"], hiddens)
            return output - logsumexp(lib, output, axis=1, keepdims=True)

        hiddens = lib.np.repeat(params["init hiddens"], inputs.shape[1], axis=0)
        output = [hiddens_to_output_probs(hiddens)]
        for input in inputs:
            hiddens = lib.np.tanh(concat_and_multiply(lib, params["change"], input, hiddens))
            output.append(hiddens_to_output_probs(hiddens))
        return output

    def training_loss(params, iter):
        logprobs = rnn_predict(params, train_inputs)
        loglik = 0.0
        num_time_steps, num_examples, _ = train_inputs.shape
        for t in range(num_time_steps):
            loglik += lib.np.sum(logprobs[t] * train_inputs[t])
        return -loglik / (num_time_steps * num_examples)

    return lib.adam(lib.grad(training_loss), params, step_size=0.1, num_iters=8)


def test_rnn_example_character_model_trained_by_adam() -> None:
    run_both(rnn_training)


def lstm_training(lib):
    """examples/lstm.py: the LSTM version, with cells and four gates."""
    rs = np.random.RandomState(0)
    input_size = output_size = 5
    state_size = 3

    def rp(*shape):
        return rs.randn(*shape) * 0.1

    params = {
        "init cells": rp(1, state_size),
        "init hiddens": rp(1, state_size),
        "change": rp(input_size + state_size + 1, state_size),
        "forget": rp(input_size + state_size + 1, state_size),
        "ingate": rp(input_size + state_size + 1, state_size),
        "outgate": rp(input_size + state_size + 1, state_size),
        "predict": rp(state_size + 1, output_size),
    }
    train_inputs = one_hot_sequences(np.random.default_rng(4), 4, 2, input_size)

    def lstm_predict(params, inputs):
        def update_lstm(input, hiddens, cells):
            change = lib.np.tanh(concat_and_multiply(lib, params["change"], input, hiddens))
            forget = sigmoid(lib, concat_and_multiply(lib, params["forget"], input, hiddens))
            ingate = sigmoid(lib, concat_and_multiply(lib, params["ingate"], input, hiddens))
            outgate = sigmoid(lib, concat_and_multiply(lib, params["outgate"], input, hiddens))
            cells = cells * forget + ingate * change
            return outgate * lib.np.tanh(cells), cells

        def hiddens_to_output_probs(hiddens):
            output = concat_and_multiply(lib, params["predict"], hiddens)
            return output - logsumexp(lib, output, axis=1, keepdims=True)

        hiddens = lib.np.repeat(params["init hiddens"], inputs.shape[1], axis=0)
        cells = lib.np.repeat(params["init cells"], inputs.shape[1], axis=0)
        output = [hiddens_to_output_probs(hiddens)]
        for input in inputs:
            hiddens, cells = update_lstm(input, hiddens, cells)
            output.append(hiddens_to_output_probs(hiddens))
        return output

    def training_loss(params, iter):
        logprobs = lstm_predict(params, train_inputs)
        num_time_steps, num_examples, _ = train_inputs.shape
        loglik = sum(lib.np.sum(logprobs[t] * train_inputs[t]) for t in range(num_time_steps))
        return -loglik / (num_time_steps * num_examples)

    trained = lib.adam(lib.grad(training_loss), params, step_size=0.1, num_iters=6)
    return lib.grad(training_loss)(params, 0), trained


def test_lstm_example_gates_and_cells_trained_by_adam() -> None:
    run_both(lstm_training)


def fluid_simulation(lib):
    """examples/fluidsim/fluidsim.py: semi-Lagrangian advection (floor, mod, fancy indexing)
    and a Gauss-Seidel projection (roll, in-place `-=` on traced arrays), differentiated with
    respect to the initial velocity field."""
    rows = cols = 6
    rs = np.random.RandomState(0)
    init_smoke = rs.rand(rows, cols)
    target = rs.rand(rows, cols)

    def project(vx, vy):
        p = lib.np.zeros(vx.shape)
        h = 1.0 / vx.shape[0]
        div = -0.5 * h * (
            lib.np.roll(vx, -1, axis=0) - lib.np.roll(vx, 1, axis=0)
            + lib.np.roll(vy, -1, axis=1) - lib.np.roll(vy, 1, axis=1)
        )
        for _ in range(10):
            p = (
                div + lib.np.roll(p, 1, axis=0) + lib.np.roll(p, -1, axis=0)
                + lib.np.roll(p, 1, axis=1) + lib.np.roll(p, -1, axis=1)
            ) / 4.0
        vx -= 0.5 * (lib.np.roll(p, -1, axis=0) - lib.np.roll(p, 1, axis=0)) / h
        vy -= 0.5 * (lib.np.roll(p, -1, axis=1) - lib.np.roll(p, 1, axis=1)) / h
        return vx, vy

    def advect(f, vx, vy):
        rows, cols = f.shape
        cell_ys, cell_xs = lib.np.meshgrid(lib.np.arange(rows), lib.np.arange(cols))
        center_xs = (cell_xs - vx).ravel()
        center_ys = (cell_ys - vy).ravel()
        left_ix = lib.np.floor(center_xs).astype(int)
        top_ix = lib.np.floor(center_ys).astype(int)
        rw = center_xs - left_ix
        bw = center_ys - top_ix
        left_ix = lib.np.mod(left_ix, rows)
        right_ix = lib.np.mod(left_ix + 1, rows)
        top_ix = lib.np.mod(top_ix, cols)
        bot_ix = lib.np.mod(top_ix + 1, cols)
        flat_f = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) + rw * (
            (1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix]
        )
        return lib.np.reshape(flat_f, (rows, cols))

    def simulate(vx, vy, smoke, num_time_steps):
        for _ in range(num_time_steps):
            vx_updated = advect(vx, vx, vy)
            vy_updated = advect(vy, vx, vy)
            vx, vy = project(vx_updated, vy_updated)
            smoke = advect(smoke, vx, vy)
        return smoke

    def objective(params):
        init_vx = lib.np.reshape(params[: rows * cols], (rows, cols))
        init_vy = lib.np.reshape(params[rows * cols :], (rows, cols))
        return lib.np.mean((target - simulate(init_vx, init_vy, init_smoke, 4)) ** 2)

    params = 0.3 * rs.randn(2 * rows * cols)
    return lib.value_and_grad(objective)(params)


def test_fluidsim_example_gradient_of_the_smoke_distance_wrt_initial_velocities() -> None:
    run_both(fluid_simulation)
