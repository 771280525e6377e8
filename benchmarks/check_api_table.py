"""Check rules/api/pypto-2026-03.toml against the installed pypto compiler, op by op.

  python benchmarks/check_api_table.py        # one line per disagreement; exit 1 if any
  python benchmarks/check_api_table.py -v     # also one line per op that agrees

For every op of the table it asks the compiler itself, never its documentation:
- kind: where the parser sends `pl.<op>` (its tile-only and tensor-only lists, and which of
  pypto.ir.op.tile / pypto.ir.op.tensor has the op): tile-only, tensor-only or unified;
- params: the positional order of the IR op the parser calls (`pl.load`'s Python stub
  orders them differently; the parser does not use it);
- result: a one-line probe kernel calling the op on operands of known shapes and dtypes is
  parsed with `pl.parse`, and the type the compiler gives the result (kind, shape, dtype)
  is compared with what codemods.model.results reads off the table.
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402

from codemods.model.results import result_val  # noqa: E402
from codemods.model.values import SCALAR, TENSOR, TILE, Val  # noqa: E402
from codemods.rulebook.loading import load_api  # noqa: E402

BITWISE = {"and_", "ands", "or_", "ors", "xor", "xors", "not_", "shl", "shls", "shr", "shrs"}
CUBE_SHAPES = {"lhs": ("16", "32"), "rhs": ("32", "64"), "bias": ("1", "64"), "acc": ("16", "64")}
GEMV_SHAPES = {"lhs": ("1", "32"), "rhs": ("32", "64"), "bias": ("1", "64"), "acc": ("1", "64")}
NAMED_SHAPES = {"row_vec": ("16", "1"), "col_vec": ("1", "64"), "src": ("16", "1"), "output_tensor": ("32", "64")}
NOT_PROBED = {
    "view",  # removed: nothing to ask
    # c39's parser sends pl.full to tile.full on its first argument, which must be a Tile to be sent
    # and a shape to be used: no call of it parses (measured), nothing to ask
    "full",
}


@dataclass
class Finding:
    op: str
    what: str
    message: str


def compiler():
    import pypto.language as pl
    from pypto.ir import op as ir_op
    from pypto.language.parser.ast_parser import ASTParser

    return pl, ir_op, ASTParser


def expected_kind(name: str, ir_op, parser) -> str | None:
    base = name.split(".")[-1]
    if name.startswith("tile."):
        return "tile-only"
    if name.startswith("tensor."):
        return "tensor-only"
    tile_name = parser._TILE_OP_NAME_MAP.get(base, base)
    tensor_name = parser._TENSOR_OP_NAME_MAP.get(base, base)
    if base in parser._TILE_ONLY_OPS:
        return "tile-only"
    if base in parser._TENSOR_ONLY_OPS:
        return "tensor-only"
    if base in parser._RENAMED_DISPATCH_OPS or base in parser._SCALAR_BINARY_OPS:
        return "unified"
    tile, tensor = hasattr(ir_op.tile, tile_name), hasattr(ir_op.tensor, tensor_name)
    if tile and tensor:
        return "unified"
    return "tile-only" if tile else "tensor-only" if tensor else None


def signature(fn) -> tuple[tuple[str, ...], int]:
    """(every parameter, how many lead ones are required) of an IR op, without its span."""
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "span"]
    required = 0
    while required < len(params) and params[required].default is inspect.Parameter.empty:
        required += 1
    return tuple(p.name for p in params), required


def same_params(spec, names: tuple[str, ...]) -> bool:
    """The table's positional order is the compiler's; an operand may have a name of the
    table's own (`x` for the compiler's `tile` or `input`), the others must be the compiler's."""
    if len(spec.params) > len(names):
        return False
    operand = ("tile", "tensor", "value", "value-or-scalar")
    return all(a == b or spec.roles.get(a) in operand for a, b in zip(spec.params, names))


