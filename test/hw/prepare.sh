# Sourced by the build modes of the test/hw scripts (here, on the machine
# with the toolchain). hw_prepare NAME [OUT]: sets ROOT (the repository) and
# OUT (absolute; default ROOT/.carry/NAME), empties OUT, changes to ROOT and
# builds the tools into out/ (scripts/build.sh). hw_install FILE...: after
# the libraries are compiled into OUT, drops the headers cclc wrote beside
# them, copies FILE... (tools, the script itself, sources built there) into
# OUT, writable, and lists OUT.
hw_prepare() {
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  OUT=${2:-$ROOT/.carry/$1}
  case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
  cd "$ROOT"
  scripts/build.sh >/dev/null
  rm -rf "$OUT"
  mkdir -p "$OUT"
}

hw_install() {
  rm -f "$OUT"/*.h
  cp -L "$@" "$OUT/"
  chmod -R u+w "$OUT"
  ls -la "$OUT"
}
