#!/usr/bin/env python3
"""Compiles the examples of docs/language.md, so the reference cannot drift
from the compiler.

Usage: check_examples.py CCLC DOC.md [--nranks=2,3,4] [--root=DIR]

Fenced code blocks are selected by their tag:

  ```ccl           a complete program: it must contain an `algorithm`, and
                   `cclc --emit=ccl --nranks=2,3,4 --no-verify` must accept
                   it. A line `// flags: ARGS` in the block adds the cclc
                   options ARGS (for example `-D K=4`) to the command line,
                   an `--emit=...` flag replacing `--emit=ccl`; a line
                   `// cclc verifies this example ...` drops `--no-verify`,
                   so the verifier runs.
  ```ccl-lib       shared declarations (fn, collective), appended to every
                   later ```ccl block (appending keeps the block's own line
                   numbers). A block whose first line is `// file: NAME.ccl`
                   is written as NAME.ccl next to the examples instead, for
                   `import "NAME.ccl"`.
  ```ccl-error     a complete program that must be rejected. When the next
                   block is a ```text block, cclc's stderr must be exactly
                   that text (the program is compiled as `example.ccl` in
                   the current directory, so paths match).
  ```ccl-fragment  part of a program; not compiled.

A ```ccl or ```ccl-fragment block whose first line is `// from PATH` quotes
PATH (relative to the repository root: --root, by default the parent of
DOC.md's directory):
the rest of the block must appear verbatim in that file.

A ```mlir block right after a ```ccl block shows what the program evaluates
to: its lines (ignoring blank lines, `...` and `//` comments) must appear,
in order, among the lines of cclc's output. A first line
`// --nranks=N` selects the rank count (default 2).

Every failure names the line of DOC.md where the block opens; the script
exits with status 1 if any block fails.
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```([A-Za-z0-9_-]*)\s*$")


def blocks(path):
    """Yields (tag, line of the opening fence, text) for every fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        tag, start = m.group(1), i + 1
        body = []
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}:{start}: unterminated code block")
        yield tag, start, "\n".join(body) + "\n"
        i += 1


