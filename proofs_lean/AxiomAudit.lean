import FacetSelection
import FirstHit
import Culling

/-!
# Axiom audit of `FacetSelection`, `FirstHit` and `Culling`

`#print axioms` for every public declaration of `FacetSelection.lean`, `FirstHit.lean` and
`Culling.lean` and for every equation lemma Lean generates for their definitions. `audit.py` runs this file with
`lake env lean AxiomAudit.lean` after `lake build`, parses the output and fails unless each
declaration below is reported and depends on no axiom other than `propext`,
`Classical.choice` and `Quot.sound`. `audit.py --mode same-file` runs the same list with the
single-file WebAssembly checker (see `SameFileAudit.lean`).

## Declarations audited (260)

### `FacetSelection.lean` (20)

* the six theorems;
* the three definitions `barycentricPoint`, `ValidFacetCoordinates`, `minFold`;
* the structure `Point3` (its constructor, projections and recursor are reached from it);
* ten generated equation lemmas: `minFold.eq_1`, `minFold.eq_2`, `minFold.eq_def`,
  `minFold.eq_unfold`, and `eq_1`, `eq_def`, `eq_unfold` of `barycentricPoint` and of
  `ValidFacetCoordinates`.

### `FirstHit.lean` (130)

* the 40 theorems (the main statements and the lemmas they rest on);
* the five types `Triangle`, `Segment`, `Facing`, `Crossing`, `Hit`;
* the 20 definitions `sub`, `dot`, `cross`, `neg`, `normal`, `Segment.dir`, `Segment.pointAt`,
  `Facing.flip`, `facing`, `height`, `param`, `weightB`, `weightC`, `crossing`, `ExactContact`,
  `mkHit`, `step`, `scan`, `firstHit`, `crossingTimes`;
* 65 generated equation lemmas: `eq_1`, `eq_def` and `eq_unfold` of each definition, and
  `Facing.flip.eq_2`, `scan.eq_2`, `crossingTimes.eq_2`, `step.eq_2`, `step.eq_3`
  (`Facing.flip`, `scan` and `crossingTimes` have two equations, `step` three).

### `Culling.lean` (110)

* the 16 theorems (the slab test's soundness, a culled facet is a miss, the answer
  over the candidates is the answer over all facets, and the lemmas they rest on);
* the six types `Box`, `Bands`, `Verdict`, `Cull`, `Answer`, `Facet`;
* the 20 definitions `NearBox`, `Contains`, `slabAxis`, `slabClip`, `slabSeparated`,
  `absR`, `triBox`, `segBox`, `boxesMeet`, `Bands.Valid`, `nearZero`, `classify`, `dirInf`,
  `width`, `reach`, `Cull.Valid`, `stepAnswer`, `answerFrom`, `answer`, `candidates`;
* 68 generated equation lemmas: `eq_1`, `eq_def` and `eq_unfold` of each definition, and
  `Cull.Valid.eq_2`, `answerFrom.eq_2`, `candidates.eq_2`, `stepAnswer.eq_2` to `eq_6`
  (found by `#check`ing `eq_1` to `eq_8`, `eq_def` and `eq_unfold` of each).

## How the equation lemmas were found

