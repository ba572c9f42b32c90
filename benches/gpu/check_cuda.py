#!/usr/bin/env python3
"""Checks the CUDA baselines (benches/baselines/cuda/*.cu) without a GPU
or a CUDA toolkit, in two passes:

1. kernels: compiled to PTX with NVRTC and assembled with ptxas for each
   of sm_70, sm_80 and sm_90 (registers and spills printed; a spill fails).
   NVRTC defines __CUDACC_RTC__, under which a baseline keeps only its
   kernels.
2. host code (with the kernels' launches and CUB's scan): parsed and type
   checked by libclang as CUDA host code (`--cuda-host-only`) against the
   CUDA runtime's and CCCL's headers from PyPI; a warning or error fails.
   Skipped, saying so, when libclang or the headers are missing.

    python3 benches/gpu/check_cuda.py [--arch sm_80,...] [FILE.cu ...]

From PyPI: NVRTC (nvidia-cuda-nvrtc-cu12; $ARRC_NVRTC overrides the
library), ptxas (nvidia-cuda-nvcc-cu12; $ARRC_PTXAS), the headers
(nvidia-cuda-runtime-cu12, nvidia-cuda-cccl-cu12) and libclang's Python
bindings (libclang), used with LLVM 19's libclang (Debian libclang1-19;
$ARRC_LIBCLANG) and its CUDA wrapper headers; tests/deps.sh installs all.
nvcc itself compiles the baselines on the GPU machine only. Exits 1 when a
file fails a pass, 3 when NVRTC or ptxas is missing."""
import argparse
import atexit
import ctypes
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA_DIR = os.path.join(ROOT, "benches", "baselines", "cuda")


def nvidia_dir(sub):
    try:
        import nvidia  # namespace package of NVIDIA's wheels
    except ImportError:
        return None
    for base in nvidia.__path__:
        d = os.path.join(base, sub)
        if os.path.isdir(d):
            return d
    return None


def find_nvrtc():
    env = os.environ.get("ARRC_NVRTC")
    if env:
        return env
    d = nvidia_dir("cuda_nvrtc")
    libs = sorted(glob.glob(os.path.join(d, "lib", "libnvrtc.so*"))) if d else []
    return libs[0] if libs else None


def find_ptxas():
    env = os.environ.get("ARRC_PTXAS")
    if env:
        return env
    d = nvidia_dir("cuda_nvcc")
    p = os.path.join(d, "bin", "ptxas") if d else None
    if p and os.path.exists(p):
        return p
    return shutil.which("ptxas")


