"""The compiled-kernel cache (``reference/jitcache.py``): an edited dependency selects a new key
and is compiled again (never stale code), a warm cache gives the bits of a cold compile on the
real kernels, a corrupted or mismatched entry is a miss that is rewritten, processes filling one
directory at once lose nothing, and importing the fast path imports neither numba nor SymPy.

Most tests run child processes: a key is fixed per process (its sources as they were when the
first kernel was made), so "the next run after an edit" is a new process, as it is for a user.
Expected values are computed here from the probe's arithmetic on small integers (exact in
binary64), never from the code under test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from reference import jitcache

ROOT = Path(__file__).resolve().parents[2]

# A package of probe kernels: ``outer`` calls ``inner`` (another file's kernel), which calls a
# plain function of ``dep.py`` compiled into it; ``caller`` calls a kernel generated from the
# text of ``gen.txt`` (not a .py file: only ``depends`` ties the caller's entries to it).
PROBE = {
    "__init__.py": "",
    "dep.py": "def bump(x):\n    return x + 1.0\n",
    "kern.py": textwrap.dedent('''
        from pathlib import Path

        from reference.jitcache import jit, jit_source, jitable

        from .dep import bump

        jitable(bump)


        @jit
        def inner(x):
            return bump(x) * 2.0


        @jit
        def outer(a):
            s = 0.0
            for i in range(a.shape[0]):
                s += inner(a[i])
            return s


        twice = jit_source((Path(__file__).parent / "gen.txt").read_text(), "probe twice", module=__name__)


        @jit(depends=(twice,))
        def caller(x):
            return twice(x) + 0.5
        '''),
    "gen.txt": "def f(x):\n    return 2.0 * x\n",
}

# The child: import the probe, call its kernels in the order given, print results and counters.
CHILD = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    import numpy as np
    from reference import jitcache
    import {pkg}.kern as k
    out = {{}}
    for what in sys.argv[1:]:
        if what == "f64":
            out[what] = k.outer(np.arange(5, dtype=np.float64)).hex()
        elif what == "i64":
            out[what] = k.outer(np.arange(7, dtype=np.int64)).hex()
        elif what == "caller":
            out[what] = k.caller(3.0).hex()
    st = jitcache.stats()
    out["misses"] = sum(m for h, m in st.values())
    out["hits"] = sum(h for h, m in st.values())
    out["root"] = str(jitcache.cache_root(Path(k.__file__).parent))
    print("RESULT " + json.dumps(out))
    ''')


def _env(cache: Path, src: Path | None = None, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUDUS_GEOMETRY_")}
    env[jitcache.ENV_DIR] = str(cache)
    # The tests rewrite a probe source within the same second at the same size, where CPython's
    # own .pyc (stamped with mtime and size) would be served stale: none is written for them.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), str(ROOT)]
                                            + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.update(extra)
    return env


def _probe(tmp_path: Path, name: str = "probe_pkg") -> Path:
    src = tmp_path / "src"
    pkg = src / name
    pkg.mkdir(parents=True)
    for f, text in PROBE.items():
        (pkg / f).write_text(text)
    return src


def _run_probe(src: Path, cache: Path, *calls, pkg: str = "probe_pkg", **extra) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD.format(pkg=pkg), *calls], cwd=src,
                       env=_env(cache, src, **extra), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def _sum_of(values, step) -> str:
    """sum over v of 2 (v + step), in exact integers (the probe's arithmetic)."""
    return float(sum(2 * (v + step) for v in values)).hex()


# --- keys --------------------------------------------------------------------------------------


def test_an_edited_dependency_is_compiled_again_never_run_stale(tmp_path):
    src, cache = _probe(tmp_path), tmp_path / "cache"
    cold = _run_probe(src, cache, "f64")
    assert cold["f64"] == _sum_of(range(5), 1) and cold["misses"] > 0
    warm = _run_probe(src, cache, "f64")
    assert warm["f64"] == cold["f64"] and warm["misses"] == 0 and warm["hits"] > 0
    assert warm["root"] == cold["root"]
    # Only dep.py changes: numba's own cache (stamped with kern.py alone) would serve the old
    # machine code of inner/outer; the key of the whole package selects a new directory.
    (src / "probe_pkg" / "dep.py").write_text("def bump(x):\n    return x + 2.0\n")
    edited = _run_probe(src, cache, "f64")
    assert edited["f64"] == _sum_of(range(5), 2)
    assert edited["misses"] > 0 and edited["root"] != cold["root"]


def test_a_generated_kernel_stamps_the_kernels_that_depend_on_it(tmp_path):
    src, cache = _probe(tmp_path), tmp_path / "cache"
    first = _run_probe(src, cache, "caller")
    assert first["caller"] == (2.0 * 3.0 + 0.5).hex() and first["misses"] > 0
    assert _run_probe(src, cache, "caller")["misses"] == 0
    # gen.txt is no .py file, so the package key stays; the caller's stamp carries the text.
    (src / "probe_pkg" / "gen.txt").write_text("def f(x):\n    return 3.0 * x\n")
    edited = _run_probe(src, cache, "caller")
    assert edited["caller"] == (3.0 * 3.0 + 0.5).hex()
    assert edited["misses"] > 0 and edited["root"] == first["root"]


def test_the_key_covers_every_source_of_the_package_and_the_toolchain(tmp_path):
    import hashlib

    import llvmlite
    import numba

    # Every .py file of reference/ by name (by content below, on a copy nobody else edits).
    names = {item.split()[1] for item in jitcache.key_material() if item.startswith("source ")}
    assert names == {p.name for p in (ROOT / "reference").glob("*.py")}
    assert {"fp.py", "kernel.py", "fused.py", "context.py", "jitcache.py"} <= names
    copy = tmp_path / "reference"
    copy.mkdir()
    for p in (ROOT / "reference").glob("*.py"):
        (copy / p.name).write_bytes(p.read_bytes())
    items = jitcache.key_material(copy)
    want = {f"source {p.name} {hashlib.sha256(p.read_bytes()).hexdigest()}" for p in copy.glob("*.py")}
    assert want == {item for item in items if item.startswith("source ")}
    text = "\n".join(items)
    for needle in (f"numba {numba.__version__}", f"llvmlite {llvmlite.__version__}",
                   f"numpy {np.__version__}", sys.version.split()[0], "target ("):
        assert needle in text
    # One byte more in any source is another key (a new process: a key is fixed per process).
    code = ("import sys; from pathlib import Path; from reference import jitcache; "
            "print(jitcache.cache_key(Path(sys.argv[1])))")
    key = lambda: subprocess.run([sys.executable, "-c", code, str(copy)], capture_output=True, text=True,
                                 check=True, timeout=600).stdout.strip()
    k1 = key()
    assert k1 == key()
    (copy / "fp.py").write_bytes((copy / "fp.py").read_bytes() + b"\n")
    assert key() != k1


def test_kernels_call_nothing_outside_their_package_but_numpy_math_and_numba():
    """The key hashes the package's own sources: a kernel reaching into another package (whose
    edits would not change the key) must fail here."""
    import importlib
    import types

    import reference

    package = Path(reference.__file__).resolve().parent
    for f in sorted((ROOT / "reference").glob("*.py")):
        importlib.import_module(f"reference.{f.stem}")
    kernels = [k for k in jitcache._kernels if k._fn is not None and k.__module__.startswith("reference.")]
    assert len(kernels) > 30
    allowed_modules = {"numpy", "math", "numba"}

    def names(code):
        yield from code.co_names
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                yield from names(c)

    for k in kernels:
        g = k._fn.__globals__
        for n in names(k._fn.__code__):
            if n not in g:
                continue  # a builtin, or an attribute name
            v = g[n]
            if isinstance(v, types.ModuleType):
                assert v.__name__.split(".")[0] in allowed_modules | {"reference"}, (k, n)
            elif isinstance(v, jitcache.Kernel):
                assert v._package == jitcache._PACKAGE, (k, n)
            elif isinstance(v, types.FunctionType):
                top = (v.__module__ or "").split(".")[0]
                assert top in allowed_modules or (
                    top == "reference" and Path(v.__code__.co_filename).resolve().parent == package), (k, n)


# --- the real kernels: warm equals cold --------------------------------------------------------

SAMPLE = textwrap.dedent('''
    import dataclasses, hashlib, json
    import numpy as np
    from reference import jitcache
    from reference.path import (PathPreparation, PathSource, spans_from_arrays,
                                try_convert_centripetal_catmull_rom, try_prepare_path, try_sample_path)
    from reference.point_search import PointSearchTree
    from reference.query import (ProjectionQuery, ProjectionResult, ProjectionScratch,
                                 compute_projection_scratch_capacity, try_project_point)
    from reference.status import ToleranceProfile, WorkLimits
    from reference.triangle_surface import SurfaceStamp, TriangleSurface

    h = hashlib.sha256()
    rng = np.random.default_rng(26)
    limits = WorkLimits(max_spans=1 << 16, max_keys=1 << 16, max_leaves=1 << 16, max_depth=40,
                        max_subdivisions=1 << 20, max_prepared_bytes=1 << 30, max_samples=1 << 16)
    for spans in (1, 4, 9):
        pts = np.cumsum(rng.normal(size=(spans + 1, 3)), axis=0)
        oc, ow = np.zeros((spans, 4, 3)), np.zeros(spans)
        try_convert_centripetal_catmull_rom(pts, False, 1e-9, oc, ow)
        tol = ToleranceProfile(position_error=1e-4, relative_position_error=0.0, asset_scale=1.0,
                               continuity_position=1e-4, continuity_angle=1e-3, continuity_derivative=1e-3,
                               continuity_second_derivative=1e-3, distance_error=1e-3, projection_gap=1e-7,
                               tangent_angle_error=1e-3, minimum_speed=1e-9, minimum_sin_angle=1e-3,
                               normal_min_derivative_length=1e-9, normal_min_sin_angle=1e-3)
        view = try_prepare_path(PathSource(spans_from_arrays(oc, ow), 1), PathPreparation(tol, limits)).value.view()
        ks, us = rng.integers(0, spans, 300), rng.random(300)
        outs = [np.zeros((300, 3)) for _ in range(3)]
        assert try_sample_path(view, ks, us, *outs).ok
        for o in outs:
            h.update(o.tobytes())
        scratch = ProjectionScratch()
        assert scratch.try_reserve(compute_projection_scratch_capacity(view, 4096).value).ok
        for q in rng.normal(size=(6, 3)) * 2:
            r = ProjectionResult()
            out = try_project_point(view, ProjectionQuery(q, 4096), scratch, r)
            h.update(repr((out.status, r.parameter, r.distance.hex(), r.lower_bound.hex(), r.gap.hex(),
                           r.iterations)).encode())
    tree = PointSearchTree()
    assert tree.build((rng.normal(size=(2000, 3)) * 10).astype(np.float32)).ok
    qs = (rng.normal(size=(64, 3)) * 10).astype(np.float32)
    for itype in (np.int64, np.int32):
        oi, od = np.zeros((64, 8), itype), np.zeros((64, 8), np.float32)
        assert tree.find_nearest_batch(qs, 8, oi, od).ok
        h.update(oi.tobytes() + od.tobytes())
    verts = rng.normal(size=(900, 3))
    tris = rng.integers(0, 900, size=(300, 3))
    tris = tris[(tris[:, 0] != tris[:, 1]) & (tris[:, 1] != tris[:, 2]) & (tris[:, 0] != tris[:, 2])]
    surface = TriangleSurface.new(verts, tris, SurfaceStamp(1, 1)).value
    for s, e in zip(rng.normal(size=(40, 3)) * 2, rng.normal(size=(40, 3)) * 2):
        for bvh in (False, True):
            out = surface.first_hit(s, e, bvh=bvh)
            hit = out.value
            h.update(repr((out.status, None if hit is None else (hit.t.hex(), hit.triangle,
                                                                  hit.position.tobytes(), hit.barycentric.tobytes())),
                           ).encode())
    st = jitcache.stats()
    print("RESULT " + json.dumps({"digest": h.hexdigest(), "stats": st}))
    ''')


def _sample(cache: Path, **extra) -> dict:
    p = subprocess.run([sys.executable, "-c", SAMPLE], cwd=ROOT, env=_env(cache, **extra),
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1][7:])


