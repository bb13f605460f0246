"""Point neighborhoods (``point_search.hpp``): a deterministic balanced 3D point tree.

``PointSearchTree.build(positions)`` copies World positions (float32 values: any real array
whose entries are exactly float32 values; nothing is narrowed silently, so indices and
distances always speak of the caller's own numbers), accepts duplicates, and rejects nonfinite
coordinates, magnitudes above :data:`MAX_POINT_SEARCH_COORDINATE`, values that are not float32
and invalid counts (no point, more than :data:`MAX_POINT_SEARCH_POINTS`, not an ``(n, 3)``
array). A failed build keeps the previous tree. The tree is a kd-tree split at the count median
(the left child holds the ``count // 2`` smallest keys ``(coordinate, source index)``) on the
axis of the largest box extent (lowest axis on ties) until at most :data:`LEAF_SIZE` points
remain; each split is a quickselect that falls back to a sort, so the build costs O(n log n)
expected and O(n log^2 n) at worst, and the tree is a function of the input alone.
``get_nodes()`` returns the packed nodes (:data:`NODE_DTYPE`, read-only) in the order children
are allocated (siblings adjacent).

``find_nearest(point, count, out_indices, out_distances)`` writes the ``count`` nearest points
(1 to :data:`MAX_POINT_NEIGHBORS`, at most the point count) in increasing distance, equal
distances by increasing source index, and their **squared** Euclidean distances as float32.
``find_nearest_batch`` does the same for many queries. Neither allocates per query: the search
runs in a compiled kernel (numba; ``docs/decisions.md`` "Point search: numba") on scratch the
tree owns. Failures (bad count, nonfinite or too large query, short or mistyped outputs) write
nothing.

Order. The spec calls this ordinary float32 search, not a certified bound, and allows nearly
equal distances to be ordered differently on other processors. This reference is stricter: it
orders by the *exact* squared distance of the float32 positions, then by source index. A
float64 estimate decides every comparison whose two estimates differ by more than ``2^-46``
relative (far above their rounding error, at most ``6 * 2^-53`` relative); the rest are decided
by an exact expansion sum (error-free ``two_sum``/``two_prod`` and Shewchuk's nonoverlapping
partials), so exact ties are always recognised and ordered by index, even when their float64
(or float32) evaluations differ. Pruning a subtree needs its box lower bound certainly above
the current k-th distance, so no exact tie is ever cut off.

Guarantees (Rounded): the reported squared distances lie within
:func:`distance_error_bound` (``2^-24 d + 2^-149 + 8 (u d + eta)``: the rounding to the float32
output plus eight roundings at the evaluator's unit roundoff, binary64 here) of the exact
squared distances; they are non-decreasing and bitwise equal on exact ties. The ledger row
``point_search.nearest`` lets two points whose distances are within the band of the farther
one's bound be ordered either way (the spec's processor band) and checks everything else
exactly.
"""

from __future__ import annotations

import numpy as np

from .jitcache import jit
from .status import GeometryStatus, Outcome, failure, is_int, overlap_failure, success

__all__ = [
    "DISTANCE_ERROR_K",
    "ETA32",
    "ETA64",
    "LEAF_SIZE",
    "MAX_POINT_NEIGHBORS",
    "MAX_POINT_SEARCH_COORDINATE",
    "MAX_POINT_SEARCH_POINTS",
    "NODE_DTYPE",
    "U32",
    "U64",
    "PointSearchTree",
    "distance_error_bound",
]

# docs/decisions.md "Point search: limits". 32 neighbours keep the fixed per-query scratch
# (and a GPU thread's register heap) small.
MAX_POINT_NEIGHBORS = 32
# The largest power of two for which every squared distance between admitted points (and
# admitted queries) stays finite in float32 with room to spare: 3 (2 * 2^60)^2 = 3 * 2^122 <
# FLT_MAX ~ 2^128, so a float32 implementation (CPU or GPU) cannot overflow.
MAX_POINT_SEARCH_COORDINATE = 2.0**60
# Source indices are 32-bit in the packed layout.
MAX_POINT_SEARCH_POINTS = 2**31 - 1
LEAF_SIZE = 12

