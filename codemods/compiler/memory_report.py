"""The compiler's per-kernel memory report (`memory_after_AllocateMemoryAddr.txt`), as records.

The report prints sizes rounded to a tenth of a KB, so `used` is exact only to ~100 bytes;
that is precise enough to compare with the tool's own figures and to see an overflow.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

_SECTION = re.compile(r"^---\s*(?P<function>\S+)\s*---\s*$")
_ROW = re.compile(
    r"^\s*(?P<space>[A-Za-z]+)\s*\|\s*(?P<used>[\d.]+)\s*(?P<used_unit>[KMG]?B)\s*\|"
    r"\s*(?P<limit>[\d.]+)\s*(?P<limit_unit>[KMG]?B)\s*\|"
)
_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


@dataclass(frozen=True)
class MemoryRecord:
    function: str  # the compiler's kernel function, e.g. decode_front_layer_incore_0
    space: str  # Vec | Mat | Left | Right | Acc
    used: int  # bytes
    limit: int  # bytes
    precision: int = 0  # bytes: half the last digit the report prints (its 1.0 MB may be 1028 KB)
    program: str = ""  # the builder, program class or @pl.jit entry compiled ("": not said)

    @property
    def over(self) -> bool:
        return self.used > self.limit

    def to_json(self) -> dict:
        return asdict(self)


def parse_memory_report(text: str) -> list[MemoryRecord]:
    """Every (kernel, space) row of the report, in the report's order."""
    records = []
    function = None
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            function = section.group("function")
            continue
        row = _ROW.match(line)
        if row and function is not None:
            records.append(MemoryRecord(
                function, row.group("space"),
                _bytes(row.group("used"), row.group("used_unit")),
                _bytes(row.group("limit"), row.group("limit_unit")),
                _precision(row.group("used"), row.group("used_unit")),
            ))
    return records


def _bytes(number: str, unit: str) -> int:
    return round(float(number) * _UNITS[unit])


def _precision(number: str, unit: str) -> int:
    decimals = len(number.partition(".")[2])
    return 0 if unit == "B" else round(0.5 * 10 ** -decimals * _UNITS[unit])


def kernel_origin(function: str) -> tuple[str, int] | None:
    """`decode_front_layer_incore_3` -> ("decode_front_layer", 3): the outlined kernel's source function and index."""
    m = re.fullmatch(r"(?P<origin>.+)_incore_(?P<n>\d+)", function)
    return (m.group("origin"), int(m.group("n"))) if m else None


# e2d0f78ae's ExpandMixedKernel splits a kernel that uses both the cube and the vector unit
# into `<kernel>_aic` and `<kernel>_aiv` (src/ir/transforms/expand_mixed_kernel_pass.cpp), after
# OutlineIncoreScopes named it `<function>_incore_<n>`: two halves of one kernel of the source.
_CORE_HALF = re.compile(r"(?P<kernel>.+)_(?P<core>aic|aiv)")


def split_kernel(function: str) -> tuple[str, str]:
    """`f_incore_0_aic` -> ("f_incore_0", "aic"): the kernel a core's half was split from; ("f", "")
    for a name that is no half."""
    m = _CORE_HALF.fullmatch(function)
    return (m.group("kernel"), m.group("core")) if m else (function, "")
