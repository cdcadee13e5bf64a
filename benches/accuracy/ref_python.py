#!/usr/bin/env python3
"""Reference call graph of a Python tree, by jedi: every call site's callee inferred.

    ref_python.py ROOT > ref.json

Output (one JSON object): "defs" (functions, methods, classes: path, name, line of the
name, kind, in_lambda), "edges" (caller def key or "<path>" for top-level code, callee key,
site path:line:col, how: call|construct), "unresolved" (sites jedi could not infer, or whose
callee is not a name: `f()()`, `a[k]()`), "skipped" (counts by reason).
A def key is "path:line" with the line of the def's name.
"""
import json
import os
import sys
from collections import Counter

import jedi
import parso

ROOT = os.path.abspath(sys.argv[1])
project = jedi.Project(ROOT, added_sys_path=[ROOT], smart_sys_path=False)


def rel(p):
    return os.path.relpath(str(p), ROOT)


def files():
    out = []
    for d, dirs, fs in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(fs):
            if f.endswith(".py"):
                out.append(os.path.join(d, f))
    return out


defs = {}
edges = []
unresolved = []
skipped = Counter()
external = 0


def scope_of(node):
    """The innermost enclosing def (key) of a node; "<path>" for top level; None in a lambda."""
    n = node.parent
    while n is not None:
        if n.type == "lambdef":
            return None
        if n.type in ("funcdef", "classdef"):
            if n.type == "funcdef":
                return n
            # A call in a class body runs at class creation: the class's scope.
            return n
        n = n.parent
    return "top"


def collect_defs(path, module, script):
    for n in _walk(module):
        if n.type in ("funcdef", "classdef"):
            nm = n.name
            in_lambda = scope_of(n) is None
            par = n.parent
            while par is not None and par.type not in ("funcdef", "classdef"):
                par = par.parent
            cls = f"{rel(path)}:{par.name.line}" if par is not None and par.type == "classdef" else None
            defs[f"{rel(path)}:{nm.line}"] = {
                "end": n.end_pos[0],
                "class": cls,
                "ctor": n.type == "funcdef" and nm.value == "__init__" and cls is not None,
                "path": rel(path),
                "name": nm.value,
                "line": nm.line,
                "kind": "class" if n.type == "classdef" else "function",
                "in_lambda": in_lambda,
            }
            if n.type == "classdef":
                defs[f"{rel(path)}:{nm.line}"]["bases"] = class_bases(n, script)


def _walk(n):
    stack = [n]
    while stack:
        x = stack.pop()
        yield x
        ch = getattr(x, "children", None)
        if ch:
            stack.extend(reversed(ch))


def class_bases(n, script):
    """Keys of the in-repo classes a class derives from, in order."""
    out = []
    arg = n.get_super_arglist()
    if arg is None:
        return out
    items = arg.children if arg.type == "arglist" else [arg]
    for it in items:
        if it.type == "argument" or getattr(it, "value", None) == ",":
            continue
        leaf = it.get_last_leaf() if hasattr(it, "get_last_leaf") else it
        if leaf.type != "name":
            continue
        try:
            for d in script.infer(leaf.line, leaf.column):
                k = key_of_def(d)
                if k and k != "other" and d.type == "class":
                    out.append(k)
        except Exception:
            pass
    return out


def key_of_def(d):
    """Key of a jedi Name that is a def in ROOT, else None (external)."""
    mp = d.module_path
    if mp is None:
        return None
    mp = str(mp)
    if not mp.startswith(ROOT + os.sep):
        return None
    if d.type not in ("function", "class"):
        return "other"
    line = d.line
    return f"{rel(mp)}:{line}"


def call_sites(module):
    """(callee name leaf or None, open-paren leaf) for each call trailer."""
    for n in _walk(module):
        if n.type == "trailer" and n.children[0].type == "operator" and n.children[0].value == "(":
            prev = n.get_previous_sibling()
            leaf = None
            if prev is not None:
                if prev.type == "name":
                    leaf = prev
                elif prev.type == "trailer" and prev.children[0].value == "." and prev.children[1].type == "name":
                    leaf = prev.children[1]
            yield leaf, n
        elif n.type == "decorator":
            skipped["decorator"] += 1


for path in files():
    code = open(path, encoding="utf-8", errors="replace").read()
    script = jedi.Script(code, path=path, project=project)
    module = script._module_node
    collect_defs(path, module, script)
    for leaf, paren in call_sites(module):
        sc = scope_of(paren)
        at = leaf.start_pos if leaf is not None else paren.start_pos
        site = f"{rel(path)}:{at[0]}:{at[1] + 1}"
        if sc is None:
            unresolved.append({"caller": None, "site": site, "why": "call in a lambda"})
            continue
        caller = f"<{rel(path)}>" if sc == "top" else f"{rel(path)}:{sc.name.line}"
        if leaf is None:
            unresolved.append({"caller": caller, "site": site, "why": "callee is not a name"})
            continue
        try:
            # goto names the def itself (a decorated function stays itself); infer follows
            # values (`f = g; f()`, an attribute holding a class).
            found = [d for d in script.goto(leaf.line, leaf.column, follow_imports=True)
                     if d.type in ("function", "class")]
            inferred = found or script.infer(leaf.line, leaf.column)
        except Exception as e:  # jedi bugs on odd code
            unresolved.append({"caller": caller, "site": site, "why": f"jedi error {type(e).__name__}"})
            continue
        if not inferred:
            unresolved.append({"caller": caller, "site": site, "why": "not inferred"})
            continue
        if all(d.type not in ("function", "class") for d in inferred):
            # a parameter or variable typed Callable, an instance: the value is not known
            unresolved.append({"caller": caller, "site": site, "why": "callee is a value of unknown origin"})
            continue
        if all(key_of_def(d) is None for d in inferred):
            external += 1
        seen = set()
        for d in inferred:
            k = key_of_def(d)
            if k is None or k in seen:
                continue
            seen.add(k)
            if k == "other":
                skipped["callee is an instance or other value"] += 1
                continue
            edges.append({"caller": caller, "callee": k, "site": site,
                          "how": "construct" if d.type == "class" else "call"})

json.dump({"tool": f"jedi {jedi.__version__}", "defs": defs, "edges": edges,
           "unresolved": unresolved, "skipped": dict(skipped), "external_sites": external}, sys.stdout)
