// program.cc - PROGRAM is resolved once, in ccl-run, so that a typo fails
// before the unique id is made and before any rank starts, with the
// message and status a shell would give (127 or 126).
#include "tools/ccl-run/program.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cclrun {
namespace {

enum class Kind { Missing, NotExecutable, Directory, Executable };

Kind classify(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return Kind::Missing;
  if (S_ISDIR(st.st_mode))
    return Kind::Directory;
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0)
    return Kind::NotExecutable;
  return Kind::Executable;
}

std::string defaultPath() {
  size_t n = confstr(_CS_PATH, nullptr, 0);
  if (n == 0)
    return "/usr/bin:/bin";
  std::string s(n, '\0');
  confstr(_CS_PATH, &s[0], n);
  s.resize(n - 1); // the terminating NUL
  return s;
}

Program explicitPath(const std::string &name) {
  switch (classify(name)) {
  case Kind::Executable:
    return {name, 0, ""};
  case Kind::Missing:
    return {"", 127, name + ": " + std::strerror(ENOENT)};
  case Kind::Directory:
    return {"", 126, name + ": " + std::strerror(EISDIR)};
  case Kind::NotExecutable:
    break;
  }
  return {"", 126, name + ": " + std::strerror(EACCES)};
}

} // namespace

Program findProgram(const std::string &name, const char *pathEnv) {
  if (name.find('/') != std::string::npos)
    return explicitPath(name);
  if (name.empty())
    return {"", 127, ": command not found"};
  std::string dirs = pathEnv ? pathEnv : defaultPath();
  std::string denied; // a match that is not executable: bash goes on
  size_t start = 0;
  while (true) {
    size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon - start);
    // An empty entry is the current directory, as in every shell.
    std::string candidate = dir.empty() ? "./" + name : dir + "/" + name;
    Kind kind = classify(candidate);
    if (kind == Kind::Executable)
      return {candidate, 0, ""};
    if (kind == Kind::NotExecutable && denied.empty())
      denied = candidate;
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  if (!denied.empty())
    return {"", 126, denied + ": " + std::strerror(EACCES)};
  return {"", 127, name + ": command not found"};
}

} // namespace cclrun
