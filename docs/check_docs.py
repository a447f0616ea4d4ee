#!/usr/bin/env python3
"""The docs check (docs_links_test): every relative link of a Markdown file
and every Markdown file of docs/ that a file of the repository cites exists, and the
repository's root holds only the files it should.

  check_docs.py ROOT [FILE...]   ROOT: the repository; FILE: the tracked
                                 files to read (default: `git ls-files`)

Prints one line per problem (FILE: what) and exits 1 if there is any.
Raw run output (test/hw/results/) is kept as it was written and not read.
"""
import os
import re
import subprocess
import sys

# What the root may hold (the layout of DEVELOPERS.md).
ROOT_FILES = {".bazelrc", ".clang-format", ".gitignore", "BUILD", "WORKSPACE",
              "README.md", "DEVELOPERS.md"}
TEXT = re.compile(r"\.(md|cpp|h|cc|c|py|sh|td|ccl|mlir|bzl|inc|def|txt)$|(^|/)BUILD$")
LINK = re.compile(r"\]\(([^)\s#]+)(#[^)]*)?\)")
CITED_DOC = re.compile(r"(?<![\w./-])docs/([\w./-]*\.md)")


def main():
    root = sys.argv[1]
    os.chdir(root)
    files = sys.argv[2:] or subprocess.run(
        ["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    problems = []
    for f in files:
        if "/" not in f and f not in ROOT_FILES:
            problems.append("%s: a stray file at the repository's root" % f)
        if f.startswith("test/hw/results/") or not TEXT.search(f):
            continue
        try:
            text = open(f, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue
        if f.endswith(".md"):
            for m in LINK.finditer(text):
                target = m.group(1)
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:
                path = os.path.normpath(os.path.join(os.path.dirname(f), target))
                if not os.path.exists(path):
                    problems.append("%s: the link to %s leads nowhere" % (f, target))
        for m in CITED_DOC.finditer(text):
            if not os.path.exists(os.path.join("docs", m.group(1))):
                problems.append("%s: cites docs/%s, which does not exist" % (f, m.group(1)))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
