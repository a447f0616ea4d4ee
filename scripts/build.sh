#!/usr/bin/env bash
# Builds cclc, ccl-opt, ccl-perf and libcclrt with Bazel and installs them
# into out/ (bin/, lib/, include/), the layout cclc expects at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //tools/cclc //tools/ccl-opt //tools/ccl-perf //runtime:libcclrt.so
rm -rf out
mkdir -p out/bin out/lib out/include/ccl
cp -L bazel-bin/tools/cclc/cclc bazel-bin/tools/ccl-opt/ccl-opt \
      bazel-bin/tools/ccl-perf/ccl-perf out/bin/
cp -L bazel-bin/runtime/libcclrt.so out/lib/
cp runtime/include/ccl/ccl.h runtime/include/ccl/plan.h \
   runtime/include/ccl/types.def out/include/ccl/
chmod u+w out/bin/* out/lib/*
echo "build: installed into $(pwd)/out"
