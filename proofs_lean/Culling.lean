import FirstHit

/-!
# The hierarchy's culling keeps the first-hit answer (exact model)

An exact model, over core Lean's `Rat`, of what the facet hierarchy of
`reference/triangle_surface.py` relies on when it skips facets before the scan's
classification, with proofs that skipping them leaves the answer (the ambiguity verdict
included) unchanged. It builds on `FirstHit` (points, segments, the exact crossing and its
weights).

## The model

* `Culling.slabClip`, `Culling.slabSeparated`: the slab test of a segment against a box grown
  by a margin `μ` in every axis, in exact arithmetic: per axis the parameters whose coordinate
  lies in `[lo - μ, hi + μ]` (all or none for an axis the segment keeps constant), intersected
  with `[0, 1]`; "separated" when the intersection is empty.
* `Culling.classify`: the banded classification of one facet, the exact skeleton of the scan's
  `_classify`, with the bands of this facet for this query given as exact numbers
  (`Culling.Bands`: `par` on `|n · d|` for near-parallel, `bt` on the parameter, `bw` on the
  weights; each is a tolerance with a rounding bound folded in). It is a miss when the
  facet's box misses the segment's box; otherwise near-parallel facets are ambiguous; otherwise
  the exact plane parameter `t` and weights `α, β, γ` of `FirstHit` decide: a miss when one of
  them is beyond its band on the outside, ambiguous when one is nonzero and within its band of
  a boundary, a hit otherwise.
* `Culling.answer`: the first-hit answer with the ambiguity verdict over facets with their
  indices, in index order: the lowest ambiguous index; else the hit of smallest `t`, the lowest
  index on exact ties; else none.
* `Culling.Cull`: why the hierarchy skipped a facet: its box misses the segment's box (the
  scan's own first test), or it is not near-parallel, lies in a node box, and the segment is
  slab-separated from that box grown by a margin at least the facet's `reach`.

## Main statements

* `Culling.slabSeparated_sound`: "separated" implies that no point of the segment lies in the
  box grown by the margin.
* `Culling.classify_ne_miss_near`: a facet that is not near-parallel and not a miss has a point
  of the segment within `reach` (in every axis) of its box.
* `Culling.culled_is_miss`: a facet culled for a valid reason is a miss.
* `Culling.answer_candidates`: the answer over the facets the hierarchy keeps equals the answer
  over all facets.
* `Culling.classify_hit_crossing`: a hit of the banded classification is `FirstHit`'s exact
  crossing (the bands add misses and ambiguity, never another contact).

## What is not proved here

The float side: that the binary64 slab test `_slab_miss` (parameters widened by a bound of
their rounding) reports a miss only when the exact test does, that the node margin
`_node_margin` is at least the reach of every non-grazing facet below the node with the bands
the float scan uses, and that a non-grazing facet of a safe node is not near-parallel. These
are argued in `docs/decisions.md` and checked by tests (`tests/reference`,
`tests/lean/test_culling_eval.py`), not by this proof. The model also reduces the candidates in
index order; the float reduction is order-free (lowest ambiguous index, then smallest `t` and
lowest index), which gives the same answer.

## Implementation notes

The executable definitions use only their own recursion and `Rat` arithmetic, so that the
WebAssembly checker can `#eval` them (see `FirstHit.lean`). `abs` is written out as `max x (-x)`.
-/

namespace Culling

open FacetSelection FirstHit

/-! ### Boxes and the slab test -/

/-- An axis-aligned box `[lo, hi]` (coordinate by coordinate). -/
structure Box where
  /-- The lower corner. -/
  lo : Point3
  /-- The upper corner. -/
  hi : Point3

/-- The point `p` lies in the box `B` grown by `μ` in every axis. -/
def NearBox (B : Box) (μ : Rat) (p : Point3) : Prop :=
  B.lo.x - μ ≤ p.x ∧ p.x ≤ B.hi.x + μ ∧ B.lo.y - μ ≤ p.y ∧ p.y ≤ B.hi.y + μ ∧
    B.lo.z - μ ≤ p.z ∧ p.z ≤ B.hi.z + μ

