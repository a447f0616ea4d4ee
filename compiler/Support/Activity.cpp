//===- Activity.cpp - what the compiler is working on ---------------------===//

#include "compiler/Support/Activity.h"

#include <mutex>

namespace {
std::mutex mutex;
std::string &activity() {
  static std::string *a = new std::string; // never destroyed: read at exit
  return *a;
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
