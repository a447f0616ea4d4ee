# docs/tutorial.md, as a newcomer would follow it: every `<!-- file: F -->`
# ```ccl block is written to F; every ```sh block is run line by line (its
# first line says "# run": each command must succeed; "# fails": all but
# the last must succeed and the last must fail), in a shell started with
# `env -i PATH=/usr/bin:/bin HOME=$HOME`, from a directory with the built
# out/ (the block that builds it is skipped: the suite has built it); when
# a ```text block follows, each of its lines but "..." must appear, in
# order, in the output of the block's last command ("..." inside a line
# matches anything: counts that vary from run to run).
set -euo pipefail
cd "$WORK"
ln -s "$REPO/out" out
python3 - "$REPO/docs/tutorial.md" "$HOME" <<'PY'
import re, subprocess, sys
doc, home = sys.argv[1], sys.argv[2]
lines = open(doc).read().split("\n")
blocks = []  # (tag, body lines, file name or None)
pending_file = None
i = 0
while i < len(lines):
    m = re.match(r"<!-- file: (\S+) -->", lines[i].strip())
    if m:
        pending_file = m.group(1)
    elif lines[i].startswith("```") and len(lines[i]) > 3:
        tag = lines[i][3:].strip()
        j = i + 1
        while lines[j] != "```":
            j += 1
        blocks.append((tag, lines[i + 1:j], pending_file))
        pending_file = None
        i = j
    i += 1
ran = 0
for k, (tag, body, fname) in enumerate(blocks):
    if tag == "ccl" and fname:
        open(fname, "w").write("\n".join(body) + "\n")
        continue
    if tag != "sh" or not body or body[0] not in ("# run", "# fails"):
        continue
    cmds = [c for c in body[1:] if c.strip() and not c.startswith("bash scripts/build.sh")]
    if not cmds:
        continue
    out = ""
    for n, cmd in enumerate(cmds):
        last = n == len(cmds) - 1
        p = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "HOME=" + home,
                            "bash", "-c", cmd], capture_output=True, text=True)
        out = p.stdout + p.stderr
        must_fail = body[0] == "# fails" and last
        if (p.returncode != 0) != must_fail:
            print(out)
            sys.exit(f"FAILED: '{cmd}' exited {p.returncode} "
                     f"({'should fail' if must_fail else 'should succeed'})")
        ran += 1
        print(f"$ {cmd}: exit {p.returncode}")
    nxt = blocks[k + 1] if k + 1 < len(blocks) else None
    if nxt and nxt[0] == "text":
        got = [l.rstrip() for l in out.split("\n")]
        pos = 0
        for want in nxt[1]:
            if want.strip() == "...":
                continue
            # "..." inside a line stands for text that varies from run to run.
            pat = re.compile("^" + ".*".join(map(re.escape, want.rstrip().split("..."))) + "$")
            while pos < len(got) and not pat.match(got[pos]):
                pos += 1
            if pos == len(got):
                print(out)
                sys.exit(f"FAILED: the tutorial shows '{want}' after '{cmds[-1]}', "
                         "which does not print it (in that order)")
            pos += 1
print(f"tutorial: {ran} commands ran as shown")
PY