/-- The box `N` contains the box `B`. -/
def Contains (N B : Box) : Prop :=
  N.lo.x ≤ B.lo.x ∧ B.hi.x ≤ N.hi.x ∧ N.lo.y ≤ B.lo.y ∧ B.hi.y ≤ N.hi.y ∧
    N.lo.z ≤ B.lo.z ∧ B.hi.z ≤ N.hi.z

/-- One axis of the slab test: the parameter interval `[te, tx]` narrowed to the parameters
whose coordinate `s + t d` lies in `[l, h]`, or `none` when nothing is left. An axis with
`d = 0` keeps all of it or none. -/
def slabAxis (l h s d te tx : Rat) : Option (Rat × Rat) :=
  if d = 0 then (if l ≤ s ∧ s ≤ h then some (te, tx) else none)
  else if min tx (max ((l - s) / d) ((h - s) / d)) < max te (min ((l - s) / d) ((h - s) / d)) then none
  else some (max te (min ((l - s) / d) ((h - s) / d)), min tx (max ((l - s) / d) ((h - s) / d)))

/-- The parameters in `[0, 1]` at which the segment lies in the box `B` grown by `μ`, as an
interval, or `none` (the three axes in turn, as `_slab_miss` does). -/
def slabClip (B : Box) (μ : Rat) (S : Segment) : Option (Rat × Rat) :=
  match slabAxis (B.lo.x - μ) (B.hi.x + μ) S.s.x (S.e.x - S.s.x) 0 1 with
  | none => none
  | some (te, tx) =>
    match slabAxis (B.lo.y - μ) (B.hi.y + μ) S.s.y (S.e.y - S.s.y) te tx with
    | none => none
    | some (te, tx) => slabAxis (B.lo.z - μ) (B.hi.z + μ) S.s.z (S.e.z - S.s.z) te tx

/-- The slab test reports the segment separated from the box `B` grown by `μ`. -/
def slabSeparated (B : Box) (μ : Rat) (S : Segment) : Bool :=
  match slabClip B μ S with
  | none => true
  | some _ => false

/-- A parameter between the bounds of `(l - s) / d` and `(h - s) / d` when `s + t d` lies in
`[l, h]` and `d ≠ 0`. -/
theorem between_of_inside {l h s d t : Rat} (hd : d ≠ 0) (hl : l ≤ s + t * d) (hh : s + t * d ≤ h) :
    min ((l - s) / d) ((h - s) / d) ≤ t ∧ t ≤ max ((l - s) / d) ((h - s) / d) := by
  have ea : (l - s) / d * d = l - s := Rat.div_mul_cancel hd
  have eb : (h - s) / d * d = h - s := Rat.div_mul_cancel hd
  rcases (Rat.le_total : (0 : Rat) ≤ d ∨ d ≤ 0) with hp | hn
  · have hpos : 0 < d := by grind
    -- d > 0: the parameters are ordered as the coordinates.
    have ha : (l - s) / d ≤ t := by
      apply Classical.byContradiction; intro hc
      have := Rat.mul_lt_mul_of_pos_left (show t < (l - s) / d by grind) hpos
      grind
    have hb : t ≤ (h - s) / d := by
      apply Classical.byContradiction; intro hc
      have := Rat.mul_lt_mul_of_pos_left (show (h - s) / d < t by grind) hpos
      grind
    constructor <;> grind
  · have hneg : 0 < -d := by grind
    -- d < 0: the order is reversed.
    have ha : t ≤ (l - s) / d := by
      apply Classical.byContradiction; intro hc
      have := Rat.mul_lt_mul_of_pos_left (show (l - s) / d < t by grind) hneg
      grind
    have hb : (h - s) / d ≤ t := by
      apply Classical.byContradiction; intro hc
      have := Rat.mul_lt_mul_of_pos_left (show t < (h - s) / d by grind) hneg
      grind
    constructor <;> grind

