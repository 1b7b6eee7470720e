#!/usr/bin/env python3
"""Measure the shape of the Rust code of the workspace and print a short report.

    python3 bench/code_shape.py [REPO_DIR] [--json]

REPO_DIR defaults to the repository holding this script. Standard library only (Python 3.11+).

Sections (all over the `.rs` files of corpus/src, pipeline/src, server/src unless said otherwise):

1. Import circles per crate: a module graph (one node per source file, named by its module path),
   an edge A -> B when A's code (comments, strings and test modules removed) names a path that
   resolves to module B (`use crate::...`, `crate::x::y`, `super::...`, `self::...`, a relative path
   through a child module or a `use`-bound module alias), then the strongly connected components
   (Tarjan) of more than one module.
2. The largest source files (lines, as `wc -l`).
3. Functions longer than 100 lines (from the `fn` line to the body's closing brace, test modules out).
4. Occurrences of the curated dataset names as exact string literals (grep -rhow semantics).
5. Lines per crate under src/ and under tests/ (as `wc -l`).
"""

from __future__ import annotations

import argparse
import bisect
import functools
import json
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CRATES = ("corpus", "pipeline", "server")
LITERALS = ("projects", "regulation", "institutions", "financing", "events")
FN_LIMIT = 100
TOP_FILES = 5
SRC_DIRS = " ".join(f"{c}/src" for c in CRATES)


# ---------------------------------------------------------------------------------------------------
# Lexing: blank out comments and the contents of string / char literals, keeping every newline (so
# line numbers survive) and every other character position.
# ---------------------------------------------------------------------------------------------------


