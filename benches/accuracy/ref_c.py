#!/usr/bin/env python3
"""Reference call graph of a C or C++ code base, by GCC: the call graph GCC writes with
`-fcallgraph-info`, linked across translation units as the linker would.

    ref_c.py [--lang=cpp] [--skip=GLOB...] FOLDER [GCC_FLAG...] > ref.json

Every `.c` file of FOLDER (hidden folders skipped) is compiled on its own, two at a time
($REF_C_JOBS), from FOLDER: `gcc -O0 -c -fcallgraph-info -fkeep-inline-functions
-fkeep-static-functions -w -IDIR... GCC_FLAG... -o /dev/null`, with `-I` for every folder of FOLDER that holds a `.h`
file (FOLDER first), no configure step and no defines of our own (GCC_FLAG adds some, if a
code base needs them). GCC writes one `.ci` file (VCG) per translation unit (TU): a node per
function defined or called (`title: "NAME"`, or `"TU:NAME"` for a `static` one; `label:
"NAME\\nFILE:LINE:COL"`, `shape : ellipse` when only declared), an edge per call site
(`label: "FILE:LINE:COL"`; a call GCC makes itself, `memset` for an initialiser, has none and
is skipped). A file that does not compile (a platform's sources: `windows.h`) is skipped and
counted on stderr, and so is a unity build (a `.c` file that `#include`s other `.c` files:
its functions are theirs, compiled again).

-O0 inlines nothing (no `always_inline` in these code bases), so every call GCC keeps is an
edge; `-fkeep-*` makes GCC emit the static and `static inline` functions no TU calls, so that
they are defs too. Even at -O0 GCC drops code it folds away (`if (0) f();`, `if (sizeof(int)
== 2) f();`, statements after a `return`): no edge there. Macros are expanded: a call written
in a macro's body gets the site of the macro's use (the expansion point, also for a
multi-line body and for a macro used in another macro) and belongs to the function that uses
the macro, never to the macro (macros are no defs here); a call in a macro's argument that
the macro drops (`lua_assert(f(x))` is `((void)0)`) is no call. A call written as another
call's argument (`printf("%s",\\n zlibVersion())`, `two(ver())`) is given the outer call's
site; the reference moves it to the first `NAME(` from there to the end of the statement
(kept where it is when the name is not written there: a macro's use). A `static inline`
function of a header is compiled into each TU that includes it (title `TU:NAME`, label
`header.h:LINE:COL`): all copies are the header's one def.

Defs: every function GCC compiled (a node without `shape : ellipse`) whose label's file is
inside FOLDER; key `path:line`, the line of the function's name (paths relative to FOLDER). A
def whose name is not written on its line (made by a macro) is `generated`: not sampled, and
calls from or to it are left out (counted). A def's `end` is the line of its body's closing
`}` (braces in untaken preprocessor branches not counted). Output: the same JSON as
ref_python.py, plus `not_compiled` (the files that do not compile).

Edges, resolved as the linker does: a `static` callee (`TU:NAME`) is that TU's definition; a
non-static name is the definition in the calling TU if it has one, else the one definition of
that name among the compiled TUs (copies of one definition, same file and line, are one).
None: external (libc, system headers), counted. Left unresolved, with a reason: a call
through a function pointer (GCC's `__indirect_call`: "callee is a value of function type");
a non-static name defined in several TUs, none of them the caller's ("ambiguous": separate
programs of one repository: Lua's test modules `testes/libs/lib2.c` and `lib22.c`).

What GCC does not compile cannot be resolved, and is said so too (unresolved entries by
line, for each line of code with a `name(` on it, or in C++ a variable declared without an
initialiser, `Status s;`, with no caller): the lines of a
preprocessor branch that no compiled TU takes ("in a preprocessor branch the build leaves
out": `#ifdef _WIN32`, `#else` of a feature test; found with `gcc -E -dD` of each TU: a
branch none of whose lines reaches the preprocessed output), and every line of a C or C++
file of FOLDER that no compiled TU reads ("in a file the build does not compile").

C++ (`--lang=cpp`, g++ 12's call graph, the same way): each `.cc`, `.cpp`, `.cxx` file is
compiled by `g++ -std=c++17`, with `-iquote` for FOLDER and the folders holding a header
(not `-I`: a header of FOLDER must not stand for a system one, ninja's `getopt.h`), GCC_FLAG
adding a code base's defines and include folders; `.c` files and those matching `--skip`
(ninja's re2c inputs, `*.in.cc`, define what the generated sources define) are not
compiled. A template no TU instantiates is not compiled: its calls are not edges. g++ titles a
function by its mangled name (`TU:MANGLED` for the TU's own copy: internal linkage, inline
functions, template instances) and labels it with its demangled signature and the place of
its name (`int ns::Foo::bar(int) const\nfoo.cc:12:5`); a call's site is its `(`.
- Linking by the demangled name (`c++filt`), so that a constructor's complete-object and
  base-object variants (C1, C2) are one function: the calling TU's own definition, else the
  one definition of external linkage (inline functions and template instances included)
  among the TUs. A def is a definition place + name: the copies of an inline function of a
  header and the instances of a template (`maxof<int>`, `maxof<double>`) are one def, at the
  template's place. Its name is the unqualified one (`Foo::bar` is `bar`; a constructor's is
  its class's, a destructor's `~Foo`); key `path:line` (`path:line:col` when defs share a
  line).
- Classes (`class|struct|union NAME ... {` of the files the TUs read, namespaces and nesting
  followed by braces) are defs of kind `class` with their `bases`; a method's `class` is its
  class's key and a constructor has `ctor: true`: a class and its constructors are one node.
- What the compiler adds is left out, counted in `skipped`: functions with no body of their
  own (implicit and `= default` constructors, copies, moves, assignments, destructors: their
  place is the class's name or a `= default`) are no defs, and calls from them are left out;
  calls of destructors (scope ends, `delete`, temporaries; a destructor written in the source
  is a def); calls of operators (`a == b`, `s[i]`, conversions), as the other references do;
  a constructor call that does not name its class (a member initialised in an initializer
  list, a copy, a conversion `X x = 4;`, a base constructed implicitly, a default argument).
  Kept, as "construct": `X x(...)`, `X x{...}`, `X x;`, `new X(...)`, `new X[n]`, `X(...)`,
  and a base named in an initializer list (g++ gives that call the end of the list; moved to
  where the base is named); the site is where the class is named. Such a call of a
  constructor the compiler made is an edge to the class (`new Edge()`: the class stands for
  its implicit constructor, as javac's default constructor is its class). Calls in a lambda
  belong to the function around it (a lambda is no def; a call of one is left out); what a
  namespace-scope variable's initialiser calls belongs to its file's top level `<path>`.
  Thunks are skipped. g++ labels a variadic function `)`: its demangled name is read instead.
- A virtual call through a pointer or a reference, or a call of a function pointer
  (`__indirect_call`), is unresolved: "dynamic dispatch or a function pointer". Calls into
  the standard library are external.
"""
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

