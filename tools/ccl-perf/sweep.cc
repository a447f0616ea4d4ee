// sweep.cc - a sweep and its table (sweep.h).
#include "tools/ccl-perf/sweep.h"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>

#include "tools/ccl-perf/multiproc.h"
#include "tools/ccl-perf/report.h"
#include "tools/ccl-perf/run.h"

namespace cclperf {
namespace {

std::string fmtTime(double us) {
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

void printTableHeader(const char *title, bool algoColumn) {
  // The column titles, on two lines, right-aligned as the values below.
  const char *columns =
      "#{:>11}  {:>12}  {:>8}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  "
      "{:>6}  {:>6}\n";
  fmt::print("#\n# {}\n", title);
  fmt::print("#{:>62}{:>35}\n", "out-of-place", "in-place");
  std::string head = fmt::format(fmt::runtime(columns), "size", "count", "type", "redop",
                                 "time", "algbw", "busbw", "#wrong", "time", "algbw",
                                 "busbw", "#wrong");
  std::string units = fmt::format(fmt::runtime(columns), "(B)", "(elements)", "", "",
                                  "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                                  "(GB/s)", "");
  if (algoColumn) {
    head.insert(head.size() - 1, "  algorithm");
    units.insert(units.size() - 1, "  (selected)");
  }
  fmt::print("{}{}", head, units);
  std::fflush(stdout);
}

// The algorithm that served a row: one name, or "A/B" when the out-of-place
// and in-place calls were served differently.
std::string rowAlgorithm(const Row &row) {
  std::string a = row.place[0].algo, b = row.place[1].algo;
  if (a.empty()) return b.empty() ? "-" : b;
  return b.empty() || a == b ? a : a + "/" + b;
}

const char *redopColumn(const Env &env, Op op) {
  return env.coll->reduction ? opName(op) : "none";  // as nccl-tests
}

// The first four columns of a row.
void printRowStart(const Env &env, const Row &row) {
  fmt::print("{:12}  {:12}  {:>8}  {:>6}", row.bytes, row.count,
             dtypeTableName(row.t), redopColumn(env, row.op));
}

void printRow(const Env &env, const Row &row, bool check) {
  printRowStart(env, row);
  for (const PlaceResult &p : row.place) {
    if (!p.ran) {
      fmt::print("  {:>7}  {:>6}  {:>6}  {:>6}", "N/A", "N/A", "N/A", "N/A");
      continue;
    }
    std::string wrong = check ? fmt::format("{:6}", p.wrong) : "N/A";
    fmt::print("  {:>7}  {:6.2f}  {:6.2f}  {:>6}", fmtTime(p.us), p.algbw,
               p.busbw, wrong);
  }
  if (!row.place[0].algo.empty() || !row.place[1].algo.empty())
    fmt::print("  {}", rowAlgorithm(row));
  fmt::print("\n");
  std::fflush(stdout);
}

// The (dtype, op) pairs of the sweep. A collective without a reduction runs
// once per dtype, with the first operator of -o (else of sum, prod, max,
// min) the plan has a kernel for: the operator does not change its result.
std::vector<std::pair<DType, Op>> sweepCombos(const Env &env, const Backend &b,
                                              const RowFilter &filter) {
  const Options &o = env.opt;
  std::vector<std::pair<DType, Op>> combos;
  for (DType t : o.dtypes) {
    if (env.coll->reduction) {
      for (Op op : o.ops) {
        std::string why;
        if (filter.combo && !filter.combo(t, op, &why)) {
          fmt::print("# {}: skipping {} {}: {}\n", b.label(), dtypeName(t),
                     opName(op), why);
          continue;
        }
        combos.push_back({t, op});
      }
      continue;
    }
    std::vector<Op> candidates = o.ops;
    for (const ccl::RedOpInfo &o : ccl::kRedOps)
      candidates.push_back(static_cast<Op>(o.code));
    bool found = false;
    std::string why;
    for (Op op : candidates)
      if (!filter.combo || filter.combo(t, op, &why)) {
        combos.push_back({t, op});
        found = true;
        break;
      }
    if (!found)
      fmt::print("# {}: skipping {}: {}\n", b.label(), dtypeName(t), why);
  }
  return combos;
}

}  // namespace

SweepResult sweep(Env &env, Backend &b, const RowFilter &filter,
                  const char *title, bool delays) {
  SweepResult res;
  const Options &o = env.opt;
  const int n = env.n;
  // Ranks' outputs are compared where one process holds them all.
  res.bitwise = o.bitwise && !env.multi;
  res.sizes = res.bitwise && env.coll->reduction &&
              (env.coll->kind == CollKind::AllReduce || env.coll->kind == CollKind::Reduce);
  if (o.bitwise && env.multi)
    fmt::print("# bitwise   : random floats; the ranks' outputs are compared "
               "with each other only when one process runs every rank\n");
  std::vector<std::pair<DType, Op>> combos = sweepCombos(env, b, filter);
  // The backend that says which algorithm served a call (cclc through a
  // bundle) gets a last column for it.
  const bool algoColumn = b.namesAlgorithm();
  printTableHeader(title, algoColumn);
  size_t lastNoteBytes = 0;
  int lastNoteCalls = 0;
  for (size_t bytes : sweepSizes(o)) {
    for (auto [t, op] : combos) {
      Row row;
      row.t = t;
      row.op = op;
      size_t es = dtypeSize(t);
      row.count = bytes == 0 ? 0 : std::max<size_t>(1, bytes / es);
      RowSpec spec{row.count, t, op};
      row.bytes = env.coll->dataBytes(row.count, n, es);
      std::string why;
      if (filter.size && !filter.size(row.count * es, &why)) {
        printRowStart(env, row);
        fmt::print("  skipped: {}\n", why);
        continue;
      }
      const size_t slot = slotBytes(env, spec);
      const int K = o.check ? rowCalls(env, slot) : 0;
      if (o.check && K < o.calls && (row.bytes != lastNoteBytes || K != lastNoteCalls)) {
        fmt::print("# back-to-back check of {}-byte rows: K = {} call{} instead of "
                   "{} (2K + 1 buffers of {} bytes per rank must fit in the "
                   "check's {} bytes, --check-mem)\n",
                   row.bytes, K, K > 1 ? "s" : "", o.calls, slot, env.arenaBytes);
        lastNoteBytes = row.bytes;
        lastNoteCalls = K;
      }
      std::vector<std::string> notes;
      // ("ranks differ" or "sizes differ", what).
      std::vector<std::pair<const char *, std::string>> diffs;
      // --delay on (off) for the checked (timed) calls; with one process per
      // rank each sets its own, and a failure anywhere stops every rank.
      auto delaysOn = [&](bool on, std::string *err) {
        if (!delays || o.delays.empty()) return true;
        return agree(env, setDelays(env, on, err), err);
      };
      for (int p = 0; p < 2; p++) {
        bool inplace = p == 1;
        if (inplace && !env.coll->hasInplace) continue;  // N/A column
        PlaceResult &pr = row.place[p];
        std::string err;
        bool ok = true;
        if (o.check) {
          ok = delaysOn(true, &err);
          for (BufMode mode : {BufMode::Separate, BufMode::Reused})
            for (bool graph : {false, true}) {
              if (graph && !(env.cuda && o.graphLaunches > 0)) continue;
              CheckOutcome found;
              if (ok)
                ok = checkedRun(env, b, spec, inplace, graph, mode, K, &found, &err);
              if (ok && found.wrong) {
                pr.wrong += found.wrong;
                notes.push_back(wrongNote(found, inplace, mode, graph, K));
              }
              if (ok && found.sizeDiff) {
                res.sizeDiff += found.sizeDiff;
                diffs.emplace_back("sizes differ", fmt::format(
                    "{} element{} of call 0 {} {}{} differ{} from a {}-element call "
                    "with the same inputs (first: element {})",
                    found.sizeDiff, found.sizeDiff == 1 ? "" : "s",
                    inplace ? "in place" : "out of place",
                    mode == BufMode::Separate ? "separate buffers" : "reused buffers",
                    graph ? ", graph" : "", found.sizeDiff == 1 ? "s" : "",
                    found.sizeDiffCount, found.sizeDiffAt));
              }
              if (ok && found.rankDiff) {
                res.rankDiff += found.rankDiff;
                diffs.emplace_back("ranks differ", fmt::format(
                    "{} elements in {} {}{} (first: call {}, rank {} element {} has "
                    "other bits than rank {}'s)",
                    found.rankDiff, inplace ? "in place" : "out of place",
                    mode == BufMode::Separate ? "separate buffers" : "reused buffers",
                    graph ? ", graph" : "", found.diffCall, found.diffRank,
                    found.diffAt, found.diffBase));
              }
            }
          if (ok) ok = delaysOn(false, &err);
        }
        if (ok) ok = timedRun(env, b, spec, inplace, &pr.us, &err);
        if (!ok) {
          printRow(env, row, o.check);
          res.rows.push_back(row);
          res.failed = true;
          res.error = fmt::format("{} {} B {} {} {}: {}", b.label(), row.bytes,
                                  dtypeName(t), redopColumn(env, op),
                                  inplace ? "in-place" : "out-of-place", err);
          // The one report of the error: here, beside its row.
          reportRunError(env, res.error);
          return res;
        }
        pr.ran = true;
        if (algoColumn) pr.algo = b.served();
        pr.algbw = pr.us > 0 ? (double)row.bytes / (pr.us * 1e3) : 0;
        pr.busbw = pr.algbw * env.coll->busFactor(n);
        res.wrong += pr.wrong;
      }
      res.rows.push_back(row);
      printRow(env, row, o.check);
      for (const std::string &note : notes) fmt::print("#   wrong: {}\n", note);
      for (const auto &[kind, d] : diffs) fmt::print("#   {}: {}\n", kind, d);
    }
  }
  return res;
}

void printSummary(const char *prefix, const SweepResult &r, bool check) {
  fmt::print("# {}Out of bounds values : {} {}\n", prefix, r.wrong,
             (r.wrong == 0 && !r.failed) ? "OK" : "FAILED");
  if (r.bitwise)
    fmt::print("# {}Rank differences     : {} element{} whose bits differ between "
               "ranks sharing an output\n",
               prefix, r.rankDiff, r.rankDiff == 1 ? "" : "s");
  if (r.sizes)
    fmt::print("# {}Size differences     : {} element{} whose bits differ from "
               "another count's with the same inputs\n",
               prefix, r.sizeDiff, r.sizeDiff == 1 ? "" : "s");
  fmt::print("# {}Avg bus bandwidth    : {:g}\n", prefix, r.avgBusbw());
  if (!check) fmt::print("# {}(results not checked: -c 0)\n", prefix);
}

}  // namespace cclperf
