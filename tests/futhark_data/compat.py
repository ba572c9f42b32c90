"""The Python side of tests/futhark_data.rs: writes arguments with the
futhark_data package (a reader and writer of Futhark's value formats that is
not ours) and checks what an arrc-compiled program printed, read back with
the same package.

    compat.py write DIR   writes DIR/all.in, DIR/finite.in and the
                          expected results DIR/all.expected
    compat.py check DIR   compares DIR/all.out (binary, from `-b`) with
                          DIR/all.expected and DIR/finite.out (text) with
                          the values in DIR/finite.in

Exits 1 with a message on the first difference.
"""

import sys

import futhark_data
import numpy as np


def all_args():
    """Arguments of entry `all`, and whether each is written as text."""
    return [
        (np.array([[0.5, -1.25, 3.0], [1e-7, 65504.0, -0.0]], dtype=np.float32), False),
        (np.array([9223372036854775807, -5, 0], dtype=np.int64), False),
        (np.bool_(True), True),
        (np.zeros((2, 0, 3), dtype=np.uint8), False),
        (np.int16(-32768), True),
        (np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 0.1], dtype=np.float64), False),
        (np.array([[-128, 127, 0], [1, -1, 2]], dtype=np.int8), False),
        (np.array([18446744073709551615, 3], dtype=np.uint64), False),
        (np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 7, False),
        (np.uint16(65535), True),
        (np.array([], dtype=np.uint32), False),
        (np.array([[True, False], [False, True]], dtype=np.bool_), False),
        (np.float32(2.5), False),
        (np.uint8(200), False),
        (np.array([0.5, -1.25, 65504.0, 6e-8, 0.1, -0.0], dtype=np.float16), False),
        (np.float16(2.5), True),
    ]


def all_expected(args):
    """What `all` (in tests/futhark_data.rs) returns, computed with numpy."""
    a, b, c, d, e, f, g, h, k, l, m, n, x, y, z, w = [v for v, _ in args]
    with np.errstate(over="ignore"):
        return [
            a * np.float32(2),
            b + np.int64(1),
            np.bool_(not c),
            d,
            np.int16(e + 1),
            f,
            g,
            h * np.uint64(3),
            k,
            l,
            m,
            n,
            np.float32(x * 2),
            np.uint8(y + np.uint8(100)),
            z * np.float16(2),
            np.float16(w + np.float16(1)),
        ]


def finite_args():
    return [
        np.array([[0.1, 1e20, -2.5e-7], [3.0, 0.0, 16777216.0]], dtype=np.float32),
        np.array([-9223372036854775808, 42], dtype=np.int64),
        np.array([[[1, 2]], [[3, 4]]], dtype=np.int32),
        np.float64(0.30000000000000004),
        np.array([[True], [False]], dtype=np.bool_),
        np.array([0.1, 65504.0, -2.5e-7, 1.0, 0.333], dtype=np.float16),
    ]


def write(d):
    with open(f"{d}/all.in", "wb") as out:
        for v, as_text in all_args():
            if as_text:
                out.write(f"{futhark_data.dumps(v)} -- text\n".encode())
            else:
                futhark_data.dump(v, out, binary=True)
    # A Futhark program ends every printed value with a newline, binary
    # ones too; futhark_data's reader skips it.
    with open(f"{d}/all.expected", "wb") as out:
        for v in all_expected(all_args()):
            futhark_data.dump(v, out, binary=True)
            out.write(b"\n")
    with open(f"{d}/finite.in", "wb") as out:
        for v in finite_args():
            futhark_data.dump(v, out, binary=True)


def same(what, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype:
        sys.exit(f"{what}: element type {got.dtype}, expected {want.dtype}")
    if got.shape != want.shape:
        sys.exit(f"{what}: shape {got.shape}, expected {want.shape}")
    # Bytes, so that -0.0, NaN and infinities count too.
    if got.tobytes() != want.tobytes():
        sys.exit(f"{what}: {got!r}, expected {want!r}")


def check(d):
    with open(f"{d}/all.out", "rb") as f:
        got = list(futhark_data.load(f))
    with open(f"{d}/all.expected", "rb") as f:
        want = list(futhark_data.load(f))
    if len(got) != len(want):
        sys.exit(f"binary output: {len(got)} values, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        same(f"binary result {i + 1}", g, w)
    with open(f"{d}/finite.out") as f:
        got = list(futhark_data.load(f))
    want = finite_args()
    if len(got) != len(want):
        sys.exit(f"text output: {len(got)} values, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        same(f"text result {i + 1}", g, w)
    print("ok")


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
