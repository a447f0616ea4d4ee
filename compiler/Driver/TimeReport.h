//===- TimeReport.h - time and peak memory per compile stage ----*- C++ -*-===//
//
// `cclc --time-report`: each stage of a compile (parse, evaluate, each
// pass, translation to LLVM IR, linking and optimisation, code generation,
// ptxas, writing the library) with its wall time and the process's peak
// resident memory when it ended, printed as a table on standard error.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_DRIVER_TIMEREPORT_H
#define CCL_DRIVER_TIMEREPORT_H

#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ccl {

class TimeReport {
public:
  /// A disabled report records nothing and prints nothing.
  explicit TimeReport(bool enabled) : enabled(enabled) {}
  bool isEnabled() const { return enabled; }

  /// Starts a stage; it ends when the next starts or at end(). A stage
  /// that ran before gets a row of its own ("pass ccl-verify (2)").
  void begin(llvm::StringRef stage);
  /// Ends the stage in progress, if any. The parts of it timed with
  /// addPartTime (compiler/Support/Activity.h) get rows of their own
  /// ("<stage>: <part>"), taken out of the stage's.
  void end();
  /// Adds `seconds` to stage `stage` (one row per name, in first-seen
  /// order): for work measured elsewhere, such as by a thread.
  void add(llvm::StringRef stage, double seconds);
  /// The table: stage, seconds, share of the total, peak resident MB.
  void print(llvm::raw_ostream &os) const;

  /// A pass instrumentation that records each pass as a stage
  /// ("pass ccl-verify"); the report must outlive the pass manager. A
  /// stage is the compile's activity (compiler/Support/Activity.h) even
  /// when the report is disabled.
  std::unique_ptr<mlir::PassInstrumentation> passInstrumentation();

  /// Peak resident memory of the process so far, in bytes.
  static uint64_t peakResidentBytes();

private:
  struct Row {
    std::string stage;
    double seconds = 0;
    uint64_t peak = 0;
  };
  Row &row(llvm::StringRef stage);

  bool enabled;
  std::vector<Row> rows;
  std::string current;
  std::chrono::steady_clock::time_point started;
};

} // namespace ccl

#endif // CCL_DRIVER_TIMEREPORT_H