# Error model of a reported squared distance d (docs/decisions.md "Point search: error model
# and band"):
# |reported - d| <= U32 d + ETA32 + K (u d + eta): the final rounding to the float32 output,
# plus K roundings at the evaluator's unit roundoff u. This reference (a float64 estimate within
# gamma_5 ~ 5 u64 of d, rounded once to float32) needs K >= 6 at u = 2^-53; a float32 evaluation (three
# differences, three squares, two sums: gamma_5 ~ 5u, underflow below 3 eta / 2) fits K = 8 at
# u = 2^-24.
DISTANCE_ERROR_K = 8.0
U32 = 2.0**-24
ETA32 = 2.0**-149
U64 = 2.0**-53
ETA64 = 2.0**-1074

NODE_DTYPE = np.dtype([("lo", "<f4", (3,)), ("hi", "<f4", (3,)), ("first", "<u4"),
                       ("count", "<u4"), ("left", "<i4"), ("right", "<i4")])

# Relative gap above which two float64 squared-distance estimates decide a comparison: 128
# units of 2^-53, while each estimate is within 6 units of its exact value.
_MARGIN = 2.0**-46
_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter for binary64
_STACK = 128  # depth of a balanced tree over 2^31 points is 32; each level pushes two
_PARTS = 40  # an exact comparison grows at most 36 partials


def distance_error_bound(d2: float, u: float = U64, eta: float = ETA64) -> float:
    """The error model ``U32 d + ETA32 + K (u d + eta)`` of a reported squared distance ``d2``
    at the evaluator's unit roundoff ``u`` (binary64 by default: this reference). Float64,
    rounded to nearest: for display and tests; the checker evaluates it exactly."""
    return U32 * float(d2) + ETA32 + DISTANCE_ERROR_K * (u * float(d2) + eta)


# --- Compiled kernels --------------------------------------------------------------------------
# numba without fastmath keeps IEEE binary64 semantics and evaluation order (no contraction into
# fused multiply-adds), which the error-free transformations below rely on. Compiled on first
# use and cached on disk (reference/jitcache.py).


@jit
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@jit
def _two_prod(a, b):
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@jit
def _grow(parts, n, x):
    # Add x to the nonoverlapping expansion parts[:n] (increasing magnitude), as Python's
    # math.fsum does; the result stays nonoverlapping and exact.
    i = 0
    for j in range(n):
        y = parts[j]
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            parts[i] = lo
            i += 1
        x = hi
    parts[i] = x
    return i + 1


@jit
def _grow_square(parts, n, a, q, sign):
    # add sign * (a - q)^2 exactly: a - q = hi + lo, squared = hi^2 + 2 hi lo + lo^2
    hi, lo = _two_sum(a, -q)
    p, e = _two_prod(hi, hi)
    n = _grow(parts, n, sign * p)
    n = _grow(parts, n, sign * e)
    p, e = _two_prod(hi, lo)
    n = _grow(parts, n, 2.0 * sign * p)
    n = _grow(parts, n, 2.0 * sign * e)
    p, e = _two_prod(lo, lo)
    n = _grow(parts, n, sign * p)
    return _grow(parts, n, sign * e)


@jit
def _exact_sign(pts, ja, jb, q, parts):
    """Sign of |p_a - q|^2 - |p_b - q|^2, exactly (inputs are float32 values held in float64,
    so no product overflows or underflows)."""
    n = 0
    for i in range(3):
        n = _grow_square(parts, n, pts[ja, i], q[i], 1.0)
        n = _grow_square(parts, n, pts[jb, i], q[i], -1.0)
    # nonoverlapping partials: the largest nonzero one carries the sign of the sum
    for j in range(n - 1, -1, -1):
        if parts[j] > 0.0:
            return 1
        if parts[j] < 0.0:
            return -1
    return 0


