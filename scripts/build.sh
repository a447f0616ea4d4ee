#!/usr/bin/env bash
# Builds cclc, ccl-opt, ccl-perf and libcclrt with Bazel and installs them
# into out/ (bin/, lib/, include/), the layout cclc expects at run time: a
# copy of //tools:dist.
#
# Environment: BAZEL (default "bazel"), e.g.
#   BAZEL="bazel --output_base=$HOME/.cache/bazel-mine" scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
read -ra bazel <<<"${BAZEL:-bazel}"
"${bazel[@]}" build //tools:dist
rm -rf out
cp -rL bazel-bin/tools/dist out
chmod -R u+w out
chmod a-x out/include/ccl/*
echo "build: installed into $(pwd)/out"