C_EXT = (".c",)
CPP_EXT = (".cc", ".cpp", ".cxx")
SOURCE_EXT = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx")
NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "(.*?)"( shape : ellipse)? \}$')
EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"(?: label: "([^"]*)")? \}$')
LOC = re.compile(r"^(.*):(\d+):(\d+)$")
UNITY = re.compile(r'^\s*#\s*include\s*[<"][^>"]+\.c[>"]', re.M)
LINEMARK = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")
CALLISH = re.compile(r"[A-Za-z_]\w*\s*\(")
# C++: a variable declared of a class type without an initialiser (`Status s;`, `InternalKey
# a, b;`), where the class's default constructor runs.
DECLARED = re.compile(r"[A-Za-z_][\w:>]*\s+[*&]*[A-Za-z_]\w*\s*[,;]")
FLAGS = ["-O0", "-c", "-fcallgraph-info", "-fkeep-inline-functions", "-fkeep-static-functions", "-w"]
# what differs between the two languages
LANGS = {
    "c": {"compiler": "gcc", "units": C_EXT, "headers": (".h",), "std": [], "include": "-I", "unity": UNITY,
          "indirect": "callee is a value of function type"},
    "cpp": {"compiler": "g++", "units": CPP_EXT, "headers": (".h", ".hh", ".hpp", ".hxx"), "std": ["-std=c++17"],
            "include": "-iquote",
            "unity": re.compile(r'^\s*#\s*include\s*[<"][^>"]+\.(?:c|cc|cpp|cxx)[>"]', re.M),
            "indirect": "dynamic dispatch or a function pointer"},
}
TARGS = r"(?:<[^;{}()]*>)?"  # a template's arguments, if written