@jit
def _cmp(da, db, ja, jb, pts, q, parts):
    # -1, 0, +1 as the exact squared distance of slot ja is below, equal to, above slot jb's
    if da == db and (da == 0.0 or (pts[ja, 0] == pts[jb, 0] and pts[ja, 1] == pts[jb, 1]
                                   and pts[ja, 2] == pts[jb, 2])):
        return 0  # a zero estimate is an exact zero; equal positions are equal distances
    m = max(da, db) * _MARGIN
    if da + m < db:
        return -1
    if db + m < da:
        return 1
    return _exact_sign(pts, ja, jb, q, parts)


@jit
def _less(da, ja, db, jb, pts, order, q, parts):
    c = _cmp(da, db, ja, jb, pts, q, parts)
    if c != 0:
        return c < 0
    return order[ja] < order[jb]


@jit
def _dist(pts, j, q0, q1, q2):
    d0 = pts[j, 0] - q0
    d1 = pts[j, 1] - q1
    d2 = pts[j, 2] - q2
    return (d0 * d0 + d1 * d1) + d2 * d2


@jit
def _gap(q, lo, hi):
    if q < lo:
        return lo - q
    if q > hi:
        return q - hi
    return 0.0


@jit
def _box(lo, hi, node, q0, q1, q2):
    # the same operations, in the same order, as _dist on the nearest box point, so by
    # monotonic rounding the bound never exceeds a contained point's estimate
    g0 = _gap(q0, np.float64(lo[node, 0]), np.float64(hi[node, 0]))
    g1 = _gap(q1, np.float64(lo[node, 1]), np.float64(hi[node, 1]))
    g2 = _gap(q2, np.float64(lo[node, 2]), np.float64(hi[node, 2]))
    return (g0 * g0 + g1 * g1) + g2 * g2


# Explicit signatures: one compilation per output index type, any output layout (a strided
# view of a caller's array is as good as a contiguous one), compiled or loaded on first use.
_SEARCH_ARGS = ("float64[:, ::1], int64, float64[:, ::1], int64[::1], float32[:, ::1], float32[:, ::1], "
                "int64[::1], int64[::1], int64[::1], int64[::1], float64[::1], int64[::1], int64[::1], "
                "float64[::1], float64[::1], float64[::1], {}[:, :], float32[:, :]")


@jit(signatures=[f"void({_SEARCH_ARGS.format(t)})" for t in ("int64", "int32")])
def _search(queries, k, pts, order, lo, hi, left, right, first, count, hd, hj, st, sb, parts, q,
            out_i, out_d):
    for r in range(queries.shape[0]):
        q0 = queries[r, 0]
        q1 = queries[r, 1]
        q2 = queries[r, 2]
        q[0] = q0
        q[1] = q1
        q[2] = q2
        # hd/hj hold the best candidates so far, ascending in (exact distance, source index);
        # an insertion sort beats a heap at k <= 32 and leaves them ordered at the end
        size = 0
        w = np.inf  # the k-th estimate once full: anything certainly beyond it is skipped
        st[0] = 0
        sb[0] = 0.0
        sp = 1
        while sp > 0:
            sp -= 1
            node = st[sp]
            b = sb[sp]
            if b > w and b - w > b * _MARGIN:
                continue  # every point of the box is certainly farther than the k-th
            if left[node] < 0:
                for j in range(first[node], first[node] + count[node]):
                    d = _dist(pts, j, q0, q1, q2)
                    if d > w and d - w > d * _MARGIN:
                        continue
                    if size < k:
                        i = size
                        size += 1
                    elif d + d * _MARGIN < w or _less(d, j, hd[k - 1], hj[k - 1], pts, order, q, parts):
                        i = k - 1
                    else:
                        continue
                    while i > 0 and (d + d * _MARGIN < hd[i - 1]
                                     or (d <= hd[i - 1] + hd[i - 1] * _MARGIN
                                         and _less(d, j, hd[i - 1], hj[i - 1], pts, order, q, parts))):
                        hd[i] = hd[i - 1]
                        hj[i] = hj[i - 1]
                        i -= 1
                    hd[i] = d
                    hj[i] = j
                    if size == k:
                        w = hd[k - 1]
            else:
                a = left[node]
                c = right[node]
                ba = _box(lo, hi, a, q0, q1, q2)
                bc = _box(lo, hi, c, q0, q1, q2)
                if ba <= bc:  # the nearer child is popped first
                    st[sp] = c
                    sb[sp] = bc
                    st[sp + 1] = a
                    sb[sp + 1] = ba
                else:
                    st[sp] = a
                    sb[sp] = ba
                    st[sp + 1] = c
                    sb[sp + 1] = bc
                sp += 2
        prev = np.float32(0.0)
        for i in range(k):
            v = np.float32(hd[i])
            if i > 0 and (v < prev or _cmp(hd[i - 1], hd[i], hj[i - 1], hj[i], pts, q, parts) == 0):
                v = prev  # non-decreasing, and bitwise equal on exact ties
            out_i[r, i] = order[hj[i]]
            out_d[r, i] = v
            prev = v


