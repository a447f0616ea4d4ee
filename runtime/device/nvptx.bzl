"""Clang flags of the device library's NVPTX (sm_90) bitcode.

Code linked with that bitcode (the kernels of the GPU tests, test/gpu.bzl)
is compiled with the same flags, so that the target features match and the
library's functions inline into it.
"""

# Clang's NVPTX driver adds the newest PTX feature it knows (+ptx88) when no
# CUDA installation is found; turn it off so that the bitcode asks for PTX 8.0
# only ("target-features"="+ptx80,+sm_90,-ptx88").
NVPTX_CLANG_FLAGS = (
    "-target nvptx64-nvidia-cuda -march=sm_90" +
    " -Xclang -target-feature -Xclang +ptx80" +
    " -Xclang -target-feature -Xclang -ptx88" +
    " -ffreestanding -nostdlibinc -O3"
)