def ir_function(name: str, kind: str, ir_op, parser):
    base = name.split(".")[-1]
    if "." not in name and base in parser._RENAMED_DISPATCH_OPS:  # pl.read: load_scalar / getval
        tensor_name, tile_name = parser._RENAMED_DISPATCH_OPS[base]
        return getattr(ir_op.tensor, tensor_name) if kind == "tensor-only" else getattr(ir_op.tile, tile_name)
    if kind == "tensor-only":
        return getattr(ir_op.tensor, parser._TENSOR_OP_NAME_MAP.get(base, base), None)
    return getattr(ir_op.tile, parser._TILE_OP_NAME_MAP.get(base, base), None)


# -- probes ----------------------------------------------------------------------------------
def operand_shape(op: str, param: str, spec) -> tuple[str, ...]:
    if spec.unit == "cube" or op in ("matmul_acc", "gemv_acc"):
        return (GEMV_SHAPES if op.startswith("gemv") else CUBE_SHAPES).get(param, ("16", "64"))
    return NAMED_SHAPES.get(param, ("16", "64"))


def operand_dtype(op: str, param: str, spec) -> str:
    if op in BITWISE or op.split(".")[-1] in BITWISE:
        return "INT16"
    if spec.unit == "cube" or op in ("matmul_acc", "gemv_acc"):
        return "FP32" if param in ("acc", "bias") else "BF16"
    return "BF16"


KEYWORD_ONLY = {"axis", "axis1", "axis2", "keepdim", "cmp_type", "transpose"}  # ints the parser takes only by keyword


def probe_text(op: str, spec, family: str, required: int, ints: bool = False) -> tuple[str, list[Val], str] | None:
    """A kernel with one call of `op` on operands of `family` (Tile or Tensor); its params,
    the operands' Vals and the call's text."""
    params, vals, args = [], [], []
    keyword = False
    base = op.split(".")[-1]
    for i, p in enumerate(spec.params):
        role = spec.roles.get(p, "value")
        wanted = i < required or p == "keepdim" or (base in ("cmp", "cmps") and p == "cmp_type")
        if not wanted:
            keyword = True
            continue
        text, val = None, Val(SCALAR)
        if role in ("tile", "tensor", "value", "value-or-scalar"):
            kind = TILE if role == "tile" or (role != "tensor" and family == TILE) else TENSOR
            shape, dtype = operand_shape(base, p, spec), ("INT16" if ints else operand_dtype(base, p, spec))
            ann = "Tile" if kind == TILE else "Tensor"
            params.append(f"{p}_: pl.{ann}[[{', '.join(shape)}], pl.{dtype}]")
            text, val = f"{p}_", Val(kind, shape, dtype)
        elif role == "shape":
            text = "[32, 32]" if base == "reshape" else "[8, 32]"
        elif role == "offsets":
            text = "[0, 0]" if base not in ("getval", "setval") else "0"
        elif role == "dtype":
            text, keyword = "pl.FP32", True
        elif role == "memory":
            text, keyword = "pl.MemorySpace.Vec", True
        elif p in ("axis1", "axis2"):
            text, keyword = ("0" if p == "axis1" else "1"), True
        elif p == "axis":
            text, keyword = "1", True
        elif p in ("keepdim", "transpose"):
            text, keyword = "True", True
        elif p == "cmp_type":
            text, keyword = "2", True
        elif p == "value" and base == "setval":
            text = "pl.tile.getval(tile_, 0)"
        elif p == "value" and base == "write":  # an element of the destination: its own dtype
            text = "pl.read(dst_, 0)"
        elif p == "value" and base == "store_scalar":
            text = "pl.tensor.load_scalar(tensor_, 0)"
        elif role in ("scalar", "flag"):
            text = "1" if ints or base in BITWISE or p in ("cmp_type", "select_mode", "offset", "indices") else "1.5"
        else:
            return None
        args.append(f"{p}={text}" if keyword else text)
        vals.append(val)
    call = f"pl.{op}({', '.join(args)})"
    kernel = "InCore" if family == TILE else "Opaque"
    head = ", ".join(["self", *params]) if params else "self"
    text = (f"@pl.function(type=pl.FunctionType.{kernel})\n"
            f"def probe({head}):\n"
            f"    r = {call}\n"
            f"    return r\n")
    return text, vals, call


TYPE = re.compile(r"^\s*r: pl\.(Tile|Tensor|Scalar)\[(?:\[([^\]]*)\], )?pl\.(\w+)")


