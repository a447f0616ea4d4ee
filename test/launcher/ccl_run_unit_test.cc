// ccl_run_unit_test.cc - the pieces of ccl-run that need no processes:
// hex of the unique id, each rank's environment, --tag-output's line
// splitting, finding PROGRAM. The shell tests beside it run ccl-run itself.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/ccl-run/output.h"
#include "tools/ccl-run/program.h"
#include "tools/ccl-run/spawn.h"

using namespace cclrun;

static int failures = 0;

#define CHECK_EQ(a, b)                                                         \
  do {                                                                         \
    auto a_ = (a);                                                             \
    auto b_ = (b);                                                             \
    if (!(a_ == b_)) {                                                         \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n", __FILE__,        \
                   __LINE__, #a, #b);                                          \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static void testHex() {
  const unsigned char bytes[] = {0x00, 0xff, 0x1a, 0xa1, 0x09};
  CHECK_EQ(hexEncode(bytes, sizeof bytes), std::string("00ff1aa109"));
  CHECK_EQ(hexEncode(bytes, 0), std::string());
}

static void testEnvironment() {
  char e0[] = "HOME=/h", e1[] = "CCL_RANK=9", e2[] = "CCL_RANKS=keep",
       e3[] = "CCL_UNIQUE_ID=old", e4[] = "CCL_NRANKS", e5[] = "PATH=/bin";
  char *env[] = {e0, e1, e2, e3, e4, e5, nullptr};
  std::vector<std::string> got = rankEnvironment(env, 2, 4, "abcd");
  std::vector<std::string> want = {
      "HOME=/h",          "CCL_RANKS=keep",     "CCL_NRANKS",
      "PATH=/bin",        "CCL_RANK=2",         "CCL_NRANKS=4",
      "CCL_LOCAL_RANK=2", "CCL_LOCAL_NRANKS=4", "CCL_UNIQUE_ID=abcd"};
  CHECK_EQ(got, want);
}

// What a TaggedStream writes for `chunks`, fed one after the other.
static std::string tagged(const std::vector<std::string> &chunks) {
  char path[] = "/tmp/ccl-run-unit-XXXXXX";
  int fd = mkstemp(path);
  unlink(path);
  TaggedStream s("[3] ", fd);
  for (const std::string &c : chunks)
    s.feed(c.data(), c.size());
  s.finish();
  std::string out;
  char buf[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, buf, sizeof buf)) > 0)
    out.append(buf, (size_t)n);
  close(fd);
  return out;
}

static void testTaggedStream() {
  CHECK_EQ(tagged({"a\nb", "c\n", "d"}), std::string("[3] a\n[3] bc\n[3] d\n"));
  CHECK_EQ(tagged({"\n\n"}), std::string("[3] \n[3] \n"));
  CHECK_EQ(tagged({}), std::string());
  const size_t max = TaggedStream::kMaxLine;
  // A line of exactly kMaxLine, its newline in the next chunk: one line.
  CHECK_EQ(tagged({std::string(max, 'x'), "\ny\n"}),
           "[3] " + std::string(max, 'x') + "\n[3] y\n");
  // Longer: cut after kMaxLine bytes.
  CHECK_EQ(tagged({std::string(max + 5, 'x') + "\n"}),
           "[3] " + std::string(max, 'x') + "\n[3] xxxxx\n");
  CHECK_EQ(tagged({std::string(max - 1, 'x'), "yz"}),
           "[3] " + std::string(max - 1, 'x') + "y\n[3] z\n");
}

static void writeFile(const std::string &path, int mode) {
  FILE *f = std::fopen(path.c_str(), "w");
  std::fputs("#!/bin/sh\n", f);
  std::fclose(f);
  chmod(path.c_str(), mode);
}

static void testFindProgram() {
  char tmpl[] = "/tmp/ccl-run-unit-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string a = dir + "/a", b = dir + "/b";
  mkdir(a.c_str(), 0755);
  mkdir(b.c_str(), 0755);
  writeFile(a + "/tool", 0644); // not executable
  writeFile(b + "/tool", 0755);
  writeFile(a + "/only", 0644);
  mkdir((b + "/sub").c_str(), 0755);

  Program p = findProgram("tool", (a + ":" + b).c_str());
  CHECK_EQ(p.status, 0);
  CHECK_EQ(p.path, b + "/tool");
  p = findProgram("only", (a + ":" + b).c_str());
  CHECK_EQ(p.status, 126);
  CHECK_EQ(p.error, a + "/only: Permission denied");
  p = findProgram("none", (a + ":" + b).c_str());
  CHECK_EQ(p.status, 127);
  CHECK_EQ(p.error, std::string("none: command not found"));
  p = findProgram("sub", b.c_str()); // a directory is not a command
  CHECK_EQ(p.status, 127);
  p = findProgram(b + "/tool", "");
  CHECK_EQ(p.path, b + "/tool");
  p = findProgram(b + "/sub", "");
  CHECK_EQ(p.status, 126);
  CHECK_EQ(p.error, b + "/sub: Is a directory");
  p = findProgram(b + "/nope", "");
  CHECK_EQ(p.status, 127);
  CHECK_EQ(p.error, b + "/nope: No such file or directory");
  p = findProgram("", b.c_str());
  CHECK_EQ(p.status, 127);
  // An empty PATH entry is the working directory.
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd) || chdir(b.c_str()) != 0)
    std::abort();
  p = findProgram("tool", (a + "::/nonexistent").c_str());
  CHECK_EQ(p.path, std::string("./tool"));
  if (chdir(cwd) != 0)
    std::abort();
  std::string rm = "rm -rf " + dir;
  if (std::system(rm.c_str()) != 0)
    std::abort();
}

int main() {
  testHex();
  testEnvironment();
  testTaggedStream();
  testFindProgram();
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::puts("PASS");
  return 0;
}
