import FacetSelection

/-!
# Axiom audit of `FacetSelection`

`#print axioms` for every public declaration of `FacetSelection.lean` and for every equation
lemma Lean generates for its three definitions. `audit.py` runs this file with
`lake env lean AxiomAudit.lean` after `lake build`, parses the output and fails unless each
declaration below is reported and depends on no axiom other than `propext`,
`Classical.choice` and `Quot.sound`. `audit.py --mode same-file` runs the same lines with the
single-file WebAssembly checker (see `SameFileAudit.lean`).

## Declarations audited (20)

* the six theorems;
* the three definitions `barycentricPoint`, `ValidFacetCoordinates`, `minFold`;
* the structure `Point3` (its constructor, projections and recursor are reached from it);
* ten generated equation lemmas: `minFold.eq_1`, `minFold.eq_2`, `minFold.eq_def`,
  `minFold.eq_unfold`, and `eq_1`, `eq_def`, `eq_unfold` of `barycentricPoint` and of
  `ValidFacetCoordinates`.

## How the equation lemmas were found

Lean reserves, for a definition `f`, the names `f.eq_1 … f.eq_k` (one per equation of its
pattern match), `f.eq_def` and `f.eq_unfold`, and realizes them on first reference. They were
enumerated by `#check`ing `f.eq_1`, `f.eq_2`, `f.eq_3`, `f.eq_def` and `f.eq_unfold` for each
definition: all resolve except `minFold.eq_3`, `barycentricPoint.eq_2` and
`ValidFacetCoordinates.eq_2` (`minFold` has two equations, the others one). Auxiliary
declarations generated with the definitions (matchers, structural recursion helpers) are not
listed: `#print axioms` reaches them transitively.
-/

#print axioms FacetSelection.nonneg_weights_of_valid
#print axioms FacetSelection.sum_weights_eq_one_of_valid
#print axioms FacetSelection.barycentricPoint_on_plane_of_vertices_on_plane
#print axioms FacetSelection.minFold_eq_init_or_mem
#print axioms FacetSelection.minFold_le_init_and_le_of_mem
#print axioms FacetSelection.minFold_mem_unit_interval_of_mem_unit_interval
#print axioms FacetSelection.Point3
#print axioms FacetSelection.barycentricPoint
#print axioms FacetSelection.ValidFacetCoordinates
#print axioms FacetSelection.minFold
#print axioms FacetSelection.minFold.eq_1
#print axioms FacetSelection.minFold.eq_2
#print axioms FacetSelection.minFold.eq_def
#print axioms FacetSelection.minFold.eq_unfold
#print axioms FacetSelection.barycentricPoint.eq_1
#print axioms FacetSelection.barycentricPoint.eq_def
#print axioms FacetSelection.barycentricPoint.eq_unfold
#print axioms FacetSelection.ValidFacetCoordinates.eq_1
#print axioms FacetSelection.ValidFacetCoordinates.eq_def
#print axioms FacetSelection.ValidFacetCoordinates.eq_unfold
