"""Applications: the 2020 Census DHC (:mod:`.census`), ACS-sized releases (:mod:`.acs`), DP-SGD (:mod:`.dpsgd`),
and the book's interactive explorers (:mod:`.explorers`). Each owns its jobs and hands them to the generic
executor of :mod:`accountlib.infrastructure`.
"""
