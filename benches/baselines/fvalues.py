"""Reading and writing values in Futhark's binary format (the format arrc's
compiled programs read and write): b'b', version 2, rank, a 4-byte type
name, rank little-endian i64 sizes, then the elements little-endian."""
import numpy as np

TYPES = {
    "  i8": np.int8, " i16": np.int16, " i32": np.int32, " i64": np.int64,
    "  u8": np.uint8, " u16": np.uint16, " u32": np.uint32, " u64": np.uint64,
    " f32": np.float32, " f64": np.float64, "bool": np.bool_,
}
NAMES = {np.dtype(v): k for k, v in TYPES.items()}


def write_value(f, v):
    """Writes a numpy array or numpy scalar to the binary file object f."""
    a = np.asarray(v)
    f.write(b"b" + bytes([2, a.ndim]) + NAMES[a.dtype].encode())
    f.write(np.asarray(a.shape, dtype="<i8").tobytes())
    f.write(np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes())


def _read_exact(f, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = f.readinto(view[got:])
        if not k:
            raise EOFError(f"value truncated: wanted {n} bytes, got {got}")
        got += k
    return buf


def read_value(f):
    """Reads one binary value from f; returns a numpy array (0-d for a
    scalar), or None at the end of the input."""
    head = f.read(1)
    while head and head.isspace():
        head = f.read(1)
    if not head:
        return None
    if head != b"b":
        raise ValueError("not a binary value (text values are not supported here)")
    version, rank = _read_exact(f, 2)
    if version != 2:
        raise ValueError(f"binary format version {version}")
    dtype = np.dtype(TYPES[bytes(_read_exact(f, 4)).decode()])
    shape = tuple(int(s) for s in np.frombuffer(_read_exact(f, 8 * rank), dtype="<i8"))
    count = int(np.prod(shape)) if rank else 1
    data = np.frombuffer(_read_exact(f, count * dtype.itemsize), dtype=dtype.newbyteorder("<"))
    return data.reshape(shape).astype(dtype, copy=False)


def read_all(f):
    vals = []
    while True:
        v = read_value(f)
        if v is None:
            return vals
        vals.append(v)


def signature(values):
    """A result's fingerprint, the same for every contender: a scalar gives
    its value; an array gives its number of elements and the sum of its
    elements in f64."""
    sig = []
    for v in values:
        a = np.asarray(v)
        if a.ndim == 0:
            sig.append(float(a))
        else:
            sig.append(float(a.size))
            sig.append(float(np.sum(a, dtype=np.float64)))
    return sig