class Nvrtc:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(self, code, what):
        if code != 0:
            raise RuntimeError(f"{what}: {self.lib.nvrtcGetErrorString(code).decode()}")

    def compile(self, source, name, arch, include):
        prog = ctypes.c_void_p()
        self.check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                               0, None, None), "nvrtcCreateProgram")
        opts = [f"--gpu-architecture=compute_{arch[3:]}", f"--include-path={include}",
                "-default-device", "--std=c++17"]
        arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        code = self.lib.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        self.lib.nvrtcGetProgramLog(prog, log)
        try:
            if code != 0:
                raise RuntimeError(log.value.decode(errors="replace").strip())
            self.lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
            ptx = ctypes.create_string_buffer(size.value)
            self.check(self.lib.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
            return ptx.value.decode()
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


def assemble(ptxas, ptx, arch):
    """ptxas -v on the PTX; returns [(kernel, registers, spill bytes)]."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        r = subprocess.run([ptxas, "-v", "-O3", f"-arch={arch}", src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    out, name = [], None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            name = m.group(1)
        m = re.search(r"(\d+) bytes spill stores", line)
        spill = int(m.group(1)) if m else None
        m2 = re.search(r"Used (\d+) registers", line)
        if m2 and name:
            out.append([name, int(m2.group(1)), 0])
        if spill and out:
            out[-1][2] = spill
    return out


HOST_CHECK_SKIPPED = "host code not checked"


def host_checker():
    """A function checking one file's host code (returning its
    diagnostics), or a string saying what is missing."""
    try:
        import clang.cindex as ci
    except ImportError:
        return f"{HOST_CHECK_SKIPPED}: no libclang bindings (pip install libclang)"
    lib = os.environ.get("ARRC_LIBCLANG") or next(iter(sorted(glob.glob("/usr/lib/llvm-19/lib/libclang-19.so*"))), None)
    resource = next(iter(sorted(glob.glob("/usr/lib/llvm-19/lib/clang/*/include/__clang_cuda_runtime_wrapper.h"))), None)
    heads = [nvidia_dir(d) for d in ("cuda_runtime", "cuda_cccl", "cuda_nvcc")]
    if not lib or not resource or not all(heads):
        return f"{HOST_CHECK_SKIPPED}: needs LLVM 19's libclang and the PyPI CUDA runtime and CCCL headers"
    try:
        ci.Config.set_library_file(lib)
        index = ci.Index.create()
    except Exception as e:  # noqa: BLE001 (a library that does not load)
        return f"{HOST_CHECK_SKIPPED}: {e}"
    # A CUDA installation as clang looks for one: the headers, libdevice,
    # and stand-ins for a header the PyPI packages lack and for GCC's
    # omp.h (whose attributes clang rejects: only omp_get_wtime is used).
    tmp = tempfile.mkdtemp(prefix="arrc-cuda-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    inc = os.path.join(tmp, "include")
    os.makedirs(inc)
    os.makedirs(os.path.join(tmp, "nvvm", "libdevice"))
    os.makedirs(os.path.join(tmp, "bin"))
    for d in heads:
        for f in os.listdir(os.path.join(d, "include")):
            if not os.path.exists(os.path.join(inc, f)):
                os.symlink(os.path.join(d, "include", f), os.path.join(inc, f))
    open(os.path.join(inc, "curand_mtgp32_kernel.h"), "w").close()
    stub = os.path.join(tmp, "omp")
    os.makedirs(stub)
    with open(os.path.join(stub, "omp.h"), "w") as f:
        f.write("double omp_get_wtime(void);\nint omp_get_thread_num(void);\nint omp_get_num_threads(void);\n")
    args = ["-x", "cuda", "--cuda-host-only", f"--cuda-path={tmp}", "-nocudalib", "-std=c++17",
            "--cuda-gpu-arch=sm_70", "-resource-dir", os.path.dirname(os.path.dirname(resource)),
            f"-I{stub}", "-Wall", "-Wno-unknown-cuda-version"]

    def check(path):
        tu = index.parse(path, args=args)
        return [str(d) for d in tu.diagnostics if d.severity >= 2]
    return check


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", default="sm_70,sm_80,sm_90")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    nvrtc_path, ptxas = find_nvrtc(), find_ptxas()
    if not nvrtc_path or not ptxas:
        print(f"check_cuda: missing {'NVRTC (pip nvidia-cuda-nvrtc-cu12)' if not nvrtc_path else 'ptxas'}",
              file=sys.stderr)
        return 3
    nvrtc = Nvrtc(nvrtc_path)
    files = args.files or sorted(glob.glob(os.path.join(CUDA_DIR, "*.cu")))
    failed = 0
    for path in files:
        source = open(path).read()
        for arch in args.arch.split(","):
            what = f"{os.path.basename(path)} {arch}"
            try:
                ptx = nvrtc.compile(source, os.path.basename(path), arch, os.path.dirname(os.path.abspath(path)))
                kernels = assemble(ptxas, ptx, arch)
            except RuntimeError as e:
                print(f"FAILED {what}: {e}")
                failed += 1
                continue
            desc = ", ".join(f"{k}: {r} registers" + (f", {s} bytes spilled" if s else "")
                             for k, r, s in kernels) or "no kernels"
            print(f"ok {what}: {desc}")
            failed += any(s for _, _, s in kernels)
    check = host_checker()
    if isinstance(check, str):
        print(check)
    else:
        for path in files:
            diags = check(path)
            print(f"{'ok' if not diags else 'FAILED'} {os.path.basename(path)} host" +
                  "".join(f"\n    {d}" for d in diags))
            failed += bool(diags)
    print(f"{len(files)} files, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
