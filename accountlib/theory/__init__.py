"""Privacy theory on top of the engine: curves of a pair, conversions, RDP and zCDP, the gap Γ, Edgeworth.

:mod:`.profiles` (the exact (ε, δ) and trade-off curves of a shift pair, certified through the engine),
:mod:`.pairs` (general pairs of distributions and the information-equivalence maps of the unifying paper),
:mod:`.conversions` (RDP/zCDP → (ε, δ) and trade-off bounds), :mod:`.rdp` (privacy-loss CGFs of mechanisms,
the optimal ρ and Γ), :mod:`.edgeworth` (the lattice Edgeworth expansion).
"""
