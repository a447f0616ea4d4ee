// program.h - finding PROGRAM before any rank starts, as a shell would.
#ifndef CCL_TOOLS_CCL_RUN_PROGRAM_H
#define CCL_TOOLS_CCL_RUN_PROGRAM_H

#include <string>

namespace cclrun {

struct Program {
  std::string path;  // what the ranks execute (empty when not found)
  int status = 0;    // 0 found; else ccl-run's exit status: 127, 126
  std::string error; // "NAME: command not found" and the like
};

// Resolves `name` as bash does: a name with a '/' is a path; any other is
// searched in the directories of `pathEnv` (PATH; null: the system's
// default). Not found gives 127 ("command not found", or "No such file or
// directory" for a path), found but not executable 126.
Program findProgram(const std::string &name, const char *pathEnv);

} // namespace cclrun

#endif
