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
        self.elem = elem
        self.dtype = _np.dtype(_ELEMS[elem][0])
        self.rank = rank
        name = "%s_%dd" % (elem, rank)
        self.new_raw = _fn("arrc_new_raw_" + name, _P, [_P, _P] + [_ct.c_int64] * rank)
        self.values = _fn("arrc_values_" + name, _ct.c_int, [_P, _P, _P])
        self.values_raw = _fn("arrc_values_raw_" + name, _P, [_P, _P])
        self.shape = _fn("arrc_shape_" + name, _ct.POINTER(_ct.c_int64), [_P, _P])
        self.free = _fn("arrc_free_" + name, _ct.c_int, [_P, _P])


class _Held:
    """Memory of the library that a numpy array views: the array's base.
    Letting go of the last view frees it (with the context's lock on
    closing: a context is freed only when nothing views it)."""

    def __init__(self, ctx, free, handle, shape, dtype, data, writable):
        self._ctx = ctx
        self._free = free
        self._handle = handle
        ctx._live += 1
        self.__array_interface__ = {
            "shape": shape,
            "typestr": dtype.str,
            "data": (data, not writable),
            "version": 3,
        }

    def __del__(self):
        try:
            self._ctx._release(self._free, self._handle)
        except Exception:
            pass


# Below this many bytes an array result is copied into a new numpy array
# and freed at once: cheaper than a view's bookkeeping (benches/library.py).
_VIEW_BYTES = 1 << 16


def _array_result(ctx, kind, handle, writable):
    """A numpy array of the library's array `handle`: a view of its memory
    (no copy) that frees it when the last view goes, or for a small array
    (or one on a GPU) a copy."""
    shape = tuple(kind.shape(ctx._ctx, handle)[: kind.rank])
    size = kind.dtype.itemsize
    for n in shape:
        size *= n
    # A GPU library's arrays are on the device (no raw data): one copy.
    data = None if size < _VIEW_BYTES else kind.values_raw(ctx._ctx, handle)
    if not data:
        out = _np.empty(shape, dtype=kind.dtype)
        kind.values(ctx._ctx, handle, out.ctypes.data)
        kind.free(ctx._ctx, handle)
        return out
    return _np.asarray(_Held(ctx, kind.free, handle, shape, kind.dtype, data, writable))


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
        self._live = 0
        self._closing = False
        self._ctx = _context_new(cfg)
        _config_free(cfg)
        if not self._ctx:
            raise MemoryError("cannot allocate an arrc context")
        # A GPU library without a usable driver or GPU: the new context
        # holds the error (as in Futhark's API).
        p = _context_get_error(self._ctx)
        if p:
            error = self._message(p)
            _context_free(self._ctx)
            self._ctx = None
            raise error

    def close(self):
        """Frees the context (its threads and memory): now, or when the
        last array or opaque value in its memory is gone."""
        if getattr(self, "_ctx", None):
            self._closing = True
            if self._live == 0:
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
        return self._message(p)

    @staticmethod
    def _message(p):
        """The error of the C string `p` (which it frees)."""
        message = _ct.string_at(p).decode("utf-8", "replace")
        _libc.free(p)
        # The line the executable prints, less its "Error: " and newline.
        message = message.rstrip("\n")
        if message.startswith("Error: "):
            message = message[len("Error: "):]
        return Error(message)

    def _release(self, free, handle):
        """Frees what a Python object held; the context itself once it is
        closed and nothing holds its memory."""
        if self._ctx:
            free(self._ctx, handle)
        self._live -= 1
        if self._closing and self._live == 0:
            self.close()

    def _check_open(self):
        if not self._ctx or self._closing:
            raise ValueError("the context is closed")

    def _arg(self, what, pos, name, t, x, keep, wrapped):
        """Argument `x` of type `t` as the ctypes value the C API takes."""
        if isinstance(t, type):
            if not isinstance(x, t):
                raise TypeError(
                    "%s: parameter '%s' (argument %d) must be a %s, not %s"
                    % (what, name, pos + 1, t.__name__, _describe(x))
                )
            if x._ctx is not self:
                raise ValueError(
                    "%s: parameter '%s' (argument %d) belongs to another context"
                    % (what, name, pos + 1)
                )
            return _P(x._handle)
        elem, rank = t
        if rank == 0:
            return _scalar_arg(what, name, pos, elem, x)
        kind = _ARRAYS[(elem, rank)]
        a = _array_arg(what, name, pos, kind, x)
        keep.append(a)
        h = kind.new_raw(self._ctx, a.ctypes.data, *a.shape)
        if not h:
            raise self._error()
        wrapped.append((kind, h))
        return _P(h)

    def _result(self, t, o, writable):
        if isinstance(t, type):
            return t._wrap(self, o.value)
        elem, rank = t
        if rank == 0:
            if elem == "f16":
                return _np.uint16(o.value).view(_np.float16)
            return _np.dtype(_ELEMS[elem][0]).type(o.value)
        return _array_result(self, _ARRAYS[(elem, rank)], o.value, writable)

    def _invoke(self, what, fn, params, results, args, before=(), writable=True):
        """Calls `fn(ctx, results..., before..., args...)`: `params` are the
        (name, type) of `args`, `results` the types of what it returns; a
        type is (element, rank) or an opaque class. The results, as a list."""
        self._check_open()
        if len(args) != len(params):
            raise TypeError("%s takes %d arguments (%d given)" % (what, len(params), len(args)))
        ctx = self._ctx
        keep = []
        wrapped = []
        try:
            c_args = list(before)
            for pos, ((name, t), x) in enumerate(zip(params, args)):
                c_args.append(self._arg(what, pos, name, t, x, keep, wrapped))
            outs = []
            for t in results:
                scalar = not isinstance(t, type) and t[1] == 0
                outs.append(_ELEMS[t[0]][1]() if scalar else _P())
            # ctypes releases the GIL for the call.
            if fn(_P(ctx), *[_ct.byref(o) for o in outs], *c_args) != 0:
                raise self._error()
        finally:
            for kind, h in wrapped:
                kind.free(ctx, h)
        return [self._result(t, o, writable) for t, o in zip(results, outs)]

    def _call(self, entry, fn, params, results, args):
        values = self._invoke(entry, fn, params, results, args)
        return values[0] if len(values) == 1 else tuple(values)


