# The README's CPU commands, exactly as written: every ```sh block of
# README.md whose first line is "# CPU" is run line by line, from a
# directory that looks like the repository root (out/, stdlib/, examples/),
# in a shell started with `env -i PATH=/usr/bin:/bin HOME=$HOME`: no
# LD_LIBRARY_PATH, no PATH to the tools, a library named without "./". The
# "# GPU (one)" and "# GPU (two)" blocks are run on GPU machines instead
# (test/hw/readme_gpu.sh; results in test/hw/results/).
set -euo pipefail
cd "$WORK"
for d in out stdlib examples; do ln -s "$REPO/$d" "$d"; done
python3 - "$REPO/README.md" > commands.txt <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = 0
while i < len(lines):
    if lines[i].strip() == "```sh" and i + 1 < len(lines) and lines[i + 1].strip() == "# CPU":
        i += 2
        while lines[i].strip() != "```":
            if lines[i].strip():
                print(lines[i])
            i += 1
    i += 1
PY
test -s commands.txt
while IFS= read -r cmd; do
  echo "\$ $cmd"
  env -i PATH=/usr/bin:/bin HOME="$HOME" bash -c "$cmd" > out.txt 2>&1 ||
    { cat out.txt; echo "FAILED: $cmd"; exit 1; }
  tail -3 out.txt
  if [[ $cmd == out/bin/ccl-perf* ]]; then
    grep -q "Out of bounds values : 0 OK" out.txt || { echo "FAILED: wrong results"; exit 1; }
  fi
done < commands.txt
echo "README: $(wc -l < commands.txt) CPU commands ran as written"
