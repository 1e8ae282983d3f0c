"""Privacy theory on top of the engine, one job per module.

* :mod:`.composition` — the composition of discrete Gaussian mechanisms and its exact, certified curves;
  :mod:`.accounting` — the three questions asked of it: δ(ε), f(α) and the ε of a δ;
* :mod:`.targets` — (ε, δ)-DP, μ-GDP and trade-off targets as levels; :mod:`.decision` — a target decided for a
  composition; :mod:`.calibration` — the smallest noise meeting a target, and allocation;
* :mod:`.gaussian_dp` — the μ-GDP profile, trade-off function and inverse, once;
* :mod:`.mechanisms` — the mechanisms of the unifying paper by family (CGFs, RDP, ρ, the gap Γ);
  :mod:`.conversions` — RDP/zCDP → (ε, δ) and trade-off bounds; :mod:`.dpsgd_calibration` — DP-SGD's noise;
* :mod:`.dpsgd_accounting` — certified accounting of a DP-SGD run (δ(ε), ε(δ), f(α), the smallest noise
  multiplier), with :mod:`.dpsgd_arguments`, :mod:`.dpsgd_results`, :mod:`.dpsgd_tradeoff` and
  :mod:`.dpsgd_noise_calibration`;
* :mod:`.pairs` — general pairs and the information-equivalence maps; :mod:`.tradeoff_duality`,
  :mod:`.tradeoff_band` — trade-off curves from profiles and certified bands; :mod:`.edgeworth` — the lattice
  Edgeworth expansion.

``theory.profiles`` and ``theory.rdp`` re-export names from where they now live, for code written against them.
"""
