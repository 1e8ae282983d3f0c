"""The engine: certified tail probabilities P(Σ a_i X_i > t) of weighted sums of discrete Gaussians.

Sieve paper §3–4. Modules, bottom to top: :mod:`.characteristic` (φ of one discrete Gaussian, at every
precision), :mod:`.discrete_gaussian` (one noise term), :mod:`.lattice` (rational weights on an integer lattice,
Bézout), :mod:`.quadrature` (truncation and node count), :mod:`.sieve` (which nodes matter, Algorithm 1), the
arb/double-double helpers, the evaluators :mod:`.tails` (the sieve-accelerated trapezoid) and :mod:`.tilted`
(the tilted contour for deep tails), and :mod:`.front`, the one door every caller uses and the one owner of
the accuracy schedule. Beside them, DP-SGD's Poisson-subsampled Gaussian: :mod:`.subsampled_gaussian` (the step
groups, the certified results, one step in closed form), :mod:`.subsampled_gaussian_integral` (the one-step
integral) and :mod:`.subsampled_gaussian_inversion` (the composed inversion).
"""
