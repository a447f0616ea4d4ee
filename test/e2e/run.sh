#!/usr/bin/env bash
# Runs the host end-to-end tests (test/e2e/*_test.sh) with Bazel, which
# builds the tools first; arguments go to `bazel test` (e.g.
# --test_output=streamed). One test: bazel test //test/e2e:readelf_test.
# By hand, against out/ (scripts/build.sh):
#   PATH=$PWD/out/bin:$PATH LD_LIBRARY_PATH=$PWD/out/lib REPO=$PWD \
#     WORK=$(mktemp -d) bash test/e2e/readelf_test.sh
#
# Environment: BAZEL (default "bazel").
set -euo pipefail
cd "$(dirname "$0")/../.."
read -ra bazel <<<"${BAZEL:-bazel}"
exec "${bazel[@]}" test --test_output=errors "$@" //test/e2e/...
