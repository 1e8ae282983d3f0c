"""An independent reference for the privacy profile of the Poisson-subsampled Gaussian, written from the
definitions in mpmath (no code shared with accountlib).

One step (add/remove-one neighbours, sensitivity 1, noise N(0, z²), sampling rate q):

* remove: P = (1 − q)N(0, z²) + qN(1, z²) against Q = N(0, z²); the loss ℓ(x) = log(dP/dQ)(x) =
  log(1 − q + q e^{(2x−1)/2z²}) is increasing, so {ℓ > t} is a half-line {x > x_t};
* add: Q against P; the loss −ℓ(x), and {−ℓ > t} = {x < x'_t}.

δ(ε) = Pr_first[loss > ε] − e^ε Pr_second[loss > ε] (the hockey-stick divergence), with Gaussian tails.
Composition by direct numerical convolution of the privacy-loss distribution: conditioning on the first step's
x, δ_T(ε) = E_{x∼first}[δ_{T−1}(ε − loss(x))] (the other T − 1 steps are the same mechanism), a one-dimensional
integral per step, done by mpmath's tanh-sinh quadrature split at the kink of the integrand.
"""

import mpmath


def _upper(t):
    return mpmath.erfc(t / mpmath.sqrt(2)) / 2


def _loss(x, q, z, direction):
    ell = mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * z * z)))
    return ell if direction == "remove" else -ell


def one_step_delta(q, z, eps, direction):
    """δ(ε) of one step of one direction, from the half-line form of {loss > ε}."""
    q, z, eps = mpmath.mpf(q), mpmath.mpf(z), mpmath.mpf(eps)
    if direction == "remove":
        t = mpmath.exp(eps) - 1 + q
        if t <= 0:  # the loss exceeds ε everywhere: δ = 1 − e^ε E_P[e^{−loss}] = 1 − e^ε
            return 1 - mpmath.exp(eps)
        x = z * z * mpmath.log(t / q) + mpmath.mpf(1) / 2
        first = (1 - q) * _upper(x / z) + q * _upper((x - 1) / z)  # P(x > x_ε)
        second = _upper(x / z)  # Q(x > x_ε)
        return first - mpmath.exp(eps) * second
    t = mpmath.exp(-eps) - 1 + q
    if t <= 0:  # the add loss never exceeds −log(1 − q)
        return mpmath.mpf(0)
    x = z * z * mpmath.log(t / q) + mpmath.mpf(1) / 2
    first = _upper(-x / z)  # Q(x < x'_ε)
    second = (1 - q) * _upper(-x / z) + q * _upper(-(x - 1) / z)  # P(x < x'_ε)
    return first - mpmath.exp(eps) * second


def _density(x, q, z, direction):
    phi0 = mpmath.npdf(x, 0, z)
    if direction == "add":
        return phi0
    return (1 - q) * phi0 + q * mpmath.npdf(x, 1, z)


def _kink(q, z, eps, direction):
    """The x where the inner one-step profile changes form (its argument reaches the end of the loss's range)."""
    if direction == "remove":  # inner argument ε − ℓ(x) reaches log(1 − q): ℓ(x) = ε − log(1 − q)
        t = mpmath.exp(eps) / (1 - q) - 1 + q
    else:  # ε + ℓ(x) reaches −log(1 − q): ℓ(x) = −log(1 − q) − ε
        t = mpmath.exp(-eps) / (1 - q) - 1 + q
    if q >= 1 or t <= 0:
        return None
    return z * z * mpmath.log(t / q) + mpmath.mpf(1) / 2


def composed_delta(groups, eps, direction, dps=40):
    """δ(ε) of the composition of ``groups`` = [(q, z), ...] (one step each, in order) in one direction, by
    direct convolution: δ_{g1..gn}(ε) = E_{x∼g1}[δ_{g2..gn}(ε − loss_{g1}(x))]. Practical for n ≤ 3."""
    with mpmath.workdps(dps):
        (q, z), rest = groups[0], groups[1:]
        q, z, eps = mpmath.mpf(q), mpmath.mpf(z), mpmath.mpf(eps)
        if not rest:
            return +one_step_delta(q, z, eps, direction)

        def integrand(x):
            return _density(x, q, z, direction) * composed_delta(rest, eps - _loss(x, q, z, direction), direction, dps)

        points = [-mpmath.inf]
        for shift in [mpmath.mpf(0), mpmath.mpf(1)]:
            points.append(shift)
        # the kinks of the inner profile (for each remaining group's end point) split the integral
        for q2, _ in rest:
            k = _kink_for_inner(q, z, q2, eps, direction, len(rest))
            if k is not None:
                points.append(k)
        points = sorted(set(points[1:]))
        points = [-mpmath.inf] + points + [mpmath.inf]
        return +mpmath.quad(integrand, points)


def _kink_for_inner(q, z, q_inner, eps, direction, remaining):
    """x at which ε − loss(x) equals the end of the inner composition's loss range (remaining·log(1 − q_inner) for
    remove, remaining·(−log(1 − q_inner)) for add), where the inner δ changes form; None if there is none."""
    q_inner = mpmath.mpf(q_inner)
    if q_inner >= 1:
        return None
    edge = remaining * mpmath.log(1 - q_inner)
    if direction == "remove":  # ε − ℓ(x) = edge  ⇔  ℓ(x) = ε − edge
        target = eps - edge
    else:  # ε + ℓ(x) = −edge  ⇔  ℓ(x) = −edge − ε
        target = -edge - eps
    t = mpmath.exp(target) - 1 + q
    if t <= 0:
        return None
    return z * z * mpmath.log(t / q) + mpmath.mpf(1) / 2


def gaussian_delta(mu, eps, dps=40):
    """δ(ε) of N(0, 1) against N(μ, 1): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8)."""
    with mpmath.workdps(dps):
        mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
        return +(mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))


def one_step_tradeoffs(q, z, alpha, dps=40):
    """(T_remove(α), T_add(α)) for one step by Neyman–Pearson: the loss is monotone in x, so the most powerful tests
    are half-lines. Remove (P against Q): reject P when x < t, α = P(x < t), β = Q(x ≥ t). Add (Q against P): reject
    Q when x > t, α = Q(x > t), β = P(x ≤ t)."""
    with mpmath.workdps(dps):
        q, z, alpha = mpmath.mpf(q), mpmath.mpf(z), mpmath.mpf(alpha)

        def p_below(t):
            return (1 - q) * mpmath.ncdf(t / z) + q * mpmath.ncdf((t - 1) / z)

        t_remove = mpmath.findroot(lambda t: p_below(t) - alpha, 0)
        remove = 1 - mpmath.ncdf(t_remove / z)
        t_add = z * mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * alpha)  # Q(x > t) = α
        add = p_below(t_add)
        return +remove, +add


def gaussian_tradeoff(mu, alpha, dps=40):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)."""
    with mpmath.workdps(dps):
        mu, alpha = mpmath.mpf(mu), mpmath.mpf(alpha)
        return +mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * alpha) - mu)
