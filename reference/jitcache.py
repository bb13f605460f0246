"""Compiled kernels: numba code compiled on first use and cached on disk under a key of every
source it can depend on (``docs/decisions.md`` "Compiled kernels: compiled on first use, cached
under a key of their package's sources").

``@jit`` (and :func:`jit_source` for generated source) returns a :class:`Kernel`: a stand-in
that imports numba, builds the numba dispatcher and compiles (or loads) the code when it is
first called, from Python or from another kernel. Importing a module of kernels therefore
costs nothing of numba, and a command that never runs a kernel never imports it.

The on-disk cache. numba's own ``cache=True`` stamps an entry with the defining file alone, so
a kernel that calls code from another file (``reference.fp``'s outward rounding, a kernel of
``reference.kernel`` recorded by ``reference.fused``) would keep running its old machine code
after that file changed. Here every entry lives in a directory named by a hash of

* the text of every ``.py`` file of the package that defines the kernel (``reference/``: a
  kernel may call nothing outside its package but numpy, math and numba, which
  ``tests/reference/test_jitcache.py`` checks), and
* the versions of Python, numpy, numba and llvmlite, the code generator's target (triple, CPU
  name and features) and the numba settings that change generated code,

so an edit anywhere in the package, or a new numba, selects a fresh directory and every kernel
is compiled anew; generated sources are stored in that directory under a hash of their own text,
and a kernel that calls a generated one names it in ``depends`` (its entries are stamped with
that text too). Within a directory, numba's per-function entries (signature, target, bytecode
hash) are stored in a format of our own: every file carries a SHA-256 of its contents and every
data file the entry key it was written for, so a torn, corrupted or mismatched file is a miss
(the kernel is compiled and the entry rewritten), never loaded. Writes go to a temporary file
renamed into place (atomic on POSIX and Windows), and an entry's index is updated under an
exclusive ``flock`` where the platform has one, so processes filling one directory at once
(Dask workers, parallel test runs) lose nothing and never read half a file.

The key is of the sources as they were when the package's first kernel was made (during the
first import of a module that defines one). A process that finds a source changed on disk
afterwards, or a module whose text is not the one hashed, stops using the cache (it loads and
saves nothing): what it compiles may be the old code.

Where: ``$LUDUS_GEOMETRY_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/ludus-geometry-reference``
(``~/.cache/...`` without XDG), then ``numba/<key>``; never inside the source tree (such a
setting turns the cache off with a warning). ``LUDUS_GEOMETRY_JIT_CACHE=0`` (or ``off``,
``false``, ``no``) turns it off: every process compiles. The :data:`KEEP` most recently used
key directories are kept, older ones are removed when a new one is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import shutil
import sys
import threading
import warnings
from pathlib import Path
from collections.abc import Callable, Iterable

__all__ = [
    "ENV_DIR",
    "ENV_SWITCH",
    "FORMAT",
    "KEEP",
    "Kernel",
    "cache_enabled",
    "cache_root",
    "jit",
    "jit_source",
    "jitable",
    "stats",
]

ENV_DIR = "LUDUS_GEOMETRY_CACHE_DIR"
ENV_SWITCH = "LUDUS_GEOMETRY_JIT_CACHE"
KEEP = 8  # key directories kept (each edit of a package source makes a new one)
FORMAT = "ludus-jitcache/1"  # changes with the layout below: a new key, nothing misread

_log = logging.getLogger(__name__)
_OFF = {"0", "off", "false", "no"}
_PACKAGE = Path(__file__).resolve().parent

_kernels: list = []  # every Kernel made, for stats()
_jitables: list = []  # plain functions callable from kernels, registered when numba loads
_numba = None  # the numba module once loaded and set up
_numba_lock = threading.Lock()
_roots: dict = {}  # (base, package dir) -> key directory, once per process
_snapshots: dict = {}  # package dir -> (stat signature, source hashes) at its first kernel
_dirty: set = set()  # packages whose sources changed on disk while this process ran


# --- Kernels -------------------------------------------------------------------------------------


class Kernel:
    """A numba kernel compiled on first use (see the module docstring).

    Calling it calls the compiled code; another kernel may call it as it would a numba
    dispatcher. ``dispatcher`` is the numba dispatcher (built on first access); other public
    attributes (``signatures``, ``stats``, ...) are the dispatcher's.
    """

    def __init__(self, fn: Callable | None = None, *, source: str | None = None,
                 label: str = "", scope: dict | None = None, name: str = "f",
                 signatures: Iterable = (), depends: Iterable = (), options: dict | None = None):
        self._fn = fn
        self._source = source  # generated source (with fn None): ``name`` is defined in it
        self._label, self._scope, self._name = label, dict(scope or {}), name
        self._signatures = tuple(signatures)
        self._depends = tuple(depends)
        self._options = dict(options or {})
        self._disp = None
        if fn is not None:
            self.__name__ = fn.__name__
            self.__qualname__ = fn.__qualname__
            self.__doc__ = fn.__doc__
            self.__module__ = fn.__module__
            self.__wrapped__ = fn
            path = Path(fn.__code__.co_filename).resolve()
            self._package = path.parent
            _check_module(self._package, path)
        else:
            self.__name__ = self.__qualname__ = label or name
            self._package = _PACKAGE
        _kernels.append(self)

    def __repr__(self):
        return f"<Kernel {self.__qualname__} ({'compiled' if self._disp is not None else 'not yet compiled'})>"

    def __call__(self, *args, **kwargs):
        d = self._disp
        if d is None:
            d = self.dispatcher
        return d(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("_"):  # never build for copy/pickle protocol probes
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def source_text(self) -> bytes:
        """What stamps this kernel's cache entries: the generated text, or the SHA-256 of the
        defining file in the package's snapshot."""
        if self._source is not None:
            return self._source.encode()
        path = Path(self._fn.__code__.co_filename).resolve()
        return _snapshot(self._package)[1].get(path.relative_to(self._package).as_posix(), "").encode()

    @property
    def dispatcher(self):
        """The numba dispatcher, built (and the explicit signatures compiled or loaded) on first
        access."""
        if self._disp is None:
            _materialize(self)
        return self._disp


