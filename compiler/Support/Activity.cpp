//===- Activity.cpp - what the compiler is working on ---------------------===//

#include "compiler/Support/Activity.h"

#include <mutex>

namespace {
std::mutex mutex;
std::string &activity() {
  static std::string *a = new std::string; // never destroyed: read at exit
  return *a;
}
std::vector<std::pair<std::string, double>> &parts() {
  static auto *p = new std::vector<std::pair<std::string, double>>;
  return *p;
}
} // namespace

using namespace ccl;

ActivityScope::ActivityScope(std::string what) {
  std::lock_guard<std::mutex> lock(mutex);
  outer = std::move(activity());
  activity() = std::move(what);
}

ActivityScope::~ActivityScope() {
  std::lock_guard<std::mutex> lock(mutex);
  activity() = std::move(outer);
}

void ccl::setActivity(std::string what) {
  std::lock_guard<std::mutex> lock(mutex);
  activity() = std::move(what);
}

std::string ccl::currentActivity() {
  std::lock_guard<std::mutex> lock(mutex);
  return activity();
}

void ccl::addPartTime(const std::string &part, double seconds) {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[name, s] : parts())
    if (name == part) {
      s += seconds;
      return;
    }
  parts().emplace_back(part, seconds);
}

std::vector<std::pair<std::string, double>> ccl::takePartTimes() {
  std::lock_guard<std::mutex> lock(mutex);
  return std::exchange(parts(), {});
}
