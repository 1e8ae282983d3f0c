"""Infrastructure with no privacy knowledge: numbers and input validation (:mod:`.numbers`), atomic files
(:mod:`.atomic`), the generic job executor (:mod:`.executor`), papermill sweeps of chapters
(:mod:`.notebook_sweep`) and the reproduction ledger (:mod:`.ledger`).
"""