class _Opaque:
    """A value of an opaque type (a record, tuple, sum type, or an array of
    them) in the library's memory, owned by a context."""

    _kind = "array"
    _rank = 0
    _fields = ()
    _ctors = ()
    _elem = None

    def __init__(self, *values, context=None):
        cls = type(self)
        if cls._kind == "sum":
            raise TypeError("%s is made by its constructors' class methods" % cls.__name__)
        ctx = _default_context() if context is None else context
        if cls._kind == "record":
            (made,) = ctx._invoke(cls.__name__, cls._c_new, cls._fields, (cls,), values)
        else:
            made = cls._stack(ctx, values)
        self._take(made)

    @classmethod
    def _stack(cls, ctx, values):
        """An array of sum values from one (nested) sequence of them."""
        if len(values) != 1:
            raise TypeError("%s takes one sequence of %s values" % (cls.__name__, cls._elem.__name__))
        shape, flat = _elements(cls, values[0], cls._rank)
        for x in flat:
            if not isinstance(x, cls._elem):
                raise TypeError(
                    "%s: the elements must be %s values, not %s"
                    % (cls.__name__, cls._elem.__name__, _describe(x))
                )
            if x._ctx is not ctx:
                raise ValueError("%s: an element belongs to another context" % cls.__name__)
        ctx._check_open()
        handles = (_P * max(len(flat), 1))(*[x._handle for x in flat])
        out = _P()
        dims = [_ct.c_int64(n) for n in shape]
        if cls._c_new(_P(ctx._ctx), _ct.byref(out), handles, *dims) != 0:
            raise ctx._error()
        return cls._wrap(ctx, out.value)

    def index(self, *i):
        """The element at index `i` (one per dimension) of an array of
        records or sum values."""
        cls = type(self)
        if cls._elem is None:
            raise TypeError("%s is not an array" % cls.__name__)
        params = (("obj", cls),) + tuple(("i%d" % d, ("i64", 0)) for d in range(cls._rank))
        (v,) = self._ctx._invoke(
            "%s.index" % cls.__name__, self._c_index, params, (cls._elem,), (self,) + i
        )
        return v

    def _take(self, other):
        self._ctx, self._handle = other._ctx, other._handle
        other._handle = None

    @classmethod
    def _wrap(cls, ctx, handle):
        o = cls.__new__(cls)
        o._ctx = ctx
        o._handle = handle
        ctx._live += 1
        return o

    def __del__(self):
        if getattr(self, "_handle", None):
            try:
                self._ctx._release(self._c_free, self._handle)
            except Exception:
                pass

    def _project(self, i):
        name, t = self._fields[i]
        (v,) = self._ctx._invoke(
            name, self._c_project[i], (("obj", type(self)),), (t,), (self,), writable=False
        )
        return v

    def __getitem__(self, key):
        """A field, by position or by name."""
        if self._kind != "record":
            raise TypeError("%s has no fields" % type(self).__name__)
        if isinstance(key, str):
            for i, (name, _) in enumerate(self._fields):
                if name == key:
                    return self._project(i)
            raise KeyError(key)
        return self._project(range(len(self._fields))[key])

    def __len__(self):
        return len(self._fields)

    @property
    def shape(self):
        """The shape of an array of records or sum values."""
        if self._rank == 0:
            raise AttributeError("%s is not an array" % type(self).__name__)
        self._ctx._check_open()
        return tuple(self._c_shape(self._ctx._ctx, self._handle)[: self._rank])

    @property
    def variant(self):
        """The name of a sum value's constructor."""
        if self._kind != "sum":
            raise AttributeError("%s is not a sum type" % type(self).__name__)
        self._ctx._check_open()
        return self._ctors[self._c_variant(self._ctx._ctx, self._handle)][0]

    @property
    def payload(self):
        """A sum value's constructor's values, as a tuple."""
        if self._kind != "sum":
            raise AttributeError("%s is not a sum type" % type(self).__name__)
        self._ctx._check_open()
        i = self._c_variant(self._ctx._ctx, self._handle)
        fields = self._ctors[i][1]
        return tuple(
            self._ctx._invoke(
                self._ctors[i][0],
                self._c_destruct[i],
                (("obj", type(self)),),
                tuple(t for _, t in fields),
                (self,),
                writable=False,
            )
        )

    def __repr__(self):
        if self._kind == "sum" and getattr(self, "_handle", None):
            return "<%s #%s>" % (type(self).__name__, self.variant)
        return "<%s>" % type(self).__name__


