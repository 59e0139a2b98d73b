"""HIPS/autograd's examples that use `autograd.scipy`, ported: each runs with autograd and with ad_core.

As in `test_autograd_examples.py`, each example is written once against a `lib` namespace holding
what the original imports (`lib.np`, `lib.grad`, `lib.norm`, `lib.logsumexp`, `lib.odeint`, ...),
so the two runs differ only in where those names come from; values, gradients and trained
parameters must agree to 1e-10. Each example also returns a `probe` (functions and values of the
ad_core run) for at least one check that trusts neither engine: finite differences of the loss, a
closed form computed with SciPy or plain NumPy, or a property such as the loss decreasing.

Changes from the originals: data are small and seeded (no MNIST, no text files), iteration counts
are small, plotting is left out, and `scipy.optimize.minimize` (CG, Newton-CG, L-BFGS-B) becomes a
few plain gradient steps (projected onto the box where the original had bounds);
`scipy.optimize.newton` (a root finder fed with `grad`) is kept. Everything else (the models, the
objectives, the optimizers from `misc.optimizers`) is as in the originals. Ported: every example
that imports `autograd.scipy` except `neural_net.py`, `rnn.py` and `lstm.py`, which are in
`test_autograd_examples.py` (there with a NumPy logsumexp), plus `deep_gaussian_process.py` and
`bayesian_neural_net.py`, which reach `autograd.scipy` through the GP and SVI examples.
"""

from __future__ import annotations

import functools
import itertools
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.integrate
import scipy.optimize
import scipy.signal
import scipy.special
import scipy.stats

from ._engines import AD_CORE, AUTOGRAD, assert_trees_close


def run_both(example, **tolerance: float) -> SimpleNamespace:
    """Runs the example with both engines, compares the results, returns ad_core's probe."""
    ours, probe = example(AD_CORE)
    theirs, _ = example(AUTOGRAD)
    assert_trees_close(ours, theirs, **tolerance)
    return probe


def assert_matches_finite_differences(fun, x, gradient, rtol=1e-6, step=1e-5, seed=0) -> None:
    """The gradient's derivative along two random directions against central differences of `fun`."""
    rs = np.random.RandomState(seed)
    for _ in range(2):
        direction = rs.randn(*np.shape(x))
        numeric = (fun(x + step * direction) - fun(x - step * direction)) / (2 * step)
        np.testing.assert_allclose(np.sum(gradient * direction), numeric, rtol=rtol, atol=rtol)


def assert_decreasing(history) -> None:
    history = np.asarray(history, dtype=float)
    assert history[-1] < history[0], history


def make_pinwheel(radial_std, tangential_std, num_classes, num_per_class, rate, seed=0):
    """examples/data.py's pinwheel, plain NumPy."""
    rs = np.random.RandomState(seed)
    rads = np.linspace(0, 2 * np.pi, num_classes, endpoint=False)
    features = rs.randn(num_classes * num_per_class, 2) * np.array([radial_std, tangential_std])
    features[:, 0] += 1
    labels = np.repeat(np.arange(num_classes), num_per_class)
    angles = rads[labels] + rate * np.exp(features[:, 0])
    rotations = np.stack([np.cos(angles), -np.sin(angles), np.sin(angles), np.cos(angles)])
    return np.einsum("ti,tij->tj", features, np.reshape(rotations.T, (-1, 2, 2)))


def gradient_steps(value_and_grad_fun, x, num_steps, step_size):
    """What replaces `scipy.optimize.minimize` in the ports: plain gradient descent."""
    history = []
    for _ in range(num_steps):
        value, gradient = value_and_grad_fun(x)
        history.append(value)
        x = x - step_size * gradient
    return x, history


# --- examples/gaussian_process.py's GP functions, shared by four examples -----------------------


def make_gp_funs(lib, cov_func, num_cov_params):
    def unpack_kernel_params(params):
        mean = params[0]
        cov_params = params[2:]
        noise_scale = lib.np.exp(params[1]) + 0.0001
        return mean, cov_params, noise_scale

    def predict(params, x, y, xstar):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_f_f = cov_func(cov_params, xstar, xstar)
        cov_y_f = cov_func(cov_params, x, xstar)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * lib.np.eye(len(y))
        pred_mean = mean + lib.np.dot(lib.np.linalg.solve(cov_y_y, cov_y_f).T, y - mean)
        pred_cov = cov_f_f - lib.np.dot(lib.np.linalg.solve(cov_y_y, cov_y_f).T, cov_y_f)
        return pred_mean, pred_cov

    def log_marginal_likelihood(params, x, y):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * lib.np.eye(len(y))
        prior_mean = mean * lib.np.ones(len(y))
        return lib.mvn.logpdf(y, prior_mean, cov_y_y)

    return num_cov_params + 2, predict, log_marginal_likelihood


def rbf_covariance(lib):
    def rbf(kernel_params, x, xp):
        output_scale = lib.np.exp(kernel_params[0])
        lengthscales = lib.np.exp(kernel_params[1:])
        diffs = lib.np.expand_dims(x / lengthscales, 1) - lib.np.expand_dims(xp / lengthscales, 0)
        return output_scale * lib.np.exp(-0.5 * lib.np.sum(diffs**2, axis=2))

    return rbf


def plain_rbf(kernel_params, x, xp):
    lengthscales = np.exp(kernel_params[1:])
    diffs = (x / lengthscales)[:, None, :] - (xp / lengthscales)[None, :, :]
    return np.exp(kernel_params[0]) * np.exp(-0.5 * np.sum(diffs**2, axis=2))


# --- the examples -------------------------------------------------------------------------------


def gmm(lib):
    """examples/gmm.py: a Gaussian mixture's likelihood (logsumexp of multivariate_normal.logpdf)
    through flatten_func. Newton-CG becomes 12 gradient steps; its Hessian-vector product is
    still computed, at the initial parameters."""
    data = make_pinwheel(0.3, 0.05, num_classes=3, num_per_class=8, rate=0.4)
    rs = lib.npr.RandomState(0)
    num_components, D, scale = 3, 2, 0.1
    init_params = {
        "log proportions": rs.randn(num_components) * scale,
        "means": rs.randn(num_components, D) * scale,
        "lower triangles": lib.np.zeros((num_components, D, D)) + lib.np.eye(D),
    }

    def log_normalize(x):
        return x - lib.logsumexp(x)

    def unpack_gmm_params(params):
        return log_normalize(params["log proportions"]), params["means"], params["lower triangles"]

    def gmm_log_likelihood(params, data):
        cluster_lls = []
        for log_proportion, mean, cov_sqrt in zip(*unpack_gmm_params(params), strict=True):
            cov = lib.np.dot(cov_sqrt.T, cov_sqrt)
            cluster_lls.append(log_proportion + lib.mvn.logpdf(data, mean, cov))
        return lib.np.sum(lib.logsumexp(lib.np.vstack(cluster_lls), axis=0))

    def objective(params):
        return -gmm_log_likelihood(params, data)

    flattened_obj, unflatten, x0 = lib.flatten_func(objective, init_params)
    direction = lib.npr.RandomState(1).randn(len(x0))
    hvp = lib.hessian_vector_product(flattened_obj)(x0, direction)
    x, history = gradient_steps(lib.value_and_grad(flattened_obj), x0, 12, 0.01)
    probe = SimpleNamespace(
        data=data, init_params=init_params, objective=objective, flattened_obj=flattened_obj,
        x0=x0, gradient=lib.grad(flattened_obj), direction=direction, hvp=hvp, history=history,
    )
    return (hvp, history, unflatten(x)), probe


