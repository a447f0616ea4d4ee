"""The export list of libcclnccl.so against nccl.h and libnccl.so.2.

Every function nccl.h declares (nccl* and pnccl*) must be exported by the
shim, so no call of a program built against that header can reach the real
NCCL with one of the shim's handles. libnccl.so.2's nccl*/pnccl* exports
that nccl.h does not declare are the device API's host functions
(nccl_device.h: a program that uses them is built against nccl_device.h and
gets them from the real NCCL) and NCCL internals; they must be exactly the
list below, so a new NCCL whose library grows a function fails here until
the shim is looked at again.
"""
import re
import subprocess
import sys

NOT_IN_NCCL_H = {
    # nccl_device.h (the device API's host side)
    "ncclDevCommCreate", "ncclDevCommDestroy",
    "ncclGinBarrierCreateRequirement", "ncclLLA2ACalcSlots",
    "ncclLLA2ACreateRequirement", "ncclLsaBarrierCreateRequirement",
    "ncclTeamLsa", "ncclTeamRail", "ncclTeamRankToLsa",
    "ncclTeamRankToWorld", "ncclTeamWorld",
    # internal
    "ncclResetDebugInitInternal",
}
NOT_IN_NCCL_H |= {"p" + n for n in NOT_IN_NCCL_H if n != "ncclResetDebugInitInternal"}


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    return {l.split()[-1] for l in out.splitlines() if l.split()}


def main():
    shim, header = sys.argv[1], sys.argv[2]
    text = re.sub(r"/\*.*?\*/", "", open(header).read(), flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    declared = set(re.findall(r"\b(p?nccl[A-Za-z0-9_]+)\s*\(", text))
    if len(declared) < 60:
        sys.exit(f"FAILED: only {len(declared)} functions found in {header}")
    got = exported(shim)
    bad = False
    missing = sorted(declared - got)
    if missing:
        print("FAILED: nccl.h functions libcclnccl.so does not export:", missing)
        bad = True
    extra = sorted(n for n in got if n.startswith(("nccl", "pnccl")) and n not in declared)
    if extra:
        print("FAILED: libcclnccl.so exports functions nccl.h does not declare:", extra)
        bad = True
    for n in sorted(declared):
        if n.startswith("nccl") and "p" + n not in declared:
            print(f"FAILED: nccl.h declares {n} without p{n}")
            bad = True
    print(f"nccl.h: {len(declared)} functions, all exported by libcclnccl.so")
    if len(sys.argv) > 3:
        real = {n for n in exported(sys.argv[3]) if n.startswith(("nccl", "pnccl"))}
        absent = sorted(real - got - NOT_IN_NCCL_H)
        if absent:
            print("FAILED: libnccl.so.2 exports functions the shim lacks "
                  "(declared by nccl.h, or new):", absent)
            bad = True
        stale = sorted(NOT_IN_NCCL_H - real)
        if stale:
            print("FAILED: the list of functions outside nccl.h names some "
                  "libnccl.so.2 does not export:", stale)
            bad = True
        notreal = sorted(declared - real)
        if notreal:
            print("FAILED: nccl.h declares functions libnccl.so.2 lacks "
                  "(header and library of different versions?):", notreal)
            bad = True
        print(f"libnccl.so.2: {len(real)} nccl*/pnccl* functions; "
              f"{len(real & got)} exported by the shim, "
              f"{len(real & NOT_IN_NCCL_H)} outside nccl.h (device API, internal)")
    else:
        print("SKIPPED: no libnccl.so.2 found at build time: the header check ran alone")
    sys.exit(1 if bad else 0)


main()
