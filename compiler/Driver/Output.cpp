//===- Output.cpp - the files cclc writes (Output.h) ----------------------===//

#include "compiler/Driver/Output.h"
#include "compiler/Driver/Driver.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ccl {

bool prepareOutput(StringRef path, OutputFile &out, std::string &error) {
  out.path = path.str();
  sys::fs::file_status st;
  if (!sys::fs::status(path, st) && sys::fs::exists(st)) {
    if (!sys::fs::is_regular_file(st)) {
      out.temp = out.path; // a device or a pipe: written in place
      return true;
    }
    SmallString<256> real;
    if (!sys::fs::real_path(path, real))
      out.path = real.str().str();
  }
  // .NAME.cclc-XXXXXX next to it: the same file system, so the rename is
  // atomic.
  SmallString<256> model(sys::path::parent_path(out.path));
  if (model.empty())
    model = ".";
  sys::path::append(model,
                    "." + sys::path::filename(out.path) + ".cclc-%%%%%%");
  SmallString<256> temp;
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temp)) {
    error = "cannot write " + out.path + ": " + ec.message();
    return false;
  }
  sys::fs::closeFile(fd);
  out.temp = temp.str().str();
  // SIGINT, SIGTERM or a crash before commit or discard removes it.
  sys::RemoveFileOnSignal(out.temp);
  return true;
}

bool commitOutput(const OutputFile &out, std::string &error) {
  if (out.inPlace())
    return true;
  sys::DontRemoveFileOnSignal(out.temp);
  if (std::error_code ec = sys::fs::rename(out.temp, out.path)) {
    error = "cannot write " + out.path + ": " + ec.message();
    discardOutput(out);
    return false;
  }
  return true;
}

void discardOutput(const OutputFile &out) {
  if (!out.inPlace() && !out.temp.empty()) {
    sys::fs::remove(out.temp);
    sys::DontRemoveFileOnSignal(out.temp);
  }
}

bool writeOutputFile(StringRef path, StringRef data, std::string &error) {
  OutputFile out;
  if (!prepareOutput(path, out, error))
    return false;
  {
    std::error_code ec;
    raw_fd_ostream os(out.temp, ec);
    if (!ec) {
      os << data;
      os.close();
      ec = os.error();
    }
    if (ec) {
      error = "cannot write " + out.path + ": " + ec.message();
      os.clear_error();
      discardOutput(out);
      return false;
    }
  }
  return commitOutput(out, error);
}

std::string headerPath(StringRef library) {
  SmallString<256> header(library);
  sys::path::replace_extension(header, "h");
  return header.str().str();
}

std::vector<std::string> outputFiles(const CompileOptions &options) {
  if (options.output.empty() || options.output == "-")
    return {};
  if (options.emit != EmitLevel::SO || options.printSelection)
    return {options.output};
  return {options.output, headerPath(options.output)};
}

bool sameFile(StringRef a, StringRef b) {
  bool same = false;
  if (!sys::fs::equivalent(a, b, same))
    return same;
  SmallString<256> x(a), y(b);
  sys::fs::make_absolute(x);
  sys::fs::make_absolute(y);
  sys::path::remove_dots(x, true);
  sys::path::remove_dots(y, true);
  return x == y;
}

} // namespace ccl
