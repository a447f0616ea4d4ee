# Sourced by tests and scripts: what this machine has, and how a test that
# cannot run here says so. Such a test prints one line "SKIPPED: REASON" and
# exits 0 (Bazel 4 has no skipped status); scripts/test.sh lists every
# SKIPPED line of the run (DEVELOPERS.md, "Testing").

# True when an NVIDIA GPU is visible.
have_gpu() {
  compgen -G '/dev/nvidia[0-9]*' >/dev/null
}

# Ends the test: skipped, for the reason given.
skip() {
  echo "SKIPPED: $*"
  exit 0
}
