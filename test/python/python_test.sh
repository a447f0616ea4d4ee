# The Python package as a user installs it (docs/python.md): a fresh virtual
# environment, `pip install --no-index ./tools/python` from the repository
# root (offline: the in-tree backend needs no download), then with the
# environment's Python:
#  - test_package.py: cclc.compile (libraries, cclc's diagnostics, where
#    cclc is found), ring AllReduce on 2, 3 and 4 host ranks with twelve
#    calls back to back on every kind of buffer, the stdlib bundle's entry
#    points, the C API's errors as CclError, the package's own checks;
#  - one process per rank: ccl-run -n 2 and -n 4 of multiproc_rank.py;
#  - examples/python/allreduce.py at 2 and 4 ranks;
#  - with nothing but /usr/bin:/bin on PATH, the package finds cclc and
#    libcclrt in the repository it was built from (out/bin, out/lib).
# Run by test/e2e/harness.sh (REPO, WORK, PATH to out/bin); outside Bazel:
#   REPO=$PWD WORK=$(mktemp -d) PATH=$PWD/out/bin:$PATH bash test/python/python_test.sh
set -euo pipefail
source "$REPO/test/skip.sh"

command -v python3 >/dev/null || skip "no python3 on this machine (scripts/setup.sh installs it)"
python3 -c 'import ensurepip' 2>/dev/null ||
  { echo "python3 has no ensurepip: install python3-venv (scripts/setup.sh does)" >&2; exit 1; }

echo "python3: $(command -v python3) ($(python3 --version 2>&1))"
venv=$WORK/venv
# --system-site-packages: NumPy (python3-numpy) and PyTorch, where the
# machine has them, are visible to the tests; the package and its build
# come from nothing but this tree.
python3 -m venv --system-site-packages "$venv"
echo "\$ (cd \$REPO && pip install --no-index ./tools/python)"
(cd "$REPO" && "$venv/bin/pip" install --no-index --no-cache-dir --disable-pip-version-check \
  ./tools/python) > "$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
tail -1 "$WORK/pip.log"
py=$venv/bin/python
# The installed package, not the tree's.
cd "$WORK"
where=$("$py" -c 'import cclc; print(cclc.__file__)')
[[ $where == "$venv"/* ]] || { echo "cclc imported from $where, not the venv" >&2; exit 1; }

"$py" "$REPO/test/python/test_package.py"

lib=$WORK/py/libring.so   # written by test_package.py (ring, 2..4 ranks)
for n in 2 4; do
  out=$(ccl-run -n "$n" "$py" "$REPO/test/python/multiproc_rank.py" "$lib")
  echo "$out"
  [[ $out == "ring AllReduce, $n processes, 10 calls of 1001 floats back to back: 0 wrong" ]]
done

for n in 2 4; do
  "$py" "$REPO/examples/python/allreduce.py" "$n"
done

# Nothing on PATH or in the environment: the repository of the build.
found=$(env -i PATH=/usr/bin:/bin HOME="$HOME" "$py" -c '
import cclc
print(cclc.find_cclc())
print(cclc.runtime_version())')
echo "$found"
[[ $(head -1 <<<"$found") == "$REPO/out/bin/cclc" ]]
echo "python_test: passed"