Lean reserves, for a definition `f`, the names `f.eq_1 … f.eq_k` (one per equation of its
pattern match), `f.eq_def` and `f.eq_unfold`, and realizes them on first reference. They were
enumerated by `#check`ing `f.eq_1`, `f.eq_2`, `f.eq_3`, `f.eq_def` and `f.eq_unfold` for each
definition of `FacetSelection` (all resolve except `minFold.eq_3`, `barycentricPoint.eq_2` and
`ValidFacetCoordinates.eq_2`: `minFold` has two equations, the others one), and `f.eq_1` to
`f.eq_4`, `f.eq_def` and `f.eq_unfold` for each definition of `FirstHit`. Auxiliary
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
#print axioms FirstHit.point3_ext
#print axioms FirstHit.normal_dot_edges
#print axioms FirstHit.normal_swap_ab
#print axioms FirstHit.normal_swap_bc
#print axioms FirstHit.normal_swap_ac
#print axioms FirstHit.facing_eq_front_iff
#print axioms FirstHit.facing_eq_back_iff
#print axioms FirstHit.facing_of_normal_neg
#print axioms FirstHit.facing_swap_bc
#print axioms FirstHit.height_sub_height
#print axioms FirstHit.rat_mul_self_nonneg
#print axioms FirstHit.dot_self_ne_zero
#print axioms FirstHit.decompose_x
#print axioms FirstHit.decompose_y
#print axioms FirstHit.decompose_z
#print axioms FirstHit.height_pointAt_param
#print axioms FirstHit.barycentric_of_weights
#print axioms FirstHit.crossing_sound
#print axioms FirstHit.weightB_of_eq
#print axioms FirstHit.weightC_of_eq
#print axioms FirstHit.crossing_complete
#print axioms FirstHit.crossing_isSome_iff
#print axioms FirstHit.step_some
#print axioms FirstHit.step_le_crossing
#print axioms FirstHit.step_cases
#print axioms FirstHit.scan_some
#print axioms FirstHit.scan_mem
#print axioms FirstHit.scan_le_crossing
#print axioms FirstHit.scan_tie
#print axioms FirstHit.firstHit_mem
#print axioms FirstHit.firstHit_sound
#print axioms FirstHit.firstHit_complete
#print axioms FirstHit.firstHit_le_crossing
#print axioms FirstHit.firstHit_eq_none_iff
#print axioms FirstHit.firstHit_tie_crossing
#print axioms FirstHit.firstHit_tie
#print axioms FirstHit.mem_crossingTimes
#print axioms FirstHit.scan_some_t_eq_minFold
#print axioms FirstHit.scan_none_t_eq_minFold
#print axioms FirstHit.firstHit_t_eq_minFold
#print axioms FirstHit.Triangle
#print axioms FirstHit.Segment
#print axioms FirstHit.Facing
#print axioms FirstHit.Crossing
#print axioms FirstHit.Hit
#print axioms FirstHit.sub
#print axioms FirstHit.dot
#print axioms FirstHit.cross
#print axioms FirstHit.neg
#print axioms FirstHit.normal
#print axioms FirstHit.Segment.dir
#print axioms FirstHit.Segment.pointAt
#print axioms FirstHit.Facing.flip
#print axioms FirstHit.facing
#print axioms FirstHit.height
#print axioms FirstHit.param
#print axioms FirstHit.weightB
#print axioms FirstHit.weightC
#print axioms FirstHit.crossing
#print axioms FirstHit.ExactContact
#print axioms FirstHit.mkHit
#print axioms FirstHit.step
#print axioms FirstHit.scan
#print axioms FirstHit.firstHit
#print axioms FirstHit.crossingTimes
#print axioms FirstHit.sub.eq_1
#print axioms FirstHit.sub.eq_def
#print axioms FirstHit.sub.eq_unfold
#print axioms FirstHit.dot.eq_1
#print axioms FirstHit.dot.eq_def
#print axioms FirstHit.dot.eq_unfold
#print axioms FirstHit.cross.eq_1
#print axioms FirstHit.cross.eq_def
#print axioms FirstHit.cross.eq_unfold
#print axioms FirstHit.neg.eq_1
#print axioms FirstHit.neg.eq_def
#print axioms FirstHit.neg.eq_unfold
#print axioms FirstHit.normal.eq_1
#print axioms FirstHit.normal.eq_def
#print axioms FirstHit.normal.eq_unfold
#print axioms FirstHit.Segment.dir.eq_1
#print axioms FirstHit.Segment.dir.eq_def
#print axioms FirstHit.Segment.dir.eq_unfold
#print axioms FirstHit.Segment.pointAt.eq_1
#print axioms FirstHit.Segment.pointAt.eq_def
#print axioms FirstHit.Segment.pointAt.eq_unfold
#print axioms FirstHit.Facing.flip.eq_1
#print axioms FirstHit.Facing.flip.eq_2
#print axioms FirstHit.Facing.flip.eq_def
#print axioms FirstHit.Facing.flip.eq_unfold
#print axioms FirstHit.facing.eq_1
#print axioms FirstHit.facing.eq_def
#print axioms FirstHit.facing.eq_unfold
#print axioms FirstHit.height.eq_1
#print axioms FirstHit.height.eq_def
#print axioms FirstHit.height.eq_unfold
#print axioms FirstHit.param.eq_1
#print axioms FirstHit.param.eq_def
#print axioms FirstHit.param.eq_unfold
#print axioms FirstHit.weightB.eq_1
#print axioms FirstHit.weightB.eq_def
#print axioms FirstHit.weightB.eq_unfold
#print axioms FirstHit.weightC.eq_1
#print axioms FirstHit.weightC.eq_def
#print axioms FirstHit.weightC.eq_unfold
#print axioms FirstHit.crossing.eq_1
#print axioms FirstHit.crossing.eq_def
#print axioms FirstHit.crossing.eq_unfold
#print axioms FirstHit.ExactContact.eq_1
#print axioms FirstHit.ExactContact.eq_def
#print axioms FirstHit.ExactContact.eq_unfold
#print axioms FirstHit.mkHit.eq_1
#print axioms FirstHit.mkHit.eq_def
#print axioms FirstHit.mkHit.eq_unfold
#print axioms FirstHit.step.eq_1
#print axioms FirstHit.step.eq_2
#print axioms FirstHit.step.eq_3
#print axioms FirstHit.step.eq_def
#print axioms FirstHit.step.eq_unfold
#print axioms FirstHit.scan.eq_1
#print axioms FirstHit.scan.eq_2
#print axioms FirstHit.scan.eq_def
#print axioms FirstHit.scan.eq_unfold
#print axioms FirstHit.firstHit.eq_1
#print axioms FirstHit.firstHit.eq_def
#print axioms FirstHit.firstHit.eq_unfold
#print axioms FirstHit.crossingTimes.eq_1
#print axioms FirstHit.crossingTimes.eq_2
#print axioms FirstHit.crossingTimes.eq_def
#print axioms FirstHit.crossingTimes.eq_unfold
#print axioms Culling.between_of_inside
#print axioms Culling.slabAxis_keeps
#print axioms Culling.slabSeparated_sound
#print axioms Culling.nearBox_mono
#print axioms Culling.absR_le
#print axioms Culling.absR_bounds
#print axioms Culling.term_ge
#print axioms Culling.coord_near
#print axioms Culling.mul_within
#print axioms Culling.axis_near
#print axioms Culling.clamp_near
#print axioms Culling.classify_ne_miss_near
#print axioms Culling.culled_is_miss
#print axioms Culling.answerFrom_candidates
#print axioms Culling.answer_candidates
#print axioms Culling.classify_hit_crossing
#print axioms Culling.Box
#print axioms Culling.Bands
#print axioms Culling.Verdict
#print axioms Culling.Cull
#print axioms Culling.Answer
#print axioms Culling.Facet
#print axioms Culling.NearBox
#print axioms Culling.Contains
#print axioms Culling.slabAxis
#print axioms Culling.slabClip
#print axioms Culling.slabSeparated
#print axioms Culling.absR
#print axioms Culling.triBox
#print axioms Culling.segBox
#print axioms Culling.boxesMeet
#print axioms Culling.Bands.Valid
#print axioms Culling.nearZero
#print axioms Culling.classify
#print axioms Culling.dirInf
#print axioms Culling.width
#print axioms Culling.reach
#print axioms Culling.Cull.Valid
#print axioms Culling.stepAnswer
#print axioms Culling.answerFrom
#print axioms Culling.answer
#print axioms Culling.candidates
#print axioms Culling.NearBox.eq_1
#print axioms Culling.NearBox.eq_def
#print axioms Culling.NearBox.eq_unfold
#print axioms Culling.Contains.eq_1
#print axioms Culling.Contains.eq_def
#print axioms Culling.Contains.eq_unfold
#print axioms Culling.slabAxis.eq_1
#print axioms Culling.slabAxis.eq_def
#print axioms Culling.slabAxis.eq_unfold
#print axioms Culling.slabClip.eq_1
#print axioms Culling.slabClip.eq_def
#print axioms Culling.slabClip.eq_unfold
#print axioms Culling.slabSeparated.eq_1
#print axioms Culling.slabSeparated.eq_def
#print axioms Culling.slabSeparated.eq_unfold
#print axioms Culling.absR.eq_1
#print axioms Culling.absR.eq_def
#print axioms Culling.absR.eq_unfold
#print axioms Culling.triBox.eq_1
#print axioms Culling.triBox.eq_def
#print axioms Culling.triBox.eq_unfold
#print axioms Culling.segBox.eq_1
#print axioms Culling.segBox.eq_def
#print axioms Culling.segBox.eq_unfold
#print axioms Culling.boxesMeet.eq_1
#print axioms Culling.boxesMeet.eq_def
#print axioms Culling.boxesMeet.eq_unfold
#print axioms Culling.Bands.Valid.eq_1
#print axioms Culling.Bands.Valid.eq_def
#print axioms Culling.Bands.Valid.eq_unfold
#print axioms Culling.nearZero.eq_1
#print axioms Culling.nearZero.eq_def
#print axioms Culling.nearZero.eq_unfold
#print axioms Culling.classify.eq_1
#print axioms Culling.classify.eq_def
#print axioms Culling.classify.eq_unfold
#print axioms Culling.dirInf.eq_1
#print axioms Culling.dirInf.eq_def
#print axioms Culling.dirInf.eq_unfold
#print axioms Culling.width.eq_1
#print axioms Culling.width.eq_def
#print axioms Culling.width.eq_unfold
#print axioms Culling.reach.eq_1
#print axioms Culling.reach.eq_def
#print axioms Culling.reach.eq_unfold
#print axioms Culling.Cull.Valid.eq_1
#print axioms Culling.Cull.Valid.eq_2
#print axioms Culling.Cull.Valid.eq_def
#print axioms Culling.Cull.Valid.eq_unfold
#print axioms Culling.stepAnswer.eq_1
#print axioms Culling.stepAnswer.eq_2
#print axioms Culling.stepAnswer.eq_3
#print axioms Culling.stepAnswer.eq_4
#print axioms Culling.stepAnswer.eq_5
#print axioms Culling.stepAnswer.eq_6
#print axioms Culling.stepAnswer.eq_def
#print axioms Culling.stepAnswer.eq_unfold
#print axioms Culling.answerFrom.eq_1
#print axioms Culling.answerFrom.eq_2
#print axioms Culling.answerFrom.eq_def
#print axioms Culling.answerFrom.eq_unfold
#print axioms Culling.answer.eq_1
#print axioms Culling.answer.eq_def
#print axioms Culling.answer.eq_unfold
#print axioms Culling.candidates.eq_1
#print axioms Culling.candidates.eq_2
#print axioms Culling.candidates.eq_def
#print axioms Culling.candidates.eq_unfold
