"""The exceptions of the cclc package.

`CclError` is a failed call of libcclrt's C API (or of a generated entry
point, which returns the same cclResult_t): it carries the code, its name and
description (cclGetErrorString) and the runtime's message of the failure
(cclGetLastError, with the function, rank and algorithm), exactly what a C
program gets. `CompileError` is a failed run of the cclc binary, with its
diagnostics. Arguments the C API cannot check (a buffer's element type, its
contiguity and size, the device it lives on) raise TypeError or ValueError
before anything is called.
"""

import enum

__all__ = ["Result", "CclError", "CompileError", "CclcNotFound", "RuntimeNotFound"]


class Result(enum.IntEnum):
    """cclResult_t (ccl/ccl.h)."""
    Success = 0
    InvalidArgument = 1
    InvalidUsage = 2
    Unsupported = 3
    NoDevice = 4
    DriverError = 5
    Timeout = 6
    SystemError = 7
    InternalError = 8
    RemoteError = 9
    BootstrapError = 10


class CclError(RuntimeError):
    """A call of libcclrt's C API or of a generated entry point failed.

    Attributes:
      code         the cclResult_t, a `Result` when it is a known one
      name         "cclInvalidArgument", ... (from cclGetErrorString)
      description  the rest of cclGetErrorString ("invalid argument")
      message      cclGetLastError() right after the failure: the runtime's
                   own account, prefixed with the function and rank
      call         the function that failed, as the package called it
    """

    def __init__(self, call, code, error_string, message):
        try:
            code = Result(code)
        except ValueError:
            pass
        self.call = call
        self.code = code
        name, sep, description = (error_string or "").partition(": ")
        self.name = name if sep else "cclResult %d" % int(code)
        self.description = description if sep else (error_string or "unknown result")
        self.message = message or ""
        text = "%s failed: %s: %s" % (call, self.name, self.description)
        if self.message:
            text += ": " + self.message
        super().__init__(text)


class CompileError(RuntimeError):
    """cclc rejected a program (or could not run).

    Attributes:
      returncode   cclc's exit status
      diagnostics  what cclc printed on stderr ("FILE:LINE:COL: error: ...")
      command      the command line that ran
    """

    def __init__(self, command, returncode, diagnostics):
        self.command = list(command)
        self.returncode = returncode
        self.diagnostics = diagnostics
        super().__init__("cclc failed (exit status %d):\n%s" % (
            returncode, diagnostics.rstrip() or "(no diagnostics)"))


class CclcNotFound(FileNotFoundError):
    """No cclc binary was found (the message says where the package looked)."""


class RuntimeNotFound(OSError):
    """libcclrt.so could not be loaded (the message says where it looked)."""