def walk(root):
    out = []
    for d, dirs, fs in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(fs):
            out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def code_lines(text):
    """The file's lines with comments and the insides of string and char literals blanked
    (every character kept where it was)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            if text[i + 1] == "/":
                j = text.find("\n", i)
                j = n if j < 0 else j
            else:
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
            continue
        i += 1
    return "".join(out).split("\n")


class Sources:
    """A code base's files, read once each as `lines` reads them (ref_ada.py: Ada's)."""

    def __init__(self, root, lines=None):
        self.root, self.cache, self.lines = root, {}, lines or code_lines

    def code(self, path):
        if path not in self.cache:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                    self.cache[path] = self.lines(f.read())
            except OSError:
                self.cache[path] = []
        return self.cache[path]

    def end_of_function(self, path, line, skip=frozenset()):
        """The line of the `}` closing the body of the function whose name is on `line`
        (the lines in `skip`, untaken preprocessor branches, not read)."""
        ls = self.code(path)
        depth = 0
        for ln in range(line, len(ls) + 1):
            if ln in skip:
                continue
            for ch in ls[ln - 1]:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        return ln
        return line

    def call_site(self, path, line, col, name, cpp=False):
        """Where `name(` is written, from GCC's site of a call of `name`: GCC gives a call
        written as another call's argument (`printf("%s",\\n zlibVersion())`) the outer
        call's site; the first `name(` from there to the end of the statement is the call's.
        Kept as it is when the name is at the site or not in the statement (a macro's use).
        g++ (`cpp`) puts a call's site at its `(`: kept when `name` (and template arguments)
        is written just before it."""
        ls = self.code(path)
        if not 0 < line <= len(ls):
            return line, col
        word = re.compile(r"(?<![\w$])" + re.escape(name) + (r"\s*" + TARGS if cpp else "") + r"\s*\(")
        if word.match(ls[line - 1], col - 1):
            return line, col
        if cpp and re.search(r"(?<![\w$])" + re.escape(name) + r"\s*" + TARGS + r"\s*$", ls[line - 1][:col - 1]):
            return line, col
        depth = 0
        for ln in range(line, min(line + 30, len(ls)) + 1):
            text = ls[ln - 1]
            for i in range(col - 1 if ln == line else 0, len(text)):
                c = text[i]
                if c == name[0] and word.match(text, i):
                    return ln, i + 1
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif c in ";{}" and depth <= 0:
                    return self.call_before(ls, line, col, word) if cpp else (line, col)
        return self.call_before(ls, line, col, word) if cpp else (line, col)

    @staticmethod
    def call_before(ls, line, col, word):
        """g++ also gives a call the site of its last argument (`return F(a,\\n b ? c : d)`):
        the last `name(` before the site in its statement, else the site."""
        for ln in range(line, max(0, line - 30), -1):
            text = ls[ln - 1][:col - 1] if ln == line else ls[ln - 1]
            start = max(text.rfind(";"), text.rfind("{"), text.rfind("}"))
            found = [m.start() for m in word.finditer(text) if m.start() > start]
            if found:
                return ln, found[-1] + 1
            if start >= 0:
                break
        return line, col

    def inactive_lines(self, path, active):
        """Lines of code in preprocessor branches none of whose lines is in `active`."""
        ls = self.code(path)
        groups, stack = [], []
        for i, l in enumerate(ls, 1):
            m = DIRECTIVE.match(l)
            if not m:
                continue
            d = m.group(1)
            if d.startswith("if"):
                stack.append(i + 1)
            elif stack:
                groups.append((stack.pop(), i - 1))
                if d != "endif":
                    stack.append(i + 1)
        out = set()
        for a, b in groups:
            if any(x in active for x in range(a, b + 1)):
                continue
            out.update(x for x in range(a, b + 1) if ls[x - 1].strip())
        return out

    # C++: what the source says at a def's or a call's place

    def text_from(self, path, line, col, lines=12):
        """The code from (line, col) on, `lines` lines of it, joined by newlines."""
        ls = self.code(path)
        if not 0 < line <= len(ls):
            return ""
        return "\n".join([ls[line - 1][col - 1:]] + ls[line:line + lines - 1])

    def written_def(self, path, line, col, name):
        """Whether a function's body is written at its place (g++'s label): `[Q::]NAME(`,
        not `= default`. An implicit member's place is its class's name (`Foo : Base {`)."""
        text = self.text_from(path, line, col)
        m = re.match(r"(?:~?\w+\s*" + TARGS + r"\s*::\s*)*", text)
        rest = text[m.end():]
        if name.startswith("operator"):
            m = re.match(r"operator\b.*?\(", rest, re.S) if name != "operator()" else re.match(r"operator\s*\(\s*\)\s*\(", rest)
        else:
            m = re.match(re.escape(name) + r"\s*" + TARGS + r"\s*\(", rest)
        if not m:
            return False
        depth, i = 1, m.end()
        while i < len(rest) and depth:
            depth += {"(": 1, ")": -1}.get(rest[i], 0)
            i += 1
        return not re.match(r"[^;{]*=\s*default\b", rest[i:])

    def names_class(self, path, line, col, cls):
        """Where a constructor call at g++'s site names its class `cls`, (line, col) or None:
        the site is at `cls` (`cls(...)`, `new cls`), at the `)`/`}`/`]` closing `cls(...)`,
        `new cls[n]` or `VAR(...)` of a declaration `cls VAR(...)`, at `VAR` of `cls VAR;`, or
        at the `=` of `p = new cls(...)`."""
        ls = self.code(path)
        if not 0 < line <= len(ls) or not cls:
            return None
        text = ls[line - 1]
        i = col - 1
        typed = re.compile(r"(?<![\w$])" + re.escape(cls) + r"\s*" + TARGS + r"\s*$")
        if re.match(re.escape(cls) + r"\b", text[i:]):
            return line, col
        if i < len(text) and text[i] == "=":  # `p = new cls(...)`: the assignment's site
            for k in range(line, min(line + 5, len(ls)) + 1):
                t = ls[k - 1][i + 1:] if k == line else ls[k - 1]
                m = re.search(r"(?<![\w$])" + re.escape(cls) + r"\s*" + TARGS + r"\s*[({\[;]", t.split(";")[0] + ";")
                if m:
                    return k, m.start() + 1 + (i + 1 if k == line else 0)
                if ";" in t:
                    return None
            return None
        if i < len(text) and text[i] in ")}]":
            # back to the bracket that opens it (`]`: `new cls[n]`)
            want, depth, ln, j = "({["[")}]".index(text[i])], 0, line, i
            while True:
                c = ls[ln - 1][j] if j < len(ls[ln - 1]) else " "
                if c in ")}]":
                    depth += 1
                elif c in "({[":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
                while j < 0:
                    ln -= 1
                    if ln < max(1, line - 30):
                        return None
                    j = len(ls[ln - 1]) - 1
            if c != want:
                return None
            before = ls[ln - 1][:j]
            m = typed.search(before)  # cls(...), new cls(...)
            if not m:
                v = re.search(r"(?:\w+\s*::\s*)*\w+\s*$", before)
                m = v and typed.search(before[:v.start()])  # cls VAR(...), cls Outer::var(...)
            if m:
                return ln, m.start() + 1
            # a temporary in the arguments, its own `)` not told (`f(x ? y : cls())`)
            for k in range(line, ln - 1, -1):
                t = ls[k - 1][:i] if k == line else ls[k - 1]
                ms = [x for x in re.finditer(r"(?<![\w$])" + re.escape(cls) + r"\s*" + TARGS + r"\s*[({]", t)
                      if k != ln or x.start() > j]
                if ms:
                    return k, ms[-1].start() + 1
            return None
        m = re.match(r"\w+", text[i:]) and typed.search(text[:i])  # cls VAR;
        return (line, m.start() + 1) if m else None

    def classes(self, path, skip=frozenset()):
        """The classes defined in a file: (qualified name, name, line, col, end, bases), the
        qualified name with the namespaces and classes around it."""
        ls = [("" if i in skip or l.lstrip().startswith("#") else l) for i, l in enumerate(self.code(path), 1)]
        for i in range(1, len(ls)):  # a directive's continuation lines
            if self.code(path)[i - 1].rstrip().endswith("\\") and (ls[i - 1] == "" or self.code(path)[i - 1].lstrip().startswith("#")):
                ls[i] = ""
        text = "\n".join(ls)
        starts = [0]
        for l in ls:
            starts.append(starts[-1] + len(l) + 1)
        pos = lambda k: (next(n for n in range(len(starts) - 1, -1, -1) if starts[n] <= k) + 1)
        token = re.compile(
            r"(?P<ns>\bnamespace\b\s*(?P<nsname>[\w:]*)\s*\{)"
            r"|(?P<cls>(?<!enum )\b(?:class|struct|union)\s+(?:\w+\s+)*?(?P<name>(?:\w+\s*" + TARGS + r"\s*::\s*)*\w+)\s*"
            + TARGS + r"\s*(?:final\s*)?(?::(?!:)(?P<bases>[^;{]*))?\{)"
            r"|(?P<open>\{)|(?P<close>\})")
        stack, out = [], []
        for m in token.finditer(text):
            if m.group("ns") is not None:
                stack.append(("ns", m.group("nsname") or "{anonymous}", None))
            elif m.group("cls") is not None:
                q = "::".join(strip_targs(x) for x in split_top(re.sub(r"\s+", "", m.group("name")), "::"))
                ln = pos(m.start("name"))
                qual = "::".join([s[1] for s in stack if s[0] != "block"] + [q])
                bases = []
                for b in re.split(r",(?![^<]*>)", m.group("bases") or ""):
                    b = re.sub(r"\b(public|protected|private|virtual)\b", "", re.sub(r"<.*", "", b)).strip()
                    if b:
                        bases.append(re.sub(r"\s+", "", b))
                out.append([qual, q.split("::")[-1], ln, m.start("name") - starts[ln - 1] + 1, ln, bases])
                stack.append(("class", q, len(out) - 1))
            elif m.group("open") is not None:
                stack.append(("block", None, None))
            elif stack:
                kind, _, idx = stack.pop()
                if kind == "class":
                    out[idx][4] = pos(m.start())
        return [tuple(c) for c in out]


def compile_one(root, path, flags, scratch, lang="c"):
    """(.ci text, {file: active lines}) of one TU, or (None, error)."""
    cc = LANGS[lang]["compiler"]
    d = tempfile.mkdtemp(dir=scratch)
    try:
        p = subprocess.run([cc, *FLAGS, *flags, path, "-o", "/dev/null", "-dumpdir", d + "/"],
                           cwd=root, capture_output=True, text=True)
        ci = [f for f in os.listdir(d) if f.endswith(".ci")]
        if p.returncode != 0 or not ci:
            return None, (p.stderr.strip().splitlines() or ["?"])[0]
        with open(os.path.join(d, ci[0]), encoding="utf-8", errors="replace") as f:
            text = f.read()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    e = subprocess.run([cc, "-E", "-dD", "-w", *flags, path], cwd=root, capture_output=True, text=True,
                       errors="replace")
    active = defaultdict(set)
    cur, ln = path, 1
    for l in e.stdout.split("\n"):
        m = LINEMARK.match(l)
        if m:
            ln, cur = int(m.group(1)), m.group(2)
            continue
        if l.strip():
            active[cur].add(ln)
        ln += 1
    return text, active


def parse_ci(text):
    nodes, edges = {}, []
    for l in text.split("\n"):
        m = NODE.match(l)
        if m:
            title, label, declared = m.groups()
            name, _, loc = label.partition("\\n")
            lm = LOC.match(loc)
            nodes[title] = {"name": name, "file": lm.group(1) if lm else None,
                            "line": int(lm.group(2)) if lm else None, "col": int(lm.group(3)) if lm else None,
                            "defined": not declared}
            continue
        m = EDGE.match(l)
        if m:
            edges.append(m.groups())
    return nodes, edges


# C++ names

def demangle(names):
    """{mangled: demangled} by c++filt (a C name stays itself)."""
    names = sorted(names)
    p = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True)
    return dict(zip(names, p.stdout.split("\n")))


def strip_targs(s):
    """`Box<T>` -> `Box` (the template arguments written after a name)."""
    while s.endswith(">"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {">": 1, "<": -1}.get(s[i], 0)
            if depth == 0:
                break
        s = s[:i].rstrip()
    return s


def split_top(s, sep):
    """`s` split at each `sep` outside <>, () and []."""
    out, depth, last, i = [], 0, 0, 0
    while i < len(s):
        c = s[i]
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            out.append(s[last:i])
            i += len(sep)
            last = i
            continue
        i += 1
    out.append(s[last:])
    return out


def cpp_signature(sig):
    """(qualifier, name) of a demangled function signature: `int ns::Foo::bar(int) const`
    -> ("ns::Foo", "bar"); `T ns::maxof(T, T) [with T = int]` -> ("ns", "maxof");
    `bool Foo::operator==(const Foo&) const` -> ("Foo", "operator==")."""
    sig = sig.replace("(anonymous namespace)", "{anonymous}")
    w = sig.rfind(" [with ")
    if w > 0:
        sig = sig[:w]
    end = sig.rfind(")")
    if end < 0:
        head = sig
    else:
        depth = 0
        for i in range(end, -1, -1):
            depth += {")": 1, "(": -1}.get(sig[i], 0)
            if depth == 0:
                break
        head = sig[:i].rstrip()
    m = re.search(r"(?:^|::|\s)(operator\b.*)$", head)
    if m:
        name = m.group(1)
        name = "operator" + (name[8:].strip() if re.match(r"operator\s*\w", name) is None else " " + name[8:].strip())
        qual = head[:m.start(1)].rstrip(":")
        qual = split_top(qual, " ")[-1] if qual.strip() else ""
        return qual, name
    head = strip_targs(head)
    head = split_top(head, " ")[-1]
    parts = split_top(head, "::")
    return "::".join(parts[:-1]), parts[-1]


def internal_linkage(mangled):
    """A mangled name of internal linkage: `static` (`_ZL6helperi`, `_ZN2nsL6helperEi`) or in
    an anonymous namespace."""
    if "_GLOBAL__N_" in mangled:
        return True
    m = re.match(r"_ZN?[rVKRO]*", mangled)
    if not m:
        return False
    i = m.end()
    while i < len(mangled):
        if mangled[i] == "L" and i + 1 < len(mangled) and mangled[i + 1].isdigit():
            return True
        d = re.match(r"\d+", mangled[i:])
        if d:
            i += len(d.group()) + int(d.group())
        elif mangled.startswith("St", i):
            i += 2
        elif mangled[i] == "S":
            e = mangled.find("_", i)
            if e < 0:
                return False
            i = e + 1
        else:
            return False
    return False


def cpp_info(title, label, demangled):
    """What a g++ node is: name, qualifier, and whether a constructor (and which variant),
    a destructor, an operator, a lambda, a thunk or a static initialiser."""
    mangled = title.rsplit(":", 1)[-1]
    sig = label if label and "(" in label else demangled  # g++ writes `)` for a variadic's
    info = {"lambda": "<lambda" in (label or "") or "{lambda" in demangled,
            "thunk": mangled.startswith(("_ZTh", "_ZTv", "_ZTc")),
            "init": mangled.startswith("_GLOBAL__sub_") or "__static_initialization_and_destruction" in demangled}
    qual, name = cpp_signature(sig)
    cls = strip_targs(split_top(qual, "::")[-1]) if qual else ""
    info.update(qual=qual, name=name, cls=cls, dtor=name.startswith("~"), op=name.startswith("operator"),
                ctor=bool(cls) and strip_targs(name) == cls,
                base_ctor=bool(re.search(r"[\w\d]C2[EIB]", mangled)),
                internal=internal_linkage(mangled))
    if info["ctor"]:
        info["name"] = cls
    else:
        info["name"] = strip_targs(name) if not info["op"] else name
    return info


def norm_qual(q):
    """A qualified name without anonymous namespaces and template arguments."""
    return "::".join(strip_targs(p) for p in split_top(q, "::") if p and p != "{anonymous}")


GEN, LAMBDA, INIT, THUNK = "\0generated", "\0lambda", "\0init", "\0thunk"  # key_of markers (C++)


def main():
    args, lang, skip_globs = [], "c", []
    for a in sys.argv[1:]:  # --lang= and --skip= anywhere, the rest: FOLDER, then GCC's flags
        if a.startswith("--lang="):
            lang = a.split("=", 1)[1]
        elif a.startswith("--skip="):
            skip_globs.append(a.split("=", 1)[1])
        else:
            args.append(a)
    cpp = lang == "cpp"
    L = LANGS[lang]
    root = os.path.abspath(args[0])
    extra = args[1:]
    files = walk(root)
    src = Sources(root)
    hdirs = {os.path.dirname(f) or "." for f in files if f.endswith(L["headers"])} | ({"."} if cpp else set())
    hdirs = sorted(hdirs, key=lambda d: (d != ".", d))
    flags = L["std"] + [f"{L['include']}{d}" for d in hdirs] + extra
    skipped = Counter()
    units = []
    for f in files:
        if not f.endswith(L["units"]):
            continue
        if any(fnmatch.fnmatch(f, g) or fnmatch.fnmatch(os.path.basename(f), g) for g in skip_globs):
            skipped["file left out (--skip): not compiled"] += 1
            print(f"ref_c: {f}: left out (--skip), not compiled", file=sys.stderr)
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            if L["unity"].search(fh.read()):
                skipped["unity build (a .c file including .c files): not compiled"] += 1
                print(f"ref_c: {f}: a unity build, not compiled", file=sys.stderr)
                continue
        units.append(f)

    def rel(p):
        """A GCC path (relative to FOLDER, or absolute) relative to FOLDER, or None outside."""
        if p is None:
            return None
        r = os.path.relpath(os.path.normpath(os.path.join(root, p)), root)
        return None if r.startswith("..") else r

    scratch = tempfile.mkdtemp(prefix="ref_c.")
    tus, active, failed = {}, defaultdict(set), []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=int(os.environ.get("REF_C_JOBS", "2"))) as pool:
            futs = {u: pool.submit(compile_one, root, u, flags, scratch, lang) for u in units}
            for u in units:
                text, res = futs[u].result()
                if text is None:
                    failed.append(u)
                    print(f"ref_c: {u}: does not compile: {res}", file=sys.stderr)
                    continue
                tus[u] = parse_ci(text)
                for f, ls in res.items():
                    r = rel(f)
                    if r is not None:
                        active[r] |= ls
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failed:
        skipped["file that does not compile"] = len(failed)
    print(f"ref_c: {len(tus)} of {len(units)} files compiled, {len(failed)} do not compile", file=sys.stderr)

    inactive = {f: src.inactive_lines(f, active[f]) for f in files if f.endswith(SOURCE_EXT) and f in active}

    # C++: each node's name and nature, and the name the linker knows it by (demangled)
    info, dem = {}, {}
    if cpp:
        dem = demangle({t.rsplit(":", 1)[-1] for nodes, edges in tus.values()
                        for t in list(nodes) + [e[1] for e in edges]})
        for tu, (nodes, _) in tus.items():
            for title, n in nodes.items():
                info[title] = cpp_info(title, n["name"], dem.get(title.rsplit(":", 1)[-1], title))

    def link(title):
        return dem.get(title.rsplit(":", 1)[-1], title) if cpp else title

    def is_global(title):
        return not info[title]["internal"] if cpp else ":" not in title

    # Defs, and the definitions of each non-static name.
    defs, key_of, global_defs = {}, {}, defaultdict(set)  # key_of[(tu, link)] -> def key or None
    places = {}  # C++: (path, line, col, name) -> def
    lambdas = {}
    for tu, (nodes, _) in tus.items():
        for title, n in nodes.items():
            if not n["defined"]:
                continue
            r = rel(n["file"])
            lk = (tu, link(title))
            if cpp and info[title]["init"]:
                key_of[lk] = INIT
                continue
            if r is None:
                key_of[lk] = None
                continue
            if cpp:
                ni = info[title]
                if ni["thunk"]:
                    key_of[lk] = THUNK
                elif ni["lambda"]:
                    key_of[lk] = (LAMBDA, r, n["line"])
                elif not src.written_def(r, n["line"], n["col"], ni["name"] if not ni["ctor"] else ni["cls"]):
                    key_of[lk] = GEN  # implicit, defaulted, or made by a macro
                else:
                    p = (r, n["line"], n["col"], ni["name"])
                    places.setdefault(p, {"title": title, "info": ni})
                    key_of[lk] = p
                    if is_global(title):
                        global_defs[link(title)].add(p)
                continue
            key = f"{r}:{n['line']}"
            key_of[lk] = key
            if is_global(title):
                global_defs[title].add(key)
            if key in defs:
                continue
            code = src.code(r)
            generated = not (n["line"] <= len(code) and re.search(r"\b" + re.escape(n["name"]) + r"\b", code[n["line"] - 1]))
            d = {"path": r, "name": n["name"], "line": n["line"],
                 "end": n["line"] if generated else src.end_of_function(r, n["line"], inactive.get(r, ())),
                 "kind": "function", "class": None, "ctor": False, "in_lambda": False}
            if generated:
                d["generated"] = True
            defs[key] = d

    if cpp:
        # classes, from the source of the files the TUs read
        cls_places = []
        for f in sorted(active):
            if f.endswith(SOURCE_EXT):
                for qual, name, line, col, end, bases in src.classes(f, inactive.get(f, ())):
                    cls_places.append((f, line, col, name, qual, end, bases))
        per_line = Counter((p[0], p[1]) for p in list(places) + cls_places)
        key = lambda path, line, col: f"{path}:{line}" if per_line[(path, line)] == 1 else f"{path}:{line}:{col}"
        by_qual = defaultdict(list)
        for f, line, col, name, qual, end, bases in cls_places:
            k = key(f, line, col)
            defs[k] = {"path": f, "name": name, "line": line, "end": end, "kind": "class", "class": None,
                       "ctor": False, "in_lambda": False, "bases": bases}
            by_qual[norm_qual(qual)].append(k)

        def class_key(qual, path):
            """The class of a qualified name: by its whole name, else by its last names; of
            several, the one in `path` (classes of anonymous namespaces)."""
            q = norm_qual(qual)
            ks = by_qual.get(q) or [k for kq, v in by_qual.items() if kq.endswith("::" + q) or q.endswith("::" + kq) for k in v]
            if len(ks) > 1:
                ks = [k for k in ks if defs[k]["path"] == path]
            return ks[0] if len(ks) == 1 else None

        for k, d in list(defs.items()):
            ks = []
            for b in d.get("bases", []):
                bk = class_key(b, d["path"])
                if bk:
                    ks.append(bk)
            if d["kind"] == "class":
                d["bases"] = ks
        place_key = {}
        for p, v in places.items():
            r, line, col, name = p
            ni = v["info"]
            k = key(r, line, col)
            place_key[p] = k
            ck = class_key(ni["qual"], r) if ni["qual"] else None
            if ck is not None and defs[ck]["kind"] != "class":
                ck = None
            defs[k] = {"path": r, "name": name, "line": line,
                       "end": src.end_of_function(r, line, inactive.get(r, ())), "kind": "function",
                       "class": ck, "ctor": ni["ctor"] and ck is not None, "in_lambda": False}
        key_of = {lk: place_key.get(v, v) if isinstance(v, tuple) and v[0] != LAMBDA else v for lk, v in key_of.items()}
        global_defs = {lk: {place_key[p] for p in ps} for lk, ps in global_defs.items()}
        fn_spans = defaultdict(list)
        for k, d in defs.items():
            if d["kind"] == "function":
                fn_spans[d["path"]].append((d["line"], d["end"], k))

        def around(path, line):
            """The innermost function whose span holds `line` (a lambda's), else the file's top level."""
            best = None
            for a, b, k in fn_spans.get(path, []):
                if a <= line <= b and (best is None or a > best[0]):
                    best = (a, k)
            return best[1] if best else f"<{path}>"

        for lk, v in key_of.items():
            if isinstance(v, tuple) and v[0] == LAMBDA:
                key_of[lk] = around(v[1], v[2])

    edges, unresolved, external = [], [], 0
    seen = set()
    for tu, (nodes, tedges) in tus.items():
        for source, target, label in tedges:
            caller = key_of.get((tu, link(source)))
            lm = LOC.match(label or "")
            if cpp and caller in (GEN, THUNK):
                skipped["call from a function the compiler generates (implicit, defaulted; a thunk)"] += 1
                continue
            if cpp and caller == INIT:  # a namespace-scope variable's initialiser
                caller = f"<{rel(lm.group(1))}>" if lm and rel(lm.group(1)) else None
            if caller is None:
                skipped["call from a function outside the folder"] += 1
                continue
            if not lm:
                skipped["call without a site"] += 1
                continue
            sfile, sline, scol = rel(lm.group(1)), int(lm.group(2)), int(lm.group(3))
            if target == "__indirect_call":
                unresolved.append({"caller": caller, "site": f"{sfile or lm.group(1)}:{sline}:{scol}",
                                   "why": L["indirect"]})
                continue
            ti = None
            if cpp:
                ti = info.get(target) or cpp_info(target, None, link(target))
            if (tu, link(target)) in key_of:  # defined in this TU (static, or the TU's own global)
                callee = key_of[(tu, link(target))]
            elif ":" in target:
                callee = None  # a static declared, not defined: nothing runs here
            else:
                cands = global_defs.get(link(target), set())
                if len(cands) > 1:
                    if sfile is not None and target in nodes:
                        sline, scol = src.call_site(sfile, sline, scol, ti["name"] if cpp else nodes[target]["name"], cpp)
                    unresolved.append({"caller": caller, "site": f"{sfile or lm.group(1)}:{sline}:{scol}",
                                       "why": "ambiguous: defined in several files"})
                    continue
                callee = next(iter(cands), None)
            if callee is None:
                external += 1
                continue
            how = "call"
            if cpp:
                if ti["dtor"]:
                    skipped["call of a destructor (a scope's end, delete, a temporary)"] += 1
                    continue
                if ti["op"]:
                    skipped["call of an operator (a + b, s[i], a conversion)"] += 1
                    continue
                made = None  # a constructor the compiler makes: its class stands for it
                if callee == GEN and ti["ctor"]:
                    made = class_key(ti["qual"], rel(nodes[target]["file"]) if target in nodes else None)
                if callee in (GEN, THUNK, INIT) and made is None:
                    skipped["call of a function the compiler generates (implicit, defaulted)"] += 1
                    continue
                if made is None and (ti["lambda"] or defs.get(callee, {}).get("kind") != "function"):
                    skipped["call of a lambda"] += 1
                    continue
                if ti["ctor"]:
                    how = "construct"
                    at = None
                    cd = defs.get(caller)
                    if ti["base_ctor"] and cd and cd.get("ctor") and sfile == cd["path"]:
                        # a base named in the initializer list: g++'s site is the list's end
                        text = src.text_from(cd["path"], cd["line"], 1, max(1, sline - cd["line"] + 1))
                        m = re.search(r"[:,]\s*(?:\w+\s*::\s*)*(" + re.escape(ti["cls"]) + r")\s*" + TARGS + r"\s*[({]", text)
                        if m:
                            ln = cd["line"] + text.count("\n", 0, m.start(1))
                            at = (ln, m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1) + 1)
                    if at is None and sfile is not None:
                        at = src.names_class(sfile, sline, scol, ti["cls"])
                    if at is None:
                        skipped["call of a function the compiler generates (implicit, defaulted)" if made else
                                "constructor call that does not name its class (member, copy, conversion, implicit base)"] += 1
                        continue
                    sline, scol = at
                    callee = made or callee
                elif sfile is not None:
                    sline, scol = src.call_site(sfile, sline, scol, ti["name"], True)
            elif sfile is not None and target in nodes:
                sline, scol = src.call_site(sfile, sline, scol, nodes[target]["name"])
            site = f"{sfile or lm.group(1)}:{sline}:{scol}"
            if defs[callee].get("generated") or defs.get(caller, {}).get("generated"):
                skipped["call from or to a macro-generated function"] += 1
                continue
            if (caller, callee, site) not in seen:
                seen.add((caller, callee, site))
                edges.append({"caller": caller, "callee": callee, "site": site, "how": how})

    # What GCC did not compile: lines of untaken preprocessor branches, files no TU reads.
    unread = 0
    for f in files:
        if not f.endswith(SOURCE_EXT):
            continue
        code = src.code(f)
        if f in active or f in tus:
            lines, why = inactive.get(f, ()), "in a preprocessor branch the build leaves out"
        else:
            lines, why = range(1, len(code) + 1), "in a file the build does not compile"
            unread += 1
        for ln in sorted(lines):
            line = code[ln - 1]
            if (CALLISH.search(line) or (cpp and DECLARED.search(line))) and not DIRECTIVE.match(line):
                unresolved.append({"caller": None, "site": f"{f}:{ln}:0", "why": why})
    print(f"ref_c: {len(defs)} defs, {len(edges)} edges, {len(unresolved)} unresolved; "
          f"{unread} source files no TU reads", file=sys.stderr)
    version = subprocess.run([L["compiler"], "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    json.dump({"tool": f"{L['compiler']} {version} -fcallgraph-info", "defs": defs, "edges": edges,
               "unresolved": unresolved, "skipped": dict(skipped), "external_sites": external,
               "not_compiled": failed}, sys.stdout)


if __name__ == "__main__":
    main()