@jit
def _key_less(pts, a, b, axis):
    # the split key: the coordinate, then the source index (distinct keys, even for duplicates)
    xa = pts[a, axis]
    xb = pts[b, axis]
    return xa < xb or (xa == xb and a < b)


@jit
def _sort_range(perm, lo, hi, pts, axis):
    # heapsort of perm[lo:hi] by split key: O(m log m) on any input, no allocation
    m = hi - lo
    for start in range(m // 2 - 1, -1, -1):
        _sift(perm, lo, start, m, pts, axis)
    for end in range(m - 1, 0, -1):
        perm[lo], perm[lo + end] = perm[lo + end], perm[lo]
        _sift(perm, lo, 0, end, pts, axis)


@jit
def _sift(perm, lo, i, m, pts, axis):
    while True:
        c = 2 * i + 1
        if c >= m:
            return
        if c + 1 < m and _key_less(pts, perm[lo + c], perm[lo + c + 1], axis):
            c += 1
        if not _key_less(pts, perm[lo + i], perm[lo + c], axis):
            return
        perm[lo + i], perm[lo + c] = perm[lo + c], perm[lo + i]
        i = c


@jit
def _select(perm, lo, hi, nth, pts, axis):
    """Rearrange perm[lo:hi] so that perm[lo:nth] holds the nth - lo smallest split keys.

    Quickselect with a median-of-three pivot and Hoare partitions (expected linear time); after
    2 log2(m) + 4 rounds it sorts what is left (O(m log m)), so a split never costs more than a
    sort and the build stays O(n log^2 n) on any input, as the spec states."""
    budget = 4
    m = hi - lo
    while m > 1:
        budget += 2
        m >>= 1
    while hi - lo > 16:
        if budget == 0:
            _sort_range(perm, lo, hi, pts, axis)
            return
        budget -= 1
        mid = lo + (hi - lo) // 2
        a, b, c = perm[lo], perm[mid], perm[hi - 1]
        if _key_less(pts, b, a, axis):
            a, b = b, a
        if _key_less(pts, c, b, axis):
            b = c
            if _key_less(pts, b, a, axis):
                b = a
        p = b  # the median of the three: neither the smallest nor the largest key of the range
        i = lo - 1
        j = hi
        while True:
            i += 1
            while _key_less(pts, perm[i], p, axis):
                i += 1
            j -= 1
            while _key_less(pts, p, perm[j], axis):
                j -= 1
            if i >= j:
                break
            perm[i], perm[j] = perm[j], perm[i]
        # perm[lo:j + 1] <= p <= perm[j + 1:hi], both nonempty
        if nth <= j:
            hi = j + 1
        else:
            lo = j + 1
    for i in range(lo + 1, hi):  # insertion sort of the last few
        x = perm[i]
        j = i - 1
        while j >= lo and _key_less(pts, x, perm[j], axis):
            perm[j + 1] = perm[j]
            j -= 1
        perm[j + 1] = x


@jit
def _build(pts, leaf):
    n = pts.shape[0]
    perm = np.arange(n)
    cap = 2 * n + 1
    lo = np.empty((cap, 3), np.float32)
    hi = np.empty((cap, 3), np.float32)
    first = np.empty(cap, np.int64)
    count = np.empty(cap, np.int64)
    left = np.empty(cap, np.int64)
    right = np.empty(cap, np.int64)
    sn = np.empty(_STACK, np.int64)
    sf = np.empty(_STACK, np.int64)
    sc = np.empty(_STACK, np.int64)
    sn[0] = 0
    sf[0] = 0
    sc[0] = n
    sp = 1
    nodes = 1
    while sp > 0:
        sp -= 1
        node = sn[sp]
        f = sf[sp]
        c = sc[sp]
        for i in range(3):
            lo[node, i] = pts[perm[f], i]
            hi[node, i] = pts[perm[f], i]
        for j in range(f + 1, f + c):
            for i in range(3):
                x = pts[perm[j], i]
                if x < lo[node, i]:
                    lo[node, i] = x
                if x > hi[node, i]:
                    hi[node, i] = x
        first[node] = f
        count[node] = c
        if c <= leaf:
            left[node] = -1
            right[node] = -1
            continue
        axis = 0
        best = np.float64(hi[node, 0]) - np.float64(lo[node, 0])
        for i in range(1, 3):
            e = np.float64(hi[node, i]) - np.float64(lo[node, i])
            if e > best:
                best = e
                axis = i
        _select(perm, f, f + c, f + c // 2, pts, axis)
        a = nodes
        nodes += 2
        left[node] = a
        right[node] = a + 1
        h = c // 2
        sn[sp] = a + 1
        sf[sp] = f + h
        sc[sp] = c - h
        sn[sp + 1] = a
        sf[sp + 1] = f
        sc[sp + 1] = h
        sp += 2
    return perm, lo[:nodes].copy(), hi[:nodes].copy(), first[:nodes].copy(), count[:nodes].copy(), \
        left[:nodes].copy(), right[:nodes].copy()


# --- The tree ----------------------------------------------------------------------------------


def _real_array(a):
    """``a`` as a numpy array of reals (a wrong type is a programmer error: TypeError)."""
    try:
        arr = np.asarray(a)
    except (TypeError, ValueError):
        raise TypeError("coordinates must be an array of real numbers")
    if arr.dtype.kind not in "fiu" or arr.dtype == np.bool_:
        raise TypeError(f"coordinates must be real numbers, got dtype {arr.dtype}")
    return arr


def _float32_values(arr) -> np.ndarray:
    """``arr`` as float32, with NaN wherever an entry is not exactly a float32 value (so the
    finiteness check refuses it: World positions are float32, and nothing narrows silently)."""
    with np.errstate(over="ignore", invalid="ignore"):
        x32 = np.array(arr, dtype=np.float32)
        exact = x32.astype(np.float64) == np.asarray(arr, dtype=np.float64)
    x32[~exact & ~np.isnan(x32)] = np.nan
    return x32


def _check_coordinates(x32) -> bool:
    return bool(np.all(np.isfinite(x32)) and np.all(np.abs(x32) <= np.float32(MAX_POINT_SEARCH_COORDINATE)))


class PointSearchTree:
    """``PointSearchTree``: a deterministic balanced 3D point tree over float32 World positions.

    A new tree holds no points (every query fails with InvalidArgument until a build succeeds).
    ``build`` replaces the tree only on success. Queries are not safe to run concurrently on
    one tree (they share its fixed scratch), as a C++ caller would not share one scratch.
    """

    __slots__ = (
        "_count",
        "_first",
        "_hd",
        "_hi",
        "_hj",
        "_left",
        "_lo",
        "_nodes",
        "_order",
        "_parts",
        "_positions",
        "_pts",
        "_q",
        "_right",
        "_sb",
        "_st",
    )

    def __init__(self):
        for name in ("_positions", "_pts", "_order", "_lo", "_hi", "_first", "_count", "_left",
                     "_right", "_nodes"):
            setattr(self, name, None)
        # fixed per-tree query scratch: the k-heap, the traversal stack, exact partials, the query
        self._hd = np.empty(MAX_POINT_NEIGHBORS, np.float64)
        self._hj = np.empty(MAX_POINT_NEIGHBORS, np.int64)
        self._st = np.empty(_STACK, np.int64)
        self._sb = np.empty(_STACK, np.float64)
        self._parts = np.empty(_PARTS, np.float64)
        self._q = np.empty(3, np.float64)

    # -- build --

    def build(self, positions) -> Outcome:
        """``Build``: copy ``positions`` ((n, 3) float32 values) into a new tree.

        Returns:
            Success (value: the point count), or InvalidArgument when the array is not (n, 3),
            holds no point or more than ``MAX_POINT_SEARCH_POINTS``, or has a nonfinite
            coordinate, one of magnitude above ``MAX_POINT_SEARCH_COORDINATE`` or one that is
            not a float32 value; the previous tree is kept on failure. Exact (the stored
            positions are the float32 copies, bit for bit).
        """
        arr = _real_array(positions)
        if arr.ndim != 2 or arr.shape[1] != 3:
            return failure(GeometryStatus.InvalidArgument, f"positions must be (n, 3), got {arr.shape}",
                           field="positions")
        n = arr.shape[0]
        if not 1 <= n <= MAX_POINT_SEARCH_POINTS:
            return failure(GeometryStatus.InvalidArgument, f"point count {n} is outside [1, 2^31 - 1]",
                           field="positions", value=float(n))
        p32 = _float32_values(arr)
        bad = ~(np.isfinite(p32) & (np.abs(p32) <= np.float32(MAX_POINT_SEARCH_COORDINATE)))
        if bad.any():
            i = int(np.argmax(bad.any(axis=1)))
            return failure(GeometryStatus.InvalidArgument,
                           f"point {i} has a nonfinite coordinate, one above MAX_POINT_SEARCH_COORDINATE, "
                           "or one that is not a float32 value", field="positions", index=i)
        perm, lo, hi, first, count, left, right = _build(p32, LEAF_SIZE)
        nodes = np.zeros(lo.shape[0], NODE_DTYPE)
        nodes["lo"], nodes["hi"] = lo, hi
        nodes["first"], nodes["count"] = first, count
        nodes["left"], nodes["right"] = left, right
        for a in (p32, nodes):
            a.setflags(write=False)
        # commit only now: nothing above touched the previous tree
        self._positions = p32
        self._order = perm
        self._pts = p32[perm].astype(np.float64)  # tree order, exact float64 copies
        self._lo, self._hi, self._first, self._count, self._left, self._right = lo, hi, first, count, left, right
        self._nodes = nodes
        return success(n)

    # -- read-only state --

    @property
    def point_count(self) -> int:
        """Points in the tree (0 before the first successful build)."""
        return 0 if self._positions is None else int(self._positions.shape[0])

    @property
    def positions(self):
        """The stored float32 positions in source order (read-only), or None. Exact."""
        return self._positions

    def get_nodes(self):
        """``GetNodes``: the packed nodes (:data:`NODE_DTYPE`, read-only), root first; a leaf has
        ``left == right == -1`` and covers ``tree_order()[first:first + count]``. Exact."""
        return self._nodes

    def tree_order(self):
        """Source index of every tree slot (read-only copy), or None. Exact."""
        if self._order is None:
            return None
        out = self._order.copy()
        out.setflags(write=False)
        return out

    # -- queries --

    def _check_query(self, points, count, out_indices, out_distances, m) -> Outcome:
        n = self.point_count
        if not is_int(count) or not 1 <= count <= MAX_POINT_NEIGHBORS:
            return failure(GeometryStatus.InvalidArgument,
                           f"count {count!r} is outside [1, MAX_POINT_NEIGHBORS = {MAX_POINT_NEIGHBORS}]",
                           field="count")
        if count > n:
            return failure(GeometryStatus.InvalidArgument, f"count {count} exceeds the point count {n}",
                           field="count", value=float(count))
        for name, a, kinds in (("out_indices", out_indices, (np.int32, np.int64)),
                               ("out_distances", out_distances, (np.float32,))):
            if not isinstance(a, np.ndarray) or a.dtype.type not in kinds or not a.flags.writeable:
                return failure(GeometryStatus.InvalidArgument,
                               f"{name} must be a writeable numpy array of {[k.__name__ for k in kinds]}",
                               field=name)
        clash = overlap_failure((("out_indices", out_indices), ("out_distances", out_distances)))
        if clash is not None:
            return clash
        q32 = _float32_values(_real_array(points))
        if q32.ndim == 1:
            q32 = q32.reshape(1, -1)
        if q32.ndim != 2 or q32.shape[1] != 3 or (m is not None and q32.shape[0] != m):
            return failure(GeometryStatus.InvalidArgument, "query points must be 3-vectors", field="point")
        if not _check_coordinates(q32):
            return failure(GeometryStatus.InvalidArgument,
                           "a query coordinate is nonfinite, above MAX_POINT_SEARCH_COORDINATE or not a float32 value",
                           field="point")
        return success(q32.astype(np.float64))

    def _run(self, queries, count, out_i, out_d):
        _search(queries, count, self._pts, self._order, self._lo, self._hi, self._left, self._right,
                self._first, self._count, self._hd, self._hj, self._st, self._sb, self._parts, self._q,
                out_i, out_d)

    def find_nearest(self, point, count, out_indices, out_distances) -> Outcome:
        """``FindNearest``: the ``count`` nearest points to ``point``.

        Args:
            point: the query, three float32 values of magnitude at most
                ``MAX_POINT_SEARCH_COORDINATE``.
            count: 1 to ``MAX_POINT_NEIGHBORS``, at most the point count.
            out_indices: int32 or int64 array of at least ``count`` entries: source indices, in
                increasing exact distance, equal distances by increasing source index.
            out_distances: float32 array of at least ``count`` entries: squared distances.

        Returns:
            Success (value: count); InvalidArgument (bad count, query, or output type) or
            CapacityExceeded (an output shorter than ``count``), with both outputs unchanged.
            Guarantee: Rounded (the distances, within :func:`distance_error_bound`); the order is
            exact (see the module docstring).
        """
        out = self._check_query(point, count, out_indices, out_distances, 1)
        if not out.ok:
            return out
        for name, a in (("out_indices", out_indices), ("out_distances", out_distances)):
            if a.ndim != 1 or a.shape[0] < count:
                return failure(GeometryStatus.CapacityExceeded, f"{name} holds fewer than {count} entries",
                               field=name)
        # [None, :count] is always a view (reshape could copy a strided array and lose the writes)
        self._run(out.value, count, out_indices[None, :count], out_distances[None, :count])
        return success(count)

    def find_nearest_batch(self, points, count, out_indices, out_distances) -> Outcome:
        """Batch ``FindNearest``: row ``r`` of the outputs answers ``points[r]``.

        Args:
            points: (m, 3) float32 values, each row valid as for :meth:`find_nearest`.
            count: as for :meth:`find_nearest`.
            out_indices: (m, c) int32 or int64 array with ``c >= count``; columns ``[:count]``
                are written.
            out_distances: (m, c) float32 array with ``c >= count``.

        Returns:
            Success (value: m) or the first failure, with both outputs unchanged: every query
            is validated before anything is written. Guarantee: as :meth:`find_nearest`.
        """
        m = np.shape(points)[0] if np.ndim(points) == 2 else -1
        out = self._check_query(points, count, out_indices, out_distances, m)
        if not out.ok:
            return out
        for name, a in (("out_indices", out_indices), ("out_distances", out_distances)):
            if a.ndim != 2 or a.shape[0] != m or a.shape[1] < count:
                return failure(GeometryStatus.CapacityExceeded,
                               f"{name} must be ({m}, >= {count})", field=name)
        self._run(out.value, count, out_indices[:, :count], out_distances[:, :count])
        return success(m)