def test_gmm_example_mixture_likelihood_hessian_vector_product_and_descent() -> None:
    probe = run_both(gmm)
    # The likelihood against SciPy's multivariate normal and logsumexp.
    params = probe.init_params
    log_weights = params["log proportions"] - scipy.special.logsumexp(params["log proportions"])
    per_cluster = [
        w + scipy.stats.multivariate_normal.logpdf(probe.data, m, L.T @ L)
        for w, m, L in zip(log_weights, params["means"], params["lower triangles"], strict=True)
    ]
    expected = -np.sum(scipy.special.logsumexp(np.vstack(per_cluster), axis=0))
    np.testing.assert_allclose(probe.objective(params), expected, rtol=1e-12)
    # The gradient against differences of the loss, the HVP against differences of the gradient.
    assert_matches_finite_differences(probe.flattened_obj, probe.x0, probe.gradient(probe.x0))
    step = 1e-5
    numeric_hvp = (probe.gradient(probe.x0 + step * probe.direction)
                   - probe.gradient(probe.x0 - step * probe.direction)) / (2 * step)
    np.testing.assert_allclose(probe.hvp, numeric_hvp, rtol=1e-6, atol=1e-6)
    assert_decreasing(probe.history)


def gaussian_process(lib):
    """examples/gaussian_process.py: the log marginal likelihood (multivariate_normal.logpdf of an
    RBF kernel) and the posterior (linalg.solve); CG becomes 15 gradient steps."""
    num_params, predict, log_marginal_likelihood = make_gp_funs(lib, rbf_covariance(lib), 2)
    rs = lib.npr.RandomState(0)
    inputs = lib.np.concatenate([lib.np.linspace(0, 3, num=5), lib.np.linspace(6, 8, num=5)])
    y = (lib.np.cos(inputs) + rs.randn(10) * 0.1) / 2.0
    X = ((inputs - 4.0) / 2.0).reshape((10, 1))

    def objective(params):
        return -log_marginal_likelihood(params, X, y)

    init_params = 0.1 * lib.npr.RandomState(0).randn(num_params)
    params, history = gradient_steps(lib.value_and_grad(objective), init_params, 15, 0.05)
    plot_xs = lib.np.reshape(lib.np.linspace(-7, 7, 7), (7, 1))
    pred_mean, pred_cov = predict(params, X, y, plot_xs)
    probe = SimpleNamespace(objective=objective, init_params=init_params, X=X, y=y, history=history,
                            gradient=lib.grad(objective)(init_params))
    return (history, params, pred_mean, pred_cov), probe


def test_gaussian_process_example_marginal_likelihood_gradient_descent() -> None:
    probe = run_both(gaussian_process)
    params = probe.init_params
    cov = plain_rbf(params[2:], probe.X, probe.X) + (np.exp(params[1]) + 0.0001) * np.eye(len(probe.y))
    expected = -scipy.stats.multivariate_normal.logpdf(probe.y, params[0] * np.ones(len(probe.y)), cov)
    np.testing.assert_allclose(probe.objective(params), expected, rtol=1e-12)
    assert_matches_finite_differences(probe.objective, params, probe.gradient)
    assert_decreasing(probe.history)


def black_box_variational_inference(lib, logprob, D, num_samples):
    """examples/black_box_svi.py's builder (also used by two other examples)."""

    def unpack_params(params):
        return params[:D], params[D:]

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + lib.np.log(2 * lib.np.pi)) + lib.np.sum(log_std)

    rs = lib.npr.RandomState(0)

    def variational_objective(params, t):
        mean, log_std = unpack_params(params)
        samples = rs.randn(num_samples, D) * lib.np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + lib.np.mean(logprob(samples, t))
        return -lower_bound

    return variational_objective, lib.grad(variational_objective), unpack_params


def funnel_elbo(params):
    """The exact lower bound of examples/black_box_svi.py's problem (a normalized density, so
    the bound is at most 0) for a diagonal Gaussian: every expectation has a closed form."""
    (m_mu, m_ls), (s_mu, s_ls) = params[:2], np.exp(params[2:])
    expected_log_p = (
        -0.5 * np.log(2 * np.pi * 1.35**2) - (m_ls**2 + s_ls**2) / (2 * 1.35**2)
        - 0.5 * np.log(2 * np.pi) - m_ls - 0.5 * (m_mu**2 + s_mu**2) * np.exp(-2 * m_ls + 2 * s_ls**2)
    )
    return expected_log_p + np.log(2 * np.pi * np.e) + np.sum(params[2:])


def black_box_svi(lib):
    """examples/black_box_svi.py: reparameterized ELBO of Neal's funnel (norm.logpdf), adam."""

    def log_density(x, t):
        mu, log_sigma = x[:, 0], x[:, 1]
        return lib.norm.logpdf(log_sigma, 0, 1.35) + lib.norm.logpdf(mu, 0, lib.np.exp(log_sigma))

    objective, gradient, _ = black_box_variational_inference(lib, log_density, 2, 200)
    bounds = []

    def callback(params, t, g):
        bounds.append(-objective(params, t))

    init_var_params = lib.np.concatenate([-1 * lib.np.ones(2), -5 * lib.np.ones(2)])
    params = lib.adam(gradient, init_var_params, step_size=0.1, num_iters=30, callback=callback)
    fresh_objective, _, _ = black_box_variational_inference(lib, log_density, 2, 20000)
    probe = SimpleNamespace(init=init_var_params, trained=params, estimate=-fresh_objective(params, 0))
    return (bounds, params), probe


def test_black_box_svi_example_adam_raises_the_exact_elbo() -> None:
    probe = run_both(black_box_svi)
    assert funnel_elbo(probe.trained) > funnel_elbo(probe.init) + 5
    assert funnel_elbo(probe.trained) < 0
    # The Monte Carlo bound the example optimizes, with many samples, is near the exact one.
    np.testing.assert_allclose(probe.estimate, funnel_elbo(probe.trained), atol=0.05)


def natural_gradient_black_box_svi(lib):
    """examples/natural_gradient_black_box_svi.py: the same builder, adam on the gradient and sgd
    on the natural gradient (the gradient over the diagonal Fisher information)."""
    rs = lib.npr.RandomState(42)
    obs_dim = 3
    Y = rs.randn(obs_dim, obs_dim).dot(rs.randn(obs_dim))

    def log_density(x, t):
        mu, log_sigma = x[:, :obs_dim], x[:, obs_dim:]
        sigma_density = lib.np.sum(lib.norm.logpdf(log_sigma, 0, 1.35), axis=1)
        mu_density = lib.np.sum(lib.norm.logpdf(Y, mu, lib.np.exp(log_sigma)), axis=1)
        return sigma_density + mu_density

    D = 2 * obs_dim
    objective, gradient, unpack_params = black_box_variational_inference(lib, log_density, D, 100)

    def fisher_diag(lam):
        _, log_sigma = unpack_params(lam)
        return lib.np.concatenate([lib.np.exp(-2.0 * log_sigma), lib.np.ones(len(log_sigma)) * 2])

    def natural_gradient(lam, i):
        return (1.0 / fisher_diag(lam)) * gradient(lam, i)

    def optimize_and_lls(optfun):
        elbos = []

        def callback(params, t, g):
            elbos.append(-objective(params, t))

        init_var_params = lib.np.concatenate([-1 * lib.np.ones(D), -5 * lib.np.ones(D)])
        return optfun(20, init_var_params, callback), lib.np.array(elbos)

    standard = optimize_and_lls(lambda n, init, cb: lib.adam(gradient, init, step_size=0.1, num_iters=n,
                                                             callback=cb))
    natural = optimize_and_lls(lambda n, init, cb: lib.sgd(natural_gradient, init, step_size=0.1,
                                                           num_iters=n, callback=cb, mass=0.001))
    probe = SimpleNamespace(Y=Y, standard=standard, natural=natural)
    return (standard, natural), probe