def parsed_type(pl, text: str) -> Val | str:
    try:
        function = pl.parse(text)
    except Exception as exc:  # the compiler's rejection is the answer
        return str(exc).strip().splitlines()[0][:200]
    for line in function.as_python().splitlines():
        m = TYPE.match(line)
        if m:
            kind, shape, dtype = m.groups()
            shape_t = tuple(s.strip() for s in shape.split(",")) if shape else None
            return Val({"Tile": TILE, "Tensor": TENSOR, "Scalar": SCALAR}[kind], shape_t, dtype)
    return "no typed result in the parsed function"


def predicted(spec, vals: list[Val], call: str) -> Val:
    node = cst.parse_expression(call)
    pos = [a.value for a in node.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    kinds = {"1.5": "FP32", "1": "INDEX"}
    return result_val(spec, vals, pos, kw, lambda n: kinds.get(getattr(n, "value", None)))


def check(verbose: bool = False) -> list[Finding]:
    pl, ir_op, parser = compiler()
    api = load_api(None, "2026-03")
    findings: list[Finding] = []
    for name, spec in sorted(api.ops.items()):
        if name in NOT_PROBED or spec.kind == "removed":
            continue
        kind = expected_kind(name, ir_op, parser)
        if kind is None:
            findings.append(Finding(name, "exists", "the compiler has no such op"))
            continue
        if kind != spec.kind:
            findings.append(Finding(name, "kind", f"the table says {spec.kind}, the parser dispatches it {kind}"))
        fn = ir_function(name, "tensor-only" if kind == "tensor-only" else "tile-only", ir_op, parser)
        forms = [TILE] if kind == "tile-only" else [TENSOR] if kind == "tensor-only" else [TILE, TENSOR]
        if name in ("min", "max"):
            forms = [TILE]  # on scalars these are Python's min and max
        if name == "read":
            forms = [TENSOR]  # its tile form is getval(tile, offset), a flat offset; kernels use pl.tile.read
        ok = True
        for family in forms:
            fn = ir_function(name, "tensor-only" if family == TENSOR else "tile-only", ir_op, parser)
            if fn is None:
                continue
            names, required = signature(fn)
            spec_form = spec
            if family == TILE and kind == "unified" and spec.tile_params is not None:
                spec_form = spec._replace(params=spec.tile_params)
            elif family == TENSOR and kind == "unified" and spec.scratch:  # the tensor form needs no scratch
                spec_form = spec._replace(params=tuple(p for p in spec.params if p != spec.scratch))
            if not same_params(spec_form, names):
                findings.append(Finding(name, "params", f"the table says ({', '.join(spec.params)}), "
                                        f"the compiler's {family.lower()} op takes ({', '.join(names)})"))
                ok = False
            # Integer operands too where a scalar may widen the result (INT16 and an int: INDEX).
            variants = [False, True] if spec.dtype == "promote" else [False]
            for ints in variants:
                ok = probe_once(findings, pl, name, spec_form, family, required, ints) and ok
        if ok and verbose:
            print(f"ok  {name}")
    return findings


def probe_once(findings, pl, name, spec_form, family, required, ints) -> bool:
    """One probe of one form of one op; a disagreement is added to `findings`."""
    probe = probe_text(name, spec_form, family, required, ints)
    if probe is None:
        return True
    text, vals, call = probe
    got = parsed_type(pl, text)
    if isinstance(got, str):
        findings.append(Finding(name, "probe", f"{call} on {family}s: the compiler says: {got}"))
        return False
    want = predicted(spec_form, vals, call)
    if (want.kind, want.shape, want.dtype) != (got.kind, got.shape, got.dtype):
        findings.append(Finding(name, "result", f"{call} on {family}s: the table gives {want.describe()}, "
                                f"the compiler {got.describe()}"))
        return False
    return True


def main(argv: list[str]) -> int:
    findings = check("-v" in argv)
    for f in findings:
        print(f"{f.op}: {f.what}: {f.message}")
    print(f"{len(findings)} disagreement{'s' * (len(findings) != 1)} between the API table and the compiler")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
