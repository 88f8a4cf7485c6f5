import pytest

from playground.units import (
    UnitError, format_age, format_cpu, format_duration, format_memory, parse_count, parse_cpu, parse_duration,
    parse_memory,
)


@pytest.mark.parametrize("text,ms", [
    ("100ms", 100), ("40s", 40_000), ("5m", 300_000), ("1h30m", 5_400_000), ("1m2.5s", 62_500),
    ("0", 0), ("0s", 0), ("1.5h", 5_400_000), (30, 30_000), (0.5, 500),
])
def test_parse_duration(text, ms):
    assert parse_duration(text) == ms


@pytest.mark.parametrize("bad", ["5", "5 m", "m5", "1x", "", "-5s", True, -1])
def test_parse_duration_rejects(bad):
    with pytest.raises(UnitError):
        parse_duration(bad)


@pytest.mark.parametrize("ms,text", [(0, "0s"), (100, "100ms"), (40_000, "40s"), (300_000, "5m"),
                                     (5_400_000, "1h30m"), (62_500, "1m2.5s")])
def test_format_duration_round_trips(ms, text):
    assert format_duration(ms) == text
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text,millis", [("500m", 500), ("2", 2000), (2, 2000), ("0.5", 500), ("1.5", 1500),
                                         ("0.0001", 1)])
def test_parse_cpu(text, millis):
    assert parse_cpu(text) == millis


@pytest.mark.parametrize("text,nbytes", [("8Gi", 8 * 2**30), ("1G", 10**9), ("256Mi", 256 * 2**20), (1024, 1024),
                                         ("1e3", 1000), ("1k", 1000), ("100", 100)])
def test_parse_memory(text, nbytes):
    assert parse_memory(text) == nbytes


@pytest.mark.parametrize("bad", ["8GB", "abc", "-1", "1.2.3", "Gi"])
def test_parse_memory_rejects(bad):
    with pytest.raises(UnitError):
        parse_memory(bad)


def test_quantity_formatting_is_exact():
    assert format_cpu(500) == "500m" and format_cpu(2000) == "2"
    assert format_memory(8 * 2**30) == "8Gi" and format_memory(1000) == "1000"
    assert parse_count("110") == 110
    with pytest.raises(UnitError):
        parse_count("1.5")


def test_format_age_like_kubectl():
    assert format_age(45_000) == "45s"
    assert format_age(252_000) == "4m12s"
    assert format_age(3 * 3600_000 + 5 * 60_000) == "3h5m"
    assert format_age(3 * 86400_000 + 4 * 3600_000) == "3d4h"
