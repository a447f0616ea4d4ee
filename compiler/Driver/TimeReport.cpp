//===- TimeReport.cpp - time and peak memory per compile stage ------------===//

#include "compiler/Driver/TimeReport.h"
#include "compiler/Support/Activity.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <sys/resource.h>

using namespace ccl;

uint64_t TimeReport::peakResidentBytes() {
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0)
    return 0;
  return uint64_t(u.ru_maxrss) * 1024; // kilobytes on Linux
}

TimeReport::Row &TimeReport::row(llvm::StringRef stage) {
  for (Row &r : rows)
    if (r.stage == stage)
      return r;
  rows.push_back({stage.str()});
  return rows.back();
}

void TimeReport::begin(llvm::StringRef stage) {
  // The stage is the compile's activity (what the memory guard names)
  // whether or not the report is printed.
  setActivity(stage.str());
  if (!enabled)
    return;
  end();
  // A stage that runs again (the second ccl-verify) gets a row of its own.
  current = stage.str();
  for (unsigned k = 2; llvm::any_of(rows, [&](const Row &r) {
         return r.stage == current;
       });
       ++k)
    current = (stage + " (" + llvm::Twine(k) + ")").str();
  started = std::chrono::steady_clock::now();
}

void TimeReport::end() {
  // Parts timed inside the stage (Activity.h) are taken out of it.
  auto parts = takePartTimes();
  if (!enabled || current.empty())
    return;
  std::chrono::duration<double> d = std::chrono::steady_clock::now() - started;
  uint64_t peak = peakResidentBytes();
  double rest = d.count();
  row(current); // the stage's row before its parts'
  for (auto &[part, seconds] : parts) {
    Row &p = row(current + ": " + part);
    p.seconds += std::min(seconds, rest);
    p.peak = peak;
    rest -= std::min(seconds, rest);
  }
  Row &r = row(current);
  r.seconds += rest;
  r.peak = peak;
  current.clear();
}

void TimeReport::add(llvm::StringRef stage, double seconds) {
  if (!enabled)
    return;
  Row &r = row(stage);
  r.seconds += seconds;
  r.peak = peakResidentBytes();
}

void TimeReport::print(llvm::raw_ostream &os) const {
  if (!enabled)
    return;
  double total = 0;
  size_t width = 5;
  for (const Row &r : rows) {
    total += r.seconds;
    width = std::max(width, r.stage.size());
  }
  os << "cclc: time report\n";
  os << llvm::left_justify("stage", width) << "  " << llvm::right_justify("s", 9)
     << "  " << llvm::right_justify("%", 5) << "  "
     << llvm::right_justify("peak MB", 8) << "\n";
  auto line = [&](llvm::StringRef stage, double s, uint64_t peak) {
    os << llvm::left_justify(stage, width) << "  "
       << llvm::format("%9.3f", s) << "  "
       << llvm::format("%5.1f", total > 0 ? 100 * s / total : 0.0) << "  "
       << llvm::format("%8.0f", double(peak) / (1 << 20)) << "\n";
  };
  for (const Row &r : rows)
    line(r.stage, r.seconds, r.peak);
  line("total", total, peakResidentBytes());
}

namespace {

class PassTimes : public mlir::PassInstrumentation {
public:
  explicit PassTimes(TimeReport &report) : report(report) {}
  void runBeforePass(mlir::Pass *pass, mlir::Operation *) override {
    // Passes of a module pipeline run one at a time, in order.
    report.begin(("pass " + pass->getArgument()).str());
  }
  void runAfterPass(mlir::Pass *, mlir::Operation *) override { report.end(); }
  void runAfterPassFailed(mlir::Pass *, mlir::Operation *) override {
    report.end();
  }

private:
  TimeReport &report;
};

} // namespace

std::unique_ptr<mlir::PassInstrumentation> TimeReport::passInstrumentation() {
  return std::make_unique<PassTimes>(*this);
}
