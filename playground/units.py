"""Kubernetes quantities and Go durations.

Engine time is an integer number of milliseconds so that timer order and event times are exact and
the same on every machine; cpu is held in millicores and memory in bytes, as kube-scheduler does.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal, ROUND_CEILING

# Go's time.Duration is an int64 of nanoseconds (about 292 years); anything longer is no duration.
MAX_DURATION_MS = (2**63 - 1) // 1_000_000
# resource.Quantity values beyond int64 in their base unit (millicores, bytes) are refused.
MAX_QUANTITY = Decimal(2**63 - 1)

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_MS = {
    "ns": Decimal("0.000001"),
    "us": Decimal("0.001"),
    "µs": Decimal("0.001"),
    "ms": Decimal(1),
    "s": Decimal(1000),
    "m": Decimal(60_000),
    "h": Decimal(3_600_000),
}


class UnitError(ValueError):
    """A quantity or duration that cannot be read; the message says what would be accepted."""


def parse_duration(value: str | int | float) -> int:
    """A Go duration ("1h30m", "100ms", "40s") or a number of seconds, in milliseconds."""
    if isinstance(value, bool):
        raise UnitError(f"expected a duration such as \"40s\" or \"5m\", got {value!r}")
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise UnitError(f"a duration must be a finite number of seconds, got {value!r}")
        if value < 0:
            raise UnitError(f"a duration cannot be negative, got {value!r}")
        return _bounded_ms(Decimal(str(value)) * 1000, value)
    if not isinstance(value, str):
        raise UnitError(f"expected a duration such as \"40s\" or \"5m\", got {value!r}")
    text = value.strip()
    if text == "0":
        return 0
    pos = 0
    total = Decimal(0)
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            break
        total += Decimal(match.group(1)) * _UNIT_MS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text:
        raise UnitError(
            f"{value!r} is not a duration; write it as Go does, e.g. \"100ms\", \"40s\", \"5m\", \"1h30m\""
        )
    return _bounded_ms(total, value)


def _bounded_ms(total: Decimal, value: object) -> int:
    if total > MAX_DURATION_MS:
        raise UnitError(f"{value!r} is too long for a duration (Go's limit is about 292 years)")
    return int(total)


def format_duration(ms: int) -> str:
    """Milliseconds as a Go-style duration: 0s, 100ms, 40s, 5m, 1h30m, 1m2.5s."""
    if ms == 0:
        return "0s"
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    if not hours and not minutes and not seconds:
        return f"{sign}{millis}ms"
    out = sign
    if hours:
        out += f"{hours}h"
    if minutes:
        out += f"{minutes}m"
    if seconds or millis:
        out += f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") + "s"
    return out


def format_age(ms: int) -> str:
    """kubectl-style short age: 45s, 4m12s, 2h5m, 3d4h."""
    seconds = max(0, ms) // 1000
    if seconds < 120:
        return f"{seconds}s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 10:
        return f"{minutes}m{sec}s" if sec else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes}m" if minutes else f"{hours}h"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h" if hours else f"{days}d"


_QUANTITY = re.compile(r"^([+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)([a-zA-Z]*)$")
_SUFFIX = {
    "": Decimal(1),
    "m": Decimal("0.001"),
    "k": Decimal(10) ** 3,
    "M": Decimal(10) ** 6,
    "G": Decimal(10) ** 9,
    "T": Decimal(10) ** 12,
    "P": Decimal(10) ** 15,
    "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10,
    "Mi": Decimal(2) ** 20,
    "Gi": Decimal(2) ** 30,
    "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50,
    "Ei": Decimal(2) ** 60,
}


def _quantity(value: str | int | float) -> Decimal:
    if isinstance(value, bool):
        raise UnitError(f"expected a quantity such as \"500m\" or \"8Gi\", got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UnitError(f"a quantity must be a finite number, got {value!r}")
    if isinstance(value, (int, float)):
        number = Decimal(str(value))
    elif not isinstance(value, str):
        raise UnitError(f"expected a quantity such as \"500m\" or \"8Gi\", got {value!r}")
    else:
        match = _QUANTITY.match(value.strip())
        if not match or match.group(2) not in _SUFFIX:
            raise UnitError(
                f"{value!r} is not a Kubernetes quantity; use e.g. \"500m\", \"2\", \"8Gi\", \"1G\" or plain bytes"
            )
        try:
            number = Decimal(match.group(1)) * _SUFFIX[match.group(2)]
        except ArithmeticError as exc:  # decimal overflow of an exponent such as 1e9999999
            raise UnitError(f"{value!r} is too large for a Kubernetes quantity") from exc
    if number < 0:
        raise UnitError(f"a quantity cannot be negative, got {value!r}")
    # millicores are the finest unit held, so bound the value a thousand times below int64
    if number * 1000 > MAX_QUANTITY:
        raise UnitError(f"{value!r} is too large for a Kubernetes quantity")
    return number


def parse_cpu(value: str | int | float) -> int:
    """CPU in millicores, rounded up as the API server does for sub-milli values."""
    return _cpu_text(value) if type(value) is str else _cpu(value)


def parse_memory(value: str | int | float) -> int:
    """Memory (or any byte quantity) in bytes, rounded up."""
    return _memory_text(value) if type(value) is str else _memory(value)


def _cpu(value: str | int | float) -> int:
    return int((_quantity(value) * 1000).to_integral_value(rounding=ROUND_CEILING))


def _memory(value: str | int | float) -> int:
    return int(_quantity(value).to_integral_value(rounding=ROUND_CEILING))


# Quantities already parsed, by their text: 5,000 nodes' capacities repeat a few values.
_cpu_text = functools.lru_cache(maxsize=4096)(_cpu)
_memory_text = functools.lru_cache(maxsize=4096)(_memory)


def parse_count(value: str | int) -> int:
    """A plain count such as pods; quantities like "110" are accepted too."""
    number = _quantity(value)
    if number != number.to_integral_value():
        raise UnitError(f"expected a whole number, got {value!r}")
    return int(number)


def format_cpu(millis: int) -> str:
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def format_memory(nbytes: int) -> str:
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        size = int(_SUFFIX[suffix])
        if nbytes >= size and nbytes % size == 0:
            return f"{nbytes // size}{suffix}"
    return str(nbytes)


def format_memory_short(nbytes: int) -> str:
    """Rounded memory for tables: 7.5Gi, 256Mi."""
    for suffix in ("Ti", "Gi", "Mi", "Ki"):
        size = int(_SUFFIX[suffix])
        if nbytes >= size:
            value = nbytes / size
            text = f"{value:.1f}".rstrip("0").rstrip(".")
            return f"{text}{suffix}"
    return str(nbytes)
