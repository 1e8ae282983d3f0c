"""Infrastructure with no privacy knowledge: the number policy — reading numbers exactly, one validator of each
kind of argument, certified decimals, resource limits — (:mod:`.numbers`), atomic files (:mod:`.atomic`) and the
generic job executor (:mod:`.executor`). The papermill chapter sweeps and the reproduction ledger live in the
book's package, ``accountbook``.
"""
