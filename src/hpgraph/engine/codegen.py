"""Binding a vertex program into compiled superstep kernels, cached on disk.

numba cannot cache a function that receives another jitted function as an argument, nor a
closure. So, once per program, the template :mod:`hpgraph.engine.superstep` is copied to
``<cache>/kernels/hpk_<fingerprint>.py`` and its placeholders are bound to the program's
functions as module globals before the first call. numba then compiles the user's code
into the superstep loops and caches the result beside that file; the fingerprint covers
the template, the engine modules compiled into it with it (:mod:`~hpgraph.engine.context`,
whose context methods every compute calls, and :mod:`~hpgraph.engine.atomics`), the
compile flags, the user's functions (source, closure and global constants) and the
versions, so a change in any of them gets a fresh module (numba's own cache checks only
the kernel file's date, not the modules it calls into).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import threading
import weakref
from types import ModuleType

import numba
import numpy as np
from numba.core.errors import NumbaError

from hpgraph import config
from hpgraph._version import __version__
from hpgraph.engine import atomics, context, superstep
from hpgraph.engine.program import VertexProgram
from hpgraph.errors import UserProgramError

__all__ = ["kernels_for", "jit_user_function", "call_kernel", "entry_point"]

_BUILTIN_COMBINERS = {
    "sum": context.combine_sum,
    "min": context.combine_min,
    "max": context.combine_max,
    "any": context.combine_any,
}
_lock = threading.Lock()
_loaded: dict[str, ModuleType] = {}
_entries: dict = {}  # (kernel, argument type key) -> compiled entry point
_by_program: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jit_user_function(fn):
    """A numba dispatcher for a user function, compiled into (and cached with) the
    kernels, where LLVM inlines it; a function the user already jitted is recompiled from
    its Python source with the engine's flags (nogil above all)."""
    return numba.njit(**config.NUMBA_FLAGS_NOCACHE, inline="always")(getattr(fn, "py_func", fn))


def _identity(combiner, dtype, shape):
    """The neutral element of a built-in combiner on scalar messages (None otherwise): it
    lets pull delivery accumulate without a "first message?" test per edge."""
    if shape or combiner not in ("sum", "min", "max"):
        return None
    if combiner == "sum":
        return dtype.type(0)
    if dtype.kind == "f":
        return dtype.type(np.inf if combiner == "min" else -np.inf)
    if dtype.kind == "b":
        return dtype.type(combiner == "min")
    info = np.iinfo(dtype)
    return dtype.type(info.max if combiner == "min" else info.min)


def _fingerprint_function(fn, h, depth=0):
    py = getattr(fn, "py_func", fn)
    h.update(f"{getattr(py, '__module__', '')}.{getattr(py, '__qualname__', '')}".encode())
    code = getattr(py, "__code__", None)
    if code is None:
        h.update(repr(py).encode())
        return
    try:
        h.update(inspect.getsource(py).encode())
    except (OSError, TypeError):
        h.update(code.co_code)
        h.update(repr(code.co_consts).encode())
    # Closure cells and referenced globals are frozen into the machine code.
    cells = [c.cell_contents for c in (py.__closure__ or ())]
    glob = getattr(py, "__globals__", {})
    values = cells + [glob[n] for n in code.co_names if n in glob]
    for val in values:
        if isinstance(val, (int, float, bool, str, bytes, tuple)):
            h.update(repr(val).encode())
        elif callable(val) and depth < 3 and hasattr(getattr(val, "py_func", val), "__code__"):
            _fingerprint_function(val, h, depth + 1)


def _engine_sources() -> str:
    """What the kernels compile in besides the template: the context's methods and types,
    the atomics, and the flags."""
    flags = (config.NUMBA_FLAGS, config.NUMBA_FLAGS_NOCACHE)
    return inspect.getsource(context) + inspect.getsource(atomics) + repr(flags)


def _fingerprint(program: VertexProgram, template: str) -> str:
    h = hashlib.sha256()
    h.update(template.encode())
    h.update(_engine_sources().encode())
    h.update(f"{__version__} {numba.__version__} {sys.version_info[:2]}".encode())
    # constants bound into the module depend on the message type
    h.update(f"{program.message_dtype.str} {program.message_shape}".encode())
    h.update(f"sender_ids={program.sender_ids} prefetch={config.PULL_PREFETCH}".encode())
    for fn in (program.compute, program.combiner, program.edge_message):
        if callable(fn):
            _fingerprint_function(fn, h)
        else:
            h.update(repr(fn).encode())
    return h.hexdigest()[:24]


