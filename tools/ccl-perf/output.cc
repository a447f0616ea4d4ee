// output.cc - --csv and --plot (output.h).
#include "tools/ccl-perf/output.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fmt/format.h>
#include <algorithm>
#include <fstream>

#include "tools/ccl-perf/report.h"

namespace cclperf {
namespace {

const char kColumns[] =
    "backend,collective,nranks,target,bytes,count,type,redop,placement,time_us,"
    "algbw_gbs,busbw_gbs,wrong,algorithm\n";

void appendRows(std::string *out, const Env &env, const char *backend,
                const SweepResult &r) {
  for (const Row &row : r.rows)
    for (int p = 0; p < 2; p++) {
      const PlaceResult &pr = row.place[p];
      if (!pr.ran) continue;
      *out += fmt::format("{},{},{},{},{},{},{},{},{},{:.3f},{:.4f},{:.4f},{},{}\n",
                          backend, env.coll->name, env.n, env.cuda ? "cuda" : "host",
                          row.bytes, row.count, dtypeName(row.t),
                          env.coll->reduction ? opName(row.op) : "none",
                          p ? "in-place" : "out-of-place", pr.us, pr.algbw, pr.busbw,
                          pr.wrong, pr.algo.empty() ? backend : pr.algo);
    }
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

// The plotting script (run by python3 with the CSV path and the image path).
const char kPlot[] = R"PY(
import csv, sys
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except Exception as e:
    print("matplotlib is not available: %s" % e, file=sys.stderr)
    sys.exit(3)
rows = list(csv.DictReader(open(sys.argv[1])))
series = {}
for r in rows:
    key = (r["backend"], r["placement"], r["type"], r["redop"])
    series.setdefault(key, []).append((int(r["bytes"]), float(r["busbw_gbs"]),
                                       float(r["time_us"])))
fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
for (backend, place, t, op), pts in sorted(series.items()):
    pts = [p for p in sorted(pts) if p[0] > 0]
    if not pts:
        continue
    label = "%s %s %s%s" % (backend, place, t, "" if op == "none" else " " + op)
    style = "-" if backend == "cclc" else "--"
    a.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=".", label=label)
    b.plot([p[0] for p in pts], [p[2] for p in pts], style, marker=".", label=label)
for ax, what in ((a, "busbw (GB/s)"), (b, "time (us)")):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel(what)
    ax.grid(True, which="both", alpha=0.3)
b.set_yscale("log")
a.legend(fontsize=7)
fig.suptitle(sys.argv[3])
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
)PY";

}  // namespace

bool writeOutputs(const Env &env, const SweepResult &mine, const SweepResult *theirs) {
  const Options &o = env.opt;
  if (o.csv.empty() && o.plot.empty()) return true;
  std::string text = kColumns;
  appendRows(&text, env, "cclc", mine);
  if (theirs) appendRows(&text, env, "NCCL", *theirs);
  if (!o.csv.empty()) {
    errno = 0;
    if (!writeFile(o.csv, text)) {
      reportError("--csv: cannot write " + o.csv +
                  (errno ? std::string(": ") + std::strerror(errno) : std::string()) +
                  "; the rows are only in the table above");
      return false;
    }
    fmt::print("# csv       : {} ({} rows)\n", o.csv, std::count(text.begin(), text.end(), '\n') - 1);
  }
  if (o.plot.empty()) return true;
  // The plot reads the CSV: the --csv file, or a temporary one.
  std::string csv = o.csv;
  std::string tmp;
  if (csv.empty()) {
    char name[] = "/tmp/ccl-perf-plot-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0 || ::write(fd, text.data(), text.size()) != (ssize_t)text.size()) {
      if (fd >= 0) close(fd);
      reportError("--plot: cannot write a temporary CSV file");
      return false;
    }
    close(fd);
    csv = tmp = name;
  }
  char script[] = "/tmp/ccl-perf-plot-XXXXXX";
  int fd = mkstemp(script);
  bool ok = fd >= 0 && ::write(fd, kPlot, sizeof kPlot - 1) == (ssize_t)(sizeof kPlot - 1);
  if (fd >= 0) close(fd);
  std::string title = std::string(env.coll->name) + ", " + std::to_string(env.n) + " ranks, " +
                      (env.cuda ? "cuda" : "host");
  int status = -1;
  if (ok) {
    pid_t pid = fork();
    if (pid == 0) {
      execlp("python3", "python3", script, csv.c_str(), o.plot.c_str(), title.c_str(),
             (char *)nullptr);
      _exit(127);
    }
    if (pid > 0) waitpid(pid, &status, 0);
  }
  unlink(script);
  if (!tmp.empty()) unlink(tmp.c_str());
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0)
    fmt::print("# plot      : {}\n", o.plot);
  else if (code == 3)
    reportError("--plot: matplotlib is not available to python3 (pip install matplotlib); "
                "no plot written" + std::string(o.csv.empty() ? "" : ", the CSV is in " + o.csv));
  else if (code == 127)
    reportError("--plot: python3 is not installed; no plot written");
  else
    reportError("--plot: the plotting script failed (exit " + std::to_string(code) +
                "); no plot written");
  return code == 0;
}

}  // namespace cclperf
