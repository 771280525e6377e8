"""The child's side of `measure`: run in the compiler's own Python, it reads what that pypto
offers and prints it as JSON on stdout. Standard library and pypto only: the compiler's
environment need not have anything of ours installed (the parent puts this package on
PYTHONPATH, behind everything else).

What it reads is what a kernel's author can write, asked of the compiler itself:
- every public callable of `pypto.language`, `pl.tile` and `pl.tensor`, with its parameters
  (name, positional or keyword-only, required or not) and what its annotation says it returns;
- the names of the three namespaces, and the members of the DSL's enums (`pl.MemorySpace`,
  `pypto.backend.BackendType`, ...);
- each dtype's size, and each memory space's capacity on the default backend of that build.

    python -m codemods.maintain.probe     # in an environment where `import pypto` works
"""

from __future__ import annotations

import inspect
import json
import sys

# pl's enum-like classes whose members kernels name (`pl.MemorySpace.Vec`); nanobind enums are
# not `enum.Enum`, so their members are read off `__members__` where they have it.
_ENUMS = ("MemorySpace", "FunctionType", "ForKind", "PipeType", "TensorLayout", "TileLayout", "Level", "PadValue",
          "Role", "SplitMode", "ScopeMode", "AtomicType", "CompactMode")


def _returns(annotation) -> str:
    """What an op's annotation says it gives: the measured table's `result`."""
    if annotation is inspect.Signature.empty:
        return ""
    text = annotation if isinstance(annotation, str) else str(annotation)
    if text.startswith("~"):  # a TypeVar: the result is of the operand's kind
        return "same"
    if "|" in text or "Union" in text:  # Tile or Tensor by the operand: the annotation does not say which
        return ""
    for word, kind in (("Tile", "tile"), ("Tensor", "tensor"), ("Scalar", "scalar")):
        if text.rsplit(".", 1)[-1].startswith(word):
            return kind
    return ""


def _signature(fn) -> dict | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without text signature: nothing to compare
        return None
    params, keyword_only, required = [], [], 0
    for p in sig.parameters.values():
        if p.name in ("span", "self") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.kind is p.KEYWORD_ONLY:
            keyword_only.append(p.name)
            continue
        params.append(p.name)
        if p.default is p.empty and required == len(params) - 1:
            required += 1
    return {"params": params, "keyword_only": keyword_only, "required": required,
            "result": _returns(sig.return_annotation)}


def _public(module) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _ops(module, prefix: str) -> dict[str, dict]:
    out = {}
    for name in _public(module):
        value = getattr(module, name, None)
        if value is None or inspect.ismodule(value) or inspect.isclass(value) or not callable(value):
            continue
        # Helpers the namespace re-exports from typing or the standard library are not ops.
        if getattr(value, "__module__", "") and not str(getattr(value, "__module__", "")).startswith("pypto"):
            continue
        sig = _signature(value)
        if sig is not None:
            out[prefix + name] = sig
    return out


def _members(cls) -> list[str]:
    members = getattr(cls, "__members__", None)
    if members is not None:
        return sorted(members)
    return sorted(n for n in dir(cls) if not n.startswith("_") and not callable(getattr(cls, n, None)))


def measure() -> dict:
    import pypto
    import pypto.language as pl
    from pypto import backend

    ops = _ops(pl, "")
    ops.update(_ops(pl.tile, "tile."))
    ops.update(_ops(pl.tensor, "tensor."))
    namespaces = {"": _public(pl), "tile": _public(pl.tile), "tensor": _public(pl.tensor)}
    enums = {name: _members(getattr(pl, name)) for name in _ENUMS if inspect.isclass(getattr(pl, name, None))}
    enums["BackendType"] = _members(backend.BackendType)
    dtypes = {}
    for name in _members(pl.DataType):
        dtype = getattr(pl.DataType, name)
        get_bit = getattr(dtype, "get_bit", None)
        if callable(get_bit):
            try:
                bits = get_bit()
            except Exception:  # noqa: BLE001 - a pseudo-type without a size (DEFAULT_CONST_*)
                continue
            if name.startswith("DEFAULT_"):
                continue
            # BOOL is one bit to the type and a byte in a buffer (the tables' size); four-bit
            # types pack two to a byte.
            dtypes[name] = 1 if bits == 1 else bits // 8 if bits % 8 == 0 else bits / 8
    limits, chosen = {}, None
    for name in enums["BackendType"]:  # the first backend of the build is the one kernels ran on
        try:
            backend.reset_for_testing()
        except Exception:  # noqa: BLE001 - older builds reset nothing
            pass
        try:
            kind = getattr(backend.BackendType, name)
            backend.set_backend_type(kind)
            instance = _backend_instance(backend, kind)
        except Exception:  # noqa: BLE001 - a backend this build cannot configure
            continue
        for space in _members(pl.MemorySpace):
            try:
                size = instance.get_mem_size(getattr(pl.MemorySpace, space))
            except Exception:  # noqa: BLE001 - a space this backend has not
                continue
            if size:
                limits[space] = int(size)
        chosen = name
        break
    return {"module": "pypto.language", "pypto_file": getattr(pypto, "__file__", ""), "backend": chosen,
            "ops": ops, "namespaces": namespaces, "enums": enums, "dtype_bytes": dtypes, "memory_limits": limits}


def _backend_instance(backend, kind):
    get = getattr(backend, "get_backend_instance", None)
    if callable(get):
        return get(kind)
    for name in _public(backend):  # c39: one class per backend, each a singleton
        cls = getattr(backend, name)
        if inspect.isclass(cls) and name.startswith("Backend") and hasattr(cls, "instance"):
            instance = cls.instance()
            if hasattr(instance, "get_mem_size"):
                return instance
    raise LookupError("no backend instance")


if __name__ == "__main__":
    json.dump(measure(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
