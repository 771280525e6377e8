"""A `@pl.jit` entry whose parameter annotations name something the module never defines
(e2d0f78ae: "@pl.jit function 'f': cannot infer parameter 'p' from the signature"; not in the
catalogue, found compiling the May 2026 library's scaffolds).

`@pl.jit` specializes an entry function from its annotations, evaluated in the module when it is
lowered. Under `from __future__ import annotations` a module whose annotations name constants it
neither defines nor imports still imports; the jit stops at the first such parameter, at the
function's first line. Which values were meant (and from where) is for a person to say: the
function is flagged. A module with a `*` import may define anything, so it is left alone.
"""

from __future__ import annotations

import builtins

import libcst as cst

from ...syntax.nodes import code
from ...syntax.traversal import content, walk
from .base import Upgrade, decorated_as
from ..registry import kind


@kind("upgrade-jit-undefined-annotation")
class JitUndefinedAnnotation(Upgrade):
    flags_only = True  # it only asks a person
    def begin(self, ctx) -> None:
        super().begin(ctx)
        defined = _module_names(ctx.module)
        if defined is None:
            return
        for func in self.info.functions:
            if not decorated_as(func, self.info, "jit"):
                continue
            missing: list[str] = []
            for param in [*func.params.params, *func.params.kwonly_params]:
                if param.annotation is None:
                    continue
                for name in _free_names(param.annotation.annotation):
                    if name not in defined and name not in missing:
                        missing.append(name)
            if missing:
                shown = ", ".join(f"`{n}`" for n in missing[:6]) + (", ..." if len(missing) > 6 else "")
                ctx.flag_at(self.rule, func, f"the parameter annotations name {shown}, which this module neither "
                                             "defines nor imports: @pl.jit specializes the function from them and "
                                             "e2d0f78ae stops here (\"cannot infer parameter ... from the signature\"); "
                                             "import or define the sizes this kernel is meant for")

    def scan(self, site) -> None:
        pass



def _module_names(module: cst.Module) -> set[str] | None:
    """Every name the module binds outside function and class bodies (their own names too), and
    the builtins; None when a `*` import may bind any."""
    names = set(dir(builtins))
    stack = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
            continue
        if isinstance(node, cst.ImportFrom):
            if isinstance(node.names, cst.ImportStar):
                return None
            names.update((a.asname.name if a.asname else a.name).value for a in node.names)
            continue
        if isinstance(node, cst.Import):
            for a in node.names:
                names.add(a.asname.name.value if a.asname else code(a.name).split(".")[0])
            continue
        targets = []
        if isinstance(node, cst.AssignTarget):
            targets = [node.target]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For)):
            targets = [node.target]
        elif isinstance(node, (cst.AsName, cst.NamedExpr)):
            targets = [node.name if isinstance(node, cst.AsName) else node.target]
        for t in targets:
            names.update(n.value for n in walk(t) if isinstance(n, cst.Name))
        stack.extend(content(node))
    return names


def _free_names(annotation) -> list[str]:
    """The names an annotation reads (not the attribute names after a dot)."""
    attrs = {id(n.attr) for n in walk(annotation) if isinstance(n, cst.Attribute)}
    found, stack = [], [annotation]
    while stack:  # in the order of the text
        node = stack.pop()
        if isinstance(node, cst.Name) and id(node) not in attrs:
            found.append(node.value)
        stack.extend(reversed(content(node)))
    return found
