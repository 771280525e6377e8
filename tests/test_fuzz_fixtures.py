"""Every minimal kernel `make fuzz` kept (fixtures/fuzz/, listed in catalogue.json) is judged
again at its target: the tool must get it accepted by the compiler or marked at the line the
compiler names, verify it equal, and leave its output alone on a second run.

Each is an open failure of the tool, so each test is `xfail(strict=True, raises=KnownFailure)`
with the failure class as its reason: it passes only while exactly that failure reproduces;
it fails the suite when the tool gets the kernel right (then the fix removes the entry from
the catalogue, and the fixture stays a plain regression test) and when the kernel fails in
another way. A kernel whose entry has left the catalogue (its class fixed) stays a plain
regression test: `test_fixed_failure` wants it accepted or marked at the compiler's line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from needs import head_python, missing, pypto_or_skip

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FUZZ = ROOT / "fixtures" / "fuzz"
CATALOGUE = json.loads((FUZZ / "catalogue.json").read_text(encoding="utf-8")) if (FUZZ / "catalogue.json").is_file() else []


@pytest.fixture(scope="module")
def compilers():
    from kernelgen.compilers import Compilers, pythons

    pypto_or_skip()
    head_python()
    if not pythons()["2026-05-26"]:
        missing("no Python with the compiler of 2026-05-26 (make install builds .venv-era-2026-05)")
    found = Compilers()
    yield found
    found.close()


class KnownFailure(AssertionError):
    """The catalogued failure, reproduced: the one outcome the xfail expects."""


# An empty catalogue (every class kept so far fixed) leaves no test here, rather than a skip.
@pytest.mark.parametrize("entry", CATALOGUE, ids=[e["file"] for e in CATALOGUE])
def _kept_failure(entry, compilers, request):
    from kernelgen.gen import Kernel
    from kernelgen.harness import judge

    request.applymarker(pytest.mark.xfail(strict=True, raises=KnownFailure, reason=entry["key"]))
    kernel = Kernel(entry["era"], (FUZZ / entry["file"]).read_text(encoding="utf-8"))
    verdict = judge(kernel, entry["target"], compilers)
    if not verdict.failed:
        return  # fixed: strict xfail fails the suite until the entry leaves the catalogue
    if verdict.key() == entry["key"]:
        raise KnownFailure(f"{verdict.category}: {verdict.detail}")
    raise AssertionError(f"another failure than the catalogued one: {verdict.key()}\n{verdict.detail}")


if CATALOGUE:
    test_kept_failure = _kept_failure


# Kept kernels whose failure is fixed: no longer in the catalogue, judged as any migration is.
FIXED = sorted(p.name for p in FUZZ.glob("*_to_*.py") if p.name not in {e["file"] for e in CATALOGUE})


@pytest.mark.parametrize("name", FIXED)
def test_fixed_failure(name, compilers):
    from kernelgen.gen import Kernel
    from kernelgen.harness import judge

    era, _, rest = name.partition("_to_")
    target = f"{rest[:4]}-{rest[4:6]}"  # `feb_to_202608_...`: February code to the 2026-08 step
    verdict = judge(Kernel(era, (FUZZ / name).read_text(encoding="utf-8")), target, compilers)
    assert not verdict.failed, f"{verdict.key()}\n{verdict.detail}"