def _kernel_dir() -> str:
    path = os.path.join(config.CACHE_DIR, "kernels")
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    path = os.path.join(tempfile.gettempdir(), f"hpgraph-kernels-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def kernels_for(program: VertexProgram) -> ModuleType:
    """The superstep kernel module bound to ``program`` (created on first use)."""
    mod = _by_program.get(program)
    if mod is None:  # fingerprinting reads sources: once per program object, not per job
        mod = _by_program[program] = _bind(program)
    return mod


def _bind(program: VertexProgram) -> ModuleType:
    template = inspect.getsource(superstep)
    key = _fingerprint(program, template)
    with _lock:
        mod = _loaded.get(key)
        if mod is not None:
            return mod
        directory = _kernel_dir()
        path = os.path.join(directory, f"hpk_{key}.py")
        if not os.path.exists(path):
            header = f"# Generated by hpgraph for vertex program {program.name!r}. Do not edit.\n"
            fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(header + template)
            os.replace(tmp, path)  # atomic: concurrent processes see all or nothing
        name = f"hpgraph_kernels_{key}"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        combiner = program.combiner
        if isinstance(combiner, str):
            mod._combine = _BUILTIN_COMBINERS[combiner]
        elif combiner is not None:
            mod._combine = jit_user_function(combiner)
        else:
            mod._combine = context.combine_any  # unused without a combiner
        mod._compute = jit_user_function(program.compute)
        mod._edge_message = (
            jit_user_function(program.edge_message)
            if program.edge_message is not None
            else context.edge_message_identity
        )
        mod._sent_value = context.sender_id_value if program.sender_ids else context.outbox_value
        mod._EDGE_KINDS = program.edge_message is not None
        mod._EARLY_EXIT = combiner == "any"
        identity = _identity(combiner, program.message_dtype, program.message_shape)
        mod._HAS_IDENTITY = identity is not None
        mod._IDENTITY = identity if identity is not None else 0
        mod._PREFETCH = config.PULL_PREFETCH
        _loaded[key] = mod
        return mod


def call_kernel(program: VertexProgram, kernel, *args):
    """Call a kernel, turning a numba compile failure into one readable error."""
    try:
        return kernel(*args)
    except NumbaError as exc:
        raise UserProgramError(_explain(program, exc)) from exc


def _type_key(value):
    """A cheap stand-in for an argument's numba type: equal keys, equal types."""
    if isinstance(value, tuple):
        return (type(value), tuple(_type_key(v) for v in value))
    if isinstance(value, np.ndarray):
        return ("a", value.dtype.str, value.ndim, value.flags.c_contiguous, value.flags.writeable)
    if isinstance(value, np.generic):
        return ("s", value.dtype.str)
    if isinstance(value, (bool, int, float)):
        return type(value)
    numba_type = getattr(value, "_numba_type_", None)  # typed containers
    return ("n", str(numba_type)) if numba_type is not None else ("?", id(value))


def entry_point(program: VertexProgram, kernel, *args):
    """Compile (or load) ``kernel`` for these arguments' types by calling it once, and
    return its compiled entry point for arguments of the same types.

    Calling the dispatcher resolves the numba type of every argument each time; for the
    vertex context (a tuple of some hundred items) that costs milliseconds per call,
    more than a superstep of a small graph. The entry point skips it; it is remembered
    per argument-type key, so a later job of the same program skips it too.
    """
    key = (kernel, tuple(_type_key(a) for a in args))
    found = _entries.get(key)
    if found is not None:
        return found
    call_kernel(program, kernel, *args)
    sig = tuple(kernel.typeof_pyval(a) for a in args)
    cres = kernel.overloads.get(sig)
    found = kernel if cres is None else cres.entry_point
    _entries[key] = found
    return found


_NOISE = ("Failed in nopython", "- ", "During:", "File ", "There are", ">>>", "<source", "^")
_SPECIFIC = re.compile(r"^\s*(\w*Error): (.*)$")
_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _explain(program: VertexProgram, exc: Exception) -> str:
    """One line out of numba's report: the innermost specific error, then the user's
    file and line."""
    text = str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    reason = next((m.group(2) for ln in lines if (m := _SPECIFIC.match(ln))), None)
    if reason is None:
        reason = next((ln for ln in lines if not ln.startswith(_NOISE)), "compile error")
    reason = re.sub(r"VertexContext\(.*", "the vertex context", reason)
    py = getattr(program.compute, "py_func", program.compute)
    where = ""
    try:
        src = inspect.getsourcefile(py) or ""
    except TypeError:
        src = ""
    for path, line in _FILE_LINE.findall(text):
        if src and os.path.basename(path) == os.path.basename(src):
            where = f" (at {src}:{line})"
            break
    return f"vertex program {program.name!r} does not compile: {reason}{where}"
