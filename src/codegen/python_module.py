import ctypes as _ct
import os as _os
import threading as _threading

import numpy as _np

_lib = _ct.CDLL(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), _LIBRARY))
_libc = _ct.CDLL(None)
_libc.free.argtypes = [_ct.c_void_p]
_libc.free.restype = None

_P = _ct.c_void_p


def _fn(name, restype, argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


_config_new = _fn("arrc_context_config_new", _P, [])
_config_set_threads = _fn("arrc_context_config_set_threads", None, [_P, _ct.c_int])
_config_free = _fn("arrc_context_config_free", None, [_P])
_context_new = _fn("arrc_context_new", _P, [_P])
_context_free = _fn("arrc_context_free", None, [_P])
_context_get_error = _fn("arrc_context_get_error", _P, [_P])

# Element type name -> (numpy dtype, ctypes scalar type).
_ELEMS = {
    "i8": (_np.int8, _ct.c_int8),
    "i16": (_np.int16, _ct.c_int16),
    "i32": (_np.int32, _ct.c_int32),
    "i64": (_np.int64, _ct.c_int64),
    "u8": (_np.uint8, _ct.c_uint8),
    "u16": (_np.uint16, _ct.c_uint16),
    "u32": (_np.uint32, _ct.c_uint32),
    "u64": (_np.uint64, _ct.c_uint64),
    # Half floats cross the C API as their bits.
    "f16": (_np.float16, _ct.c_uint16),
    "f32": (_np.float32, _ct.c_float),
    "f64": (_np.float64, _ct.c_double),
    "bool": (_np.bool_, _ct.c_bool),
}


class Error(Exception):
    """A run-time error of the compiled code (index out of bounds, division
    by zero, a failed assertion, out of memory, ...), with the message the
    compiled executable prints."""


class _Array:
    """The C functions of one array type (element, rank)."""

    def __init__(self, elem, rank):
        self.dtype = _np.dtype(_ELEMS[elem][0])
        self.rank = rank
        name = "%s_%dd" % (elem, rank)
        self.new_raw = _fn("arrc_new_raw_" + name, _P, [_P, _P] + [_ct.c_int64] * rank)
        self.values = _fn("arrc_values_" + name, _ct.c_int, [_P, _P, _P])
        self.shape = _fn("arrc_shape_" + name, _ct.POINTER(_ct.c_int64), [_P, _P])
        self.free = _fn("arrc_free_" + name, _ct.c_int, [_P, _P])


def _describe(x):
    if isinstance(x, _np.ndarray):
        return "an array of dtype %s and rank %d" % (x.dtype, x.ndim)
    if isinstance(x, _np.generic):
        return "a numpy %s scalar" % x.dtype
    return "a value of type %s" % type(x).__name__


def _c_scalar(elem, value):
    """`value` as the ctypes value the C API takes for `elem`."""
    if elem == "f16":
        return _ct.c_uint16(int(_np.float16(value).view(_np.uint16)))
    return _ELEMS[elem][1](value)


def _scalar_arg(entry, name, pos, elem, x):
    """Parameter `name` of scalar type `elem` as its ctypes value: a numpy
    scalar (or 0-d array) of that dtype, or a Python value of its kind that
    fits."""
    dtype = _np.dtype(_ELEMS[elem][0])
    if isinstance(x, (_np.generic, _np.ndarray)) and _np.ndim(x) == 0:
        if x.dtype == dtype:
            return _c_scalar(elem, x.item())
    elif elem == "bool":
        if isinstance(x, bool):
            return _ct.c_bool(x)
    elif elem[0] == "f":
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return _c_scalar(elem, x)
    elif isinstance(x, int) and not isinstance(x, bool):
        info = _np.iinfo(dtype)
        if info.min <= x <= info.max:
            return _ELEMS[elem][1](x)
    raise TypeError(
        "%s: parameter '%s' (argument %d) must be a %s scalar, not %s"
        % (entry, name, pos + 1, elem, _describe(x))
    )


def _array_arg(entry, name, pos, kind, x):
    """Parameter `name` as a contiguous numpy array of the right dtype and
    rank (itself when it is one: no copy)."""
    if not isinstance(x, _np.ndarray) or x.dtype != kind.dtype or x.ndim != kind.rank:
        raise TypeError(
            "%s: parameter '%s' (argument %d) must be a numpy array of dtype %s and rank %d, not %s"
            % (entry, name, pos + 1, kind.dtype, kind.rank, _describe(x))
        )
    if not (x.flags.c_contiguous and x.flags.aligned):
        x = _np.ascontiguousarray(x)
    return x


class Context:
    """A context of the compiled code: its own thread pool (`threads`; 0:
    ARRC_THREADS, else all cores) and memory. Calls on one context are
    serialised; contexts are independent. The entry points are its
    methods; the module's functions of the same names use a default
    context."""

    def __init__(self, threads=0):
        cfg = _config_new()
        if not cfg:
            raise MemoryError("cannot allocate an arrc context configuration")
        _config_set_threads(cfg, int(threads))
        self._ctx = _context_new(cfg)
        _config_free(cfg)
        if not self._ctx:
            raise MemoryError("cannot allocate an arrc context")

    def close(self):
        """Frees the context (its threads and memory) now."""
        if getattr(self, "_ctx", None):
            _context_free(self._ctx)
            self._ctx = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _error(self):
        p = _context_get_error(self._ctx)
        if not p:
            return Error("unknown error")
        message = _ct.string_at(p).decode("utf-8", "replace")
        _libc.free(p)
        # The line the executable prints, less its "Error: " and newline.
        message = message.rstrip("\n")
        if message.startswith("Error: "):
            message = message[len("Error: "):]
        return Error(message)

    def _call(self, entry, fn, params, results, args):
        if not getattr(self, "_ctx", None):
            raise ValueError("the context is closed")
        if len(args) != len(params):
            raise TypeError(
                "%s takes %d arguments (%d given)" % (entry, len(params), len(args))
            )
        ctx = self._ctx
        c_args = []
        keep = []
        wrapped = []
        try:
            for pos, ((name, elem, rank), x) in enumerate(zip(params, args)):
                if rank == 0:
                    c_args.append(_scalar_arg(entry, name, pos, elem, x))
                    continue
                kind = _ARRAYS[(elem, rank)]
                a = _array_arg(entry, name, pos, kind, x)
                keep.append(a)
                h = kind.new_raw(ctx, a.ctypes.data, *a.shape)
                if not h:
                    raise self._error()
                wrapped.append((kind, h))
                c_args.append(_P(h))
            outs = []
            for elem, rank in results:
                outs.append(_ELEMS[elem][1]() if rank == 0 else _P())
            # ctypes releases the GIL for the call.
            if fn(_P(ctx), *[_ct.byref(o) for o in outs], *c_args) != 0:
                raise self._error()
        finally:
            for kind, h in wrapped:
                kind.free(ctx, h)
        values = []
        for (elem, rank), o in zip(results, outs):
            if rank == 0:
                if elem == "f16":
                    values.append(_np.uint16(o.value).view(_np.float16))
                else:
                    values.append(_np.dtype(_ELEMS[elem][0]).type(o.value))
                continue
            kind = _ARRAYS[(elem, rank)]
            shape = tuple(kind.shape(ctx, o)[:rank])
            out = _np.empty(shape, dtype=kind.dtype)
            kind.values(ctx, o, out.ctypes.data)
            kind.free(ctx, o)
            values.append(out)
        return values[0] if len(values) == 1 else tuple(values)


_default = None
_default_lock = _threading.Lock()


def _default_context():
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default
