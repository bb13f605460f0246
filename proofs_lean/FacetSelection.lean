/-!
# Facet selection over exact rationals

This module states, over core Lean's exact rationals `Rat`, the discrete facts that a
static triangle-surface `first_hit` query relies on when it reports a contact: the barycentric
weights of a reported hit are nonnegative and sum to one, the barycentric point of three
vertices on a plane lies on that plane, and the minimum fold that selects the first hit returns
one of its candidates, is no greater than any candidate, and stays in `[0, 1]` when every
candidate does.

Every finite binary32 and binary64 value is a dyadic rational `m * 2^e`, hence a `Rat`, so each
statement below covers every finite IEEE input exactly. The statements are about exact
arithmetic: they say nothing about rounded floating-point evaluation, about whether the
candidates were enumerated completely and correctly, or about cross products, winding and
tolerances, none of which is modelled here.

The module uses Lean core only (no Mathlib).

## Main definitions

* `FacetSelection.Point3`: a point or vector of three-dimensional space with `Rat` coordinates
  (a structure; it is a type, counted apart from the three definitions below).
* `FacetSelection.barycentricPoint`: the point `α • a + β • b + γ • c` of a triangle `a b c`.
* `FacetSelection.ValidFacetCoordinates`: the weights `α β γ` are nonnegative and sum to one.
* `FacetSelection.minFold`: the left fold of `min` over an initial candidate and a list of
  candidates, which selects the first-hit parameter.

## Main statements

* `FacetSelection.nonneg_weights_of_valid`
* `FacetSelection.sum_weights_eq_one_of_valid`
* `FacetSelection.barycentricPoint_on_plane_of_vertices_on_plane`
* `FacetSelection.minFold_eq_init_or_mem`
* `FacetSelection.minFold_le_init_and_le_of_mem`
* `FacetSelection.minFold_mem_unit_interval_of_mem_unit_interval`

## Implementation notes

The plane `n · x = d` is written out as `n.x * p.x + n.y * p.y + n.z * p.z = d`, so no dot
product definition is introduced. `AxiomAudit.lean` lists the kernel dependencies of every
declaration here, including the equation lemmas Lean generates for the three definitions.
-/

namespace FacetSelection

/-- A point or vector of three-dimensional space with exact rational coordinates. -/
structure Point3 where
  /-- The first coordinate. -/
  x : Rat
  /-- The second coordinate. -/
  y : Rat
  /-- The third coordinate. -/
  z : Rat

/-- The barycentric point `α • a + β • b + γ • c` of the triangle with vertices `a`, `b`, `c`
under the weights `(α, β, γ)`, coordinate by coordinate. -/
def barycentricPoint (a b c : Point3) (α β γ : Rat) : Point3 :=
  ⟨α * a.x + β * b.x + γ * c.x, α * a.y + β * b.y + γ * c.y, α * a.z + β * b.z + γ * c.z⟩

/-- The weights `(α, β, γ)` are valid facet coordinates: all three are nonnegative and they sum
to one, so the barycentric point lies in the closed triangle. -/
def ValidFacetCoordinates (α β γ : Rat) : Prop :=
  0 ≤ α ∧ 0 ≤ β ∧ 0 ≤ γ ∧ α + β + γ = 1

/-- The minimum fold that selects the first hit: starting from the candidate `best`, fold `min`
over the list from the left, `minFold t [c₁, …, cₖ] = min (… (min t c₁) …) cₖ`. -/
def minFold : Rat → List Rat → Rat
  | best, [] => best
  | best, c :: cs => minFold (min best c) cs

/-- The weights of valid facet coordinates are nonnegative. -/
theorem nonneg_weights_of_valid {α β γ : Rat} (h : ValidFacetCoordinates α β γ) :
    0 ≤ α ∧ 0 ≤ β ∧ 0 ≤ γ :=
  ⟨h.1, h.2.1, h.2.2.1⟩

/-- The weights of valid facet coordinates sum to one. -/
theorem sum_weights_eq_one_of_valid {α β γ : Rat} (h : ValidFacetCoordinates α β γ) :
    α + β + γ = 1 :=
  h.2.2.2

/-- If the three vertices lie on the plane `n · x = d`, then so does their barycentric point under
valid facet coordinates. Only the sum of the weights is used, not their signs. -/
theorem barycentricPoint_on_plane_of_vertices_on_plane {a b c n : Point3} {d α β γ : Rat}
    (h : ValidFacetCoordinates α β γ)
    (ha : n.x * a.x + n.y * a.y + n.z * a.z = d)
    (hb : n.x * b.x + n.y * b.y + n.z * b.z = d)
    (hc : n.x * c.x + n.y * c.y + n.z * c.z = d) :
    n.x * (barycentricPoint a b c α β γ).x + n.y * (barycentricPoint a b c α β γ).y
      + n.z * (barycentricPoint a b c α β γ).z = d := by
  have hs := sum_weights_eq_one_of_valid h
  simp only [barycentricPoint]
  grind

/-- The minimum fold returns its initial candidate or a member of the candidate list. -/
theorem minFold_eq_init_or_mem (best : Rat) (cs : List Rat) :
    minFold best cs = best ∨ minFold best cs ∈ cs := by
  induction cs generalizing best with
  | nil => simp [minFold]
  | cons c cs ih => rcases ih (min best c) with h | h <;> grind [minFold]

/-- The minimum fold is no greater than its initial candidate and every member of the list. -/
theorem minFold_le_init_and_le_of_mem (best : Rat) (cs : List Rat) :
    minFold best cs ≤ best ∧ ∀ c ∈ cs, minFold best cs ≤ c := by
  induction cs generalizing best with
  | nil => simp [minFold, Rat.le_refl]
  | cons c cs ih =>
    have := ih (min best c)
    grind [minFold]

/-- The minimum fold lies in `[0, 1]` when its initial candidate and every list member do. -/
theorem minFold_mem_unit_interval_of_mem_unit_interval (best : Rat) (cs : List Rat)
    (h0 : 0 ≤ best ∧ best ≤ 1) (hcs : ∀ c ∈ cs, 0 ≤ c ∧ c ≤ 1) :
    0 ≤ minFold best cs ∧ minFold best cs ≤ 1 := by
  rcases minFold_eq_init_or_mem best cs with h | h <;> grind

end FacetSelection