def _elements(cls, values, rank):
    """The shape and the row-major elements of a nested sequence of
    `rank` levels."""
    try:
        items = list(values)
    except TypeError:
        raise TypeError("%s takes a sequence of elements, not %s" % (cls.__name__, _describe(values)))
    if rank == 1:
        return (len(items),), items
    parts = [_elements(cls, x, rank - 1) for x in items]
    inner = parts[0][0] if parts else (0,) * (rank - 1)
    if any(shape != inner for shape, _ in parts):
        raise ValueError("%s: the rows must have the same shape" % cls.__name__)
    return (len(items),) + inner, [x for _, xs in parts for x in xs]


def _opaque_class(cls):
    """Binds the C functions of opaque class `cls` and adds its field
    properties and constructors."""
    n = cls._name
    cls._c_free = _fn("arrc_free_opaque_" + n, _ct.c_int, [_P, _P])
    if cls._rank > 0:
        cls._c_shape = _fn("arrc_shape_opaque_" + n, _ct.POINTER(_ct.c_int64), [_P, _P])
    if cls._elem is not None:
        cls._c_index = _fn("arrc_index_opaque_" + n, _ct.c_int, None)
    if cls._kind == "array":
        cls._c_new = _fn("arrc_new_opaque_" + n, _ct.c_int, None)
    if cls._kind == "record":
        cls._c_new = _fn("arrc_new_opaque_" + n, _ct.c_int, None)
        cls._c_project = [
            _fn("arrc_project_opaque_%s_%s" % (n, f), _ct.c_int, None) for f, _ in cls._fields
        ]
        for i, (f, _) in enumerate(cls._fields):
            if f.isidentifier() and not hasattr(cls, f):
                setattr(cls, f, property(lambda self, i=i: self._project(i)))
    if cls._kind == "sum":
        cls._c_variant = _fn("arrc_variant_opaque_" + n, _ct.c_int, [_P, _P])
        cls._c_destruct = [
            _fn("arrc_destruct_opaque_%s_%s" % (n, c), _ct.c_int, None) for c, _ in cls._ctors
        ]
        for c, fields in cls._ctors:
            new = _fn("arrc_new_opaque_%s_%s" % (n, c), _ct.c_int, None)

            def make(klass, *values, context=None, new=new, c=c, fields=fields):
                ctx = _default_context() if context is None else context
                (made,) = ctx._invoke("%s.%s" % (klass.__name__, c), new, fields, (klass,), values)
                return made

            if not hasattr(cls, c):
                setattr(cls, c, classmethod(make))


_default = None
_default_lock = _threading.Lock()

# Entry points named like a Python keyword or builtin (`pass`, `len`): a
# global of that name would replace the builtin in this module's own code,
# so they are served by the module's __getattr__ instead.
_exported = {}


def _export(name, method, function):
    method.__name__ = function.__name__ = function.__qualname__ = name
    method.__qualname__ = "Context." + name
    setattr(Context, name, method)
    _exported[name] = function


def __getattr__(name):
    try:
        return _exported[name]
    except KeyError:
        raise AttributeError("module %r has no attribute %r" % (__name__, name)) from None


def __dir__():
    return sorted(set(globals()) | set(_exported))


def _default_context():
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default