def gaussian_model_elbo(params, Y):
    """The exact lower bound of the natural-gradient example's model for a diagonal Gaussian."""
    n = len(Y)
    m_mu, m_ls = params[:n], params[n: 2 * n]
    s_mu, s_ls = np.exp(params[2 * n: 3 * n]), np.exp(params[3 * n:])
    expected_log_p = np.sum(
        -0.5 * np.log(2 * np.pi * 1.35**2) - (m_ls**2 + s_ls**2) / (2 * 1.35**2)
        - 0.5 * np.log(2 * np.pi) - m_ls - 0.5 * ((Y - m_mu) ** 2 + s_mu**2) * np.exp(-2 * m_ls + 2 * s_ls**2)
    )
    return expected_log_p + n * np.log(2 * np.pi * np.e) + np.sum(params[2 * n:])


def test_natural_gradient_svi_example_adam_and_natural_sgd_both_raise_the_exact_elbo() -> None:
    probe = run_both(natural_gradient_black_box_svi)
    init = np.concatenate([-1 * np.ones(6), -5 * np.ones(6)])
    for params, _ in (probe.standard, probe.natural):
        assert gaussian_model_elbo(params, probe.Y) > gaussian_model_elbo(init, probe.Y) + 5
    assert probe.natural[1][-1] > probe.natural[1][0]


def mixture_variational_inference(lib):
    """examples/mixture_variational_inference.py: a mixture of diagonal Gaussians as the
    variational family (logsumexp over norm.logpdf), the discrete choice integrated out, adam."""
    D, k, num_samples = 2, 3, 20

    def log_density(x, t):
        mu, log_sigma = x[:, 0], x[:, 1]
        sigma_density = lib.norm.logpdf(log_sigma, 0, 1.35)
        mu_density = lib.norm.logpdf(mu, -0.5, lib.np.exp(log_sigma))
        sigma_density2 = lib.norm.logpdf(log_sigma, 0.1, 1.35)
        mu_density2 = lib.norm.logpdf(mu, 0.5, lib.np.exp(log_sigma))
        return lib.np.logaddexp(sigma_density + mu_density, sigma_density2 + mu_density2)

    def diag_gaussian_log_density(x, mu, log_std):
        return lib.np.sum(lib.norm.logpdf(x, mu, lib.np.exp(log_std)), axis=-1)

    def unpack_gaussian_params(params):
        D = lib.np.shape(params)[0] // 2
        return params[:D], params[D:]

    def variational_log_density_gaussian(params, x):
        mean, log_std = unpack_gaussian_params(params)
        return diag_gaussian_log_density(x, mean, log_std)

    def sample_diag_gaussian(params, num_samples, rs):
        mean, log_std = unpack_gaussian_params(params)
        return rs.randn(num_samples, lib.np.shape(mean)[0]) * lib.np.exp(log_std) + mean

    def init_gaussian_var_params(D, rs, mean_mean=-1, log_std_mean=-5, scale=0.1):
        init_mean = mean_mean * lib.np.ones(D) + rs.randn(D) * scale
        init_log_std = log_std_mean * lib.np.ones(D) + rs.randn(D) * scale
        return lib.np.concatenate([init_mean, init_log_std])

    def build_mog_bbsvi(logprob, num_samples, k, rs):
        def unpack_mixture_params(mixture_params):
            log_weights = mixture_params[:k] - lib.logsumexp(mixture_params[:k])
            return log_weights, lib.np.reshape(mixture_params[k:], (k, -1))

        def init_var_params(D, rs):
            component_weights = [init_gaussian_var_params(D, rs) for i in range(k)]
            return lib.np.concatenate([lib.np.ones(k), *component_weights])

        def mixture_log_density(var_mixture_params, x):
            log_weights, var_params = unpack_mixture_params(var_mixture_params)
            component_log_densities = lib.np.vstack(
                [variational_log_density_gaussian(params_k, x) for params_k in var_params]
            ).T
            return lib.logsumexp(component_log_densities + log_weights, axis=1, keepdims=False)

        def mixture_elbo(var_mixture_params, t):
            def mixture_lower_bound(params):
                samples = sample_diag_gaussian(params, num_samples, rs)
                log_qs = lib.np.reshape(mixture_log_density(var_mixture_params, samples), (num_samples, -1))
                log_ps = lib.np.reshape(logprob(samples, t), (num_samples, -1))
                return lib.np.mean(log_ps - log_qs)

            log_weights, var_params = unpack_mixture_params(var_mixture_params)
            component_elbos = lib.np.stack([mixture_lower_bound(params_k) for params_k in var_params])
            return lib.np.sum(component_elbos * lib.np.exp(log_weights))

        return init_var_params, mixture_elbo, mixture_log_density

    init_var_params, elbo, mixture_log_density = build_mog_bbsvi(log_density, num_samples, k,
                                                                 lib.npr.RandomState(0))

    def objective(params, t):
        return -elbo(params, t)

    init = init_var_params(D, lib.npr.RandomState(0))
    trained = lib.adam(lib.grad(objective), init, step_size=0.1, num_iters=15)
    points = lib.npr.RandomState(3).randn(5, D)

    def fixed_sample_objective(params):
        return -build_mog_bbsvi(log_density, num_samples, k, lib.npr.RandomState(7))[1](params, 0)

    probe = SimpleNamespace(
        trained=trained, points=points, density=mixture_log_density(trained, points),
        fixed_sample_objective=fixed_sample_objective, init=init,
        gradient=lib.grad(fixed_sample_objective)(init),
    )
    return (trained, probe.density, probe.gradient), probe


def test_mixture_variational_inference_example_mixture_density_and_elbo_gradient() -> None:
    probe = run_both(mixture_variational_inference)
    # The mixture density against a direct sum of SciPy normal densities.
    k = 3
    weights = np.exp(probe.trained[:k]) / np.sum(np.exp(probe.trained[:k]))
    components = np.reshape(probe.trained[k:], (k, 4))
    per_component = [
        np.log(w) + np.sum(scipy.stats.norm.logpdf(probe.points, c[:2], np.exp(c[2:])), axis=1)
        for w, c in zip(weights, components, strict=True)
    ]
    expected = scipy.special.logsumexp(np.vstack(per_component), axis=0)
    np.testing.assert_allclose(probe.density, expected, rtol=1e-10)
    assert_matches_finite_differences(probe.fixed_sample_objective, probe.init, probe.gradient)