def _ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def blank(src: str) -> str:
    """`src` with comments (line, block (nested), doc) and literal contents replaced by spaces.

    Handles "..." (escapes), b"..." / c"...", raw strings r"..." r#"..."# br##"..."## cr"...", char
    literals 'a' '\\n' '\\'' '\\u{1F600}' b'x', and leaves lifetimes / labels ('a, 'static) alone.
    """
    out = list(src)
    n = len(src)

    def wipe(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    i = 0
    while i < n:
        c = src[i]
        if c == "/" and i + 1 < n and src[i + 1] == "/":
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
            continue
        if c == "/" and i + 1 < n and src[i + 1] == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
            continue
        if _ident_char(c):
            j = i
            while j < n and _ident_char(src[j]):
                j += 1
            word = src[i:j]
            if word in ("r", "br", "cr") and j < n and src[j] in '#"':
                k = j
                while k < n and src[k] == "#":
                    k += 1
                if k < n and src[k] == '"':  # raw string (not a raw identifier r#name)
                    term = '"' + "#" * (k - j)
                    e = src.find(term, k + 1)
                    e = n if e < 0 else e
                    wipe(k + 1, e)
                    i = e + len(term)
                    continue
            i = j  # a following " or ' (b"..", b'x') is handled by the next round
            continue
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
            continue
        if c == "'":
            if i + 1 < n and src[i + 1] == "\\":  # escaped char literal: '\n' '\'' '\u{..}'
                e = src.find("'", i + 3)
                e = n if e < 0 else e
                wipe(i + 1, e)
                i = e + 1
                continue
            if i + 2 < n and src[i + 2] == "'" and src[i + 1] != "\n":  # 'x'
                wipe(i + 1, i + 2)
                i += 3
                continue
            i += 1  # lifetime or label
            continue
        i += 1
    return "".join(out)


def match_close(code: str, open_idx: int) -> int:
    """Index of the bracket closing the one at `open_idx` (in blanked code), or len(code) - 1."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    opener = code[open_idx]
    closer = pairs[opener]
    depth = 0
    for k in range(open_idx, len(code)):
        ch = code[k]
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def item_span(code: str, pos: int) -> tuple[int, int, str]:
    """The item starting at or after `pos` (after any further attributes): (start, end, text)."""
    n = len(code)
    k = pos
    while True:
        while k < n and code[k].isspace():
            k += 1
        if code.startswith("#[", k) or code.startswith("#![", k):
            k = match_close(code, code.index("[", k)) + 1
            continue
        break
    start = k
    depth = 0
    while k < n:
        ch = code[k]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch == ";":
            return start, k + 1, code[start : k + 1]
        elif depth == 0 and ch == "{":
            e = match_close(code, k) + 1
            return start, e, code[start:e]
        k += 1
    return start, n, code[start:n]


CFG_TEST_RE = re.compile(r"#\[\s*cfg\s*\(\s*test\s*\)\s*\]")
INNER_CFG_TEST_RE = re.compile(r"#!\[\s*cfg\s*\(\s*test\s*\)\s*\]")
MOD_TESTS_RE = re.compile(r"\bmod\s+tests\s*\{")
MOD_DECL_RE = re.compile(r"^\s*(?:pub\s*(?:\([^)]*\))?\s*)?mod\s+(?:r#)?(\w+)\s*;")


def mask_tests(code: str) -> tuple[str, list[str], bool]:
    """Blank the test code of a (blanked) file: every `#[cfg(test)]` item and every `mod tests {..}`.

    Returns (masked code, names of `#[cfg(test)] mod name;` file modules, whole file is test-only).
    """
    if INNER_CFG_TEST_RE.search(code):
        return re.sub(r"[^\n]", " ", code), [], True
    out = list(code)
    test_files: list[str] = []

    def wipe(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    for m in CFG_TEST_RE.finditer(code):
        _, end, text = item_span(code, m.end())
        decl = MOD_DECL_RE.match(text)
        if decl:
            test_files.append(decl.group(1))
        wipe(m.start(), end)
    masked = "".join(out)
    for m in MOD_TESTS_RE.finditer(masked):
        e = match_close(masked, m.end() - 1) + 1
        wipe(m.start(), e)
    return "".join(out), test_files, False


# ---------------------------------------------------------------------------------------------------
# Files and modules
# ---------------------------------------------------------------------------------------------------


@dataclass
class SourceFile:
    crate: str
    rel: str  # path relative to the repository, e.g. server/src/tools/display.rs
    text: str
    lines: int
    code: str = ""  # comments / literals blanked
    masked: str = ""  # ... and test code blanked
    domain: str = "lib"  # "lib" or "bin:<name>" (a binary crate root and its own modules)
    module: tuple[str, ...] = ()
    test_only: bool = False

    @property
    def node(self) -> str:
        return module_name(self.domain, self.module)


def module_name(domain: str, module: tuple[str, ...]) -> str:
    root = "crate" if domain == "lib" else f"<{domain}>"
    return root if not module else "::".join(module)


def count_lines(text: str) -> int:
    return text.count("\n")  # what `wc -l` counts


def read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def rs_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.rglob("*.rs") if p.is_file())


def lib_name(crate_dir: Path) -> str:
    try:
        manifest = tomllib.loads(read_text(crate_dir / "Cargo.toml"))
    except (OSError, tomllib.TOMLDecodeError):
        return crate_dir.name.replace("-", "_")
    name = manifest.get("lib", {}).get("name") or manifest.get("package", {}).get("name") or crate_dir.name
    return name.replace("-", "_")


def module_of(src_rel: Path) -> tuple[str, tuple[str, ...]]:
    """(domain, module path) of a file given its path relative to the crate's src/."""
    parts = list(src_rel.parts)
    if parts[0] == "bin" and len(parts) >= 2:  # src/bin/x.rs or src/bin/x/main.rs: own crate root
        name = parts[1][:-3] if parts[1].endswith(".rs") else parts[1]
        rest = parts[2:]
        if rest == ["main.rs"] or not rest:
            return f"bin:{name}", ()
        parts = rest
        domain = f"bin:{name}"
    else:
        domain = "lib"
    last = parts[-1][:-3]
    if len(parts) == 1 and last in ("lib", "main"):
        return domain, ()
    mod = parts[:-1] + ([] if last == "mod" else [last])
    return domain, tuple(mod)


def load_crate(repo: Path, crate: str) -> list[SourceFile]:
    src = repo / crate / "src"
    files = []
    has_lib = (src / "lib.rs").is_file()
    for path in rs_files(src):
        text = read_text(path)
        f = SourceFile(crate, path.relative_to(repo).as_posix(), text, count_lines(text))
        f.domain, f.module = module_of(path.relative_to(src))
        if f.rel.endswith("src/main.rs") and has_lib:
            f.domain = "bin:main"  # main.rs next to lib.rs is a separate (binary) crate
        f.code = blank(text)
        f.masked, test_mods, f.test_only = mask_tests(f.code)
        f._test_mods = test_mods  # type: ignore[attr-defined]
        files.append(f)
    # `#[cfg(test)] mod name;` file modules are test code too.
    by_module = {(f.domain, f.module): f for f in files}
    for f in files:
        for name in getattr(f, "_test_mods"):
            child = by_module.get((f.domain, f.module + (name,)))
            if child is not None:
                child.test_only = True
                child.masked = re.sub(r"[^\n]", " ", child.masked)
    return files


# ---------------------------------------------------------------------------------------------------
# 1. Module graph
# ---------------------------------------------------------------------------------------------------

TOKEN_RE = re.compile(r"::|[^\W\d]\w*|\d\w*|\S")
INLINE_MOD_RE = re.compile(r"\bmod\s+(?:r#)?(\w+)\s*\{")
KEYWORD_STARTS = {"crate", "super", "self"}


@dataclass
class Edge:
    kinds: set[str] = field(default_factory=set)  # "use", "pub use", "path"
    evidence: list[tuple[int, str, str]] = field(default_factory=list)  # (line, kind, path text)


@dataclass
class Tok:
    text: str
    pos: int


@functools.lru_cache(maxsize=16)
def _line_starts(code: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", code)]


def line_of(code: str, pos: int) -> int:
    """1-based line of offset `pos`."""
    return bisect.bisect_right(_line_starts(code), pos)


def parse_use_tree(toks: list[Tok], i: int, prefix: list[str], leaves: list) -> int:
    """Parse one use tree at toks[i]; append (segments, alias or None) leaves; return next index."""
    path = list(prefix)
    n = len(toks)
    if i < n and toks[i].text == "::":  # `use ::ext::x` - an external crate
        path.append("::")
        i += 1
    while i < n:
        t = toks[i].text
        if t == "{":
            i += 1
            while i < n and toks[i].text != "}":
                j = parse_use_tree(toks, i, path, leaves)
                i = j if j > i else i + 1
                if i < n and toks[i].text == ",":
                    i += 1
            return i + 1
        if t == "*":
            leaves.append((path + ["*"], None))
            return i + 1
        if re.match(r"[^\W\d]\w*$", t):
            if t == "r" and i + 2 < n and toks[i + 1].text == "#":  # raw identifier r#name
                t = toks[i + 2].text
                i += 2
            path = path + [t]
            i += 1
            if i < n and toks[i].text == "::":
                i += 1
                continue
            alias = None
            if i + 1 < n and toks[i].text == "as":
                alias = toks[i + 1].text
                i += 2
            leaves.append((path, alias))
            return i
        return i  # `,` `}` `;` or junk: let the caller move on
    return i


class CrateGraph:
    def __init__(self, crate: str, files: list[SourceFile], libname: str):
        self.crate = crate
        self.libname = libname
        self.files = [f for f in files if not f.test_only]
        # known modules per domain -> file node; inline `mod x { }` modules collapse onto their file
        self.known: dict[str, dict[tuple[str, ...], SourceFile]] = {}
        self.inline: dict[str, list[tuple[int, int, str]]] = {}
        for f in self.files:
            self.known.setdefault(f.domain, {})[f.module] = f
        for f in self.files:
            regions = []
            for m in INLINE_MOD_RE.finditer(f.masked):
                regions.append((m.end() - 1, match_close(f.masked, m.end() - 1), m.group(1)))
            self.inline[f.rel] = regions
            for open_, _close, _name in regions:
                self.known[f.domain].setdefault(self.scope_at(f, open_ + 1), f)
        self.edges: dict[tuple[str, str], Edge] = {}
        self.node_file: dict[str, str] = {f.node: f.rel for f in self.files}
        for f in self.files:
            self.scan(f)

    def scope_at(self, f: SourceFile, pos: int) -> tuple[str, ...]:
        """Module path at `pos` in `f`: the file's module plus the inline modules around `pos`."""
        scope = list(f.module)
        for open_, close, name in self.inline[f.rel]:  # in source order, outer before inner
            if open_ < pos <= close:
                scope.append(name)
        return tuple(scope)

    def resolve(self, f: SourceFile, scope: tuple[str, ...], segs: list[str], aliases: dict):
        """(domain, module) the path `segs` names from `scope` in file `f`, or None if not internal."""
        if not segs or segs[0] == "::":
            return None
        domain = f.domain
        s0 = segs[0]
        if s0 == "crate":
            base, rest = (), segs[1:]
        elif s0 in ("super", "self"):
            base, k = list(scope), 0
            while k < len(segs) and segs[k] in ("super", "self"):
                if segs[k] == "super":
                    if not base:
                        return None
                    base.pop()
                k += 1
            base, rest = tuple(base), segs[k:]
        elif s0 in aliases and len(segs) > 1:
            domain, base = aliases[s0]
            rest = segs[1:]
        elif scope + (s0,) in self.known.get(domain, {}) and len(segs) > 1:
            base, rest = scope, segs
        elif domain != "lib" and s0 == self.libname and len(segs) > 1:
            domain, base, rest = "lib", (), segs[1:]
        else:
            return None
        full = list(base) + [s for s in rest if s not in ("self", "*")]
        known = self.known.get(domain, {})
        for cut in range(len(full), -1, -1):
            if tuple(full[:cut]) in known:
                return domain, tuple(full[:cut]), cut == len(full)
        return None

    def add_edge(self, f: SourceFile, target, kind: str, pos: int, text: str) -> None:
        domain, module, _exact = target
        dest = self.known[domain][module]
        if dest is f:
            return
        e = self.edges.setdefault((f.node, dest.node), Edge())
        e.kinds.add(kind)
        if len(e.evidence) < 5:
            e.evidence.append((line_of(f.masked, pos), kind, text))

    def scan(self, f: SourceFile) -> None:
        toks = [Tok(m.group(0), m.start()) for m in TOKEN_RE.finditer(f.masked)]
        n = len(toks)
        aliases: dict[str, tuple[str, tuple[str, ...]]] = {}
        in_use = [False] * n
        uses = []
        # pass 1: use declarations (also bind module aliases for pass 2)
        for i, t in enumerate(toks):
            if t.text != "use" or (i > 0 and toks[i - 1].text in ("::", ".", "#", "$")):
                continue
            public = False
            j = i - 1
            if j >= 0 and toks[j].text == ")":
                while j >= 0 and toks[j].text != "(":
                    j -= 1
                j -= 1
            if j >= 0 and toks[j].text == "pub":
                public = True
            leaves: list = []
            end = parse_use_tree(toks, i + 1, [], leaves)
            while end < n and toks[end].text != ";":
                end += 1
            for k in range(i, min(end + 1, n)):
                in_use[k] = True
            uses.append((i, public, leaves))
        for i, public, leaves in uses:
            scope = self.scope_at(f, toks[i].pos)
            for segs, alias in leaves:
                target = self.resolve(f, scope, segs, aliases)
                if target is None:
                    continue
                if target[2] and segs[-1] != "*":  # names a module itself: `use super::answer`
                    name = alias or (segs[-2] if segs[-1] == "self" and len(segs) > 1 else segs[-1])
                    if name not in KEYWORD_STARTS and name != "_":
                        aliases[name] = (target[0], target[1])
        for i, public, leaves in uses:
            scope = self.scope_at(f, toks[i].pos)
            for segs, _alias in leaves:
                target = self.resolve(f, scope, segs, aliases)
                if target is not None:
                    shown = segs[:-1] if len(segs) > 1 and segs[-1] == "self" else segs
                    self.add_edge(f, target, "pub use" if public else "use", toks[i].pos, "::".join(shown))
        # pass 2: path expressions / types outside use declarations
        i = 0
        while i < n:
            t = toks[i]
            if in_use[i] or i + 1 >= n or toks[i + 1].text != "::" or not re.match(r"[^\W\d]\w*$", t.text):
                i += 1
                continue
            prev = toks[i - 1].text if i > 0 else ""
            if prev in ("::", ".", "$", "'"):
                i += 1
                continue
            if prev == "in" and i >= 3 and toks[i - 2].text == "(" and toks[i - 3].text == "pub":
                i += 1  # `pub(in crate::x)` is a visibility, not a use
                continue
            segs = [t.text]
            j = i + 1
            while j + 1 < n and toks[j].text == "::" and re.match(r"[^\W\d]\w*$", toks[j + 1].text):
                segs.append(toks[j + 1].text)
                j += 2
            target = self.resolve(f, self.scope_at(f, t.pos), segs, aliases)
            if target is not None:
                self.add_edge(f, target, "path", t.pos, "::".join(segs))
            i = j

    def kept(self, a: str, b: str, e: Edge, mode: str) -> bool:
        """Whether edge a -> b counts in `mode`: "all" (the rule), "no-reexports" (parent -> child
        edges made only of `pub use child::...` left out) or "siblings" (every edge between a module
        and one of its ancestors left out: circles among siblings / cousins only)."""
        if mode == "no-reexports":
            return not (e.kinds == {"pub use"} and self.is_ancestor(a, b))
        if mode == "siblings":
            return not (self.is_ancestor(a, b) or self.is_ancestor(b, a))
        return True

    def sccs(self, mode: str = "all") -> list[list[str]]:
        nodes = sorted({f.node for f in self.files})
        adj: dict[str, list[str]] = {v: [] for v in nodes}
        for (a, b), e in self.edges.items():
            if not self.kept(a, b, e, mode):
                continue
            adj.setdefault(a, []).append(b)
            adj.setdefault(b, [])
        return [sorted(c) for c in tarjan(adj) if len(c) > 1]

    @staticmethod
    def is_ancestor(a: str, b: str) -> bool:
        if a == "crate":
            return b != "crate" and not b.startswith("<")
        return not a.startswith("<") and b.startswith(a + "::")


def tarjan(adj: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in adj:
        if root in index:
            continue
        work = [(root, iter(sorted(adj[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(adj.get(w, [])))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def cycle_report(graph: CrateGraph, mode: str) -> list[dict]:
    comps = graph.sccs(mode)
    result = []
    for comp in sorted(comps, key=lambda c: (-len(c), c)):
        members = set(comp)
        edges = []
        for (a, b), e in sorted(graph.edges.items()):
            if a in members and b in members:
                if not graph.kept(a, b, e, mode):
                    continue
                line, kind, text = e.evidence[0]
                edges.append(
                    {"from": a, "to": b, "kinds": sorted(e.kinds), "file": graph.node_file[a], "line": line,
                     "path": text}
                )
        result.append({"size": len(comp), "members": comp, "edges": edges})
    return result


# ---------------------------------------------------------------------------------------------------
# 3. Long functions
# ---------------------------------------------------------------------------------------------------

FN_RE = re.compile(r"\bfn\s+(?:r#)?([^\W\d]\w*)")


def long_functions(files: list[SourceFile], limit: int) -> tuple[list[dict], int]:
    found, total = [], 0
    for f in files:
        code = f.masked
        for m in FN_RE.finditer(code):
            if m.start() > 0 and (_ident_char(code[m.start() - 1]) or code[m.start() - 1] == "#"):
                continue
            # the body: first `{` at bracket depth 0 after the name; a `;` first means no body
            depth, k, body = 0, m.end(), None
            while k < len(code):
                ch = code[k]
                if ch in "([":
                    depth += 1
                elif ch in ")]":
                    depth -= 1
                elif depth == 0 and ch == ";":
                    break
                elif depth == 0 and ch == "{":
                    body = k
                    break
                k += 1
            if body is None:
                continue
            total += 1
            start = line_of(code, m.start())
            end = line_of(code, match_close(code, body))
            length = end - start + 1
            if length > limit:
                found.append({"file": f.rel, "line": start, "name": m.group(1), "lines": length})
    found.sort(key=lambda d: (-d["lines"], d["file"], d["line"]))
    return found, total


# ---------------------------------------------------------------------------------------------------
# 4. Literals (grep -rhow '"name"' --include=*.rs semantics: every occurrence on every line of the
#    raw text, not preceded / followed by a word character)
# ---------------------------------------------------------------------------------------------------


def literal_counts(files: list[SourceFile]) -> list[dict]:
    out = []
    for name in LITERALS:
        pat = re.compile(r'(?<!\w)"' + re.escape(name) + r'"(?!\w)')
        occurrences, holders = 0, []
        for f in files:
            hits = sum(len(pat.findall(line)) for line in f.text.split("\n"))
            if hits:
                occurrences += hits
                holders.append((f.rel, hits))
        out.append({"literal": f'"{name}"', "occurrences": occurrences, "files": len(holders),
                    "per_file": dict(sorted(holders, key=lambda h: (-h[1], h[0])))})
    return out


# ---------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------


def measure(repo: Path) -> dict:
    all_files: list[SourceFile] = []
    crates = {}
    for crate in CRATES:
        files = load_crate(repo, crate)
        all_files += files
        graph = CrateGraph(crate, files, lib_name(repo / crate))
        tests_lines = [(p, count_lines(read_text(p))) for p in rs_files(repo / crate / "tests")]
        crates[crate] = {
            "graph": graph,
            "modules": len(graph.files),
            "edges": len(graph.edges),
            "cycles": cycle_report(graph, "all"),
            "cycles_without_reexports": cycle_report(graph, "no-reexports"),
            "cycles_among_siblings": cycle_report(graph, "siblings"),
            "src_files": len(files),
            "src_lines": sum(f.lines for f in files),
            "tests_files": len(tests_lines),
            "tests_lines": sum(n for _, n in tests_lines),
        }
    largest = sorted(all_files, key=lambda f: (-f.lines, f.rel))[:TOP_FILES]
    fns, fn_total = long_functions([f for f in all_files if not f.test_only], FN_LIMIT)
    return {
        "repo": str(repo),
        "crates": crates,
        "largest_files": [{"file": f.rel, "lines": f.lines} for f in largest],
        "long_functions": fns,
        "functions_scanned": fn_total,
        "literals": literal_counts(all_files),
    }


def to_json(data: dict) -> dict:
    crates = {}
    for name, c in data["crates"].items():
        g: CrateGraph = c["graph"]
        crates[name] = {k: v for k, v in c.items() if k != "graph"}
        crates[name]["module_files"] = dict(sorted(g.node_file.items()))
        crates[name]["graph_edges"] = [
            {"from": a, "to": b, "kinds": sorted(e.kinds),
             "evidence": [{"line": ln, "kind": k, "path": p} for ln, k, p in e.evidence]}
            for (a, b), e in sorted(g.edges.items())
        ]
    return {**data, "crates": crates}


def print_component(label: str, comp: dict, max_edges: int = 10) -> None:
    print(f"     {label} ({comp['size']} modules): {', '.join(comp['members'])}")
    if len(comp["edges"]) > max_edges:
        print(f"         ({len(comp['edges'])} edges inside; see --json for each)")
        return
    for e in comp["edges"]:
        print(f"         {e['from']} -> {e['to']}   {e['file']}:{e['line']} ({'/'.join(e['kinds'])}) {e['path']}")


def print_text(data: dict) -> None:
    w = print
    crates = data["crates"]
    w(f"Code shape of {data['repo']}")
    w(f"(Rust sources under {SRC_DIRS}; tests/, examples/, benches/ excluded unless said)")
    w("")
    w("1. Import circles per crate (module graph, strongly connected components of > 1 module)")
    w("   no shell equivalent; edges from use crate::/super::/self::, crate::x paths, relative child")
    w("   paths and use-bound module aliases, after removing comments, literals and test modules")
    w("   views: [rule] every import edge; [no re-exports] parent->child edges made only of")
    w("   `pub use child::..` left out; [siblings] every edge between a module and its ancestor left out")
    for name, c in crates.items():
        cyc, alt, sib = c["cycles"], c["cycles_without_reexports"], c["cycles_among_siblings"]
        w(f"   {name}: {len(cyc)} circle(s) [rule], {len(alt)} [no re-exports], {len(sib)} [siblings]"
          f"  ({c['modules']} modules, {c['edges']} edges)")
        for k, comp in enumerate(cyc, 1):
            print_component(f"#{k}", comp)
        rule_sets = [x["members"] for x in cyc]
        for comp in alt:
            if comp["members"] not in rule_sets:
                print_component("[no re-exports]", comp)
        alt_sets = [x["members"] for x in alt]
        for comp in sib:
            if comp["members"] not in rule_sets and comp["members"] not in alt_sets:
                print_component("[siblings]", comp)
    w("")
    w(f"2. Largest source files   find {SRC_DIRS} -name '*.rs' | xargs wc -l | sort -rn | head")
    for f in data["largest_files"]:
        w(f"   {f['lines']:6d}  {f['file']}")
    w("")
    fns = data["long_functions"]
    w(f"3. Functions over {FN_LIMIT} lines: {len(fns)} (of {data['functions_scanned']} fn bodies, test modules out)")
    w("   no shell equivalent; length = `fn` line .. closing brace line, inclusive")
    for d in fns:
        w(f"   {d['lines']:5d}  {d['file']}:{d['line']}  {d['name']}")
    w("")
    w("4. Curated dataset names as string literals")
    w(f"   grep -rhow '\"NAME\"' --include=*.rs {SRC_DIRS} | wc -l   (files: grep -rlw ... | wc -l)")
    for d in data["literals"]:
        w(f"   {d['literal']:16s} {d['occurrences']:4d} occurrences in {d['files']:3d} files")
    w("")
    w("5. Lines per crate   find CRATE/src -name '*.rs' | xargs wc -l   (and CRATE/tests)")
    w(f"   {'crate':10s} {'src files':>9s} {'src lines':>10s} {'tests files':>11s} {'tests lines':>11s}")
    tot = [0, 0, 0, 0]
    for name, c in crates.items():
        row = [c["src_files"], c["src_lines"], c["tests_files"], c["tests_lines"]]
        tot = [a + b for a, b in zip(tot, row)]
        w(f"   {name:10s} {row[0]:9d} {row[1]:10d} {row[2]:11d} {row[3]:11d}")
    w(f"   {'total':10s} {tot[0]:9d} {tot[1]:10d} {tot[2]:11d} {tot[3]:11d}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", nargs="?", default=str(Path(__file__).resolve().parent.parent),
                        help="repository root (default: the one holding this script)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args(argv)
    repo = Path(args.repo).resolve()
    if not all((repo / c / "src").is_dir() for c in CRATES):
        print(f"{repo}: expected {', '.join(c + '/src' for c in CRATES)}", file=sys.stderr)
        return 2
    data = measure(repo)
    if args.json:
        json.dump(to_json(data), sys.stdout, indent=2)
        print()
    else:
        print_text(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
