"""Census tables read and ranked by the library, not by the census chapter (issue 13):
``census.read_variance_reduction`` and ``census.largest_delta_pairs``."""

import csv
from decimal import Decimal
from fractions import Fraction

import pytest

from accountlib.applications import census


def _write(path, rows, header=census.VARIANCE_REDUCTION_HEADER):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_read_variance_reduction_round_trips_the_writer_format(tmp_path):
    # the format variance_reduction_table writes: δ as 1e-05, c as an exact fraction, pair as k_l
    path = _write(tmp_path / "variance_reduction.csv", [
        ("1e-05", repr(20.1), "83/100", repr(0.17), "13_13", 946, repr(9.9e-06)),
        ("1e-01", repr(11.7), "131/200", repr(0.345), "6_12", 946, ""),
        ("1e-30", repr(70.0), "None", "None", "1_13", 3, ""),
    ])
    rows = census.read_variance_reduction(path)
    assert [r["delta"] for r in rows] == [1e-01, 1e-05, 1e-30]  # largest δ first, whatever the file order
    first = rows[0]
    assert first["c"] == Fraction(131, 200) and isinstance(first["c"], Fraction)
    assert first["reduction"] == 0.345 and first["pair"] == (6, 12) and first["largest_upper"] is None
    assert rows[1]["largest_upper"] == 9.9e-06 and rows[1]["pairs_checked"] == 946
    assert rows[2]["c"] is None and rows[2]["reduction"] is None and rows[2]["pairs_checked"] == 3


@pytest.mark.parametrize("rows, header, message", [
    ([], ("delta", "c"), "expected the header"),
    ([("1e-05", "20.1", "x/y", "0.17", "13_13", "946", "")], None, "line 2: malformed field"),
    ([("1e-05", "20.1", "83/100", "0.17", "13-13", "946", "")], None, "line 2: malformed field"),
    ([("1e-05", "20.1", "83/100", "0.17", "13_44", "946", "")], None, "between 1 and 43"),
    ([("1e-05", "20.1", "83/100")], None, "line 2: expected 7 fields, got 3"),
])
def test_read_variance_reduction_rejects_malformed_tables(tmp_path, rows, header, message):
    path = _write(tmp_path / "v.csv", rows, header or census.VARIANCE_REDUCTION_HEADER)
    with pytest.raises(ValueError, match=message):
        census.read_variance_reduction(path)


def test_read_variance_reduction_missing_file(tmp_path):
    with pytest.raises(ValueError, match="path: no variance-reduction table"):
        census.read_variance_reduction(tmp_path / "absent.csv")


def _curves(deltas_by_pair, grid=(0.1, 0.01, 0.001)):
    return {pair: {"delta_zcdp": [Decimal(str(x)) for x in grid], "delta": [Decimal(str(d)) for d in deltas]}
            for pair, deltas in deltas_by_pair.items()}


def test_largest_delta_pairs_ranks_at_the_nearest_level():
    curves = _curves({(1, 1): (0.05, 0.004, 0.0002), (2, 2): (0.06, 0.003, 0.0003), (3, 3): (0.04, 0.005, 0.0001)})
    assert census.largest_delta_pairs(curves, 0.1, top=2) == [(2, 2), (1, 1)]
    assert census.largest_delta_pairs(curves, 0.012, top=1) == [(3, 3)]  # nearest grid level is 0.01
    assert census.largest_delta_pairs(curves, 1e-9, top=3) == [(2, 2), (1, 1), (3, 3)]  # nearest is 0.001
    # restricted to candidates, and top larger than the candidates
    assert census.largest_delta_pairs(curves, 0.01, top=5, candidates=[(1, 1), (2, 2)]) == [(1, 1), (2, 2)]


@pytest.mark.parametrize("kwargs, message", [
    ({"level": 0.1, "top": 0}, "top: expected a positive integer"),
    ({"level": 0.1, "top": True}, "top: expected a positive integer"),
    ({"level": 1.5}, "level: expected a δ in"),
    ({"level": "x"}, "level: expected a δ in"),
    ({"level": 0.1, "candidates": [(5, 5)]}, "candidates: expected pairs present"),
])
def test_largest_delta_pairs_rejects_bad_arguments(kwargs, message):
    curves = _curves({(1, 1): (0.05, 0.004, 0.0002)})
    with pytest.raises(ValueError, match=message):
        census.largest_delta_pairs(curves, **kwargs)
    with pytest.raises(ValueError, match="curves: expected"):
        census.largest_delta_pairs({}, 0.1)


def test_read_variance_reduction_reads_the_full_sweep_table_when_present():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "results" / "dhc" / "variance_reduction.csv"
    if not path.is_file():
        pytest.skip("the full sweep's variance_reduction.csv is not present")
    rows = census.read_variance_reduction(path)
    assert rows and all(0 < r["c"] <= 1 and r["reduction"] == pytest.approx(1 - float(r["c"])) for r in rows)
    assert all(r["pairs_checked"] == 946 for r in rows)


def test_reduction_bracket_and_binding_pairs():
    """Which two table levels bracket a give-back (census.reduction_bracket), and the binding pairs."""
    rows = [{"delta": 1e-3, "reduction": 0.20, "pair": (2, 5)},
            {"delta": 1e-10, "reduction": 0.11, "pair": (13, 13)},
            {"delta": 1e-8, "reduction": None, "pair": (13, 13)},  # no give-back found: skipped
            {"delta": 1e-6, "reduction": 0.15, "pair": [2, 5]}]
    assert census.reduction_bracket(rows, Fraction(1508, 10000)) == (1e-6, 1e-3)
    assert census.reduction_bracket(rows, "0.12") == (1e-10, 1e-6)
    assert census.reduction_bracket(rows, "0.15") == (1e-10, 1e-6)  # a level equal to the target brackets it
    assert census.reduction_bracket(rows, "0.25") is None and census.reduction_bracket(rows, "0.05") is None
    assert census.binding_pairs(rows) == [(2, 5), (13, 13)]