def negative_binomial_maxlike(lib):
    """examples/negative_binomial_maxlike.py: Halley's method (scipy.optimize.newton given grad and
    grad of grad) on the profile likelihood written with gammaln."""
    rs = lib.npr.RandomState(0)
    r_true, p_true = 5, 0.5
    data = rs.poisson(rs.gamma(r_true, p_true / (1 - p_true), size=200))
    assert lib.np.var(data) > lib.np.mean(data)

    def negbin_loglike(r, p, x):
        return (lib.gammaln(r + x) - lib.gammaln(r) - lib.gammaln(x + 1) + x * lib.np.log(p)
                + r * lib.np.log(1 - p))

    def loglike(r, p):
        return lib.np.sum(negbin_loglike(r, p, data))

    def p_of(r):
        return lib.np.sum(data) / lib.np.sum(r + data)

    def rprime(r):
        return lib.grad(loglike)(r, p_of(r))

    r = scipy.optimize.newton(rprime, 1.0, fprime=lib.grad(rprime), fprime2=lib.grad(lib.grad(rprime)))
    p = p_of(r)
    # As floats: with argnum=(0, 1) autograd returns both as 0-d arrays, ad_core one np.float64
    # (d/dr) and one 0-d array (d/dp), the same values (a type difference outside this example).
    grads = [float(g) for g in lib.grad(loglike, argnum=(0, 1))(r, p)]
    curvature = lib.grad(rprime)(r)
    probe = SimpleNamespace(data=data, r=r, p=p, grads=grads, curvature=curvature,
                            loglike_terms=negbin_loglike(r, p, data))
    return (r, p, grads, curvature), probe


def test_negative_binomial_example_halley_fit_is_a_stationary_point() -> None:
    probe = run_both(negative_binomial_maxlike)
    data, r, p = probe.data, probe.r, probe.p
    # The log likelihood is SciPy's negative binomial (with SciPy's success probability 1 - p).
    np.testing.assert_allclose(probe.loglike_terms, scipy.stats.nbinom.logpmf(data, r, 1 - p), rtol=1e-10)

    def loglike(r, p):
        return np.sum(scipy.stats.nbinom.logpmf(data, r, 1 - p))

    step = 1e-6
    numeric = [(loglike(r + step, p) - loglike(r - step, p)) / (2 * step),
               (loglike(r, p + step) - loglike(r, p - step)) / (2 * step)]
    np.testing.assert_allclose(probe.grads, numeric, rtol=1e-5, atol=1e-4)
    assert abs(probe.grads[0]) < 1e-6 and abs(probe.grads[1]) < 1e-6

    # Halley's second derivative, d/dr of dL/dr(r, p(r)), in closed form with trigamma.
    n, total = len(data), np.sum(data)
    expected_curvature = (np.sum(scipy.special.polygamma(1, r + data) - scipy.special.polygamma(1, r))
                          + (-n / (1 - p)) * (-total * n / (n * r + total) ** 2))
    np.testing.assert_allclose(probe.curvature, expected_curvature, rtol=1e-10)
    assert 2 < r < 10


def ica(lib):
    """examples/ica.py: weights, latents and noise scale under t.logpdf; CG becomes 20 gradient steps."""
    observed_dimension, latent_dimension, n_samples = 6, 2, 15

    def predict(weights, latents):
        return lib.np.dot(weights, latents).T

    def sample(weights, n_samples, noise_std, rs):
        latents = rs.randn(latent_dimension, n_samples)
        latents = lib.np.array(sorted(latents.T, key=lambda a_entry: a_entry[0])).T
        noise = rs.randn(n_samples, observed_dimension) * noise_std
        return latents, predict(weights, latents) + noise

    def logprob(weights, latents, noise_std, observed):
        preds = predict(weights, latents)
        return lib.np.sum(lib.t.logpdf(preds, 2.4, observed, noise_std))

    num_weights = observed_dimension * latent_dimension
    num_latent_params = latent_dimension * n_samples

    def unpack_params(params):
        weights = lib.np.reshape(params[:num_weights], (observed_dimension, latent_dimension))
        latents = lib.np.reshape(params[num_weights: num_weights + num_latent_params],
                                 (latent_dimension, n_samples))
        return weights, latents, lib.np.exp(params[-1])

    true_weights = lib.np.zeros((observed_dimension, latent_dimension))
    for i in range(latent_dimension):
        true_weights[:, i] = lib.np.sin(lib.np.linspace(0, 4 + i * 3.2, observed_dimension))
    _, data = sample(true_weights, n_samples, 1.0, lib.npr.RandomState(0))

    def objective(params):
        weight_matrix, latents, noise_std = unpack_params(params)
        return -logprob(weight_matrix, latents, noise_std, data) / n_samples

    init_params = lib.npr.RandomState(0).randn(num_weights + num_latent_params + 1)
    params, history = gradient_steps(lib.value_and_grad(objective), init_params, 20, 0.01)
    probe = SimpleNamespace(objective=objective, init=init_params, data=data, history=history,
                            gradient=lib.grad(objective)(init_params), sizes=(num_weights, n_samples))
    return (history, params), probe


def test_ica_example_student_t_likelihood_gradient_descent() -> None:
    probe = run_both(ica)
    num_weights, n_samples = probe.sizes
    weights = probe.init[:num_weights].reshape((6, 2))
    latents = probe.init[num_weights:-1].reshape((2, n_samples))
    preds = (weights @ latents).T
    expected = -np.sum(scipy.stats.t.logpdf(preds, 2.4, probe.data, np.exp(probe.init[-1]))) / n_samples
    np.testing.assert_allclose(probe.objective(probe.init), expected, rtol=1e-12)
    assert_matches_finite_differences(probe.objective, probe.init, probe.gradient)
    assert_decreasing(probe.history)


def hmm_em(lib):
    """examples/hmm_em.py: EM for an HMM, the E step being the gradient of the log partition
    function (a logsumexp forward recursion) with respect to the log parameters."""

    def normalize(a):
        def replace_zeros(a):
            return lib.np.where(a > 0.0, a, 1.0)

        return a / replace_zeros(a.sum(-1, keepdims=True))

    def log_partition_function(natural_params, data):
        if isinstance(data, list):
            return sum(map(functools.partial(log_partition_function, natural_params), data))
        log_pi, log_A, log_B = natural_params
        log_alpha = log_pi
        for y in data:
            log_alpha = lib.logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, y]
        return lib.logsumexp(log_alpha)

    loglikes = []

    def EM(init_params, data):
        def EM_update(params):
            natural_params = list(map(lib.np.log, params))
            loglike, E_stats = lib.value_and_grad(log_partition_function)(natural_params, data)
            loglikes.append(loglike)
            return list(map(normalize, E_stats))

        def different(params1, params2):
            allclose = functools.partial(lib.np.allclose, atol=1e-3, rtol=1e-3)
            return not all(map(allclose, params1, params2))

        def fixed_point(f, x0):
            x1 = f(x0)
            while different(x0, x1):
                x0, x1 = x1, f(x1)
            return x1

        return fixed_point(EM_update, init_params)

    rs = lib.npr.RandomState(0)
    num_states, num_outputs = 3, 4
    init_params = [normalize(rs.rand(num_states)), normalize(rs.rand(num_states, num_states)),
                   normalize(rs.rand(num_states, num_outputs))]
    data = [rs.randint(0, num_outputs, size=length) for length in (5, 4, 6)]
    E_stats = lib.grad(log_partition_function)(list(map(lib.np.log, init_params)), data)
    fitted = EM(init_params, data)
    probe = SimpleNamespace(init=init_params, data=data, E_stats=E_stats, loglikes=loglikes,
                            log_partition=log_partition_function)
    return (E_stats, fitted, loglikes), probe


