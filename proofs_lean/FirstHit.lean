import FacetSelection

/-!
# The exact first hit of a segment on a triangle soup

An executable exact model, over core Lean's `Rat`, of the `first_hit` query of spec 004 and of
the exact contact that `interval/triangle.py` computes, with proofs that the selection it makes
is sound, complete and follows the tie rule, and that the normal and the facing follow the
winding. It builds on `FacetSelection` (points, barycentric points, valid facet coordinates, the
plane lemma).

Every finite binary32 and binary64 value is a dyadic rational, so the model covers every finite
IEEE input exactly. It says nothing about rounded evaluation, tolerance bands or ambiguity: the
binary64 query of `reference/triangle_surface.py` is tied to it by tests, not by proof.

## The modelled contact (the variant of `interval/triangle.py`)

For a facet `(a, b, c)` with edges `e₁ = b - a`, `e₂ = c - a` and the unnormalized normal
`n = e₁ × e₂`, and a segment `S(t) = s + t (e - s)`:

* heights `h_s = n · (s - a)`, `h_e = n · (e - a)`; the segment is *parallel* when `h_s = h_e`
  (that is `n · (e - s) = 0`, which includes a degenerate facet, `n = 0`);
* otherwise the plane parameter is `t = h_s / (h_s - h_e)`, and the weights of the crossing point
  `x = S(t)` are `β = ((x - a) × e₂) · n / (n · n)`, `γ = (e₁ × (x - a)) · n / (n · n)` and
  `α = 1 - β - γ` (of the vertices `a`, `b`, `c`); it is a contact when `0 ≤ t ≤ 1` and all three
  weights are nonnegative. `interval/triangle.py` interpolates the same affine weights between
  the endpoints, which gives the same rationals;
* a parallel segment has no contact in this model. Off the plane it has none in either; a
  *coplanar* segment (`h_s = h_e = 0`) has an interval of contacts in `interval/triangle.py`
  and none here: coplanar contacts are excluded, and `ExactContact` excludes them too.