/-- An axis of the slab test keeps every parameter of its interval at which the coordinate
lies in `[l, h]`. -/
theorem slabAxis_keeps {l h s d te tx t : Rat} (h0 : te ≤ t) (h1 : t ≤ tx)
    (hl : l ≤ s + t * d) (hh : s + t * d ≤ h) :
    ∃ te' tx', slabAxis l h s d te tx = some (te', tx') ∧ te' ≤ t ∧ t ≤ tx' := by
  unfold slabAxis
  by_cases hd : d = 0
  · subst hd
    have hs : l ≤ s ∧ s ≤ h := by grind
    rw [if_pos rfl, if_pos hs]
    exact ⟨te, tx, rfl, h0, h1⟩
  · have ⟨hmin, hmax⟩ := between_of_inside hd hl hh
    have e1 : max te (min ((l - s) / d) ((h - s) / d)) ≤ t := by grind
    have e2 : t ≤ min tx (max ((l - s) / d) ((h - s) / d)) := by grind
    have hnot : ¬ min tx (max ((l - s) / d) ((h - s) / d))
        < max te (min ((l - s) / d) ((h - s) / d)) := by grind
    rw [if_neg hd, if_neg hnot]
    exact ⟨_, _, rfl, e1, e2⟩

/-- Soundness of the slab test: when it reports "separated", no point of the segment lies in
the box grown by the margin. -/
theorem slabSeparated_sound {B : Box} {μ : Rat} {S : Segment} (hs : slabSeparated B μ S = true)
    {t : Rat} (h0 : 0 ≤ t) (h1 : t ≤ 1) : ¬ NearBox B μ (S.pointAt t) := by
  intro hn
  simp only [NearBox, Segment.pointAt] at hn
  obtain ⟨hx0, hx1, hy0, hy1, hz0, hz1⟩ := hn
  obtain ⟨a, b, ha, ha0, ha1⟩ := slabAxis_keeps (s := S.s.x) (d := S.e.x - S.s.x) h0 h1 hx0 hx1
  obtain ⟨c, d, hc, hc0, hc1⟩ := slabAxis_keeps (s := S.s.y) (d := S.e.y - S.s.y) ha0 ha1 hy0 hy1
  obtain ⟨e, f, he, -, -⟩ := slabAxis_keeps (s := S.s.z) (d := S.e.z - S.s.z) hc0 hc1 hz0 hz1
  simp [slabSeparated, slabClip, ha, hc, he] at hs

/-- A point in a box grown by `r` lies in every box containing it grown by `μ ≥ r`. -/
theorem nearBox_mono {B N : Box} {r μ : Rat} {p : Point3} (hc : Contains N B) (hr : r ≤ μ)
    (hp : NearBox B r p) : NearBox N μ p := by
  simp only [NearBox, Contains] at *
  grind

/-! ### The banded classification of one facet -/

/-- The absolute value `max x (-x)`. -/
def absR (x : Rat) : Rat := max x (-x)

/-- The exact box of a facet: the smallest and largest vertex coordinates. -/
def triBox (T : Triangle) : Box :=
  ⟨⟨min (min T.a.x T.b.x) T.c.x, min (min T.a.y T.b.y) T.c.y, min (min T.a.z T.b.z) T.c.z⟩,
   ⟨max (max T.a.x T.b.x) T.c.x, max (max T.a.y T.b.y) T.c.y, max (max T.a.z T.b.z) T.c.z⟩⟩

/-- The exact box of a segment. -/
def segBox (S : Segment) : Box :=
  ⟨⟨min S.s.x S.e.x, min S.s.y S.e.y, min S.s.z S.e.z⟩,
   ⟨max S.s.x S.e.x, max S.s.y S.e.y, max S.s.z S.e.z⟩⟩

