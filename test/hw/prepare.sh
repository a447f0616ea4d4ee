# Sourced by the build modes of b2b.sh, bundle.sh and two_gpu.sh (here, on
# the machine with the toolchain). hw_prepare NAME [OUT]: sets ROOT (the
# repository) and OUT (absolute; default ROOT/.carry/NAME), empties OUT,
# changes to ROOT and builds the tools into out/ (scripts/build.sh).
hw_prepare() {
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  OUT=${2:-$ROOT/.carry/$1}
  case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
  cd "$ROOT"
  scripts/build.sh >/dev/null
  rm -rf "$OUT"
  mkdir -p "$OUT"
}