def jit(fn=None, *, signatures: Iterable = (), depends: Iterable = (), **options):
    """``@jit`` / ``@jit(signatures=[...], depends=(kernel, ...), **numba options)``: ``fn`` as a
    :class:`Kernel` (numba ``njit``, never ``fastmath`` unless asked). ``signatures`` are
    compiled on first use and then the only ones (as numba's ``njit(sigs)``); ``depends`` names
    generated kernels this one calls, whose text then stamps its cache entries."""
    def wrap(f):
        return Kernel(f, signatures=signatures, depends=depends, options=options)

    return wrap if fn is None else wrap(fn)


def jit_source(source: str, label: str, *, module: str, scope: dict | None = None, name: str = "f",
               depends: Iterable = (), **options) -> Kernel:
    """A :class:`Kernel` of the function ``name`` defined by the generated Python ``source``,
    executed in a copy of ``scope`` as if in the module named ``module`` (a kernel loaded from
    the cache gets that module's globals, so they must hold every name the source uses).
    Cached like any kernel: the source is written into the key directory under a hash of its
    text (``label`` names it for humans)."""
    return Kernel(source=source, label=label, scope={**(scope or {}), "__name__": module}, name=name,
                  depends=depends, options=options)


def jitable(fn: Callable) -> Callable:
    """Register the plain function ``fn`` as callable from kernels (numba's
    ``register_jitable``), when numba loads; returns ``fn`` unchanged."""
    if _numba is not None:
        from numba.extending import register_jitable

        register_jitable(fn)
    else:
        _jitables.append(fn)
    return fn


def stats() -> dict:
    """``{"module.name" (a generated kernel: its label): (cache hits, cache misses)}`` of the
    kernels built in this process (numba's counters: a miss is a compilation)."""
    out = {}
    for k in _kernels:
        d = k._disp
        if d is not None and hasattr(d, "_cache_hits"):
            out[f"{k.__module__}.{k.__qualname__}" if k._fn is not None else k._label] = (
                sum(d._cache_hits.values()), sum(d._cache_misses.values()))
    return out


