"""cclc.compile: run the cclc binary on a .ccl program."""

import os
import subprocess
import tempfile

from ._locate import find_cclc
from .errors import CompileError

__all__ = ["compile", "find_cclc"]


def _list(value, what):
    """A cclc list option from a string, an int or an iterable of them."""
    if value is None:
        return None
    if isinstance(value, (str, int)):
        return str(value)
    if isinstance(value, range):
        if value.step != 1 or len(value) == 0:
            raise ValueError("%s=%r: a range must be non-empty with step 1" % (what, value))
        return "%d..%d" % (value.start, value.stop - 1)
    try:
        items = list(value)
    except TypeError:
        raise TypeError("%s must be a string, an int or a list of them, not %s"
                        % (what, type(value).__name__)) from None
    if not items:
        raise ValueError("%s is empty" % what)
    return ",".join(str(v) for v in items)


def _is_path(source):
    if isinstance(source, os.PathLike):
        return True
    if isinstance(source, bytes):
        raise TypeError("source must be a str (program text or a path ending in .ccl) "
                        "or a path object, not bytes")
    if not isinstance(source, str):
        raise TypeError("source must be a str (program text or a path ending in .ccl) "
                        "or a path object, not %s" % type(source).__name__)
    return "\n" not in source and source.strip().endswith(".ccl")


def compile(source, output=None, *, target="host", nranks=None, dtype=None, op=None,
            max_bytes=None, instances=None, tiles=None, kernels=None, channel=None,
            defines=None, include_dirs=(), verify=True, extra_args=(), cclc=None,
            timeout=None):
    """Compiles a .ccl program into a shared library and returns its path.

    source: a path (a path object, or a str ending in ".ccl") or the text of
      a program (any other str). Program text is compiled from a file
      `<name>.ccl` in a new temporary directory; its diagnostics name it as
      `<string>.ccl`, and its `import`s are searched in `include_dirs`.
    output: the .so to write (cclc writes the header next to it, same name
      with .h). Default: lib<name>.so in a new temporary directory, which is
      left in place (the library is loaded from it).
    target, nranks, dtype, op: cclc's --target, --nranks, --dtype, --op; each
      a string as on cclc's command line ("host", "2..8", "float32,float16"),
      an int, a range (range(2, 5) is "2..4") or a list. None: cclc's default.
    max_bytes (int or "4M"), instances, tiles, kernels ("shared" or
      "per-rank"), channel ("memory" or "port"): the options of the same name.
    defines: {name: value} for -D; include_dirs: -I directories.
    verify=False: --no-verify (skips the correctness proof; testing only).
    extra_args: more cclc arguments, as they are.
    cclc: the binary (default: $CCLC, PATH, the repository's out/bin; see
      find_cclc).

    Raises CompileError (with cclc's diagnostics) when cclc fails,
    CclcNotFound when there is no cclc, FileNotFoundError for a missing path.
    """
    binary = find_cclc(cclc)
    workdir = None
    if _is_path(source):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise FileNotFoundError("no .ccl file %r" % path)
        stem = os.path.splitext(os.path.basename(path))[0]
        shown = None
    else:
        stem = "program"
        workdir = tempfile.mkdtemp(prefix="cclc-")
        path = os.path.join(workdir, "string.ccl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        shown = "<string>.ccl"
    if output is None:
        outdir = workdir or tempfile.mkdtemp(prefix="cclc-")
        output = os.path.join(outdir, "lib%s.so" % stem)
    output = os.fspath(output)
    if os.path.dirname(output):
        os.makedirs(os.path.dirname(output), exist_ok=True)

    cmd = [binary, path, "-o", output]
    for flag, value in (("--target", target), ("--nranks", nranks), ("--dtype", dtype),
                        ("--op", op)):
        value = _list(value, flag[2:])
        if value is not None:
            cmd.append("%s=%s" % (flag, value))
    for flag, value in (("--max-bytes", max_bytes), ("--instances", instances),
                        ("--tiles", tiles), ("--kernels", kernels),
                        ("--channel", channel)):
        if value is not None:
            cmd.append("%s=%s" % (flag, value))
    for name, value in (defines or {}).items():
        cmd += ["-D", "%s=%s" % (name, value)]
    for d in include_dirs:
        cmd += ["-I", os.fspath(d)]
    if not verify:
        cmd.append("--no-verify")
    cmd += [os.fspath(a) for a in extra_args]

    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
    except OSError as e:
        raise CompileError(cmd, -1, "cannot run %s: %s" % (binary, e)) from None
    diagnostics = proc.stderr.decode("utf-8", "replace")
    if shown:
        diagnostics = diagnostics.replace(path, shown)
    if proc.returncode != 0:
        raise CompileError(cmd, proc.returncode, diagnostics)
    if not os.path.isfile(output):
        raise CompileError(cmd, proc.returncode,
                           diagnostics + "\ncclc exited 0 but wrote no %s" % output)
    return output