`facing` is `front` when `n · (e - s) < 0` (the segment travels against the winding's normal)
and `back` otherwise, as in `interval/triangle.py` (sign -1 Front, +1 Back).

`firstHit` scans the facets in index order, keeping the smallest parameter; a later facet
replaces the kept one only when its parameter is strictly smaller, so exact ties keep the lowest
index.

## Main definitions

* `FirstHit.sub`, `FirstHit.dot`, `FirstHit.cross`, `FirstHit.neg`: vector arithmetic.
* `FirstHit.Triangle`, `FirstHit.normal`: a facet and its winding normal `(b - a) × (c - a)`.
* `FirstHit.Segment`, `FirstHit.Segment.dir`, `FirstHit.Segment.pointAt`: a segment, its
  direction `e - s` and its point `s + t (e - s)`.
* `FirstHit.Facing`, `FirstHit.Facing.flip`, `FirstHit.facing`: the side the segment meets.
* `FirstHit.Crossing`, `FirstHit.height`, `FirstHit.param`, `FirstHit.weightB`,
  `FirstHit.weightC`, `FirstHit.crossing`: the exact contact of one facet.
* `FirstHit.ExactContact`: the geometric statement "the segment point at `t` is the
  barycentric point of the facet under valid facet coordinates, and the segment is not parallel
  to the facet's plane".
* `FirstHit.Hit`, `FirstHit.mkHit`, `FirstHit.step`, `FirstHit.scan`, `FirstHit.firstHit`:
  the selection; `FirstHit.crossingTimes`: the facets' crossing parameters in index order.

## Main statements

* cross product assembly: `FirstHit.normal_dot_edges`, `FirstHit.normal_swap_ab`,
  `FirstHit.normal_swap_bc`, `FirstHit.normal_swap_ac`;
* winding: `FirstHit.facing_eq_front_iff`, `FirstHit.facing_eq_back_iff`,
  `FirstHit.facing_of_normal_neg`, `FirstHit.facing_swap_bc`;
* one facet: `FirstHit.crossing_sound`, `FirstHit.crossing_complete`;
* soundness: `FirstHit.firstHit_mem`, `FirstHit.firstHit_sound`;
* completeness: `FirstHit.firstHit_complete`, `FirstHit.firstHit_le_crossing`,
  `FirstHit.firstHit_eq_none_iff`;
* tie rule: `FirstHit.firstHit_tie`, `FirstHit.firstHit_tie_crossing`;
* the selection is `FacetSelection.minFold` over `crossingTimes`: `FirstHit.firstHit_t_eq_minFold`.

The remaining theorems are the lemmas these rest on.

## Implementation notes

The executable definitions use only their own recursion and `Rat` arithmetic (no library list
functions), so that the WebAssembly checker, whose imported compiled code is partial, can
`#eval` them; `tests/lean/test_first_hit_eval.py` does so on a few hundred cases.
`AxiomAudit.lean` lists every declaration of this file and its generated equation lemmas.
-/

namespace FirstHit

open FacetSelection

/-- The difference `p - q` of two points, coordinate by coordinate. -/
def sub (p q : Point3) : Point3 := ⟨p.x - q.x, p.y - q.y, p.z - q.z⟩

/-- The dot product `p · q`. -/
def dot (p q : Point3) : Rat := p.x * q.x + p.y * q.y + p.z * q.z

/-- The cross product `p × q`. -/
def cross (p q : Point3) : Point3 :=
  ⟨p.y * q.z - p.z * q.y, p.z * q.x - p.x * q.z, p.x * q.y - p.y * q.x⟩

/-- The negated vector `-p`. -/
def neg (p : Point3) : Point3 := ⟨-p.x, -p.y, -p.z⟩

/-- A facet: three vertices in winding order. -/
structure Triangle where
  /-- The first vertex. -/
  a : Point3
  /-- The second vertex. -/
  b : Point3
  /-- The third vertex. -/
  c : Point3

/-- The winding normal `(b - a) × (c - a)` (unnormalized, exact). -/
def normal (T : Triangle) : Point3 := cross (sub T.b T.a) (sub T.c T.a)

/-- A segment from `s` to `e`, parameterized by `t ∈ [0, 1]`. -/
structure Segment where
  /-- The start. -/
  s : Point3
  /-- The end. -/
  e : Point3

/-- The direction `e - s` of a segment. -/
def Segment.dir (S : Segment) : Point3 := sub S.e S.s

/-- The point `s + t (e - s)` of a segment. -/
def Segment.pointAt (S : Segment) (t : Rat) : Point3 :=
  ⟨S.s.x + t * (S.e.x - S.s.x), S.s.y + t * (S.e.y - S.s.y), S.s.z + t * (S.e.z - S.s.z)⟩

/-- The side of a facet that a segment meets. -/
inductive Facing where
  /-- Against the winding normal. -/
  | front
  /-- Along the winding normal (or parallel). -/
  | back

/-- The other side. -/
def Facing.flip : Facing → Facing
  | .front => .back
  | .back => .front

/-- `front` when `n · (e - s) < 0`, else `back`. -/
def facing (T : Triangle) (S : Segment) : Facing :=
  if dot (normal T) S.dir < 0 then .front else .back

/-- A contact of a segment with one facet: the parameter and the weights of `a`, `b`, `c`. -/
structure Crossing where
  /-- The segment parameter. -/
  t : Rat
  /-- The weight of `a`. -/
  α : Rat
  /-- The weight of `b`. -/
  β : Rat
  /-- The weight of `c`. -/
  γ : Rat

/-- The height `n · (p - a)` of a point over the facet's plane (times `|n|`). -/
def height (T : Triangle) (p : Point3) : Rat := dot (normal T) (sub p T.a)

/-- The plane parameter `h_s / (h_s - h_e)`. -/
def param (T : Triangle) (S : Segment) : Rat :=
  height T S.s / (height T S.s - height T S.e)

/-- The weight of `b` of a point projected on the plane: `((p - a) × e₂) · n / (n · n)`. -/
def weightB (T : Triangle) (p : Point3) : Rat :=
  dot (cross (sub p T.a) (sub T.c T.a)) (normal T) / dot (normal T) (normal T)

/-- The weight of `c` of a point projected on the plane: `(e₁ × (p - a)) · n / (n · n)`. -/
def weightC (T : Triangle) (p : Point3) : Rat :=
  dot (cross (sub T.b T.a) (sub p T.a)) (normal T) / dot (normal T) (normal T)

/-- The exact contact of a segment with a facet (see the module notes): none when parallel,
else the plane parameter and the weights of the crossing point when they are all in range. -/
def crossing (T : Triangle) (S : Segment) : Option Crossing :=
  if height T S.s = height T S.e then none
  else if 0 ≤ param T S ∧ param T S ≤ 1
      ∧ 0 ≤ 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S))
      ∧ 0 ≤ weightB T (S.pointAt (param T S)) ∧ 0 ≤ weightC T (S.pointAt (param T S)) then
    some ⟨param T S, 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S)),
      weightB T (S.pointAt (param T S)), weightC T (S.pointAt (param T S))⟩
  else none

/-- The segment meets the closed facet at parameter `t` with weights `(α, β, γ)`, and is not
parallel to its plane. -/
def ExactContact (T : Triangle) (S : Segment) (t α β γ : Rat) : Prop :=
  dot (normal T) S.dir ≠ 0 ∧ 0 ≤ t ∧ t ≤ 1 ∧ ValidFacetCoordinates α β γ ∧
    barycentricPoint T.a T.b T.c α β γ = S.pointAt t

/-- A published hit: facet index, parameter, weights and facing. -/
structure Hit where
  /-- The facet's index in the list. -/
  index : Nat
  /-- The segment parameter. -/
  t : Rat
  /-- The weight of `a`. -/
  α : Rat
  /-- The weight of `b`. -/
  β : Rat
  /-- The weight of `c`. -/
  γ : Rat
  /-- The side met. -/
  facing : Facing

/-- The hit of facet `i` from its crossing. -/
def mkHit (i : Nat) (T : Triangle) (S : Segment) (c : Crossing) : Hit :=
  ⟨i, c.t, c.α, c.β, c.γ, facing T S⟩

/-- One scan step: facet `i` replaces the kept hit when it has a contact at a strictly smaller
parameter (or nothing is kept yet). -/
def step (S : Segment) (i : Nat) (T : Triangle) (best : Option Hit) : Option Hit :=
  match crossing T S, best with
  | none, _ => best
  | some c, none => some (mkHit i T S c)
  | some c, some h => if c.t < h.t then some (mkHit i T S c) else some h

/-- Scans the facets, the first one having index `i`, from the kept hit `best`. -/
def scan (S : Segment) : Nat → List Triangle → Option Hit → Option Hit
  | _, [], best => best
  | i, T :: Ts, best => scan S (i + 1) Ts (step S i T best)

