"""Measure, on the installed pypto compiler, which operand kinds each op accepts where.

Small kernels of our own, one op (or one mix of a Tile with a Tensor) per kernel, each in
every kind of place a kernel body can sit: an InCore function, a `with pl.incore():` block,
a chunked loop under `pl.auto_incore()`, an Orchestration function and a plain (Opaque)
function. Each kernel is parsed and run through the default pass pipeline on the CCE
backend, in a child process of its own (pypto keeps global state), and the verdict is the
compiler's: accepted, or the first line of its message. The API table's `tensor_level`,
`tile_level` and `mixes` fields (rules/api/pypto-2026-03.toml) record what this prints.

    .venv/bin/python benchmarks/measure_api.py [--python /path/to/python-with-pypto] [--only NAME] [--context NAME]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

T = "pl.Tensor[[64, 64], pl.FP32]"
PARAMS = (f"x: {T}, w: pl.Tensor[[64, 64], pl.BF16], r: pl.Tensor[[64, 1], pl.FP32], "
          f"c: pl.Tensor[[1, 64], pl.FP32], i: pl.Tensor[[4, 4], pl.INT32]")
ARGS = "x, w, r, c, i"

CONTEXTS = {
    "incore-function": f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {PARAMS}, out: pl.Out[{T}]) -> {T}:
{{body:8}}
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {PARAMS}) -> {T}:
        out = pl.create_tensor([64, 64], dtype=pl.FP32)
        out = self.k({ARGS}, out)
        return out
''',
    "incore-block": f'''
@pl.program
class P:
    @pl.function
    def main(self, {PARAMS}, out: pl.Out[{T}]) -> {T}:
        with pl.incore():
{{body:12}}
        return out
''',
    "auto-incore": f'''
@pl.program
class P:
    @pl.function
    def main(self, {PARAMS}, out: pl.Out[{T}]) -> {T}:
        with pl.auto_incore():
            for b in pl.parallel(0, 64, 64, chunk=1):
{{body:16}}
        return out
''',
    "orchestration": f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {PARAMS}, out: pl.Out[{T}]) -> {T}:
{{body:8}}
        return out
''',
    "opaque": f'''
@pl.program
class P:
    @pl.function
    def main(self, {PARAMS}, out: pl.Out[{T}]) -> {T}:
{{body:8}}
        return out
''',
}

LOAD = "pl.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)"
# name -> (level, body). "tensor": every operand a Tensor, the result assembled into `out`;
# "tile": every operand a Tile, the result stored; "mix": a Tile and a Tensor together.
CASES: dict[str, tuple[str, str]] = {}


def _unary(op: str, extra: str = "") -> None:
    CASES[f"{op}/tensor"] = ("tensor", f"y = pl.{op}(x{extra})\nout = pl.assemble(out, y, [0, 0])")
    CASES[f"{op}/tile"] = ("tile", f"t = {LOAD}\ny = pl.{op}(t{extra})\nout = pl.store(y, [0, 0], out)")


for _op in ("exp", "neg", "sqrt", "rsqrt", "recip", "log", "abs", "relu"):
    _unary(_op)
_unary("cast", ", target_type=pl.FP32")
for _op in ("add", "sub", "mul", "div", "maximum", "minimum"):
    CASES[f"{_op}/tensor"] = ("tensor", f"y = pl.{_op}(x, x)\nout = pl.assemble(out, y, [0, 0])")
    CASES[f"{_op}/tile"] = ("tile", f"t = {LOAD}\ny = pl.{_op}(t, t)\nout = pl.store(y, [0, 0], out)")
    CASES[f"{_op}/tile+tensor"] = ("mix", f"t = {LOAD}\ny = pl.{_op}(t, x)\nout = pl.store(y, [0, 0], out)")
    CASES[f"{_op}/tensor+tile"] = ("mix", f"t = {LOAD}\ny = pl.{_op}(x, t)\nout = pl.assemble(out, y, [0, 0])")
for _op in ("add", "mul"):
    CASES[f"{_op}/tensor+scalar"] = ("tensor", f"y = pl.{_op}(x, 2.0)\nout = pl.assemble(out, y, [0, 0])")
    CASES[f"{_op}/tile+scalar"] = ("tile", f"t = {LOAD}\ny = pl.{_op}(t, 2.0)\nout = pl.store(y, [0, 0], out)")
for _op in ("adds", "muls"):
    CASES[f"{_op}/tensor"] = ("tensor", f"y = pl.{_op}(x, 2.0)\nout = pl.assemble(out, y, [0, 0])")
for _op in ("row_sum", "row_max", "row_min"):
    CASES[f"{_op}/tensor"] = ("tensor", f"y = pl.{_op}(x)\nr = pl.assemble(r, y, [0, 0])")
    CASES[f"{_op}/tile"] = ("tile", f"t = {LOAD}\ns = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)\n"
                            f"y = pl.{_op}(t, s)\nr = pl.store(y, [0, 0], r)")
    CASES[f"{_op}/tile-no-scratch"] = ("tile", f"t = {LOAD}\ny = pl.{_op}(t)\nr = pl.store(y, [0, 0], r)")
for _op in ("row_expand_mul", "row_expand_add", "row_expand_sub", "row_expand_div"):
    CASES[f"{_op}/tensor"] = ("tensor", f"y = pl.{_op}(x, r)\nout = pl.assemble(out, y, [0, 0])")
    CASES[f"{_op}/tile+tensor"] = ("mix", f"t = {LOAD}\ny = pl.{_op}(t, r)\nout = pl.store(y, [0, 0], out)")
for _op in ("col_expand_mul", "col_expand_div", "col_expand_sub"):
    CASES[f"{_op}/tensor"] = ("tensor", f"y = pl.{_op}(x, c)\nout = pl.assemble(out, y, [0, 0])")
    CASES[f"{_op}/tile+tensor"] = ("mix", f"t = {LOAD}\ny = pl.{_op}(t, c)\nout = pl.store(y, [0, 0], out)")
CASES["matmul/tensor"] = ("tensor", "y = pl.matmul(w, w, out_dtype=pl.FP32)\nout = pl.assemble(out, y, [0, 0])")
CASES["matmul/tensor-b_trans"] = ("tensor", "y = pl.matmul(w, w, b_trans=True, out_dtype=pl.FP32)\nout = pl.assemble(out, y, [0, 0])")
CASES["matmul/tile-vec"] = ("tile", "a = pl.load(w, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)\n"
                           "y = pl.matmul(a, a)\nout = pl.store(y, [0, 0], out)")
CASES["matmul/tile-left-right"] = ("tile", "a = pl.load(w, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)\n"
                                  "y = pl.matmul(pl.move(a, target_memory=pl.MemorySpace.Left), pl.move(a, target_memory=pl.MemorySpace.Right))\n"
                                  "out = pl.store(y, [0, 0], out)")
CASES["matmul/tile-b_trans"] = ("tile", "a = pl.load(w, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)\n"
                               "y = pl.matmul(pl.move(a, target_memory=pl.MemorySpace.Left), pl.move(a, target_memory=pl.MemorySpace.Right), b_trans=True)\n"
                               "out = pl.store(y, [0, 0], out)")
CASES["reshape/tensor"] = ("tensor", "y = pl.reshape(x, [64, 64])\nout = pl.assemble(out, y, [0, 0])")
CASES["transpose/tensor"] = ("tensor", "y = pl.transpose(x, 0, 1)\nout = pl.assemble(out, y, [0, 0])")
CASES["transpose/tensor-1arg"] = ("tensor", "y = pl.transpose(x)\nout = pl.assemble(out, y, [0, 0])")
CASES["slice/tensor"] = ("tensor", "y = pl.slice(x, [32, 64], [0, 0])\nout = pl.assemble(out, pl.exp(y), [0, 0])")
CASES["slice/tensor-valid"] = ("tensor", "y = pl.slice(x, [32, 64], [0, 0], valid_shape=[16, 64])\nout = pl.assemble(out, pl.exp(y), [0, 0])")
CASES["view/tensor"] = ("tensor", "y = pl.view(x, [32, 64], [0, 0])\nout = pl.assemble(out, y, [0, 0])")
CASES["slice/tile"] = ("tile", f"t = {LOAD}\ny = pl.slice(t, [32, 64], [0, 0])\nout = pl.store(y, [0, 0], out)")
CASES["create_tensor/tensor"] = ("tensor", "a = pl.create_tensor([64, 64], dtype=pl.FP32)\na = pl.mul(a, 0.0)\n"
                                 "a = pl.add(a, x)\nout = pl.assemble(out, a, [0, 0])")
CASES["create_tensor/valid_shape"] = ("tensor", "a = pl.create_tensor([64, 64], dtype=pl.FP32, valid_shape=[32, 64])\n"
                                      "out = pl.assemble(out, a, [0, 0])")
CASES["create_tensor/piecewise"] = ("tensor", "a = pl.create_tensor([64, 64], dtype=pl.FP32)\n"
                                    "a = pl.assemble(a, pl.slice(x, [32, 64], [0, 0]), [0, 0])\n"
                                    "a = pl.assemble(a, pl.slice(x, [32, 64], [32, 0]), [32, 0])\nout = pl.assemble(out, pl.exp(a), [0, 0])")
CASES["tensor.read/tensor"] = ("tensor", "v = pl.tensor.read(i, [0, 0])\ny = pl.mul(x, 2.0)\nout = pl.assemble(out, y, [v, 0])")
CASES["read/tensor"] = ("tensor", "v = pl.read(i, [0, 0])\nout = pl.assemble(out, x, [v, 0])")
CASES["tile.read/tile"] = ("tile", "ti = pl.load(i, [0, 0], [4, 4], target_memory=pl.MemorySpace.Vec)\nv = pl.tile.read(ti, [0, 0])\n"
                           f"t = {LOAD}\nout = pl.store(t, [v, 0], out)")
CASES["assemble/tensor"] = ("tensor", "out = pl.assemble(out, x, [0, 0])")
CASES["assemble/tile-source"] = ("mix", f"t = {LOAD}\nout = pl.assemble(out, t, [0, 0])")
CASES["store/tile"] = ("tile", f"t = {LOAD}\nout = pl.store(t, [0, 0], out)")
CASES["store/tensor-source"] = ("mix", "out = pl.store(x, [0, 0], out)")
CASES["store/4-args"] = ("tile", f"t = {LOAD}\nout = pl.store(t, [0, 0], [64, 64], out)")
CASES["load/tensor"] = ("tile", f"t = {LOAD}\nout = pl.store(t, [0, 0], out)")
CASES["create_tile/tile"] = ("tile", "t = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)\n"
                             "t = pl.mul(t, 0.0)\nout = pl.store(t, [0, 0], out)")
CASES["vector-op/mat-tile"] = ("tile", "t = pl.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)\n"
                               "y = pl.exp(t)\nout = pl.store(y, [0, 0], out)")
CASES["tensor-op/annotated-tile"] = ("mix", f"t: pl.Tensor[[64, 64], pl.FP32] = {LOAD}\nout = pl.store(t, [0, 0], out)")


# Whole programs: a Tile name bound again in a later kernel (unique-tile-names).
_REUSE = """
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.auto_incore():
{first}
{second}
        return out