# EM drives some probabilities to exactly 0, whose log is -inf; the original silences this with
# np.seterr(divide="ignore").
@pytest.mark.filterwarnings("ignore:divide by zero encountered in log:RuntimeWarning")
def test_hmm_em_example_expected_counts_and_monotone_em() -> None:
    probe = run_both(hmm_em)
    pi, A, B = probe.init
    # The forward recursion against a sum over every hidden path: the initial state, then for
    # each symbol a transition and an emission from the new state.
    total = 0.0
    for sequence in probe.data:
        likelihood = 0.0
        for path in itertools.product(range(3), repeat=len(sequence) + 1):
            prob = pi[path[0]]
            for step, symbol in enumerate(sequence):
                prob *= A[path[step], path[step + 1]] * B[path[step + 1], symbol]
            likelihood += prob
        total += np.log(likelihood)
    np.testing.assert_allclose(probe.log_partition(list(map(np.log, probe.init)), probe.data), total,
                               rtol=1e-12)
    # Expected counts: one initial state per sequence, one transition and emission per symbol.
    lengths = sum(len(sequence) for sequence in probe.data)
    np.testing.assert_allclose([np.sum(s) for s in probe.E_stats], [len(probe.data), lengths, lengths],
                               rtol=1e-12)
    # EM never lowers the likelihood.
    assert np.all(np.diff(probe.loglikes) > -1e-10)
    assert len(probe.loglikes) > 2


def ode_net(lib):
    """examples/ode_net.py: a neural ODE (odeint with args wrapped in builtins.tuple, rtol=0.01)
    fitted by adam to a damped cubic oscillator's trajectory under an L1 loss."""
    N, D, max_T = 8, 2, 1.5

    def func(y, t0, A):
        return lib.np.dot(y**3, A)

    def nn_predict(inputs, t, params):
        for W, b in params:
            outputs = lib.np.dot(inputs, W) + b
            inputs = lib.np.maximum(0, outputs)
        return outputs

    rs = lib.npr.RandomState(0)
    init_params = [(rs.randn(insize, outsize) * 0.1, rs.randn(outsize) * 0.1)
                   for insize, outsize in itertools.pairwise([D, 10, D])]

    def ode_pred(params, y0, t, rtol=0.01):
        return lib.odeint(nn_predict, y0, t, lib.tuple((params,)), rtol=rtol)

    def L1_loss(pred, targets):
        return lib.np.mean(lib.np.abs(pred - targets))

    true_y0 = lib.np.array([2.0, 0.0]).T
    t = lib.np.linspace(0.0, max_T, N)
    true_A = lib.np.array([[-0.1, 2.0], [-2.0, -0.1]])
    true_y = lib.odeint(func, true_y0, t, args=(true_A,))

    def train_loss(params, iter):
        return L1_loss(ode_pred(params, true_y0, t), true_y)

    losses = []

    def callback(params, iter, g):
        losses.append(train_loss(params, iter))

    trained = lib.adam(lib.grad(train_loss), init_params, step_size=0.02, num_iters=6, callback=callback)

    def tight_loss(flat_params, unflatten):
        return lib.np.sum(ode_pred(unflatten(flat_params), true_y0, t, rtol=1e-10) ** 2)

    probe = SimpleNamespace(true_y=true_y, true_y0=true_y0, t=t, true_A=true_A, losses=losses,
                            final_loss=train_loss(trained, 0), init=init_params, tight_loss=tight_loss,
                            grad=lib.grad, flatten=lib.flatten)
    return (true_y, losses, trained), probe


def test_ode_net_example_neural_ode_fitted_by_adam() -> None:
    # The two engines run the same adjoint algorithm through the same LSODA calls, and agree to 1e-10.
    probe = run_both(ode_net)
    expected = scipy.integrate.odeint(lambda y, t: (y**3) @ probe.true_A, probe.true_y0, probe.t)
    np.testing.assert_allclose(probe.true_y, expected, rtol=1e-12)
    assert probe.final_loss < probe.losses[0]
    # At a tight solver tolerance, the adjoint gradient of the network's trajectory (in both y0
    # and the weights) against differences of the solution.
    flat, unflatten = probe.flatten(probe.init)
    gradient = probe.grad(probe.tight_loss)(flat, unflatten)
    assert_matches_finite_differences(lambda x: probe.tight_loss(x, unflatten), flat, gradient, rtol=1e-5)


def deep_gaussian_process(lib):
    """examples/deep_gaussian_process.py: two stacked GPs with the hidden values as parameters;
    CG becomes 10 gradient steps; then the end-to-end prediction."""
    n_data, input_dimension, hidden_dimension = 8, 1, 1
    rs = lib.npr.RandomState(0)
    inputs = lib.np.linspace(-2, 2, num=n_data)
    y = lib.np.sign(inputs) + rs.randn(n_data) * 0.1
    X = inputs.reshape((n_data, input_dimension))
    rbf = rbf_covariance(lib)
    num_params_layer1, predict_layer1, log_marginal_likelihood_layer1 = make_gp_funs(
        lib, rbf, input_dimension + 1)
    num_params_layer2, predict_layer2, log_marginal_likelihood_layer2 = make_gp_funs(
        lib, rbf, hidden_dimension + 1)
    total_num_params = num_params_layer1 + num_params_layer2 + hidden_dimension * n_data

    def unpack_all_params(all_params):
        layer1_params = all_params[:num_params_layer1]
        layer2_params = all_params[num_params_layer1: num_params_layer1 + num_params_layer2]
        return layer1_params, layer2_params, all_params[num_params_layer1 + num_params_layer2:]

    def combined_predict_fun(all_params, X, y, xs):
        layer1_params, layer2_params, hiddens = unpack_all_params(all_params)
        h_star_mean, _ = predict_layer1(layer1_params, X, hiddens, xs)
        return predict_layer2(layer2_params, lib.np.atleast_2d(hiddens).T, y,
                              lib.np.atleast_2d(h_star_mean).T)

    def log_marginal_likelihood(all_params):
        layer1_params, layer2_params, h = unpack_all_params(all_params)
        return (log_marginal_likelihood_layer1(layer1_params, X, h)
                + log_marginal_likelihood_layer2(layer2_params, lib.np.atleast_2d(h).T, y))

    def objective(params):
        return -log_marginal_likelihood(params)

    init_params = 0.1 * lib.npr.RandomState(0).randn(total_num_params)
    params, history = gradient_steps(lib.value_and_grad(objective), init_params, 10, 0.01)
    prediction = combined_predict_fun(params, X, y, lib.np.reshape(lib.np.linspace(-5, 5, 6), (6, 1)))
    probe = SimpleNamespace(objective=objective, init=init_params, history=history,
                            gradient=lib.grad(objective)(init_params))
    return (history, params, prediction), probe


def test_deep_gaussian_process_example_stacked_gp_likelihood_descent() -> None:
    probe = run_both(deep_gaussian_process)
    assert_matches_finite_differences(probe.objective, probe.init, probe.gradient)
    assert_decreasing(probe.history)


