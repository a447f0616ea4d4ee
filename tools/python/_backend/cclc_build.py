"""The PEP 517 / PEP 660 build backend of the cclc Python package.

Standard library only, so that `pip install ./tools/python` works in a fresh
virtual environment without setuptools and without a network: pip's build
environment gets nothing (`requires = []` in pyproject.toml) and calls the
hooks below. The package is pure Python, so the wheel is a zip of
`cclc/*.py` plus its `.dist-info` (PEP 427, PEP 376 RECORD).

Besides the sources the wheel holds `cclc/_build_info.py`, which records the
repository the package was built from (when it was built inside one), so that
the installed package finds that repository's `out/bin/cclc` and
`out/lib/libcclrt.so` when neither an argument, the environment nor PATH
names them (docs/python.md, "Finding cclc and libcclrt").
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

NAME = "cclc"
SUMMARY = ("Compile .ccl collective-communication programs with cclc and run "
           "them on PyTorch tensors, NumPy arrays and buffers")
TAG = "py3-none-any"

# tools/python, the directory of pyproject.toml.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    text = open(os.path.join(_ROOT, NAME, "_version.py"), encoding="utf-8").read()
    m = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    if not m:
        raise RuntimeError("cclc/_version.py has no __version__ line")
    return m.group(1)


def _repository():
    """The repository that holds this tree (tools/python/../..), or None."""
    repo = os.path.dirname(os.path.dirname(_ROOT))
    if (os.path.isdir(os.path.join(repo, "stdlib")) and
            os.path.isfile(os.path.join(repo, "runtime", "include", "ccl", "ccl.h"))):
        return repo
    return None


def _sources():
    """(path in the archive, path on disk) of the package's modules."""
    pkg = os.path.join(_ROOT, NAME)
    out = []
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") and name != "_build_info.py":
            out.append((NAME + "/" + name, os.path.join(pkg, name)))
    return out


def _metadata():
    readme = os.path.join(_ROOT, "README.md")
    body = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    return ("Metadata-Version: 2.1\n"
            "Name: %s\n"
            "Version: %s\n"
            "Summary: %s\n"
            "Requires-Python: >=3.8\n"
            "Provides-Extra: numpy\n"
            "Provides-Extra: torch\n"
            "Description-Content-Type: text/markdown\n"
            "\n%s" % (NAME, _version(), SUMMARY, body))


def _wheel_file():
    return ("Wheel-Version: 1.0\n"
            "Generator: cclc_build %s\n"
            "Root-Is-Purelib: true\n"
            "Tag: %s\n" % (_version(), TAG))


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _build_info(editable):
    repo = _repository()
    return ('"""Written by the build backend (tools/python/_backend)."""\n'
            "# The repository the package was built from, or None.\n"
            "REPO = %r\n"
            "# Installed with pip install -e (the modules are read from REPO).\n"
            "EDITABLE = %r\n" % (repo, editable))


def _zip_time():
    # Reproducible archives: SOURCE_DATE_EPOCH when set, else 1980-01-01.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return time.gmtime(max(int(epoch), 315532800))[:6]
    return (1980, 1, 1, 0, 0, 0)


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, arcname, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        info = zipfile.ZipInfo(arcname, date_time=_zip_time())
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
        self.record.append("%s,sha256=%s,%d" % (
            arcname, digest.rstrip(b"=").decode("ascii"), len(data)))

    def close(self):
        record = _dist_info() + "/RECORD"
        self.record.append(record + ",,")
        info = zipfile.ZipInfo(record, date_time=_zip_time())
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n")
        self.zip.close()


def _write_wheel(wheel_directory, editable):
    name = "%s-%s-%s.whl" % (NAME, _version(), TAG)
    wheel = _Wheel(os.path.join(wheel_directory, name))
    try:
        if editable:
            # PEP 660: the modules stay in the tree; a .pth puts it on sys.path.
            wheel.add("__editable__.%s.pth" % NAME, _ROOT + "\n")
        else:
            for arcname, path in _sources():
                with open(path, "rb") as f:
                    wheel.add(arcname, f.read())
            wheel.add(NAME + "/_build_info.py", _build_info(False))
        wheel.add(_dist_info() + "/METADATA", _metadata())
        wheel.add(_dist_info() + "/WHEEL", _wheel_file())
        wheel.add(_dist_info() + "/top_level.txt", NAME + "\n")
    finally:
        wheel.close()
    return name


# --- PEP 517 hooks ---------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info()


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, _version())
    name = base + ".tar.gz"
    files = [("pyproject.toml", os.path.join(_ROOT, "pyproject.toml")),
             ("README.md", os.path.join(_ROOT, "README.md")),
             ("_backend/cclc_build.py", os.path.abspath(__file__))]
    files += _sources()
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz",
                      format=tarfile.PAX_FORMAT) as tar:
        def add(arcname, data):
            info = tarfile.TarInfo(base + "/" + arcname)
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            tar.addfile(info, io.BytesIO(data))
        for arcname, path in files:
            if os.path.exists(path):
                with open(path, "rb") as f:
                    add(arcname, f.read())
        add("PKG-INFO", _metadata().encode("utf-8"))
    return name