/-- Two boxes meet (the scan's first test, exact comparisons). -/
def boxesMeet (A B : Box) : Bool :=
  decide (A.lo.x ≤ B.hi.x ∧ B.lo.x ≤ A.hi.x ∧ A.lo.y ≤ B.hi.y ∧ B.lo.y ≤ A.hi.y ∧
    A.lo.z ≤ B.hi.z ∧ B.lo.z ≤ A.hi.z)

/-- The bands of one facet for one query: near-parallel when `|n · d| ≤ par`; a parameter or
weight is beyond its band when it is below `-bt` (`-bw`) or the parameter above `1 + bt`, and
within it when nonzero and within `bt` (`bw`) of `0` (the parameter also of `1`). -/
structure Bands where
  /-- The near-parallel band on `|n · (e - s)|` (`n` the unnormalized normal). -/
  par : Rat
  /-- The band on the parameter. -/
  bt : Rat
  /-- The band on the three weights. -/
  bw : Rat

/-- Bands are nonnegative. -/
def Bands.Valid (B : Bands) : Prop := 0 ≤ B.par ∧ 0 ≤ B.bt ∧ 0 ≤ B.bw

/-- Nonzero and within the band `b` of zero. -/
def nearZero (x b : Rat) : Bool := decide (x ≠ 0 ∧ absR x ≤ b)

/-- The verdict on one facet. -/
inductive Verdict where
  /-- No contact, whatever the rounding within the bands. -/
  | miss
  /-- Within a band: the query is rejected. -/
  | ambiguous
  /-- A contact with this parameter and these weights. -/
  | hit (c : Crossing)

/-- The banded classification of facet `T` for segment `S` (see the module notes). -/
def classify (B : Bands) (T : Triangle) (S : Segment) : Verdict :=
  if boxesMeet (triBox T) (segBox S) = false then .miss
  else if absR (dot (normal T) S.dir) ≤ B.par then .ambiguous
  else
    if param T S < -B.bt ∨ 1 + B.bt < param T S
        ∨ 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S)) < -B.bw
        ∨ weightB T (S.pointAt (param T S)) < -B.bw ∨ weightC T (S.pointAt (param T S)) < -B.bw then
      .miss
    else if nearZero (param T S) B.bt || nearZero (param T S - 1) B.bt
        || nearZero (1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S))) B.bw
        || nearZero (weightB T (S.pointAt (param T S))) B.bw
        || nearZero (weightC T (S.pointAt (param T S))) B.bw then
      .ambiguous
    else
      .hit ⟨param T S, 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S)),
        weightB T (S.pointAt (param T S)), weightC T (S.pointAt (param T S))⟩

/-- The largest extent `max (|dₓ|, |d_y|, |d_z|)` of the segment's direction. -/
def dirInf (S : Segment) : Rat :=
  max (max (absR (S.e.x - S.s.x)) (absR (S.e.y - S.s.y))) (absR (S.e.z - S.s.z))

/-- The largest side of the facet's box. -/
def width (T : Triangle) : Rat :=
  max (max ((triBox T).hi.x - (triBox T).lo.x) ((triBox T).hi.y - (triBox T).lo.y))
    ((triBox T).hi.z - (triBox T).lo.z)

/-- How far from the facet's box a segment point can be found when the facet is not a miss:
`bt · |d|_∞ + 3 bw · width`. -/
def reach (B : Bands) (T : Triangle) (S : Segment) : Rat :=
  B.bt * dirInf S + 3 * (B.bw * width T)

/-- `|x| ≤ b` exactly when `-b ≤ x ≤ b`. -/
theorem absR_le {x b : Rat} : absR x ≤ b ↔ -b ≤ x ∧ x ≤ b := by
  unfold absR; grind

/-- `-|x| ≤ x ≤ |x|`. -/
theorem absR_bounds (x : Rat) : -absR x ≤ x ∧ x ≤ absR x := by
  unfold absR; grind

/-- `α v ≥ -(w W)` when `α ≥ -w`, `w ≥ 0` and `0 ≤ v ≤ W`. -/
theorem term_ge {α w v W : Rat} (hα : -w ≤ α) (hw : 0 ≤ w) (hv : 0 ≤ v) (hvW : v ≤ W) :
    -(w * W) ≤ α * v := by
  have h1 := Rat.mul_nonneg (show 0 ≤ α + w by grind) hv
  have h2 := Rat.mul_le_mul_of_nonneg_left hvW hw
  grind