def _load_numba():
    """numba, imported and set up once: kernels typed as their dispatchers, pending jitables
    registered."""
    global _numba
    with _numba_lock:
        if _numba is None:
            import numba
            from numba.core import types
            from numba.core.typing.typeof import typeof_impl
            from numba.extending import register_jitable

            @typeof_impl.register(Kernel)
            def _typeof_kernel(val, c):  # another kernel calls it: type it as its dispatcher
                return types.Dispatcher(val.dispatcher)

            for f in _jitables:
                register_jitable(f)
            _jitables.clear()
            _numba = numba
    return _numba


def _materialize(k: Kernel) -> None:
    numba = _load_numba()
    from numba.core import typeinfer
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    # numba's own (reentrant) compiler lock: one lock for building and compiling, so a kernel
    # built while another compiles cannot deadlock.
    with global_compiler_lock:
        if k._disp is not None:
            return
        root = cache_root(k._package)
        fn = k._fn
        if fn is None:  # generated source: a file in the key directory, so numba can cache it
            path = f"<{k._label}>"
            if root is not None:
                digest = hashlib.sha256(k._source.encode()).hexdigest()[:20]
                slug = "".join(c if c.isalnum() else "_" for c in k._label)
                p = root / "generated" / f"{slug}-{digest}.py"
                try:
                    if not p.exists() or p.read_text() != k._source:
                        _write_atomic(p, k._source.encode())
                    path = str(p)
                except OSError:
                    root = None
            scope = dict(k._scope)
            exec(compile(k._source, path, "exec"), scope)
            fn = scope[k._name]
        disp = numba.njit(**k._options)(fn)
        if root is not None and isinstance(disp, Dispatcher):
            cache = _make_cache(fn, root, k)
            if cache is not None:
                disp._cache = cache
        if k._signatures and isinstance(disp, Dispatcher):
            with typeinfer.register_dispatcher(disp):
                for sig in k._signatures:
                    disp.compile(sig)
            disp.disable_compile()
        k._disp = disp


# --- Where, and under which key ------------------------------------------------------------------


def cache_enabled() -> bool:
    """False when ``LUDUS_GEOMETRY_JIT_CACHE`` turns the on-disk cache off."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in _OFF


def _base() -> Path:
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    home = Path(xdg) if xdg else Path.home() / ".cache"
    return (home / "ludus-geometry-reference").expanduser().resolve()


def cache_root(package: Path = _PACKAGE) -> Path | None:
    """The key directory that holds the kernels of ``package`` (made and marked as used on the
    first call per process), or None when the cache is off or cannot be made."""
    if not cache_enabled():
        return None
    base = _base()
    package = Path(package).resolve()
    slot = (str(base), str(package))
    if slot in _roots:
        return None if _changed(package) else _roots[slot]
    root = None
    tree = package.parent
    if base == tree or tree in base.parents:
        warnings.warn(f"the compiled-kernel cache {base} lies inside the source tree {tree}: not used "
                      f"(set {ENV_DIR} elsewhere)", RuntimeWarning, stacklevel=3)
    elif _changed(package):
        # A source changed since this process loaded the package: what it compiles may be the
        # old code, so it neither loads nor saves anything.
        _log.debug("compiled-kernel cache off: %s changed while this process ran", package)
        return None
    else:
        try:
            root = base / "numba" / cache_key(package)
            fresh = not root.exists()
            root.mkdir(parents=True, exist_ok=True, mode=0o700)
            (root / "used").touch()
            if fresh:
                _prune(root.parent, KEEP)
        except OSError as e:
            _log.debug("compiled-kernel cache off: %s", e)
            root = None
    _roots[slot] = root
    return root


def key_material(package: Path = _PACKAGE) -> list:
    """What the key directory's name hashes, one string per item: the format, Python, numpy,
    numba and llvmlite, the code generator's target and settings, then every ``.py`` file of
    ``package`` (relative path and SHA-256 of its bytes, as they were when the package's first
    kernel was made: :func:`cache_root` uses no cache at all once they differ on disk)."""
    import platform

    import llvmlite
    import numpy

    numba = _load_numba()
    from numba.core import config
    from numba.core.registry import cpu_target

    items = [FORMAT, f"python {sys.version} {sys.implementation.cache_tag} {platform.machine()}",
             f"numpy {numpy.__version__}", f"numba {numba.__version__}", f"llvmlite {llvmlite.__version__}",
             f"target {cpu_target.target_context.codegen().magic_tuple()!r}",
             "settings " + repr(tuple(getattr(config, n, None) for n in
                                      ("OPT", "BOUNDSCHECK", "DEBUGINFO_DEFAULT", "CPU_NAME", "CPU_FEATURES",
                                       "ENABLE_AVX", "USING_SVML")))]
    package = Path(package).resolve()
    return items + [f"source {name} {digest}" for name, digest in _snapshot(package)[1].items()]


def _files(package: Path) -> list:
    return sorted(p for p in Path(package).rglob("*.py") if "__pycache__" not in p.parts)


def _stat(package: Path) -> tuple:
    out = []
    for p in _files(package):
        with contextlib.suppress(OSError):  # removed meanwhile: then missing from the signature
            st = p.stat()
            out.append((str(p), st.st_mtime_ns, st.st_size))
    return tuple(out)


def _file_hash(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _snapshot(package: Path) -> tuple:
    """``(stat signature, {relative path: SHA-256})`` of the ``.py`` files of ``package``, taken
    once per process (when its first kernel is made, during the import of the first module that
    defines one)."""
    package = Path(package).resolve()
    snap = _snapshots.get(package)
    if snap is None:
        sig = _stat(package)
        snap = _snapshots[package] = (sig, {Path(f).relative_to(package).as_posix(): _file_hash(f)
                                            for f, _, _ in sig})
    return snap


_checked: set = set()


def _check_module(package: Path, path: Path) -> None:
    """The first time a kernel of the file ``path`` is made (during its import): a file that
    differs from the package's snapshot was edited after the snapshot and before its import,
    so the package's cache is not used by this process."""
    if path in _checked:
        return
    _checked.add(path)
    try:
        rel = path.relative_to(package).as_posix()
        same = _snapshot(package)[1].get(rel) == _file_hash(path)
    except (ValueError, OSError):
        same = False
    if not same:
        _dirty.add(package)


