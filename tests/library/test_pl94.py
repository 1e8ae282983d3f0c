"""The P.L. 94-171 allocations (accountlib/data/pl94_allocations, accountlib.applications.census.pl94): every CSV
parses and is the derivation from the Bureau's factors, every path's total is the certificate's ρ exactly, the
Bureau's ε conversion reproduces the certificate's ε exactly (as the fraction it prints) and ours to its printed
digits, and bad arguments are one-line errors naming the argument."""

from __future__ import annotations

from fractions import Fraction
from importlib import resources

import pytest

from accountlib.applications import census
from accountlib.applications.census import pl94
from accountlib.theory.conversions import zcdp_epsilon, zcdp_epsilon_via_rdp
from accountlib.theory.composition import Composition

FOLDER = resources.files("accountlib") / "data" / "pl94_allocations"
ALL_PATHS = [(release, path) for release in pl94.PL94_RELEASES for path in pl94.pl94_paths(release)]


def test_every_csv_is_listed_and_parses():
    names = sorted(f.name for f in FOLDER.iterdir() if f.name.endswith(".csv"))
    expected = sorted(f"{release.replace('-', '_')}_{path}.csv" for release, path in ALL_PATHS)
    assert names == expected
    assert len(names) == 16 + 16 + 8 + 8
    for name in names:
        rows = pl94.parse_pl94_allocation((FOLDER / name).read_text(encoding="utf-8"), name)
        assert rows and all(isinstance(r, Fraction) and r > 0 for _, _, r in rows)


@pytest.mark.parametrize("release,path", ALL_PATHS)
def test_csv_is_the_derivation_and_sums_to_the_certificate(release, path):
    rows = pl94.pl94_allocation(release, path)
    assert rows == pl94.derive_pl94_allocation(release, path)
    assert sum(r for _, _, r in rows) == pl94.certificate(release)["rho"]  # exact, as Fractions


def test_counts_and_distinct_budgets():
    # (measurements on the plain path, distinct budgets among them)
    expected = {"pl94-persons": (65, 33), "pl94-units": (6, 5), "pl94-persons-pr": (54, 27), "pl94-units-pr": (5, 5)}
    for release, (count, distinct) in expected.items():
        rows = pl94.pl94_allocation(release)
        assert (len(rows), len({r for _, _, r in rows})) == (count, distinct), release
        assert len(pl94.pl94_rhos(release)) == 2 * count


def test_the_certificate_rho_is_one_over_global_scale_squared():
    assert pl94.certificate("pl94-persons")["rho"] == 1 / Fraction(339, 542) ** 2 == Fraction(293764, 114921)
    assert pl94.certificate("pl94-units")["rho"] == 1 / Fraction(12343, 3379) ** 2
    for release in pl94.PL94_RELEASES:
        c = pl94.certificate(release)
        assert f"{float(c['rho']):.2f}" == c["rho_printed"]
        assert f"{float(c['epsilon']):.2f}" == c["epsilon_printed"]
        assert c["delta"] == Fraction(1, 10**10)


@pytest.mark.parametrize("release", ["pl94-persons", "pl94-units", "pl94-units-pr"])
def test_shift_pair_rho_is_the_certificate(release):
    paths = pl94.pl94_paths(release)
    rho = pl94.certificate(release)["rho"]
    assert Composition(pl94.pl94_rhos(release)).rho == rho
    assert Composition(pl94.pl94_rhos(release, paths[0], paths[-1])).rho == rho


def test_persons_pr_pairs_sum_to_the_certificate():
    # Composition refuses the plain PR persons path (its lattice is too fine for the engine); the total still holds
    rho = pl94.certificate("pl94-persons-pr")["rho"]
    for path in pl94.pl94_paths("pl94-persons-pr"):
        assert sum(pl94.pl94_rhos("pl94-persons-pr", "plain", path)) / 2 == rho


@pytest.mark.parametrize("release", pl94.PL94_RELEASES)
def test_bureau_epsilon_reproduces_the_certificate_exactly(release):
    assert pl94.bureau_epsilon(release) == pl94.certificate(release)["epsilon"]


@pytest.mark.parametrize("release", pl94.PL94_RELEASES)
def test_our_conversion_reproduces_the_printed_epsilon(release):
    c = pl94.certificate(release)
    ours = zcdp_epsilon_via_rdp(c["rho"], float(c["delta"]))  # the same conversion (Canonne et al., Cor. 13)
    assert f"{ours:.2f}" == c["epsilon_printed"]
    assert abs(ours - float(c["epsilon"])) < 1e-6
    # the classical ρ + 2√(ρ log 1/δ) is not what the Bureau printed for P.L. 94-171
    assert f"{zcdp_epsilon(c['rho'], float(c['delta'])):.2f}" != c["epsilon_printed"]