/-- One coordinate of a point with weights at least `-w` (summing to one) over vertex
coordinates in `[lo, hi]` lies within `3 w (hi - lo)` of `[lo, hi]`. -/
theorem coord_near {α β γ w a b c lo hi : Rat} (hs : α + β + γ = 1) (hα : -w ≤ α) (hβ : -w ≤ β)
    (hγ : -w ≤ γ) (hw : 0 ≤ w) (ha : lo ≤ a ∧ a ≤ hi) (hb : lo ≤ b ∧ b ≤ hi)
    (hc : lo ≤ c ∧ c ≤ hi) :
    lo - 3 * (w * (hi - lo)) ≤ α * a + β * b + γ * c ∧
      α * a + β * b + γ * c ≤ hi + 3 * (w * (hi - lo)) := by
  have la := term_ge hα hw (show 0 ≤ a - lo by grind) (show a - lo ≤ hi - lo by grind)
  have lb := term_ge hβ hw (show 0 ≤ b - lo by grind) (show b - lo ≤ hi - lo by grind)
  have lc := term_ge hγ hw (show 0 ≤ c - lo by grind) (show c - lo ≤ hi - lo by grind)
  have ua := term_ge hα hw (show 0 ≤ hi - a by grind) (show hi - a ≤ hi - lo by grind)
  have ub := term_ge hβ hw (show 0 ≤ hi - b by grind) (show hi - b ≤ hi - lo by grind)
  have uc := term_ge hγ hw (show 0 ≤ hi - c by grind) (show hi - c ≤ hi - lo by grind)
  have el : (α + β + γ) * lo = lo := by rw [hs, Rat.one_mul]
  have eh : (α + β + γ) * hi = hi := by rw [hs, Rat.one_mul]
  constructor <;> grind

/-- `|δ d| ≤ b D` when `|δ| ≤ b` and `|d| ≤ D`. -/
theorem mul_within {δ d b D : Rat} (h1 : -b ≤ δ) (h2 : δ ≤ b) (h3 : -D ≤ d) (h4 : d ≤ D) :
    -(b * D) ≤ δ * d ∧ δ * d ≤ b * D := by
  have p1 := Rat.mul_nonneg (show 0 ≤ b - δ by grind) (show 0 ≤ D - d by grind)
  have p2 := Rat.mul_nonneg (show 0 ≤ b + δ by grind) (show 0 ≤ D + d by grind)
  have p3 := Rat.mul_nonneg (show 0 ≤ b - δ by grind) (show 0 ≤ D + d by grind)
  have p4 := Rat.mul_nonneg (show 0 ≤ b + δ by grind) (show 0 ≤ D - d by grind)
  constructor <;> grind

/-- One axis of the reach: a coordinate `x = s + t d` within `3 w W` of `[lo, hi]`, moved to
`s + u d` with `|u - t| ≤ bt` and `|d| ≤ D`, `w W ≤ w K`, is within `bt D + 3 w K`. -/
theorem axis_near {lo hi x s d t u bt D w K : Rat}
    (hc : lo - 3 * (w * (hi - lo)) ≤ x ∧ x ≤ hi + 3 * (w * (hi - lo))) (hx : x = s + t * d)
    (hm : -(bt * D) ≤ (u - t) * d ∧ (u - t) * d ≤ bt * D) (hk : w * (hi - lo) ≤ w * K) :
    lo - (bt * D + 3 * (w * K)) ≤ s + u * d ∧ s + u * d ≤ hi + (bt * D + 3 * (w * K)) := by
  constructor <;> grind

/-- The nearest parameter in `[0, 1]` to a `t` in `[-bt, 1 + bt]` is within `bt` of it. -/
theorem clamp_near {t bt : Rat} (hbt : 0 ≤ bt) (h0 : ¬ t < -bt) (h1 : ¬ 1 + bt < t) :
    0 ≤ max 0 (min t 1) ∧ max 0 (min t 1) ≤ 1 ∧
      -bt ≤ max 0 (min t 1) - t ∧ max 0 (min t 1) - t ≤ bt := by
  grind