def gplvm(lib):
    """examples/gplvm.py: a GP latent-variable model (one GP per data dimension plus a norm.logpdf
    prior on the latents); CG becomes 10 gradient steps."""
    data_dimension = latent_dimension = 2
    params_per_gp, _, log_marginal_likelihood = make_gp_funs(lib, rbf_covariance(lib),
                                                                   latent_dimension + 1)
    total_gp_params = data_dimension * params_per_gp
    data = make_pinwheel(0.3, 0.05, num_classes=3, num_per_class=4, rate=0.4)
    datalen = data.shape[0]

    def unpack_params(params):
        gp_params = lib.np.reshape(params[:total_gp_params], (data_dimension, params_per_gp))
        latents = lib.np.reshape(params[total_gp_params:], (datalen, latent_dimension))
        return gp_params, latents

    def objective(params):
        gp_params, latents = unpack_params(params)
        gp_likelihood = sum(
            [log_marginal_likelihood(gp_params[i], latents, data[:, i]) for i in range(data_dimension)]
        )
        latent_prior_likelihood = lib.np.sum(lib.norm.logpdf(latents))
        return -gp_likelihood - latent_prior_likelihood

    init_params = lib.npr.RandomState(1).randn(total_gp_params + datalen * latent_dimension) * 0.1
    params, history = gradient_steps(lib.value_and_grad(objective), init_params, 10, 0.01)
    probe = SimpleNamespace(objective=objective, init=init_params, history=history, data=data,
                            sizes=(params_per_gp, total_gp_params), gradient=lib.grad(objective)(init_params))
    return (history, params), probe


def test_gplvm_example_latents_and_kernels_by_gradient_descent() -> None:
    probe = run_both(gplvm)
    params_per_gp, total_gp_params = probe.sizes
    gp_params = probe.init[:total_gp_params].reshape((2, params_per_gp))
    latents = probe.init[total_gp_params:].reshape((-1, 2))
    expected = -np.sum(scipy.stats.norm.logpdf(latents))
    for i in range(2):
        mean, noise = gp_params[i][0], np.exp(gp_params[i][1]) + 0.0001
        cov = plain_rbf(gp_params[i][2:], latents, latents) + noise * np.eye(len(latents))
        prior_mean = mean * np.ones(len(latents))
        expected -= scipy.stats.multivariate_normal.logpdf(probe.data[:, i], prior_mean, cov)
    np.testing.assert_allclose(probe.objective(probe.init), expected, rtol=1e-12)
    assert_matches_finite_differences(probe.objective, probe.init, probe.gradient)
    assert_decreasing(probe.history)


def bayesian_optimization(lib):
    """examples/bayesian_optimization.py: a GP surrogate and an acquisition function written with
    norm.cdf and norm.pdf, maximized by gradient. CG (for the GP's parameters) becomes 5 gradient
    steps, and L-BFGS-B within the box becomes 5 gradient steps clipped to the box; 3 rounds."""

    def expected_new_max(mean, std, max_so_far):
        return (max_so_far - (mean - max_so_far) * lib.norm.cdf(mean, max_so_far, std)
                + std * lib.norm.pdf(mean, max_so_far, std))

    def defaultmax(x, default=-lib.np.inf):
        return default if x.size == 0 else lib.np.max(x)

    def func(x):
        return lib.np.sum(x * lib.np.sin(10.0 * x) + x) - 1

    domain_min, domain_max = lib.np.array([0.0]), lib.np.array([1.1])
    D = len(domain_min)
    num_params, predict, log_marginal_likelihood = make_gp_funs(lib, rbf_covariance(lib), D + 1)
    model_params = lib.np.zeros(num_params)

    def optimize_gp_params(init_params, X, y):
        def log_hyperprior(params):
            return lib.np.sum(lib.norm.logpdf(params, 0.0, 100.0))

        def objective(params):
            return -log_marginal_likelihood(params, X, y) - log_hyperprior(params)

        return gradient_steps(lib.value_and_grad(objective), init_params, 5, 0.01)[0]

    def choose_next_point(acquisition_function, rs, num_tries=3):
        init_points = rs.rand(num_tries, D) * (domain_max - domain_min) + domain_min
        grad_obj = lib.value_and_grad(lambda x: -acquisition_function(x))

        def optimize_point(point):
            for _ in range(5):
                point = lib.np.clip(point - 0.05 * grad_obj(point)[1], domain_min, domain_max)
            return point, acquisition_function(point)

        optimized_points, optimized_values = list(zip(*list(map(optimize_point, init_points)), strict=True))
        return lib.np.atleast_2d(optimized_points[int(lib.np.argmax(optimized_values))])

    X = lib.np.reshape((domain_max - domain_min) / 2.0, (D, 1))
    y = lib.np.reshape(lib.np.array(func(X)), (1,))
    rs = lib.npr.RandomState(0)
    acquisitions = []
    for i in range(3):
        if i > 1:
            model_params = optimize_gp_params(model_params, X, y)

        def acquisition_function(xstar, model_params=model_params, X=X, y=y):
            xstar = lib.np.atleast_2d(xstar)
            mean, cov = predict(model_params, X, y, xstar)
            return expected_new_max(mean, lib.np.sqrt(lib.np.diag(cov)), defaultmax(y))

        next_point = choose_next_point(acquisition_function, rs)
        probe_point = lib.np.array([0.37])
        acquisitions.append((acquisition_function(probe_point), lib.grad(acquisition_function)(probe_point)))
        X = lib.np.concatenate((X, next_point))
        y = lib.np.concatenate((y, lib.np.reshape(lib.np.array(func(next_point)), (1,))))

    probe = SimpleNamespace(X=X, y=y, model_params=model_params, acquisition=acquisition_function,
                            acquisitions=acquisitions, probe_point=probe_point, predict=predict)
    return (X, y, model_params, acquisitions), probe


def test_bayesian_optimization_example_acquisition_gradients_and_queries() -> None:
    probe = run_both(bayesian_optimization)
    assert np.all((probe.X >= 0.0) & (probe.X <= 1.1))
    np.testing.assert_allclose(probe.y, np.sum(probe.X * np.sin(10.0 * probe.X) + probe.X, axis=1) - 1,
                               rtol=1e-12)
    # The last acquisition function (the original's formula), against SciPy's normal...
    X, y = probe.X[:-1], probe.y[:-1]
    mean, cov = probe.predict(probe.model_params, X, y, np.atleast_2d(probe.probe_point))
    std, best = np.sqrt(np.diag(cov)), np.max(y)
    expected = best - (mean - best) * scipy.stats.norm.cdf(mean, best, std) + std * scipy.stats.norm.pdf(
        mean, best, std)
    value, gradient = probe.acquisitions[-1]
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    # ... and its gradient (with respect to the query point) against finite differences.
    assert_matches_finite_differences(lambda x: probe.acquisition(x)[0], probe.probe_point, gradient)


