# -*- Python -*-
# lit configuration for the cclc test suite.
#
#   /usr/lib/llvm-22/bin/lit -v test/lit
#
# Tools come from $CCLC_BIN_DIR (a directory holding cclc and ccl-opt) when it
# is set, else from the bazel-bin tree of this checkout.

import os
import shutil

import lit.formats

config.name = "cclc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".ccl", ".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.test_source_root

repo_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
llvm_bin = "/usr/lib/llvm-22/bin"

bin_dir = os.environ.get("CCLC_BIN_DIR")
if bin_dir:
    cclc = os.path.join(bin_dir, "cclc")
    ccl_opt = os.path.join(bin_dir, "ccl-opt")
else:
    cclc = os.path.join(repo_root, "bazel-bin", "tools", "cclc", "cclc")
    ccl_opt = os.path.join(repo_root, "bazel-bin", "tools", "ccl-opt", "ccl-opt")

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

if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
