"""Applications: the 2020 Census DHC and redistricting data (:mod:`.census`), ACS-sized releases (:mod:`.acs`), and the
drop-in for dp_accounting's ``PrivacyAccountant`` (:mod:`.accountant`). Each owns its jobs and hands them to the
generic executor of :mod:`accountlib.infrastructure`. (DP-SGD's experiment and the explorers are the book's, in
``accountbook``.)
"""
