#!/usr/bin/env python3
"""Writes the binary-format data files used by tests/programs/data_files.arr
(section 7: 'b', version 2, rank, 4-byte type name, rank little-endian i64
sizes, then the elements little-endian, row-major)."""
import struct, os

here = os.path.dirname(os.path.abspath(__file__))

def value(type_name, fmt, shape, elems):
    out = b"b" + bytes([2, len(shape)]) + type_name
    for d in shape:
        out += struct.pack("<q", d)
    for e in elems:
        out += struct.pack("<" + fmt, e)
    return out

# matvec.bin.in: a [2][3]f32 matrix and a [3]f32 vector.
m = value(b" f32", "f", [2, 3], [1, 2, 3, 4, 5, 6])
v = value(b" f32", "f", [3], [1, 0, -1])
open(os.path.join(here, "matvec.bin.in"), "wb").write(m + v)
# matvec.bin.out: the expected result [-2, -2]f32, also binary.
open(os.path.join(here, "matvec.bin.out"), "wb").write(value(b" f32", "f", [2], [-2, -2]))

# mixed.in: a binary i64 scalar (rank 0) followed by a text array.
open(os.path.join(here, "mixed.in"), "wb").write(
    value(b" i64", "q", [], [3]) + b" [10u8, 20u8, 250u8]\n")

# bools.bin.in: a binary [4]bool and a binary [0]i16 (an empty array).
open(os.path.join(here, "bools.bin.in"), "wb").write(
    value(b"bool", "?", [4], [True, False, True, True]) + value(b" i16", "h", [0], []))