def run(cclc, workdir, source, args):
    path = os.path.join(workdir, "example.ccl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    cmd = [cclc, "example.ccl"] + args
    p = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def subsequence(expected, actual):
    """Returns the first expected line not found in order, or None."""
    pos = 0
    for want in expected:
        while pos < len(actual) and actual[pos] != want:
            pos += 1
        if pos == len(actual):
            return want
        pos += 1
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cclc, doc = os.path.abspath(argv[1]), argv[2]
    nranks = "2,3,4"
    for a in argv[3:]:
        if a.startswith("--nranks="):
            nranks = a.split("=", 1)[1]
    docname = os.path.relpath(doc)
    root = os.path.dirname(os.path.dirname(os.path.abspath(doc)))
    for a in argv[3:]:
        if a.startswith("--root="):
            root = a.split("=", 1)[1]
    all_blocks = list(blocks(doc))
    failures = 0
    counts = {}
    lib = ""

    def fail(line, msg, detail=""):
        nonlocal failures
        failures += 1
        print(f"{docname}:{line}: error: {msg}", file=sys.stderr)
        if detail:
            for l in detail.rstrip("\n").split("\n"):
                print(f"    {l}", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="ccl-doc-") as workdir:
        for k, (tag, line, text) in enumerate(all_blocks):
            if not tag.startswith("ccl"):
                continue
            counts[tag] = counts.get(tag, 0) + 1
            quoted = re.match(r"^//\s*from\s+(\S+)\s*\n", text)
            if quoted:
                path = os.path.join(root, quoted.group(1))
                try:
                    with open(path, encoding="utf-8") as f:
                        original = f.read()
                except OSError as e:
                    fail(line, f"cannot read the quoted file: {e}")
                else:
                    if text[quoted.end():] not in original:
                        fail(line, f"the block is not a verbatim quote of "
                             f"{quoted.group(1)}")
            if tag == "ccl-fragment":
                continue
            if tag == "ccl-lib":
                first = text.split("\n", 1)[0]
                m = re.match(r"^//\s*file:\s*(\S+)\s*$", first)
                if m:
                    with open(os.path.join(workdir, m.group(1)), "w",
                              encoding="utf-8") as f:
                        f.write(text)
                elif re.search(r"^\s*algorithm\s", text, re.M):
                    fail(line, "a ccl-lib block must not hold an algorithm")
                else:
                    lib += "\n" + text
                continue
            if tag not in ("ccl", "ccl-error"):
                fail(line, f"unknown code block tag '{tag}' (expected ccl, "
                     "ccl-lib, ccl-error or ccl-fragment)")
                continue
            if not re.search(r"^\s*algorithm\s", text, re.M):
                fail(line, f"a {tag} block must hold a complete algorithm; "
                     "tag fragments ccl-fragment")
                continue
            flags = []
            for m in re.finditer(r"^\s*//\s*flags:\s*(.*)$", text, re.M):
                flags += shlex.split(m.group(1))
            # An example that the verifier checks says so in words (the
            # default, cclc, verifies; the page compiles most examples with
            # --no-verify because they are fragments of algorithms).
            verified = re.search(r"^\s*//\s*cclc verifies this example",
                                 text, re.M)
            base = list(flags)
            if not any(f.startswith("--emit=") for f in flags):
                base.insert(0, "--emit=ccl")
            # (cclc takes each option once.)
            if not verified and "--no-verify" not in flags:
                base.append("--no-verify")
            nxt = all_blocks[k + 1] if k + 1 < len(all_blocks) else None

            if tag == "ccl-error":
                rc, out, err = run(cclc, workdir, text,
                                   base + [f"--nranks={nranks}"])
                if rc == 0:
                    fail(line, "this ccl-error example compiles; it should "
                         "be rejected")
                elif rc != 1 or "error:" not in err:
                    fail(line, f"cclc exited with status {rc}", err)
                elif nxt and nxt[0] == "text":
                    want = [l.rstrip() for l in nxt[2].rstrip("\n").split("\n")]
                    got = [l.rstrip() for l in err.rstrip("\n").split("\n")]
                    if want != got:
                        fail(nxt[1], "the diagnostic shown differs from "
                             "cclc's; cclc prints:", err)
                continue

            source = text + lib
            rc, out, err = run(cclc, workdir, source,
                               base + [f"--nranks={nranks}"])
            if rc != 0:
                # Point at the line of the document, not the temp file.
                def doc_loc(m):
                    n = int(m.group(1))
                    return f"{docname}:{line + n}:" if n <= text.count(
                        "\n") else f"(appended ccl-lib) line {n}:"
                fail(line, "example does not compile:",
                     re.sub(r"example\.ccl:(\d+):", doc_loc, err))
                continue
            if nxt and nxt[0] == "mlir":
                shown = nxt[2].rstrip("\n").split("\n")
                n = "2"
                if shown and re.match(r"^//\s*--nranks=(\d+)\s*$", shown[0]):
                    n = re.match(r"^//\s*--nranks=(\d+)", shown[0]).group(1)
                want = [l.strip() for l in shown
                        if l.strip() and l.strip() != "..."
                        and not l.strip().startswith("//")]
                rc, out, err = run(cclc, workdir, source,
                                   base + [f"--nranks={n}"])
                got = [l.strip() for l in out.split("\n")]
                missing = subsequence(want, got)
                if rc != 0 or missing is not None:
                    fail(nxt[1], "the output shown is not what cclc "
                         f"--nranks={n} prints; first line not found in "
                         f"order: {missing}", out + err)

    if failures:
        print(f"{failures} example(s) failed", file=sys.stderr)
        return 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"checked {docname}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