def _changed(package: Path) -> bool:
    """True once a ``.py`` file of ``package`` differs on disk from the snapshot (checked by
    stat, and by content when the stat changed)."""
    package = Path(package).resolve()
    if package in _dirty:
        return True
    try:
        sig, hashes = _snapshot(package)
        now = _stat(package)
        if now != sig:
            if {Path(f).relative_to(package).as_posix(): _file_hash(f) for f, _, _ in now} != hashes:
                raise OSError("changed")
            _snapshots[package] = (now, hashes)  # touched, not changed
    except OSError:
        _dirty.add(package)
        return True
    return False


def cache_key(package: Path = _PACKAGE) -> str:
    """The key directory's name: SHA-256 (hex, 32 digits) of :func:`key_material`."""
    return hashlib.sha256("\n".join(key_material(package)).encode()).hexdigest()[:32]


def _prune(parent: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently used key directories (a process still using a
    removed one only compiles again)."""
    def used(d):
        try:
            return (d / "used").stat().st_mtime
        except OSError:
            return 0.0

    dirs = sorted((d for d in parent.iterdir() if d.is_dir()), key=used, reverse=True)
    for d in dirs[keep:]:
        shutil.rmtree(d, ignore_errors=True)


# --- The entries ---------------------------------------------------------------------------------

_MAGIC = b"LGRJ1\n"


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place: a reader sees
    the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}.{threading.get_ident()}.{os.urandom(4).hex()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _frame(payload: bytes) -> bytes:
    return _MAGIC + hashlib.sha256(payload).digest() + payload


def _unframe(blob: bytes) -> bytes:
    """The payload of a framed file; ValueError when it is not one or its checksum fails."""
    n = len(_MAGIC)
    if blob[:n] != _MAGIC or len(blob) < n + 32:
        raise ValueError("not a cache file")
    payload = blob[n + 32:]
    if hashlib.sha256(payload).digest() != blob[n:n + 32]:
        raise ValueError("checksum mismatch")
    return payload


@contextlib.contextmanager
def _exclusive(directory: Path):
    """An exclusive inter-process lock of ``directory`` (flock; nothing where there is none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: entries stay safe, an update may be lost
        yield
        return
    with open(directory / ".lock", "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class _Store:
    """One function's index (entry key -> data file) and data files, framed and checked."""

    def __init__(self, directory: str, base: str, stamp: bytes, version: str, dumps):
        self.dir = Path(directory)
        self.index = self.dir / f"{base}.nbi"
        self.base, self.stamp, self.version, self.dumps = base, stamp, version, dumps

    def _read_index(self) -> dict:
        try:
            blob = self.index.read_bytes()
        except FileNotFoundError:
            return {}
        version, stamp, entries = pickle.loads(_unframe(blob))
        if version != self.version or stamp != self.stamp:
            return {}  # another numba or another source: the entries are never used
        return entries

    def load(self, key):
        name = self._read_index().get(key)
        if name is None:
            return None
        stored_key, data = pickle.loads(_unframe((self.dir / name).read_bytes()))
        if stored_key != key:  # written for another entry (a concurrent update): a miss
            raise ValueError("data file of another entry")
        return data

    def save(self, key, data) -> None:
        blob = _frame(self.dumps((key, data)))
        with _exclusive(self.dir):
            try:
                entries = self._read_index()
            except Exception:  # a corrupted index is replaced
                entries = {}
            name = entries.get(key)
            if name is None:
                used = set(entries.values())
                name = next(n for n in (f"{self.base}.{i}.nbc" for i in range(1, len(used) + 2)) if n not in used)
            _write_atomic(self.dir / name, blob)  # data first: an index never names a missing file
            entries[key] = name
            _write_atomic(self.index, _frame(self.dumps((self.version, self.stamp, entries))))

    def flush(self) -> None:
        with _exclusive(self.dir):
            _write_atomic(self.index, _frame(self.dumps((self.version, self.stamp, {}))))


_classes = None


def _cache_classes():
    """numba's cache driver with our locator and store (built once numba is loaded)."""
    global _classes
    if _classes is None:
        from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
        from numba.core.serialize import dumps

        class Locator(_CacheLocator):
            root: Path = None
            stamp: bytes = b""

            def __init__(self, py_func, py_file):
                self._py_file = py_file
                self._lineno = py_func.__code__.co_firstlineno

            def get_cache_path(self):
                return str(self.root)

            def get_source_stamp(self):
                return self.stamp

            def get_disambiguator(self):
                return str(self._lineno)

            @classmethod
            def from_function(cls, py_func, py_file):
                return cls(py_func, py_file)

        class Cache(FunctionCache):
            def __init__(self, py_func):
                super().__init__(py_func)
                if not isinstance(self._impl.locator, Locator):  # NUMBA_CACHE_LOCATOR_CLASSES won
                    raise RuntimeError("numba chose another cache locator")
                import numba

                self._cache_file = _Store(self._cache_path, self._impl.filename_base,
                                          self._impl.locator.get_source_stamp(), numba.__version__, dumps)

            def load_overload(self, sig, target_context):
                try:
                    return super().load_overload(sig, target_context)
                except Exception as e:  # a bad entry is a miss: compiled again and rewritten
                    _log.debug("compiled-kernel cache: %s unreadable (%s): compiling", self._name, e)
                    return None

            def save_overload(self, sig, data):
                try:
                    super().save_overload(sig, data)
                except Exception as e:  # a full or read-only disk costs the next run a compilation
                    _log.debug("compiled-kernel cache: %s not saved (%s)", self._name, e)

        _classes = (Locator, CompileResultCacheImpl, Cache)
    return _classes


def _make_cache(py_func, root: Path, k: Kernel):
    """A numba cache of ``py_func`` in ``root``, stamped with its own source and those of the
    kernels in ``k``'s ``depends``; None when none can be made (the kernel is then compiled
    every time, never served stale)."""
    try:  # numba internals (numba.core.caching): a numba without them compiles every time
        Locator, Impl, Cache = _cache_classes()
        h = hashlib.sha256(k.source_text())
        for dep in k._depends:
            h.update(b"\0depends\0" + (dep.source_text() if isinstance(dep, Kernel) else str(dep).encode()))
        loc = type("Locator", (Locator,), {"root": root, "stamp": h.digest()})
        impl = type("Impl", (Impl,), {"_locator_classes": [loc]})
        return type("Cache", (Cache,), {"_impl_class": impl})(py_func)
    except Exception as e:
        _log.debug("compiled-kernel cache off for %s: %s", py_func, e)
        return None
