//===- Activity.h - what the compiler is working on ------------*- C++ -*-===//
//
// The compile's current activity ("ccl-verify of ring at 8 ranks"), which
// the memory guard names when a compile stops for memory. Stages of the
// driver and passes that work per algorithm set it with ActivityScope; the
// innermost scope wins and the outer one is back when it ends.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_SUPPORT_ACTIVITY_H
#define CCL_SUPPORT_ACTIVITY_H

#include <string>
#include <utility>
#include <vector>

namespace ccl {

/// Sets the activity for its lifetime.
class ActivityScope {
public:
  explicit ActivityScope(std::string what);
  ~ActivityScope();
  ActivityScope(const ActivityScope &) = delete;
  ActivityScope &operator=(const ActivityScope &) = delete;

private:
  std::string outer;
};

/// Replaces the current activity (for a driver stage that ends when the
/// next begins).
void setActivity(std::string what);

/// The current activity, or "" (safe from any thread).
std::string currentActivity();

/// Adds `seconds` to part `part` of the stage in progress (the translation
/// validation inside ccl-lower-to-llvm). cclc --time-report takes the parts
/// out of the stage when it ends and shows each as a row of its own.
void addPartTime(const std::string &part, double seconds);

/// The parts' times added since the last call, in first-added order; the
/// list is empty afterwards.
std::vector<std::pair<std::string, double>> takePartTimes();

} // namespace ccl

#endif // CCL_SUPPORT_ACTIVITY_H
