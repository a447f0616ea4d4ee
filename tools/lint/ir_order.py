#!/usr/bin/env python3
"""Finds calls whose arguments build IR in an order the host compiler picks.

C++ leaves the evaluation order of a call's arguments to the compiler, so
in `f(b, loc, make(b, loc, x), i32(b, loc, -1))` gcc and clang may create
the two operations in different orders, and cclc's output would then
depend on the compiler that built it (d7b9634 fixed one such call). An
argument "builds IR" when it calls something with a builder as its first
argument (`b`, `rewriter`, `builder`, and every name the file declares
with a builder or rewriter type) or calls `.create`.
Elements of a braced list are evaluated left to right and are not
reported.

    ir_order.py ROOT [FILE...]   FILEs relative to ROOT (default: the C++
                                 files git tracks under compiler/ and
                                 dialect/); prints one line per call and
                                 exits 1 if there is any.
"""
import re
import subprocess
import sys

BUILDERS = {"b", "rewriter", "builder"}
# A parameter or variable of a builder type: `OpBuilder &b`,
# `OpBuilder cb = ...`, `ConversionPatternRewriter &rewriter`.
DECLARED = re.compile(r"\b\w*(?:Builder|Rewriter\w*)\s*&?\s*(\w+)\s*[,)=;({]")
CALL = re.compile(r"\w+(<[^;(){}]*>)?\(")


def arguments(text, start):
    """The top-level arguments of the call whose '(' ends at start."""
    depth, brace, args, cur = 1, 0, [], []
    for c in text[start:]:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                break
        elif c == "{":
            brace += 1
        elif c == "}":
            brace -= 1
        if depth == 1 and brace == 0 and c == ",":
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    args.append("".join(cur))
    return args


def strip(text):
    """The text with comments and string literals blanked (lines kept)."""
    out = re.sub(r"//[^\n]*|/\*.*?\*/",
                 lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    return re.sub(r"'(\\.|[^'\\\n])*'|\"(\\.|[^\"\\\n])*\"",
                  lambda m: m.group()[0] + " " * (len(m.group()) - 2) + m.group()[0], out)


def check(path, text):
    text = strip(text)
    names = BUILDERS | set(DECLARED.findall(text))
    builds = re.compile(r"\(\s*(" + "|".join(sorted(names)) + r")\s*,|\.create\s*[<(]")
    found = []
    for m in CALL.finditer(text):
        args = arguments(text, m.end())
        building = [a for a in args
                    if builds.search(a) and not a.lstrip().startswith(("{", "["))]
        if len(building) >= 2:
            line = text.count("\n", 0, m.start()) + 1
            call = " ".join(text[m.start():m.start() + 100].split())
            found.append(f"{path}:{line}: {len(building)} arguments build IR, "
                         f"in an order the host compiler picks: {call}")
    return found


def main():
    root = sys.argv[1]
    files = sys.argv[2:] or [
        f for f in subprocess.run(
            ["git", "-C", root, "ls-files", "compiler", "dialect"],
            check=True, capture_output=True, text=True).stdout.split()
        if f.endswith((".cpp", ".h"))]
    found = []
    for f in files:
        with open(f"{root}/{f}", encoding="utf-8") as fh:
            found += check(f, fh.read())
    for line in found:
        print(line)
    print(f"ir_order: {len(files)} files, {len(found)} calls reported")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
