# -*- Python -*-
# lit configuration for the cclc test suite. Bazel runs it, one target per
# directory (test/lit/BUILD: `bazel test //test/lit/...`); by hand, run the
# lit of LLVM 22 (FileCheck and not are taken from its directory):
#
#   /usr/lib/llvm-22/bin/lit -v test/lit
#
# Tools come from $CCLC_BIN_DIR (a directory holding cclc and ccl-opt) when it
# is set, else from the bazel-bin tree of this checkout (//tools:dist). Under
# Bazel, the Output/ directories go to $TEST_TMPDIR; else next to the tests.

import os
import shutil
import sys

import lit.formats

config.name = "cclc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".ccl", ".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get("TEST_TMPDIR", config.test_source_root)

repo_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
llvm_bin = os.path.dirname(os.path.abspath(sys.argv[0]))
if not os.path.exists(os.path.join(llvm_bin, "FileCheck")):
    lit_config.fatal("no FileCheck next to %s: run the lit of LLVM 22" % sys.argv[0])

bin_dir = os.environ.get(
    "CCLC_BIN_DIR", os.path.join(repo_root, "bazel-bin", "tools", "dist", "bin"))
cclc = os.path.join(bin_dir, "cclc")
ccl_opt = os.path.join(bin_dir, "ccl-opt")

for var in ("PATH", "CCLC_RUNTIME_LIB"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Longer names first, so %ccl-opt is not eaten by a shorter pattern.
config.substitutions.append(("%ccl-opt", ccl_opt))
config.substitutions.append(("%cclc", cclc))
config.substitutions.append(("%stdlib", os.path.join(repo_root, "stdlib")))
config.substitutions.append(
    (r"(?<![\w/.-])FileCheck(?![\w/.-])", os.path.join(llvm_bin, "FileCheck")))
config.substitutions.append(
    (r"(?<![\w/.%-])not(?![\w/.-])", os.path.join(llvm_bin, "not")))
config.substitutions.append(
    (r"(?<![\w/.-])llvm-readelf(?![\w/.-])",
     os.path.join(llvm_bin, "llvm-readelf")))

if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
