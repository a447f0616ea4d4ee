//===- MemoryGuard.cpp - stop a compile before it passes its memory -------===//

#include "compiler/Support/MemoryGuard.h"
#include "compiler/Support/Activity.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace ccl;

uint64_t MemoryGuard::residentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident))
    return 0;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

static uint64_t readNumber(const char *path) {
  std::ifstream in(path);
  uint64_t v = 0;
  if (!(in >> v))
    return 0;
  return v;
}

uint64_t MemoryGuard::availableBytes() {
  uint64_t avail = 0;
  std::ifstream info("/proc/meminfo");
  std::string key;
  uint64_t kb;
  std::string unit;
  while (info >> key >> kb) {
    std::getline(info, unit);
    if (key == "MemAvailable:") {
      avail = kb * 1024;
      break;
    }
  }
  // A cgroup (v2) limit below the machine's: what it leaves.
  uint64_t max = readNumber("/sys/fs/cgroup/memory.max");
  uint64_t used = readNumber("/sys/fs/cgroup/memory.current");
  if (max && used && max > used && (avail == 0 || max - used < avail))
    avail = max - used;
  return avail;
}

MemoryGuard::MemoryGuard(uint64_t limit, std::string why)
    : limit(limit), why(std::move(why)) {
  if (limit)
    thread = std::thread([this] { watch(); });
}

MemoryGuard::~MemoryGuard() {
  done = true;
  if (thread.joinable())
    thread.join();
}

void MemoryGuard::watch() {
  while (!done) {
    if (residentBytes() > limit) {
      std::string what = currentActivity();
      std::ostringstream msg;
      msg << "cclc: error: out of memory: " << (what.empty() ? "the compile" : what)
          << " needed more than " << limit / (1 << 20) << " MB (" << why
          << "); compile fewer rank counts, types or operators at once, or "
             "give it more memory\n";
      std::string text = msg.str();
      (void)!::write(STDERR_FILENO, text.data(), text.size());
      ::_exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}