/-- The first hit of the segment on the facets, in index order. -/
def firstHit (Ts : List Triangle) (S : Segment) : Option Hit := scan S 0 Ts none

/-- The parameters of the facets' crossings, in index order (the candidates of `minFold`). -/
def crossingTimes (S : Segment) : List Triangle → List Rat
  | [] => []
  | T :: Ts =>
    match crossing T S with
    | none => crossingTimes S Ts
    | some c => c.t :: crossingTimes S Ts

/-! ### Cross product assembly and winding -/

/-- Two points with equal coordinates are equal. -/
theorem point3_ext {p q : Point3} (hx : p.x = q.x) (hy : p.y = q.y) (hz : p.z = q.z) :
    p = q := by
  cases p; cases q; simp_all

/-- The winding normal is orthogonal to both edges from `a`. -/
theorem normal_dot_edges (T : Triangle) :
    dot (normal T) (sub T.b T.a) = 0 ∧ dot (normal T) (sub T.c T.a) = 0 := by
  simp only [normal, dot, cross, sub]
  constructor <;> grind

/-- Swapping the first two vertices negates the normal. -/
theorem normal_swap_ab (a b c : Point3) : normal ⟨b, a, c⟩ = neg (normal ⟨a, b, c⟩) := by
  apply point3_ext <;> simp only [normal, cross, sub, neg] <;> grind

/-- Swapping the last two vertices negates the normal. -/
theorem normal_swap_bc (a b c : Point3) : normal ⟨a, c, b⟩ = neg (normal ⟨a, b, c⟩) := by
  apply point3_ext <;> simp only [normal, cross, sub, neg] <;> grind

/-- Swapping the first and the last vertex negates the normal. -/
theorem normal_swap_ac (a b c : Point3) : normal ⟨c, b, a⟩ = neg (normal ⟨a, b, c⟩) := by
  apply point3_ext <;> simp only [normal, cross, sub, neg] <;> grind

/-- The facing is `front` exactly when `n · (e - s) < 0`. -/
theorem facing_eq_front_iff (T : Triangle) (S : Segment) :
    facing T S = .front ↔ dot (normal T) S.dir < 0 := by
  unfold facing
  split <;> simp_all

/-- The facing is `back` exactly when `n · (e - s) ≥ 0`. -/
theorem facing_eq_back_iff (T : Triangle) (S : Segment) :
    facing T S = .back ↔ 0 ≤ dot (normal T) S.dir := by
  unfold facing
  split
  · simp only [reduceCtorEq, false_iff]; grind
  · simp only [true_iff]; grind