def test_the_early_files_match():
    # the lists handed out early (/tmp/pl94_*_rhos.txt) are pl94_rhos of the plain paths
    assert len(pl94.pl94_rhos("pl94-persons")) == 130
    assert max(r.denominator for r in pl94.pl94_rhos("pl94-persons")) == 1930879772721


def test_reexported():
    for name in pl94.__all__:
        assert getattr(census, name) is getattr(pl94, name)


@pytest.mark.parametrize("call,argument", [
    (lambda: pl94.pl94_rhos("pl94"), "release"),
    (lambda: pl94.pl94_rhos(None), "release"),
    (lambda: pl94.pl94_rhos("pl94-persons", "absorbed-US"), "path"),
    (lambda: pl94.pl94_rhos("pl94-persons", 3), "path"),
    (lambda: pl94.pl94_rhos("pl94-persons", "plain", "nowhere"), "other"),
    (lambda: pl94.pl94_paths("dhc"), "release"),
    (lambda: pl94.pl94_paths(["pl94-persons"]), "release"),
    (lambda: pl94.certificate("pl94-households"), "release"),
    (lambda: pl94.bureau_epsilon(""), "release"),
    (lambda: pl94.pl94_allocation("pl94-units-pr", "absorbed-County"), "path"),
    (lambda: pl94.derive_pl94_allocation("pl94-units", "Plain"), "path"),
])
def test_bad_arguments_are_one_line_errors(call, argument):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and message.startswith(argument + " ")


@pytest.mark.parametrize("text,fragment", [
    ("", "header"),
    ("geolevel,query,rho\nUS,detailed,0.5\n", "numerator/denominator"),
    ("geolevel,query,rho\nUS,detailed,0/5\n", "positive"),
    ("geolevel,rho\nUS,1/2\n", "header"),
])
def test_bad_csv_is_refused(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        pl94.parse_pl94_allocation(text, "bad.csv")


def test_dhc_allocations_are_the_spine_patterns_of_the_production_strategy():
    # README, "The DHC allocations": allocation 13 is the plain path of dhcp_strategies.py 595-633
    # (DecompTestStrategyDHCP_20220922_exp_iteration_23_1, rho per query in 1/10000), rows 9 and 10 being its
    # queries 7 and 6; each of the 43 moves the shares of some levels into the nearest measured level above
    # (measured there with that level's query proportions), the spine's rule
    order = ["US", "State", "County", "Prim", "Tract_Subset_Group", "Tract_Subset", "Block_Group", "Block"]
    alphabetical = sorted(order)

    def columns(k):
        values = census.load_allocation(k)
        return {level: values[c::8] for c, level in enumerate(alphabetical)}

    strategy = {"Block": [11] * 10, "Block_Group": [430] * 10, "Tract_Subset": [868] * 5 + [3472] * 2 + [868] * 3,
                "Tract_Subset_Group": [478] * 5 + [1912] + [478] * 4, "Prim": [478] * 5 + [1912] + [478] * 4,
                "County": [310] * 5 + [1240] * 2 + [310] * 3, "State": [999] * 5 + [3996] + [999] * 4,
                "US": [73] * 5 + [292] + [73] * 4}
    rows = [0, 1, 2, 3, 4, 7, 8, 9, 6, 5]
    plain = columns(13)
    assert all(plain[level] == [Fraction(strategy[level][i], 10000) for i in rows] for level in order)
    total = {level: sum(plain[level]) for level in order}
    patterns = set()
    for k in census.ALLOCATIONS:
        table = columns(k)
        absorbed = tuple(level for level in order if not sum(table[level]))
        assert "US" not in absorbed and "State" not in absorbed
        for i, level in enumerate(order):
            if level in absorbed:
                continue
            j, share = i + 1, total[level]
            while j < len(order) and order[j] in absorbed:
                share, j = share + total[order[j]], j + 1
            assert sum(table[level]) == share
            assert table[level] == [x * share / total[level] for x in plain[level]]
        patterns.add(absorbed)
    assert len(patterns) == 43


def test_worst_epsilon_of_the_units_with_and_without_a_given_ranking():
    from accountlib.applications.census import pl94 as p

    ranked = p.pl94_pair_deltas("pl94-units", p.certificate("pl94-units")["epsilon"])
    alone = p.pl94_worst_epsilon("pl94-units", abs_tol=1e-4)
    given = p.pl94_worst_epsilon("pl94-units", abs_tol=1e-4, ranked=ranked)
    assert (alone.lower, alone.upper, alone.pair, alone.checked) == (given.lower, given.upper, given.pair, 136)
    assert alone.lower < alone.upper <= alone.lower + Fraction(1, 10**4) < p.certificate("pl94-units")["epsilon"]
    with pytest.raises(ValueError, match="ranked must be"):
        p.pl94_worst_epsilon("pl94-units", ranked=[])