def test_a_warm_cache_gives_the_bits_of_a_cold_compile(tmp_path):
    cache = tmp_path / "cache"
    cold = _sample(cache)
    warm = _sample(cache)
    assert warm["digest"] == cold["digest"]
    assert sum(m for h, m in cold["stats"].values()) > 20  # compiled ...
    assert all(m == 0 for h, m in warm["stats"].values()), warm["stats"]  # ... then loaded
    for name in ("reference.query._search", "reference.point_search._search", "reference.point_search._build",
                 "reference.triangle_surface._scan_range", "fused cubic_point"):
        assert warm["stats"][name][0] > 0 and cold["stats"][name][1] > 0, name


# --- corrupted entries, concurrency, switches --------------------------------------------------


def _corrupt(root: Path) -> int:
    """Damage every entry file of ``root`` in a different way; the number damaged."""
    files = sorted(p for p in root.iterdir() if p.suffix in (".nbi", ".nbc"))
    for i, p in enumerate(files):
        blob = p.read_bytes()
        how = i % 4
        if how == 0:
            p.write_bytes(blob[: len(blob) // 2])  # torn
        elif how == 1:
            b = bytearray(blob)
            b[len(b) // 2] ^= 0x40  # one flipped bit in the payload
            p.write_bytes(bytes(b))
        elif how == 2:
            p.write_bytes(b"")  # empty
        else:
            p.write_bytes(os.urandom(len(blob)))  # garbage
    return len(files)


def test_a_corrupted_entry_is_compiled_again_and_rewritten(tmp_path):
    src, cache = _probe(tmp_path), tmp_path / "cache"
    first = _run_probe(src, cache, "f64", "i64", "caller")
    root = Path(first["root"])
    assert _corrupt(root) >= 6
    again = _run_probe(src, cache, "f64", "i64", "caller")
    assert {k: again[k] for k in ("f64", "i64", "caller")} == {k: first[k] for k in ("f64", "i64", "caller")}
    assert again["misses"] > 0
    healed = _run_probe(src, cache, "f64", "i64", "caller")
    assert healed["misses"] == 0 and healed["f64"] == _sum_of(range(5), 1) and healed["i64"] == _sum_of(range(7), 1)


def test_a_data_file_of_another_entry_is_never_loaded(tmp_path):
    # Two signatures of one kernel: swap their data files (each intact, with a valid checksum).
    src, cache = _probe(tmp_path), tmp_path / "cache"
    first = _run_probe(src, cache, "f64", "i64")
    root = Path(first["root"])
    a, b = sorted(root.glob("kern.outer-*.1.nbc")), sorted(root.glob("kern.outer-*.2.nbc"))
    assert len(a) == 1 and len(b) == 1
    da, db = a[0].read_bytes(), b[0].read_bytes()
    a[0].write_bytes(db)
    b[0].write_bytes(da)
    again = _run_probe(src, cache, "f64", "i64")
    assert again["f64"] == _sum_of(range(5), 1) and again["i64"] == _sum_of(range(7), 1)
    assert again["misses"] > 0


def test_two_processes_filling_one_directory_lose_nothing(tmp_path):
    src, cache = _probe(tmp_path), tmp_path / "cache"
    env = _env(cache, src)
    # Opposite orders: each process adds a different signature first to the same index.
    procs = [subprocess.Popen([sys.executable, "-c", CHILD.format(pkg="probe_pkg"), *order], cwd=src, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for order in (("f64", "i64", "caller"), ("i64", "f64", "caller"))]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
        r = json.loads([ln for ln in out.splitlines() if ln.startswith("RESULT ")][-1][7:])
        assert r["f64"] == _sum_of(range(5), 1) and r["i64"] == _sum_of(range(7), 1)
    after = _run_probe(src, cache, "f64", "i64", "caller")
    assert after["misses"] == 0 and after["hits"] > 0
    assert not list(Path(after["root"]).glob("*.tmp.*"))  # no temporary file left behind


def test_the_switch_turns_the_cache_off(tmp_path):
    src, cache = _probe(tmp_path), tmp_path / "cache"
    for _ in range(2):
        r = _run_probe(src, cache, "f64", **{jitcache.ENV_SWITCH: "0"})
        assert r["f64"] == _sum_of(range(5), 1) and r["misses"] > 0 and r["root"] == "None"
    assert not cache.exists()


def test_a_cache_inside_the_source_tree_is_refused(monkeypatch):
    monkeypatch.setenv(jitcache.ENV_DIR, str(ROOT / "reference" / "cache-here"))
    monkeypatch.setenv(jitcache.ENV_SWITCH, "1")
    with pytest.warns(RuntimeWarning, match="inside the source tree"):
        assert jitcache.cache_root() is None
    assert not (ROOT / "reference" / "cache-here").exists()


def test_only_the_most_recently_used_key_directories_are_kept(tmp_path, monkeypatch):
    pkg = tmp_path / "src" / "probe_prune"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("X = 1\n")
    monkeypatch.setenv(jitcache.ENV_DIR, str(tmp_path))
    monkeypatch.setenv(jitcache.ENV_SWITCH, "1")
    parent = tmp_path / "numba"
    old = []
    for i in range(jitcache.KEEP + 3):
        d = parent / f"old{i:02d}"
        d.mkdir(parents=True)
        (d / "used").touch()
        os.utime(d / "used", (1e9 + i, 1e9 + i))  # old00 least recently used
        old.append(d)
    root = jitcache.cache_root(pkg)
    assert root is not None and root.parent == parent
    kept = sorted(p.name for p in parent.iterdir())
    assert root.name in kept and len(kept) == jitcache.KEEP
    assert kept == sorted([root.name] + [d.name for d in old[-(jitcache.KEEP - 1):]])


def test_sources_edited_while_a_process_runs_turn_its_cache_off(tmp_path, monkeypatch):
    pkg = tmp_path / "src" / "probe_live"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("X = 1\n")
    monkeypatch.setenv(jitcache.ENV_DIR, str(tmp_path / "cache"))
    monkeypatch.setenv(jitcache.ENV_SWITCH, "1")
    assert jitcache.cache_root(pkg) is not None
    time.sleep(0.01)
    (pkg / "a.py").write_text("X = 22\n")
    assert jitcache.cache_root(pkg) is None  # what this process compiles may be the old code


# --- start-up: no numba, no SymPy before they are needed -------------------------------------


def test_importing_the_fast_path_loads_neither_numba_nor_sympy():
    code = ("import sys\n"
            "import reference.query, reference.point_search, reference.triangle_surface, reference.path\n"
            "import interval.context, interval.projection, interval.triangle\n"
            "print(sorted(m for m in ('numba', 'sympy', 'llvmlite') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "[]"
