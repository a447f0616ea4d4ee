"""Where the package finds the cclc binary and libcclrt.so.

cclc:     the `cclc=` argument, else $CCLC, else `cclc` on PATH, else the
          out/bin/cclc of the repository the package was built from.
libcclrt: the `runtime=` argument of the first load, else $CCLRT_LIBRARY,
          else next to the generated library being loaded (its directory
          and ../lib: what its runpath finds), else ../lib of the cclc found
          above, else the repository's out/lib, else the dynamic linker's
          search (LD_LIBRARY_PATH, ld.so.cache).
"""

import os
import shutil

from .errors import CclcNotFound

__all__ = ["repository", "find_cclc", "runtime_candidates"]


def _is_repository(path):
    return (os.path.isdir(os.path.join(path, "stdlib")) and
            os.path.isfile(os.path.join(path, "runtime", "include", "ccl", "ccl.h")))


def repository():
    """The cclc repository the package was built from (or runs from), or None."""
    try:
        from . import _build_info  # written into the wheel by the backend
        if _build_info.REPO and _is_repository(_build_info.REPO):
            return _build_info.REPO
    except ImportError:
        pass
    # An editable install, or the package imported from tools/python.
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    return repo if _is_repository(repo) else None


def find_cclc(cclc=None):
    """The path of the cclc binary; CclcNotFound says where it looked."""
    tried = []
    if cclc is not None:
        path = os.fspath(cclc)
        if os.sep not in path:
            found = shutil.which(path)
            if found:
                return found
        elif os.access(path, os.X_OK) and os.path.isfile(path):
            return path
        raise CclcNotFound("cclc=%r is not an executable file" % path)
    env = os.environ.get("CCLC")
    if env:
        if os.access(env, os.X_OK) and os.path.isfile(env):
            return env
        raise CclcNotFound("$CCLC=%r is not an executable file" % env)
    tried.append("$CCLC (unset)")
    found = shutil.which("cclc")
    if found:
        return found
    tried.append("cclc on PATH")
    repo = repository()
    if repo:
        path = os.path.join(repo, "out", "bin", "cclc")
        if os.access(path, os.X_OK):
            return path
        tried.append(path + " (run scripts/build.sh to install it)")
    raise CclcNotFound("cclc not found; looked at: " + ", ".join(tried) +
                       "; pass cclc=PATH or set CCLC")


def runtime_candidates(library=None):
    """Paths (and finally the bare soname) to try for libcclrt.so, in order,
    each with a word on where it comes from."""
    out = []
    env = os.environ.get("CCLRT_LIBRARY")
    if env:
        out.append((env, "$CCLRT_LIBRARY"))
        return out  # named explicitly: nothing else is tried
    if library is not None:
        d = os.path.dirname(os.path.abspath(os.fspath(library)))
        out.append((os.path.join(d, "libcclrt.so"), "next to " + os.fspath(library)))
        out.append((os.path.join(os.path.dirname(d), "lib", "libcclrt.so"),
                    "../lib of " + os.fspath(library)))
    try:
        cclc = find_cclc()
        lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(cclc))),
                           "lib", "libcclrt.so")
        out.append((lib, "../lib of cclc (%s)" % cclc))
    except CclcNotFound:
        pass
    repo = repository()
    if repo:
        out.append((os.path.join(repo, "out", "lib", "libcclrt.so"), "the repository's out/lib"))
    out.append(("libcclrt.so", "the dynamic linker's search path"))
    return out