def convnet(lib):
    """examples/convnet.py: LeNet-style layers (signal.convolve with axes and dot_axes, a max-pool
    by reshape and max, tanh and log-softmax layers) on a flat weight vector; momentum SGD on
    random 10x10 images in place of MNIST."""

    class WeightsParser:
        def __init__(self):
            self.idxs_and_shapes = {}
            self.N = 0

        def add_weights(self, name, shape):
            start = self.N
            self.N += lib.np.prod(shape)
            self.idxs_and_shapes[name] = (slice(start, self.N), shape)

        def get(self, vect, name):
            idxs, shape = self.idxs_and_shapes[name]
            return lib.np.reshape(vect[idxs], shape)

    def logsumexp(X, axis, keepdims=False):
        max_X = lib.np.max(X)
        return max_X + lib.np.log(lib.np.sum(lib.np.exp(X - max_X), axis=axis, keepdims=keepdims))

    class conv_layer:
        def __init__(self, kernel_shape, num_filters):
            self.kernel_shape = kernel_shape
            self.num_filters = num_filters

        def forward_pass(self, inputs, param_vector):
            params = self.parser.get(param_vector, "params")
            biases = self.parser.get(param_vector, "biases")
            conv = lib.convolve(inputs, params, axes=([2, 3], [2, 3]), dot_axes=([1], [0]), mode="valid")
            return conv + biases

        def build_weights_dict(self, input_shape):
            self.parser = WeightsParser()
            self.parser.add_weights("params", (input_shape[0], self.num_filters, *self.kernel_shape))
            self.parser.add_weights("biases", (1, self.num_filters, 1, 1))
            output_shape = (self.num_filters, *self.conv_output_shape(input_shape[1:], self.kernel_shape))
            return self.parser.N, output_shape

        def conv_output_shape(self, A, B):
            return (A[0] - B[0] + 1, A[1] - B[1] + 1)

    class maxpool_layer:
        def __init__(self, pool_shape):
            self.pool_shape = pool_shape

        def build_weights_dict(self, input_shape):
            output_shape = list(input_shape)
            for i in [0, 1]:
                assert input_shape[i + 1] % self.pool_shape[i] == 0
                output_shape[i + 1] = input_shape[i + 1] / self.pool_shape[i]
            return 0, output_shape

        def forward_pass(self, inputs, param_vector):
            new_shape = inputs.shape[:2]
            for i in [0, 1]:
                pool_width = self.pool_shape[i]
                new_shape += (inputs.shape[i + 2] // pool_width, pool_width)
            return lib.np.max(lib.np.max(inputs.reshape(new_shape), axis=3), axis=4)

    class full_layer:
        def __init__(self, size):
            self.size = size

        def build_weights_dict(self, input_shape):
            self.parser = WeightsParser()
            input_size = lib.np.prod(input_shape, dtype=int)
            self.parser.add_weights("params", (input_size, self.size))
            self.parser.add_weights("biases", (self.size,))
            return self.parser.N, (self.size,)

        def forward_pass(self, inputs, param_vector):
            params = self.parser.get(param_vector, "params")
            biases = self.parser.get(param_vector, "biases")
            if inputs.ndim > 2:
                inputs = inputs.reshape((inputs.shape[0], lib.np.prod(inputs.shape[1:])))
            return self.nonlinearity(lib.np.dot(inputs[:, :], params) + biases)

    class tanh_layer(full_layer):
        def nonlinearity(self, x):
            return lib.np.tanh(x)

    class softmax_layer(full_layer):
        def nonlinearity(self, x):
            return x - logsumexp(x, axis=1, keepdims=True)

    L2_reg = 1.0
    layer_specs = [conv_layer((3, 3), 2), maxpool_layer((2, 2)), conv_layer((3, 3), 3),
                   maxpool_layer((2, 2)), tanh_layer(6), softmax_layer(3)]
    parser, cur_shape = WeightsParser(), (1, 10, 10)
    for layer in layer_specs:
        N_weights, cur_shape = layer.build_weights_dict(cur_shape)
        parser.add_weights(layer, (N_weights,))

    def predictions(W_vect, inputs):
        cur_units = inputs
        for layer in layer_specs:
            cur_units = layer.forward_pass(cur_units, parser.get(W_vect, layer))
        return cur_units

    def loss(W_vect, X, T):
        log_prior = -L2_reg * lib.np.dot(W_vect, W_vect)
        return -log_prior - lib.np.sum(predictions(W_vect, X) * T)

    rs = lib.npr.RandomState(0)
    images = rs.rand(8, 1, 10, 10)
    labels = lib.np.eye(3)[rs.randint(0, 3, 8)]
    W = rs.randn(parser.N) * 0.1
    first = conv_layer((3, 3), 2)
    first.build_weights_dict((1, 10, 10))
    first_output = first.forward_pass(images, W[: first.parser.N])
    loss_grad = lib.grad(loss)
    W0, losses, cur_dir = W.copy(), [], lib.np.zeros(parser.N)
    for batch in (slice(0, 4), slice(4, 8)) * 3:
        losses.append(loss(W, images, labels))
        cur_dir = 0.9 * cur_dir + 0.1 * loss_grad(W, images[batch], labels[batch])
        W = W - 0.05 * cur_dir
    losses.append(loss(W, images, labels))
    probe = SimpleNamespace(
        loss=lambda w: loss(w, images, labels), W0=W0, gradient=loss_grad(W0, images, labels), losses=losses,
        images=images, first_output=first_output, first_weights=W0[: first.parser.N],
    )
    return (probe.gradient, first_output, losses, W), probe


def test_convnet_example_convolve_maxpool_gradient_and_momentum_sgd() -> None:
    probe = run_both(convnet)
    # The convolution layer against SciPy's 2-D convolution, one image and filter pair at a time.
    kernels = probe.first_weights[:18].reshape((1, 2, 3, 3))
    biases = probe.first_weights[18:20]
    for n in range(len(probe.images)):
        for out in range(2):
            expected = scipy.signal.convolve2d(probe.images[n, 0], kernels[0, out], mode="valid")
            expected += biases[out]
            np.testing.assert_allclose(probe.first_output[n, out], expected, rtol=1e-12, atol=1e-15)
    assert_matches_finite_differences(probe.loss, probe.W0, probe.gradient)
    assert_decreasing(probe.losses)


def variational_autoencoder(lib):
    """examples/variational_autoencoder.py: the VAE's Monte Carlo bound (norm.logpdf, expit for the
    samples) with batch-normalized relu nets, adam on a (generator, recognizer) tuple of lists;
    random +-1 'images' of 6 pixels in place of MNIST."""

    def diag_gaussian_log_density(x, mu, log_std):
        return lib.np.sum(lib.norm.logpdf(x, mu, lib.np.exp(log_std)), axis=-1)

    def unpack_gaussian_params(params):
        D = lib.np.shape(params)[-1] // 2
        return params[:, :D], params[:, D:]

    def sample_diag_gaussian(mean, log_std, rs):
        return rs.randn(*mean.shape) * lib.np.exp(log_std) + mean

    def bernoulli_log_density(targets, unnormalized_logprobs):
        return lib.np.sum(-lib.np.logaddexp(0, -unnormalized_logprobs * targets), axis=-1)

    def batch_normalize(activations):
        mbmean = lib.np.mean(activations, axis=0, keepdims=True)
        return (activations - mbmean) / (lib.np.std(activations, axis=0, keepdims=True) + 1)

    def neural_net_predict(params, inputs):
        for W, b in params[:-1]:
            inputs = lib.np.maximum(0, batch_normalize(lib.np.dot(inputs, W) + b))
        outW, outb = params[-1]
        return lib.np.dot(inputs, outW) + outb

    def vae_lower_bound(gen_params, rec_params, data, rs):
        q_means, q_log_stds = unpack_gaussian_params(neural_net_predict(rec_params, data))
        latents = sample_diag_gaussian(q_means, q_log_stds, rs)
        q_latents = diag_gaussian_log_density(latents, q_means, q_log_stds)
        p_latents = diag_gaussian_log_density(latents, 0, 0)
        likelihood = bernoulli_log_density(data, neural_net_predict(gen_params, latents))
        return lib.np.mean(p_latents + likelihood - q_latents)

    latent_dim, data_dim, batch_size = 2, 6, 5
    rs = lib.npr.RandomState(0)

    def init_net_params(scale, layer_sizes):
        return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in itertools.pairwise(layer_sizes)]

    init_gen_params = init_net_params(0.1, [latent_dim, 4, data_dim])
    init_rec_params = init_net_params(0.1, [data_dim, 4, latent_dim * 2])
    combined_init_params = (init_gen_params, init_rec_params)
    train_images = lib.np.where(rs.rand(10, data_dim) > 0.5, 1.0, -1.0)
    seed = lib.npr.RandomState(0)

    def objective(combined_params, iter, rs=seed):
        idx = slice((iter % 2) * batch_size, (iter % 2 + 1) * batch_size)
        gen_params, rec_params = combined_params
        return -vae_lower_bound(gen_params, rec_params, train_images[idx], rs) / data_dim

    trained = lib.adam(lib.grad(objective), combined_init_params, step_size=0.05, num_iters=8)
    samples = lib.expit(neural_net_predict(trained[0], seed.randn(4, latent_dim)))
    flat, unflatten = lib.flatten(combined_init_params)

    def fixed_sample_objective(flat_params):
        return objective(unflatten(flat_params), 0, rs=lib.npr.RandomState(5))

    probe = SimpleNamespace(samples=samples, fixed_sample_objective=fixed_sample_objective, flat=flat,
                            gradient=lib.grad(fixed_sample_objective)(flat))
    return (trained, samples, probe.gradient), probe


