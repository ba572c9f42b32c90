"""The benchmark suite: each program's input values (files of binary values,
concatenated on every contender's standard input), sizes for the full and
the --quick run, and a model of the bytes a memory-bound program must move
at least (for its bandwidth)."""
import numpy as np

# Sizes: full runs use the sizes, --quick ones a small fraction.
SIZES = {
    "full": dict(n=50_000_000, bs=10_000_000, mb=2000, nb=20_000, mm=1024,
                 jac=4096, sweeps=10, km=1_000_000, k=16, kd=4, sp_rows=2_000_000,
                 conv=4096, lse=10_000_000),
    "quick": dict(n=500_000, bs=100_000, mb=200, nb=2000, mm=128,
                  jac=256, sweeps=10, km=10_000, k=16, kd=4, sp_rows=20_000,
                  conv=256, lse=100_000),
    # the GPU emulator's smoke test (benches/gpu/compare_gpu.py, nvptx-emu)
    "tiny": dict(n=5000, bs=2000, mb=24, nb=300, mm=40, jac=32, sweeps=3,
                 km=2000, k=16, kd=4, sp_rows=500, conv=40, lse=3000),
}


def f32s(rng, *shape):
    return rng.random(shape, dtype=np.float32)


def inputs(s):
    """Named values: name -> function(rng) giving a numpy value."""
    n = s["n"]
    return {
        "x": lambda r: f32s(r, n),
        "y": lambda r: f32s(r, n),
        "ints": lambda r: r.integers(-2**31, 2**31, size=n, dtype=np.int32),
        "a2": lambda r: np.float32(2.0),
        "s3": lambda r: np.float32(3.0),
        "bs_s": lambda r: f32s(r, s["bs"]),
        "bs_k": lambda r: f32s(r, s["bs"]),
        "bs_t": lambda r: f32s(r, s["bs"]),
        "bs_v": lambda r: f32s(r, s["bs"]),
        "mb_n": lambda r: np.int64(s["mb"]),
        "mb_lim": lambda r: np.int32(255),
        "nb_x": lambda r: f32s(r, s["nb"]),
        "nb_y": lambda r: f32s(r, s["nb"]),
        "nb_z": lambda r: f32s(r, s["nb"]),
        "nb_m": lambda r: f32s(r, s["nb"]),
        "mm_a": lambda r: f32s(r, s["mm"], s["mm"]),
        "mm_b": lambda r: f32s(r, s["mm"], s["mm"]),
        "sweeps": lambda r: np.int32(s["sweeps"]),
        "grid": lambda r: f32s(r, s["jac"], s["jac"]),
        "km_k": lambda r: np.int64(s["k"]),
        "km_p": lambda r: f32s(r, s["km"], s["kd"]),
        "km2_x": lambda r: f32s(r, s["km"]),
        "km2_y": lambda r: f32s(r, s["km"]),
        "km2_cx": lambda r: f32s(r, s["k"]),
        "km2_cy": lambda r: f32s(r, s["k"]),
        "conv_img": lambda r: f32s(r, s["conv"], s["conv"]),
        "conv_ker": lambda r: f32s(r, 3, 3) / np.float32(4.5),
        "lse_x": lambda r: r.standard_normal(s["lse"]) * 10.0,
        "spmv": None,  # four values, see spmv_values
    }


def spmv_values(rng, rows):
    """CSR matrix of `rows` x `rows` with 0 to 31 non-zeros per row at random
    columns, and a dense vector."""
    lens = rng.integers(0, 32, size=rows, dtype=np.int64)
    offs = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    nnz = int(offs[-1])
    cols = rng.integers(0, rows, size=nnz, dtype=np.int32)
    vals = rng.random(nnz, dtype=np.float32)
    x = rng.random(rows, dtype=np.float32)
    return [offs, cols, vals, x]


# program -> the names of its inputs, in the order of the entry's parameters
PROGRAMS = {
    "saxpy": ["a2", "x", "y"],
    "dotprod": ["x", "y"],
    "sumsq": ["x"],
    "normalise2": ["x"],
    "histogram": ["ints"],
    "prefixsum": ["ints"],
    "filter": ["x"],
    "spmv": ["spmv"],
    "matmul": ["mm_a", "mm_b"],
    "jacobi": ["sweeps", "grid"],
    "kmeans": ["km_k", "km_p"],
    "triad": ["s3", "x", "y"],
    "blackscholes": ["bs_s", "bs_k", "bs_t", "bs_v"],
    "mandelbrot": ["mb_n", "mb_n", "mb_lim"],
    "nbody": ["nb_x", "nb_y", "nb_z", "nb_m"],
    "kmeans2": ["km2_x", "km2_y", "km2_cx", "km2_cy"],
    "conv3": ["conv_img", "conv_ker"],
    "logsumexp": ["lse_x"],
}


def min_bytes(prog, vals, sig):
    """Bytes a program must read and write at least, from its input values
    and its result's signature; None for the compute-bound ones."""
    if prog in ("saxpy", "triad"):
        return 12 * vals[1].size
    if prog == "dotprod":
        return 8 * vals[0].size
    if prog == "sumsq":
        return 4 * vals[0].size
    if prog == "normalise2":  # read twice, write two f32 arrays
        return 16 * vals[0].size
    if prog == "histogram":
        return 4 * vals[0].size
    if prog == "prefixsum":
        return 8 * vals[0].size
    if prog == "filter":
        return 4 * vals[0].size + 4 * int(sig[0])
    if prog == "spmv":
        offs, cols, vals_, x = vals
        return 8 * offs.size + 8 * cols.size + 4 * x.size + 4 * (offs.size - 1)
    if prog == "conv3":  # read the image, write the result
        return 8 * vals[0].size
    if prog == "logsumexp":  # read twice (the maximum, then the sum)
        return 16 * vals[0].size
    if prog == "jacobi":
        return 8 * vals[1].size * int(vals[0])
    return None
