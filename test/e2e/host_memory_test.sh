# The host target keeps a plan's scratch out of memory until a call touches
# it (runtime/src/host.cc: large regions are anonymous mappings, zeroing
# drops their pages). ring_oop for 8 ranks with --max-bytes=1G prepares
# about 1 GiB of scratch per rank, 8 GiB in the one process; calls of up to
# 1 MiB, 4 back to back per check, must stay well under 1 GiB of resident
# memory and be right. Before this, preparing alone made all of it resident
# (the bundle tests at 8 ranks were killed for memory on a 24 GiB machine).
set -euo pipefail
cclc "$REPO/stdlib/allreduce/ring_oop.ccl" --target=host --nranks=8 \
    --dtype=float32 --op=sum --max-bytes=1G -o "$WORK/ring_oop.so"
python3 - "$WORK" <<'PY'
import re, resource, subprocess, sys
work = sys.argv[1]
out = subprocess.run(
    ["ccl-perf", "--lib", f"{work}/ring_oop.so", "--algo", "ring_oop",
     "--target", "host", "-g", "8", "-b", "4", "-e", "1M", "-f", "16",
     "-d", "float32", "-n", "1", "-w", "0", "-k", "4",
     "--timeout-ms", "60000"],
    capture_output=True, text=True)
print(out.stdout, out.stderr)
assert out.returncode == 0, "ccl-perf failed"
assert "Out of bounds values : 0 OK" in out.stdout, "wrong results"
m = re.search(r"# memory +: (\d+) B of scratch", out.stdout)
assert m, "ccl-perf printed no memory line"
scratch = int(m.group(1)) * 8
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(f"scratch of all 8 ranks: {scratch} B; peak resident: {rss} B")
assert scratch >= 4 << 30, f"the plan prepared only {scratch} B of scratch"
assert rss < 1 << 30, f"{rss} B resident for calls of up to 1 MiB"
PY