/-- A facet that is not near-parallel and not a miss has a point of the segment within its
`reach` of its box, in every axis. -/
theorem classify_ne_miss_near {B : Bands} {T : Triangle} {S : Segment} (hB : B.Valid)
    (hpar : B.par < absR (dot (normal T) S.dir)) (hv : classify B T S ≠ .miss) :
    ∃ t, 0 ≤ t ∧ t ≤ 1 ∧ NearBox (triBox T) (reach B T S) (S.pointAt t) := by
  obtain ⟨hp0, hbt, hbw⟩ := hB
  have hnp : ¬ absR (dot (normal T) S.dir) ≤ B.par := by grind
  have h1 : ¬ boxesMeet (triBox T) (segBox S) = false := by
    intro h1; apply hv; unfold classify; rw [if_pos h1]
  -- Not a miss: the parameter and the weights are within their bands on the outside.
  have hin : ¬ (param T S < -B.bt ∨ 1 + B.bt < param T S
      ∨ 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S)) < -B.bw
      ∨ weightB T (S.pointAt (param T S)) < -B.bw ∨ weightC T (S.pointAt (param T S)) < -B.bw) := by
    intro hc; apply hv; unfold classify; rw [if_neg h1, if_neg hnp, if_pos hc]
  -- The crossing point is the barycentric point of the weights.
  have hd : dot (normal T) S.dir ≠ 0 := by
    intro h0
    rw [h0] at hpar
    have := (absR_le (x := 0) (b := B.par)).2 ⟨by grind, hp0⟩
    grind
  have hne : height T S.s ≠ height T S.e := by
    intro h0; apply hd; rw [← height_sub_height]; grind
  have hbary := barycentric_of_weights T _ (height_pointAt_param T S hne) (dot_self_ne_zero hd)
  generalize weightB T (S.pointAt (param T S)) = β at hin hbary
  generalize weightC T (S.pointAt (param T S)) = γ at hin hbary
  generalize param T S = t at hin hbary
  have hx := congrArg Point3.x hbary
  have hy := congrArg Point3.y hbary
  have hz := congrArg Point3.z hbary
  simp only [barycentricPoint, Segment.pointAt] at hx hy hz
  have hs : (1 - β - γ) + β + γ = 1 := by grind
  have wα : -B.bw ≤ 1 - β - γ := by grind
  have wβ : -B.bw ≤ β := by grind
  have wγ : -B.bw ≤ γ := by grind
  have cx := coord_near (a := T.a.x) (b := T.b.x) (c := T.c.x) hs wα wβ wγ hbw
    (lo := (triBox T).lo.x) (hi := (triBox T).hi.x) (by simp only [triBox]; grind)
    (by simp only [triBox]; grind) (by simp only [triBox]; grind)
  have cy := coord_near (a := T.a.y) (b := T.b.y) (c := T.c.y) hs wα wβ wγ hbw
    (lo := (triBox T).lo.y) (hi := (triBox T).hi.y) (by simp only [triBox]; grind)
    (by simp only [triBox]; grind) (by simp only [triBox]; grind)
  have cz := coord_near (a := T.a.z) (b := T.b.z) (c := T.c.z) hs wα wβ wγ hbw
    (lo := (triBox T).lo.z) (hi := (triBox T).hi.z) (by simp only [triBox]; grind)
    (by simp only [triBox]; grind) (by simp only [triBox]; grind)
  -- The nearest parameter in [0, 1] is within bt of t.
  have ⟨u0, u1, hδ0, hδ1⟩ := clamp_near hbt (fun h => hin (Or.inl h)) (fun h => hin (Or.inr (Or.inl h)))
  refine ⟨max 0 (min t 1), u0, u1, ?_⟩
  generalize max 0 (min t 1) = u at hδ0 hδ1 ⊢
  have ax := absR_bounds (S.e.x - S.s.x)
  have ay := absR_bounds (S.e.y - S.s.y)
  have az := absR_bounds (S.e.z - S.s.z)
  have dx : absR (S.e.x - S.s.x) ≤ dirInf S := by unfold dirInf; grind
  have dy : absR (S.e.y - S.s.y) ≤ dirInf S := by unfold dirInf; grind
  have dz : absR (S.e.z - S.s.z) ≤ dirInf S := by unfold dirInf; grind
  have mx := mul_within hδ0 hδ1 (show -dirInf S ≤ S.e.x - S.s.x by grind)
    (show S.e.x - S.s.x ≤ dirInf S by grind)
  have my := mul_within hδ0 hδ1 (show -dirInf S ≤ S.e.y - S.s.y by grind)
    (show S.e.y - S.s.y ≤ dirInf S by grind)
  have mz := mul_within hδ0 hδ1 (show -dirInf S ≤ S.e.z - S.s.z by grind)
    (show S.e.z - S.s.z ≤ dirInf S by grind)
  have kx := Rat.mul_le_mul_of_nonneg_left
    (show (triBox T).hi.x - (triBox T).lo.x ≤ width T by unfold width; grind) hbw
  have ky := Rat.mul_le_mul_of_nonneg_left
    (show (triBox T).hi.y - (triBox T).lo.y ≤ width T by unfold width; grind) hbw
  have kz := Rat.mul_le_mul_of_nonneg_left
    (show (triBox T).hi.z - (triBox T).lo.z ≤ width T by unfold width; grind) hbw
  have nx := axis_near cx hx mx kx
  have ny := axis_near cy hy my ky
  have nz := axis_near cz hz mz kz
  simp only [NearBox, reach, Segment.pointAt]
  exact ⟨nx.1, nx.2, ny.1, ny.2, nz.1, nz.2⟩

