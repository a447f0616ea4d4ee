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
# A second output base must not take over the workspace's bazel-* links:
# the main server would then walk into the other one's execroot on the
# next `bazel test //...` (errors in external/antlr4_runtime).
links=()
[[ " ${bazel[*]} " == *" --output_base="* ]] && links=(--symlink_prefix=/)
"${bazel[@]}" build "${links[@]}" //tools:dist
bin=$("${bazel[@]}" info bazel-bin 2>/dev/null)
rm -rf out
cp -rL "$bin/tools/dist" out
chmod -R u+w out
chmod a-x out/include/ccl/*
echo "build: installed into $(pwd)/out"