"""
_KERNELS = {
    "incore": ("            with pl.incore():\n"
               "                {t} = pl.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)\n"
               "                out = pl.store(pl.exp({t}), [0, 0], out)"),
    "chunked": ("            for b in pl.parallel(0, 64, 16, chunk=1):\n"
                "                {t} = pl.load(out, [b, 0], [16, 64], target_memory=pl.MemorySpace.Vec)\n"
                "                out = pl.store(pl.neg({t}), [b, 0], out)"),
    "incore-loop": ("            with pl.incore():\n"
                    "                for k in pl.range(0, 64, 16):\n"
                    "                    {t} = pl.load(out, [k, 0], [16, 64], target_memory=pl.MemorySpace.Vec)\n"
                    "                    out = pl.store(pl.neg({t}), [k, 0], out)"),
    "chunked-tensor": ("            for b in pl.parallel(0, 64, 16, chunk=1):\n"
                       "                {t} = pl.slice(out, [16, 64], [b, 0])\n"
                       "                out = pl.assemble(out, pl.exp({t}), [b, 0])"),
}
PROGRAMS = {
    f"tile-name-reuse/{a}-then-{b}{'' if same else '/distinct'}": _REUSE.format(
        first=_KERNELS[a].format(t="t"), second=_KERNELS[b].format(t="t" if same else "u"))
    for a, b in (("incore", "incore"), ("chunked", "chunked"), ("incore", "chunked"), ("chunked", "incore"),
                 ("incore", "incore-loop"),
                 ("chunked-tensor", "chunked-tensor"))
    for same in (True, False)
}


RUNNER = r'''
import sys, importlib.util, tempfile
spec = importlib.util.spec_from_file_location("measured_kernel", sys.argv[1])
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
except BaseException as exc:
    print("parse:", " ".join(str(exc).split("\n")[0].split())[:240]); sys.exit()
import pypto
from pypto.ir.pass_manager import OptimizationStrategy, PassManager
from pypto.pypto_core import passes
pypto.backend.set_backend_type(pypto.backend.BackendType.CCE)
try:
    with passes.PassContext([], passes.VerificationLevel.NONE):
        PassManager.get_strategy(OptimizationStrategy.Default).run_passes(module.P, dump_ir=False, output_dir=tempfile.mkdtemp())
except BaseException as exc:
    print("passes:", " ".join(str(exc).split("\n")[0].split())[:240]); sys.exit()
print("accepted")
'''


def kernel(context: str, body: str) -> str:
    template = CONTEXTS[context]
    for indent in (8, 12, 16):
        template = template.replace(f"{{body:{indent}}}", textwrap.indent(body, " " * indent))
    return "import pypto.language as pl\n" + template


def verdict(python: str, source: str, folder: Path) -> str:
    path = folder / "kernel.py"
    path.write_text(source, encoding="utf-8")
    runner = folder / "runner.py"
    runner.write_text(RUNNER, encoding="utf-8")
    done = subprocess.run([python, str(runner), str(path)], capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith(("parse:", "passes:", "accepted"))]
    return lines[-1] if lines else f"crash: {done.returncode} {done.stderr.strip().splitlines()[-1:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable,
                        help="a Python that imports pypto, the target compiler (default: this one; `make install` puts it in .venv)")
    parser.add_argument("--only", help="cases whose name contains this")
    parser.add_argument("--context", action="append", help="contexts to try (default: all)")
    args = parser.parse_args(argv)
    contexts = args.context or list(CONTEXTS)
    with tempfile.TemporaryDirectory(prefix="measure-api-") as tmp:
        for name, source in PROGRAMS.items():
            if not args.only or args.only in name:
                print(f"{name:44} program {verdict(args.python, source, Path(tmp))}", flush=True)
        for name, (level, body) in CASES.items():
            if args.only and args.only not in name:
                continue
            for context in contexts:
                print(f"{name:28} {level:6} {context:16} {verdict(args.python, kernel(context, body), Path(tmp))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
