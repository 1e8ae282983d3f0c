"""Infrastructure with no privacy knowledge: numbers, input validation and the one validator of each tolerance
kind (:mod:`.numbers`), certified decimals (:mod:`.certified_numbers`), atomic files (:mod:`.atomic`) and the
generic job executor (:mod:`.executor`). The papermill chapter sweeps and the reproduction ledger live in the
book's package, ``accountbook``.
"""