def test_variational_autoencoder_example_bound_gradient_and_adam_on_nested_params() -> None:
    probe = run_both(variational_autoencoder)
    assert_matches_finite_differences(probe.fixed_sample_objective, probe.flat, probe.gradient)
    assert np.all((probe.samples > 0) & (probe.samples < 1))


def bayesian_neural_net(lib):
    """examples/bayesian_neural_net.py: black-box SVI over the weights of an RBF-activation MLP that
    is vectorized over weight samples with einsum; adam."""
    layer_sizes, L2_reg, noise_variance = [1, 4, 4, 1], 0.1, 0.01
    shapes = list(itertools.pairwise(layer_sizes))
    num_weights = sum((m + 1) * n for m, n in shapes)

    def nonlinearity(x):
        return lib.np.exp(-(x**2))

    def unpack_layers(weights):
        num_weight_sets = len(weights)
        for m, n in shapes:
            yield (weights[:, : m * n].reshape((num_weight_sets, m, n)),
                   weights[:, m * n: m * n + n].reshape((num_weight_sets, 1, n)))
            weights = weights[:, (m + 1) * n:]

    def predictions(weights, inputs):
        inputs = lib.np.expand_dims(inputs, 0)
        for W, b in unpack_layers(weights):
            outputs = lib.np.einsum("mnd,mdo->mno", inputs, W) + b
            inputs = nonlinearity(outputs)
        return outputs

    def logprob(weights, inputs, targets):
        log_prior = -L2_reg * lib.np.sum(weights**2, axis=1)
        preds = predictions(weights, inputs)
        log_lik = -lib.np.sum((preds - targets) ** 2, axis=1)[:, 0] / noise_variance
        return log_prior + log_lik

    rs = lib.npr.RandomState(0)
    raw = lib.np.concatenate([lib.np.linspace(0, 2, num=5), lib.np.linspace(6, 8, num=5)])
    targets = (lib.np.cos(raw) + rs.randn(10) * 0.1).reshape((10, 1))
    inputs = ((raw - 4.0) / 4.0).reshape((10, 1))

    def log_posterior(weights, t):
        return logprob(weights, inputs, targets)

    _, gradient, _ = black_box_variational_inference(lib, log_posterior, num_weights, 5)
    init_mean = lib.npr.RandomState(0).randn(num_weights)
    init_var_params = lib.np.concatenate([init_mean, -5 * lib.np.ones(num_weights)])
    trained = lib.adam(gradient, init_var_params, step_size=0.1, num_iters=10)

    def fixed_sample_objective(params):
        return black_box_variational_inference(lib, log_posterior, num_weights, 5)[0](params, 0)

    sample_weights = lib.npr.RandomState(1).randn(3, num_weights)
    probe = SimpleNamespace(
        fixed_sample_objective=fixed_sample_objective, init=init_var_params, inputs=inputs,
        gradient=lib.grad(fixed_sample_objective)(init_var_params), sample_weights=sample_weights,
        predictions=predictions(sample_weights, inputs), shapes=shapes, num_weights=num_weights,
    )
    return (trained, probe.gradient, probe.predictions), probe


def test_bayesian_neural_net_example_einsum_mlp_over_weight_samples_and_svi_gradient() -> None:
    probe = run_both(bayesian_neural_net)
    # The vectorized network against a loop over weight samples in plain NumPy.
    for weights, outputs in zip(probe.sample_weights, probe.predictions, strict=True):
        activations = probe.inputs
        for m, n in probe.shapes:
            W, b, weights = weights[: m * n].reshape((m, n)), weights[m * n: m * n + n], weights[(m + 1) * n:]
            layer = activations @ W + b
            activations = np.exp(-(layer**2))
        np.testing.assert_allclose(outputs, layer, rtol=1e-12)
    assert_matches_finite_differences(probe.fixed_sample_objective, probe.init, probe.gradient)


def neural_net_regression(lib):
    """examples/neural_net_regression.py: MAP regression with a tanh MLP, the likelihood and the
    prior (on the parameters flattened inside the objective) written with norm.logpdf; adam."""

    def nn_predict(params, inputs, nonlinearity=lib.np.tanh):
        for W, b in params:
            outputs = lib.np.dot(inputs, W) + b
            inputs = nonlinearity(outputs)
        return outputs

    def log_gaussian(params, scale):
        flat_params, _ = lib.flatten(params)
        return lib.np.sum(lib.norm.logpdf(flat_params, 0, scale))

    def logprob(weights, inputs, targets, noise_scale=0.1):
        return lib.np.sum(lib.norm.logpdf(nn_predict(weights, inputs), targets, noise_scale))

    rs = lib.npr.RandomState(0)
    raw = lib.np.concatenate([lib.np.linspace(0, 3, num=6), lib.np.linspace(6, 8, num=6)])
    targets = (lib.np.cos(raw) + rs.randn(12) * 0.1)[:, lib.np.newaxis] / 2.0
    inputs = ((raw - 4.0) / 2.0)[:, lib.np.newaxis]
    init_params = [(rs.randn(m, n) * 0.1, rs.randn(n) * 0.1) for m, n in itertools.pairwise([1, 4, 4, 1])]

    def objective(weights, t):
        return -logprob(weights, inputs, targets) - log_gaussian(weights, 10.0)

    first_gradient = lib.grad(objective)(init_params, 0)
    values = []

    def callback(params, t, g):
        values.append(objective(params, t))

    trained = lib.adam(lib.grad(objective), init_params, step_size=0.01, num_iters=20, callback=callback)
    flat, unflatten = lib.flatten(init_params)
    probe = SimpleNamespace(
        flat=flat, objective=lambda x: objective(unflatten(x), 0), gradient=lib.flatten(first_gradient)[0],
        values=values, inputs=inputs, targets=targets, init=init_params,
    )
    return (first_gradient, values, trained), probe


def test_neural_net_regression_example_map_objective_with_norm_logpdf_trained_by_adam() -> None:
    probe = run_both(neural_net_regression)
    activations = probe.inputs
    for W, b in probe.init:
        outputs = activations @ W + b
        activations = np.tanh(outputs)
    expected = -np.sum(scipy.stats.norm.logpdf(outputs, probe.targets, 0.1)) - np.sum(
        scipy.stats.norm.logpdf(probe.flat, 0, 10.0))
    np.testing.assert_allclose(probe.objective(probe.flat), expected, rtol=1e-12)
    assert_matches_finite_differences(probe.objective, probe.flat, probe.gradient)
    assert_decreasing(probe.values)