/-- A facet whose normal is the negated normal of another meets a non-parallel segment from
the other side. -/
theorem facing_of_normal_neg {T T' : Triangle} (S : Segment) (hn : normal T' = neg (normal T))
    (hd : dot (normal T) S.dir ≠ 0) : facing T' S = (facing T S).flip := by
  have key : dot (normal T') S.dir = -dot (normal T) S.dir := by
    rw [hn]; simp only [dot, neg]; grind
  unfold facing
  rw [key]
  by_cases h : dot (normal T) S.dir < 0
  · have h' : ¬ -dot (normal T) S.dir < 0 := by grind
    simp only [h, h', if_true, if_false, Facing.flip]
  · have h' : -dot (normal T) S.dir < 0 := by grind
    simp only [h, h', if_true, if_false, Facing.flip]

/-- Reversing the winding (swapping `b` and `c`) flips the facing of a non-parallel segment. -/
theorem facing_swap_bc (a b c : Point3) (S : Segment) (hd : dot (normal ⟨a, b, c⟩) S.dir ≠ 0) :
    facing ⟨a, c, b⟩ S = (facing ⟨a, b, c⟩ S).flip :=
  facing_of_normal_neg S (normal_swap_bc a b c) hd

/-! ### One facet: the crossing is exactly the geometric contact -/

/-- `n · (e - a) - n · (s - a) = n · (e - s)`. -/
theorem height_sub_height (T : Triangle) (S : Segment) :
    height T S.e - height T S.s = dot (normal T) S.dir := by
  simp only [height, Segment.dir, dot, sub]; grind

/-- A square is nonnegative. -/
theorem rat_mul_self_nonneg (a : Rat) : 0 ≤ a * a := by
  rcases (Rat.le_total : (0 : Rat) ≤ a ∨ a ≤ 0) with h | h
  · exact Rat.mul_nonneg h h
  · have h' : 0 ≤ -a := by grind
    have := Rat.mul_nonneg h' h'
    grind

/-- A vector with a nonzero dot product with some vector has a nonzero squared length. -/
theorem dot_self_ne_zero {n d : Point3} (h : dot n d ≠ 0) : dot n n ≠ 0 := by
  intro h0
  have hx := rat_mul_self_nonneg n.x
  have hy := rat_mul_self_nonneg n.y
  have hz := rat_mul_self_nonneg n.z
  simp only [dot] at h h0
  have h1 : n.x * n.x = 0 := by grind
  have h2 : n.y * n.y = 0 := by grind
  have h3 : n.z * n.z = 0 := by grind
  have e1 : n.x = 0 := by grind
  have e2 : n.y = 0 := by grind
  have e3 : n.z = 0 := by grind
  apply h
  rw [e1, e2, e3]
  grind

/-- Any vector `w` is `((w × e₂) · n) e₁ + ((e₁ × w) · n) e₂ + (w · n) n` over `n · n`, where
`n = e₁ × e₂` (the x coordinate, multiplied out). -/
theorem decompose_x (w e1 e2 : Point3) :
    dot (cross e1 e2) (cross e1 e2) * w.x
      = dot (cross w e2) (cross e1 e2) * e1.x + dot (cross e1 w) (cross e1 e2) * e2.x
        + dot w (cross e1 e2) * (cross e1 e2).x := by
  simp only [dot, cross]; grind

/-- `decompose_x` for the y coordinate. -/
theorem decompose_y (w e1 e2 : Point3) :
    dot (cross e1 e2) (cross e1 e2) * w.y
      = dot (cross w e2) (cross e1 e2) * e1.y + dot (cross e1 w) (cross e1 e2) * e2.y
        + dot w (cross e1 e2) * (cross e1 e2).y := by
  simp only [dot, cross]; grind

/-- `decompose_x` for the z coordinate. -/
theorem decompose_z (w e1 e2 : Point3) :
    dot (cross e1 e2) (cross e1 e2) * w.z
      = dot (cross w e2) (cross e1 e2) * e1.z + dot (cross e1 w) (cross e1 e2) * e2.z
        + dot w (cross e1 e2) * (cross e1 e2).z := by
  simp only [dot, cross]; grind

/-- The crossing point lies on the facet's plane: `n · (S(t) - a) = 0` for the plane
parameter `t` of a non-parallel segment. -/
theorem height_pointAt_param (T : Triangle) (S : Segment) (h : height T S.s ≠ height T S.e) :
    dot (normal T) (sub (S.pointAt (param T S)) T.a) = 0 := by
  have ht : param T S * (height T S.s - height T S.e) = height T S.s := by
    unfold param
    have : height T S.s - height T S.e ≠ 0 := by grind
    grind
  simp only [height, param, Segment.pointAt, dot, sub] at ht ⊢
  grind

/-- The barycentric point of the projected weights of a point `p` on the plane is `p`. -/
theorem barycentric_of_weights (T : Triangle) (p : Point3)
    (hp : dot (normal T) (sub p T.a) = 0) (hk : dot (normal T) (normal T) ≠ 0) :
    barycentricPoint T.a T.b T.c (1 - weightB T p - weightC T p) (weightB T p) (weightC T p)
      = p := by
  have hx := decompose_x (sub p T.a) (sub T.b T.a) (sub T.c T.a)
  have hy := decompose_y (sub p T.a) (sub T.b T.a) (sub T.c T.a)
  have hz := decompose_z (sub p T.a) (sub T.b T.a) (sub T.c T.a)
  have hn : dot (sub p T.a) (cross (sub T.b T.a) (sub T.c T.a)) = 0 := by
    simp only [normal, dot] at hp ⊢; grind
  rw [hn] at hx hy hz
  unfold weightB weightC
  simp only [normal] at hk ⊢
  -- Name the three dot products, so that only field arithmetic is left.
  generalize dot (cross (sub T.b T.a) (sub T.c T.a)) (cross (sub T.b T.a) (sub T.c T.a)) = K
    at hk hx hy hz ⊢
  generalize dot (cross (sub p T.a) (sub T.c T.a)) (cross (sub T.b T.a) (sub T.c T.a)) = m1
    at hx hy hz ⊢
  generalize dot (cross (sub T.b T.a) (sub p T.a)) (cross (sub T.b T.a) (sub T.c T.a)) = m2
    at hx hy hz ⊢
  simp only [sub, Rat.zero_mul, Rat.add_zero] at hx hy hz
  apply point3_ext <;> simp only [barycentricPoint] <;> grind

/-- Soundness for one facet: a computed crossing is an exact contact. -/
theorem crossing_sound {T : Triangle} {S : Segment} {c : Crossing} (h : crossing T S = some c) :
    ExactContact T S c.t c.α c.β c.γ := by
  unfold crossing at h
  by_cases hp : height T S.s = height T S.e
  · simp [hp] at h
  · by_cases hr : 0 ≤ param T S ∧ param T S ≤ 1
        ∧ 0 ≤ 1 - weightB T (S.pointAt (param T S)) - weightC T (S.pointAt (param T S))
        ∧ 0 ≤ weightB T (S.pointAt (param T S)) ∧ 0 ≤ weightC T (S.pointAt (param T S))
    · rw [if_neg hp, if_pos hr, Option.some.injEq] at h
      subst h
      have hd : dot (normal T) S.dir ≠ 0 := by
        rw [← height_sub_height]; intro h0; apply hp; grind
      refine ⟨hd, hr.1, hr.2.1, ⟨hr.2.2.1, hr.2.2.2.1, hr.2.2.2.2, by grind⟩, ?_⟩
      exact barycentric_of_weights T _ (height_pointAt_param T S hp) (dot_self_ne_zero hd)
    · simp [hp, hr] at h

/-- The `b` weight of a point `a + β e₁ + γ e₂` is `β`. -/
theorem weightB_of_eq {T : Triangle} {p : Point3} {β γ : Rat}
    (hk : dot (normal T) (normal T) ≠ 0)
    (hp : sub p T.a = ⟨β * (sub T.b T.a).x + γ * (sub T.c T.a).x,
      β * (sub T.b T.a).y + γ * (sub T.c T.a).y, β * (sub T.b T.a).z + γ * (sub T.c T.a).z⟩) :
    weightB T p = β := by
  unfold weightB
  rw [hp]
  have key : dot (cross ⟨β * (sub T.b T.a).x + γ * (sub T.c T.a).x,
      β * (sub T.b T.a).y + γ * (sub T.c T.a).y, β * (sub T.b T.a).z + γ * (sub T.c T.a).z⟩
      (sub T.c T.a)) (normal T) = β * dot (normal T) (normal T) := by
    simp only [normal, dot, cross]; grind
  rw [key]
  grind

/-- The `c` weight of a point `a + β e₁ + γ e₂` is `γ`. -/
theorem weightC_of_eq {T : Triangle} {p : Point3} {β γ : Rat}
    (hk : dot (normal T) (normal T) ≠ 0)
    (hp : sub p T.a = ⟨β * (sub T.b T.a).x + γ * (sub T.c T.a).x,
      β * (sub T.b T.a).y + γ * (sub T.c T.a).y, β * (sub T.b T.a).z + γ * (sub T.c T.a).z⟩) :
    weightC T p = γ := by
  unfold weightC
  rw [hp]
  have key : dot (cross (sub T.b T.a) ⟨β * (sub T.b T.a).x + γ * (sub T.c T.a).x,
      β * (sub T.b T.a).y + γ * (sub T.c T.a).y, β * (sub T.b T.a).z + γ * (sub T.c T.a).z⟩)
      (normal T) = γ * dot (normal T) (normal T) := by
    simp only [normal, dot, cross]; grind
  rw [key]
  grind

/-- Completeness for one facet: an exact contact is the computed crossing (the parameter and
the weights of a non-parallel contact are unique). -/
theorem crossing_complete {T : Triangle} {S : Segment} {t α β γ : Rat}
    (h : ExactContact T S t α β γ) : crossing T S = some ⟨t, α, β, γ⟩ := by
  obtain ⟨hd, ht0, ht1, hv, hb⟩ := h
  have hs := sum_weights_eq_one_of_valid hv
  obtain ⟨hα, hβ, hγ⟩ := nonneg_weights_of_valid hv
  have hx := congrArg Point3.x hb
  have hy := congrArg Point3.y hb
  have hz := congrArg Point3.z hb
  simp only [barycentricPoint, Segment.pointAt] at hx hy hz
  have hpa : sub (S.pointAt t) T.a = ⟨β * (sub T.b T.a).x + γ * (sub T.c T.a).x,
      β * (sub T.b T.a).y + γ * (sub T.c T.a).y, β * (sub T.b T.a).z + γ * (sub T.c T.a).z⟩ := by
    apply point3_ext <;> simp only [sub, Segment.pointAt] <;> grind
  have ⟨he1, he2⟩ := normal_dot_edges T
  -- The contact point is on the plane, so `h_s = -t (n · d)`.
  have hhs : height T S.s = -t * dot (normal T) S.dir := by
    have hz0 : dot (normal T) (sub (S.pointAt t) T.a) = 0 := by
      rw [hpa]; simp only [dot, sub] at he1 he2 ⊢; grind
    simp only [height, dot, sub, Segment.pointAt, Segment.dir] at hz0 ⊢
    grind
  have hdiff := height_sub_height T S
  have hne : height T S.s ≠ height T S.e := by intro h0; apply hd; grind
  have hpar : param T S = t := by
    unfold param
    have : height T S.s - height T S.e = -dot (normal T) S.dir := by grind
    rw [this, hhs]
    grind
  have hk := dot_self_ne_zero hd
  have hB : weightB T (S.pointAt t) = β := weightB_of_eq hk hpa
  have hC : weightC T (S.pointAt t) = γ := weightC_of_eq hk hpa
  have hA : 1 - β - γ = α := by grind
  unfold crossing
  rw [if_neg hne, hpar, hB, hC, hA, if_pos ⟨ht0, ht1, hα, hβ, hγ⟩]

/-- A facet has a computed crossing exactly when it has an exact contact. -/
theorem crossing_isSome_iff (T : Triangle) (S : Segment) :
    (∃ c, crossing T S = some c) ↔ ∃ t α β γ, ExactContact T S t α β γ := by
  constructor
  · rintro ⟨c, hc⟩; exact ⟨c.t, c.α, c.β, c.γ, crossing_sound hc⟩
  · rintro ⟨t, α, β, γ, h⟩; exact ⟨_, crossing_complete h⟩

/-! ### The scan -/

/-- A step from a kept hit keeps it or replaces it by one with a strictly smaller parameter. -/
theorem step_some (S : Segment) (i : Nat) (T : Triangle) (b : Hit) :
    ∃ h, step S i T (some b) = some h ∧ (h = b ∨ h.t < b.t) := by
  unfold step
  cases hc : crossing T S with
  | none => exact ⟨b, rfl, Or.inl rfl⟩
  | some c =>
    by_cases hlt : c.t < b.t
    · exact ⟨mkHit i T S c, by simp [hlt], Or.inr hlt⟩
    · exact ⟨b, by simp [hlt], Or.inl rfl⟩

/-- A step over a facet with a crossing keeps a hit at a parameter no greater than it. -/
theorem step_le_crossing (S : Segment) (i : Nat) (T : Triangle) (best : Option Hit)
    {c : Crossing} (hc : crossing T S = some c) :
    ∃ h, step S i T best = some h ∧ h.t ≤ c.t ∧ (h = mkHit i T S c ∨ best = some h) := by
  unfold step
  rw [hc]
  cases best with
  | none => exact ⟨mkHit i T S c, rfl, by simp [mkHit, Rat.le_refl], Or.inl rfl⟩
  | some b =>
    by_cases hlt : c.t < b.t
    · exact ⟨mkHit i T S c, by simp [hlt], by simp [mkHit, Rat.le_refl], Or.inl rfl⟩
    · exact ⟨b, by simp [hlt], by grind, Or.inr rfl⟩

/-- A step returns the kept hit or the hit of the facet's crossing. -/
theorem step_cases {S : Segment} {i : Nat} {T : Triangle} {best : Option Hit} {h : Hit}
    (hs : step S i T best = some h) :
    best = some h ∨ ∃ c, crossing T S = some c ∧ h = mkHit i T S c := by
  unfold step at hs
  cases hc : crossing T S with
  | none => rw [hc] at hs; exact Or.inl hs
  | some c =>
    rw [hc] at hs
    cases best with
    | none => simp only [Option.some.injEq] at hs; exact Or.inr ⟨c, rfl, hs.symm⟩
    | some b =>
      by_cases hlt : c.t < b.t
      · simp only [hlt, if_true, Option.some.injEq] at hs; exact Or.inr ⟨c, rfl, hs.symm⟩
      · simp only [hlt, if_false] at hs; exact Or.inl hs

/-- A scan from a kept hit returns it or a hit with a strictly smaller parameter. -/
theorem scan_some (S : Segment) (i : Nat) (Ts : List Triangle) (b : Hit) :
    ∃ h, scan S i Ts (some b) = some h ∧ (h = b ∨ h.t < b.t) := by
  induction Ts generalizing i b with
  | nil => exact ⟨b, rfl, Or.inl rfl⟩
  | cons T Ts ih =>
    obtain ⟨h', hs', hh'⟩ := step_some S i T b
    obtain ⟨h, hs, hh⟩ := ih (i + 1) h'
    refine ⟨h, by simp only [scan, hs', hs], ?_⟩
    rcases hh' with e | e <;> rcases hh with f | f
    · exact Or.inl (f.trans e)
    · subst e; exact Or.inr f
    · subst f; exact Or.inr e
    · exact Or.inr (by grind)

/-- A scan returns the kept hit or the hit of one of its facets. -/
theorem scan_mem {S : Segment} {i : Nat} {Ts : List Triangle} {best : Option Hit} {h : Hit}
    (hs : scan S i Ts best = some h) :
    best = some h ∨ ∃ j T c, Ts[j]? = some T ∧ crossing T S = some c ∧ h = mkHit (i + j) T S c := by
  induction Ts generalizing i best with
  | nil => exact Or.inl hs
  | cons T Ts ih =>
    simp only [scan] at hs
    rcases ih hs with e | ⟨j, T', c, hj, hc, hh⟩
    · rcases step_cases e with e' | ⟨c, hc, hh⟩
      · exact Or.inl e'
      · exact Or.inr ⟨0, T, c, rfl, hc, by simpa using hh⟩
    · exact Or.inr ⟨j + 1, T', c, by simpa using hj, hc, by rw [hh]; congr 1; omega⟩

/-- After a scan over a facet with a crossing, the kept hit is no later than it. -/
theorem scan_le_crossing (S : Segment) {i j : Nat} {Ts : List Triangle} (best : Option Hit)
    {T : Triangle} {c : Crossing} (hj : Ts[j]? = some T) (hc : crossing T S = some c) :
    ∃ h, scan S i Ts best = some h ∧ h.t ≤ c.t := by
  induction Ts generalizing i j best with
  | nil => simp at hj
  | cons T' Ts ih =>
    cases j with
    | zero =>
      simp only [List.getElem?_cons_zero, Option.some.injEq] at hj
      subst hj
      obtain ⟨h', hs', hle', -⟩ := step_le_crossing S i T' best hc
      obtain ⟨h, hs, hh⟩ := scan_some S (i + 1) Ts h'
      refine ⟨h, by simp only [scan, hs', hs], ?_⟩
      rcases hh with e | e
      · rw [e]; exact hle'
      · grind
    | succ j =>
      simp only [List.getElem?_cons_succ] at hj
      obtain ⟨h, hs, hle⟩ := ih (i := i + 1) (step S i T' best) hj
      exact ⟨h, by simp only [scan, hs], hle⟩

/-- The tie rule of a scan: a facet with a crossing at the returned parameter does not come
before the returned index, when the kept hit's index is at most the scan's first index. -/
theorem scan_tie (S : Segment) {i j : Nat} {Ts : List Triangle} {best : Option Hit} {h : Hit}
    {T : Triangle} {c : Crossing} (hb : ∀ b, best = some b → b.index ≤ i)
    (hs : scan S i Ts best = some h) (hj : Ts[j]? = some T) (hc : crossing T S = some c)
    (ht : c.t = h.t) : h.index ≤ i + j := by
  induction Ts generalizing i j best with
  | nil => simp at hj
  | cons T' Ts ih =>
    cases j with
    | zero =>
      simp only [List.getElem?_cons_zero, Option.some.injEq] at hj
      subst hj
      obtain ⟨h', hs', hle', hwho⟩ := step_le_crossing S i T' best hc
      obtain ⟨h'', hs'', hh⟩ := scan_some S (i + 1) Ts h'
      simp only [scan, hs'] at hs
      rw [hs] at hs''
      simp only [Option.some.injEq] at hs''
      subst hs''
      rcases hh with e | e
      · subst e
        rcases hwho with w | w
        · rw [w]; simp [mkHit]
        · exact Nat.le_trans (hb _ w) (Nat.le_add_right _ _)
      · exfalso
        grind
    | succ j =>
      simp only [List.getElem?_cons_succ] at hj
      simp only [scan] at hs
      have hb' : ∀ b, step S i T' best = some b → b.index ≤ i + 1 := by
        intro b hsb
        rcases step_cases hsb with e | ⟨c', -, hh⟩
        · exact Nat.le_succ_of_le (hb b e)
        · rw [hh]; simp [mkHit]
      have := ih hb' hs hj
      omega

/-! ### The first hit: soundness, completeness, tie rule -/

/-- The first hit is the hit of one of the facets: its index names a facet whose crossing it
carries, with that facet's facing. -/
theorem firstHit_mem {Ts : List Triangle} {S : Segment} {h : Hit} (hh : firstHit Ts S = some h) :
    ∃ T, Ts[h.index]? = some T ∧ crossing T S = some ⟨h.t, h.α, h.β, h.γ⟩ ∧ h.facing = facing T S := by
  rcases scan_mem hh with e | ⟨j, T, c, hj, hc, e⟩
  · simp at e
  · subst e
    simp only [mkHit, Nat.zero_add]
    exact ⟨T, hj, by rw [hc], rfl⟩

/-- Soundness: a returned hit has `0 ≤ t ≤ 1` and valid facet coordinates, its barycentric point
lies on the facet's plane `n · x = n · a` and is the segment point at `t`, the segment is not
parallel to the facet, and the facing is the facet's. -/
theorem firstHit_sound {Ts : List Triangle} {S : Segment} {h : Hit} (hh : firstHit Ts S = some h) :
    ∃ T, Ts[h.index]? = some T ∧ 0 ≤ h.t ∧ h.t ≤ 1 ∧ ValidFacetCoordinates h.α h.β h.γ ∧
      dot (normal T) (barycentricPoint T.a T.b T.c h.α h.β h.γ) = dot (normal T) T.a ∧
      barycentricPoint T.a T.b T.c h.α h.β h.γ = S.pointAt h.t ∧
      dot (normal T) S.dir ≠ 0 ∧ h.facing = facing T S := by
  obtain ⟨T, hj, hc, hf⟩ := firstHit_mem hh
  obtain ⟨hd, ht0, ht1, hv, hb⟩ := crossing_sound hc
  have ⟨he1, he2⟩ := normal_dot_edges T
  have hpb : (normal T).x * T.b.x + (normal T).y * T.b.y + (normal T).z * T.b.z
      = dot (normal T) T.a := by
    simp only [dot, sub] at he1 ⊢; grind
  have hpc : (normal T).x * T.c.x + (normal T).y * T.c.y + (normal T).z * T.c.z
      = dot (normal T) T.a := by
    simp only [dot, sub] at he2 ⊢; grind
  have hplane := barycentricPoint_on_plane_of_vertices_on_plane hv rfl hpb hpc
  exact ⟨T, hj, ht0, ht1, hv, hplane, hb, hd, hf⟩

/-- Completeness: for every facet with an exact contact at `t'`, a hit is returned and its
parameter is at most `t'`. -/
theorem firstHit_complete {Ts : List Triangle} {S : Segment} {j : Nat} {T : Triangle}
    {t' α β γ : Rat} (hj : Ts[j]? = some T) (hc : ExactContact T S t' α β γ) :
    ∃ h, firstHit Ts S = some h ∧ h.t ≤ t' := by
  obtain ⟨h, hs, hle⟩ := scan_le_crossing S (i := 0) none hj (crossing_complete hc)
  exact ⟨h, hs, hle⟩

/-- Completeness in terms of the model: the first hit is no later than any facet's crossing. -/
theorem firstHit_le_crossing {Ts : List Triangle} {S : Segment} {j : Nat} {T : Triangle}
    {c : Crossing} (hj : Ts[j]? = some T) (hc : crossing T S = some c) :
    ∃ h, firstHit Ts S = some h ∧ h.t ≤ c.t :=
  scan_le_crossing S (i := 0) none hj hc

/-- `firstHit` returns `none` exactly when no facet has an exact contact. -/
theorem firstHit_eq_none_iff (Ts : List Triangle) (S : Segment) :
    firstHit Ts S = none ↔
      ∀ (j : Nat) (T : Triangle) (t α β γ : Rat), Ts[j]? = some T → ¬ ExactContact T S t α β γ := by
  constructor
  · intro hn j T t α β γ hj hc
    obtain ⟨h, hs, -⟩ := firstHit_complete hj hc
    rw [hn] at hs
    cases hs
  · intro hall
    cases hh : firstHit Ts S with
    | none => rfl
    | some h =>
      exfalso
      obtain ⟨T, hj, hc, -⟩ := firstHit_mem hh
      exact hall _ _ _ _ _ _ hj (crossing_sound hc)

/-- Tie rule in terms of the model: a facet whose crossing is at the returned parameter has an
index no lower than the returned one. -/
theorem firstHit_tie_crossing {Ts : List Triangle} {S : Segment} {h : Hit} {j : Nat}
    {T : Triangle} {c : Crossing} (hh : firstHit Ts S = some h) (hj : Ts[j]? = some T)
    (hc : crossing T S = some c) (ht : c.t = h.t) : h.index ≤ j := by
  have := scan_tie S (i := 0) (best := none) (by intro b hb; cases hb) hh hj hc ht
  omega

/-- Tie rule: if facet `j` has an exact contact at the returned parameter, the returned index is
at most `j`. -/
theorem firstHit_tie {Ts : List Triangle} {S : Segment} {h : Hit} {j : Nat} {T : Triangle}
    {α β γ : Rat} (hh : firstHit Ts S = some h) (hj : Ts[j]? = some T)
    (hc : ExactContact T S h.t α β γ) : h.index ≤ j :=
  firstHit_tie_crossing hh hj (crossing_complete hc) rfl

/-! ### The selection is FacetSelection's minimum fold -/

/-- Every facet's crossing parameter is a candidate. -/
theorem mem_crossingTimes {S : Segment} {Ts : List Triangle} {j : Nat} {T : Triangle}
    {c : Crossing} (hj : Ts[j]? = some T) (hc : crossing T S = some c) :
    c.t ∈ crossingTimes S Ts := by
  induction Ts generalizing j with
  | nil => simp at hj
  | cons T' Ts ih =>
    cases j with
    | zero =>
      simp only [List.getElem?_cons_zero, Option.some.injEq] at hj
      subst hj
      simp [crossingTimes, hc]
    | succ j =>
      simp only [List.getElem?_cons_succ] at hj
      have := ih hj
      simp only [crossingTimes]
      cases crossing T' S <;> simp [this]

/-- A scan from a kept hit ends at the minimum fold of its parameter over the crossings. -/
theorem scan_some_t_eq_minFold (S : Segment) (i : Nat) (Ts : List Triangle) (b : Hit) :
    ∃ h, scan S i Ts (some b) = some h ∧ h.t = minFold b.t (crossingTimes S Ts) := by
  induction Ts generalizing i b with
  | nil => exact ⟨b, rfl, by simp [crossingTimes, minFold]⟩
  | cons T Ts ih =>
    cases hc : crossing T S with
    | none =>
      obtain ⟨h, hs, ht⟩ := ih (i + 1) b
      refine ⟨h, ?_, ?_⟩
      · simp only [scan, step, hc]; exact hs
      · simp only [crossingTimes, hc]; exact ht
    | some c =>
      by_cases hlt : c.t < b.t
      · obtain ⟨h, hs, ht⟩ := ih (i + 1) (mkHit i T S c)
        refine ⟨h, ?_, ?_⟩
        · simp only [scan, step, hc, hlt, if_true]; exact hs
        · simp only [crossingTimes, hc, minFold]
          have hmin : min b.t c.t = c.t := by
            rw [Rat.min_def]; split <;> grind
          rw [hmin, ht]; rfl
      · obtain ⟨h, hs, ht⟩ := ih (i + 1) b
        refine ⟨h, ?_, ?_⟩
        · simp only [scan, step, hc, hlt, if_false]; exact hs
        · simp only [crossingTimes, hc, minFold]
          have hmin : min b.t c.t = b.t := by
            rw [Rat.min_def]; split <;> grind
          rw [hmin, ht]

/-- A scan with nothing kept returns a hit exactly when some facet has a crossing, at the
minimum fold of the crossings' parameters. -/
theorem scan_none_t_eq_minFold (S : Segment) (i : Nat) (Ts : List Triangle) {c : Rat}
    {cs : List Rat} (hts : crossingTimes S Ts = c :: cs) :
    ∃ h, scan S i Ts none = some h ∧ h.t = minFold c cs := by
  induction Ts generalizing i with
  | nil => simp [crossingTimes] at hts
  | cons T Ts ih =>
    cases hc : crossing T S with
    | none =>
      simp only [crossingTimes, hc] at hts
      obtain ⟨h, hs, ht⟩ := ih (i + 1) hts
      exact ⟨h, by simp only [scan, step, hc]; exact hs, ht⟩
    | some c' =>
      simp only [crossingTimes, hc, List.cons.injEq] at hts
      obtain ⟨rfl, rfl⟩ := hts
      obtain ⟨h, hs, ht⟩ := scan_some_t_eq_minFold S (i + 1) Ts (mkHit i T S c')
      exact ⟨h, by simp only [scan, step, hc]; exact hs, by rw [ht]; rfl⟩

/-- The first hit's parameter is FacetSelection's `minFold` over the facets' crossing
parameters (so `minFold_le_init_and_le_of_mem` and `minFold_mem_unit_interval_of_mem_unit_interval`
apply to it), and there is a first hit exactly when that list is nonempty. -/
theorem firstHit_t_eq_minFold (Ts : List Triangle) (S : Segment) :
    (crossingTimes S Ts = [] ∧ firstHit Ts S = none) ∨
      ∃ c cs h, crossingTimes S Ts = c :: cs ∧ firstHit Ts S = some h ∧ h.t = minFold c cs := by
  cases hts : crossingTimes S Ts with
  | nil =>
    left
    refine ⟨rfl, ?_⟩
    cases hh : firstHit Ts S with
    | none => rfl
    | some h =>
      exfalso
      obtain ⟨T, hj, hc, -⟩ := firstHit_mem hh
      have := mem_crossingTimes hj hc
      rw [hts] at this
      simp at this
  | cons c cs =>
    right
    obtain ⟨h, hs, ht⟩ := scan_none_t_eq_minFold S 0 Ts hts
    exact ⟨c, cs, h, rfl, hs, ht⟩

end FirstHit
