#!/usr/bin/env bash
# Installs what building and testing arrc needs on a Debian 12 machine:
# LLVM 19 (inkwell links it statically), a C compiler for linking programs,
# valgrind (the memory test of compiled programs), and a Rust toolchain if
# there is none.
set -euo pipefail

sudo_if_needed() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

packages=(llvm-19-dev libpolly-19-dev libclang1-19 libclang-common-19-dev libzstd-dev zlib1g-dev libxml2-dev libffi-dev gcc valgrind)
missing=()
for pkg in "${packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo_if_needed apt-get update -q
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

# Callers put ~/.cargo/bin on PATH after sourcing this, so a fresh install works at once.
if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q curl ca-certificates
    curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --component rustfmt,clippy
fi

# futhark-data (PyPI) reads and writes Futhark's binary value format: the
# compatibility test checks our binaries against it.
if ! python3 -c "import futhark_data, numpy" >/dev/null 2>&1; then
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-pip
    fi
    python3 -m pip install -q futhark-data numpy 2>/dev/null \
        || python3 -m pip install -q --break-system-packages futhark-data numpy
fi

# dask[distributed] (PyPI): the library test maps a compiled Python module
# over a dask array on a LocalCluster (tests/library.rs, docs/library.md).
if ! python3 -c "import dask.array, distributed" >/dev/null 2>&1; then
    python3 -m pip install -q "dask[distributed]" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "dask[distributed]"
fi

# nvidia-cuda-nvcc-cu12 (PyPI) carries NVIDIA's PTX assembler `ptxas` and the
# math library libdevice: the tests assemble arrc's PTX for sm_70/80/90
# (src/runtime/ptx.rs finds them). No CUDA toolkit or GPU is needed.
if ! python3 -c "import nvidia.cuda_nvcc" >/dev/null 2>&1; then
    python3 -m pip install -q nvidia-cuda-nvcc-cu12 2>/dev/null \
        || python3 -m pip install -q --break-system-packages nvidia-cuda-nvcc-cu12
fi

# What benches/gpu/check_cuda.py checks the CUDA baselines with (no nvcc
# or GPU needed): NVIDIA's run-time compiler NVRTC (a library) for their
# kernels, assembled by the ptxas above; the CUDA runtime's and CCCL's
# headers and libclang's Python bindings, used with LLVM 19's libclang,
# for their host code.
if ! python3 -c "import nvidia.cuda_nvrtc, nvidia.cuda_runtime, nvidia.cuda_cccl, clang.cindex" >/dev/null 2>&1; then
    pkgs=(nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12 libclang)
    python3 -m pip install -q "${pkgs[@]}" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "${pkgs[@]}"
fi