/-! ### Culling keeps the answer -/

/-- Why the hierarchy skipped a facet. -/
inductive Cull where
  /-- The facet's box misses the segment's box (the scan's first test). -/
  | box
  /-- The segment is slab-separated from the node box `N` grown by the margin `μ`. -/
  | margin (N : Box) (μ : Rat)

/-- A valid reason to skip facet `T` with bands `B` for segment `S`: its box misses the
segment's box; or it is not near-parallel, lies in `N`, its reach is at most `μ`, and the slab
test separates the segment from `N` grown by `μ`. -/
def Cull.Valid (B : Bands) (T : Triangle) (S : Segment) : Cull → Prop
  | .box => boxesMeet (triBox T) (segBox S) = false
  | .margin N μ => B.par < absR (dot (normal T) S.dir) ∧ Contains N (triBox T) ∧
      reach B T S ≤ μ ∧ slabSeparated N μ S = true

/-- A facet culled for a valid reason is a miss. -/
theorem culled_is_miss {B : Bands} {T : Triangle} {S : Segment} {c : Cull} (hB : B.Valid)
    (hc : c.Valid B T S) : classify B T S = .miss := by
  cases c with
  | box =>
    simp only [Cull.Valid] at hc
    unfold classify; rw [if_pos hc]
  | margin N μ =>
    simp only [Cull.Valid] at hc
    obtain ⟨hpar, hcon, hr, hs⟩ := hc
    apply Classical.byContradiction
    intro hv
    obtain ⟨t, h0, h1, hnear⟩ := classify_ne_miss_near hB hpar hv
    exact slabSeparated_sound hs h0 h1 (nearBox_mono hcon hr hnear)

/-- The answer of a query: the lowest ambiguous facet, else the first hit (index and crossing),
else none. -/
inductive Answer where
  /-- No contact. -/
  | none
  /-- The query is rejected; the lowest ambiguous facet. -/
  | ambiguous (index : Nat)
  /-- The first hit. -/
  | hit (index : Nat) (c : Crossing)

/-- One step of the reduction in index order: a miss changes nothing, the first ambiguous facet
wins over everything, a hit replaces a kept hit only at a strictly smaller parameter. -/
def stepAnswer (i : Nat) (v : Verdict) (acc : Answer) : Answer :=
  match v, acc with
  | .miss, acc => acc
  | .ambiguous, .ambiguous j => .ambiguous j
  | .ambiguous, _ => .ambiguous i
  | .hit _, .ambiguous j => .ambiguous j
  | .hit c, .none => .hit i c
  | .hit c, .hit j c' => if c.t < c'.t then .hit i c else .hit j c'

/-- A facet with its index, its bands and its triangle. -/
structure Facet where
  /-- The facet's index in the surface. -/
  index : Nat
  /-- Its bands for the query. -/
  bands : Bands
  /-- Its triangle. -/
  tri : Triangle

/-- The reduction over facets in list order from `acc`. -/
def answerFrom (S : Segment) : List Facet → Answer → Answer
  | [], acc => acc
  | F :: Fs, acc => answerFrom S Fs (stepAnswer F.index (classify F.bands F.tri S) acc)

/-- The answer over facets listed in index order. -/
def answer (S : Segment) (Fs : List Facet) : Answer := answerFrom S Fs .none

/-- The facets kept by a hierarchy: those for which `cull` gives no reason. -/
def candidates (cull : Facet → Option Cull) : List Facet → List Facet
  | [] => []
  | F :: Fs =>
    match cull F with
    | none => F :: candidates cull Fs
    | some _ => candidates cull Fs

/-- Dropping facets that are misses does not change the reduction. -/
theorem answerFrom_candidates (S : Segment) (cull : Facet → Option Cull) (Fs : List Facet)
    (hmiss : ∀ F ∈ Fs, ∀ c, cull F = some c → classify F.bands F.tri S = .miss) (acc : Answer) :
    answerFrom S (candidates cull Fs) acc = answerFrom S Fs acc := by
  induction Fs generalizing acc with
  | nil => rfl
  | cons F Fs ih =>
    have ih' := ih (fun G hG c hc => hmiss G (by simp [hG]) c hc)
    cases hc : cull F with
    | none => simp only [candidates, hc, answerFrom]; exact ih' _
    | some c =>
      have hm := hmiss F (by simp) c hc
      simp only [candidates, hc, answerFrom, hm, stepAnswer]
      exact ih' acc

/-- Culling keeps the answer: when every facet the hierarchy skips is skipped for a valid reason
(and has valid bands), the first-hit answer over the candidates, ambiguity verdict included,
equals the answer over all facets. -/
theorem answer_candidates (S : Segment) (cull : Facet → Option Cull) (Fs : List Facet)
    (hvalid : ∀ F ∈ Fs, ∀ c, cull F = some c → F.bands.Valid ∧ c.Valid F.bands F.tri S) :
    answer S (candidates cull Fs) = answer S Fs :=
  answerFrom_candidates S cull Fs
    (fun F hF c hc => culled_is_miss (hvalid F hF c hc).1 (hvalid F hF c hc).2) .none

/-- A hit of the banded classification is an exact contact of `FirstHit` (so the bands only
add misses and ambiguity, never another contact). -/
theorem classify_hit_crossing {B : Bands} {T : Triangle} {S : Segment} {c : Crossing}
    (hB : B.Valid) (h : classify B T S = .hit c) : crossing T S = some c := by
  unfold classify at h
  by_cases h1 : boxesMeet (triBox T) (segBox S) = false
  · rw [if_pos h1] at h; cases h
  rw [if_neg h1] at h
  by_cases h2 : absR (dot (normal T) S.dir) ≤ B.par
  · rw [if_pos h2] at h; cases h
  rw [if_neg h2] at h
  have hd : dot (normal T) S.dir ≠ 0 := by
    intro h0
    rw [h0] at h2
    exact h2 ((absR_le (x := 0) (b := B.par)).2 ⟨by grind [Bands.Valid], hB.1⟩)
  have hne : height T S.s ≠ height T S.e := by
    intro h0; apply hd; rw [← height_sub_height]; grind
  generalize hβ : weightB T (S.pointAt (param T S)) = β at h
  generalize hγ : weightC T (S.pointAt (param T S)) = γ at h
  generalize ht : param T S = t at h
  by_cases h3 : t < -B.bt ∨ 1 + B.bt < t ∨ 1 - β - γ < -B.bw ∨ β < -B.bw ∨ γ < -B.bw
  · rw [if_pos h3] at h; cases h
  rw [if_neg h3] at h
  by_cases h4 : (nearZero t B.bt || nearZero (t - 1) B.bt || nearZero (1 - β - γ) B.bw
      || nearZero β B.bw || nearZero γ B.bw) = true
  · rw [if_pos h4] at h; cases h
  rw [if_neg h4] at h
  simp only [Verdict.hit.injEq] at h
  subst h
  have hr : 0 ≤ t ∧ t ≤ 1 ∧ 0 ≤ 1 - β - γ ∧ 0 ≤ β ∧ 0 ≤ γ := by
    simp only [nearZero, absR_le, Bool.or_eq_true, decide_eq_true_eq] at h4
    grind
  unfold crossing
  rw [if_neg hne, hβ, hγ, ht, if_pos hr]

end Culling
