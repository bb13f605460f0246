"""Triangle rows' case-file contract: each row's fields (JSON Schema), the ledger's sentence, and
a planted false claim (``tests/oracles/test_every_checker_can_fail.py``)."""

from __future__ import annotations

import numpy as np

from reference.triangle_surface import NORMAL_K, Facing

from ... import schema as S
from ...family import RowContract
from ...model import Claim, dec, enc

__all__ = ["CONTRACTS", "plant_ambiguity", "plant_barycentric", "plant_first_hit", "plant_normal_facing"]

_GEOMETRY_SCHEMA = {
    "vertices": S.matrix(S.f64(), [None, 3], doc=(
        "Given: the vertices TriangleSurface::new admitted, float64 world coordinates (the same frame and length "
        "units as start and end).")),
    "triangles": S.matrix(S.integer(minimum=0), [None, 3], doc=(
        "Given: its indexed triangles [a, b, c]; the winding gives the normal (b - a) x (c - a). A facet's index "
        "is its position here.")),
    "tolerance": S.f64(positive=True, doc=(
        "Given: SurfaceSettings' tolerance, dimensionless (relative), from 32 binary64 epsilons to 1e-3.")),
    "start": S.vec(S.f64(), 3, doc="Given: the segment's start, float64 world coordinates."),
    "end": S.vec(S.f64(), 3, doc="Given: the segment's end (start + d, d = end - start)."),
}
_STAMP_FIELDS = {
    "identity": S.integer(0, 2**64 - 1, doc="The caller's object identity (u64)."),
    "version": S.integer(0, 2**64 - 1, doc="The caller's geometry version (u64)."),
}
_STAMP_SCHEMA = S.obj(required=_STAMP_FIELDS, doc=(
    "Given: the SurfaceStamp the surface was made with: the caller-supplied identity and version of this snapshot "
    "of the geometry (spec 004: the caller supplies a new object or version when geometry changes)."))
_ECHOED_STAMP = S.obj(required=_STAMP_FIELDS, doc=(
    "Echo: the surface stamp first_hit returns, hit or miss: exactly inputs.stamp, the snapshot the query ran on "
    "(a stale or altered stamp is Violated). Nothing to compute: copy the stamp you made the surface with."))
_INPUTS = S.obj(required=_GEOMETRY_SCHEMA)
_FIRST_HIT_INPUTS = S.obj(required={**_GEOMETRY_SCHEMA, "stamp": _STAMP_SCHEMA})


def _replace(claim: Claim, **value) -> Claim:
    return Claim(claim.row, claim.guarantee, {**claim.value, **value}, claim.inputs, claim.model)


def plant_first_hit(claim: Claim) -> Claim:
    """A hit: the parameter moved by 1/8 (a contact misplaced along the segment, position kept).
    A miss: a stale stamp (the version of another snapshot of the surface)."""
    v = claim.value
    if v["outcome"] == "hit":
        t = dec(v["t"])
        return _replace(claim, t=enc(t + 0.125 if t <= 0.875 else t - 0.125))
    st = v["stamp"]
    return _replace(claim, stamp={"identity": st["identity"], "version": (st["version"] + 1) % 2**64})


def plant_barycentric(claim: Claim) -> Claim:
    """The first weight off by 1/4 (unnormalized weights)."""
    w = [dec(x) for x in claim.value["weights"]]
    return _replace(claim, weights=enc([w[0] + 0.25, w[1], w[2]]))


def plant_normal_facing(claim: Claim) -> Claim:
    """The facing flipped (the sign of n . d taken the wrong way round)."""
    return _replace(claim, facing="Back" if claim.value["facing"] == "Front" else "Front")


def _with_facet(inputs: dict, verts) -> tuple[dict, int]:
    """``inputs`` with one facet appended (three new float64 vertices); its index."""
    V = list(inputs["vertices"]) + [enc(np.asarray(v, dtype=np.float64)) for v in verts]
    n = len(inputs["vertices"])
    tris = list(inputs["triangles"]) + [[n, n + 1, n + 2]]
    return {**inputs, "vertices": V, "triangles": tris}, len(tris) - 1


def plant_ambiguity(claim: Claim) -> Claim:
    """A published hit or miss over a surface that gains a facet with the segment on its edge
    (an exactly coplanar overlap the query must reject); an ambiguous query whose rejection
    names an added facet that the segment's line crosses far beyond its end (t near 4, decided
    by a wide margin)."""
    s = np.array([dec(x) for x in claim.inputs["start"]])
    e = np.array([dec(x) for x in claim.inputs["end"]])
    d = e - s
    if claim.value["outcome"] != "ambiguous":
        k = int(np.argmin(np.abs(d)))  # an axis not parallel to d
        third = s.copy()
        third[k] = s[k] + max(float(np.max(np.abs(d))), abs(s[k]))
        inputs, _ = _with_facet(claim.inputs, [s, e, third])
        return Claim(claim.row, claim.guarantee, {"outcome": claim.value["outcome"]}, inputs)
    k = int(np.argmax(np.abs(d)))
    c = s + 4 * d
    w = float(np.max(np.abs(d)))
    a1, a2 = np.zeros(3), np.zeros(3)
    a1[(k + 1) % 3], a2[(k + 2) % 3] = w, w
    inputs, j = _with_facet(claim.inputs, [c, c + a1, c + a2])
    return Claim(claim.row, claim.guarantee, {"outcome": "ambiguous", "triangle": j}, inputs)


_ROUNDED_MODEL = ("R_t, R_pos, R_l and theta are the documented binary64 model (reference.triangle_surface, "
                  "docs/decisions.md) evaluated from exact quantities at u = 2^-53, or at a declared model's u "
                  "(an explicit bound or k rescales every facet's bounds by declared/reference)")

CONTRACTS = {
    "triangle.first_hit": RowContract(
        checks=("first_hit: the value's stamp equals the caller's; a miss: no exact contact deeper than tol inside "
                "every barycentric and segment boundary and no facet forced in (every boundary quantity X >= -tol + R: "
                "a hit or ambiguous in every conforming run); a hit: the facet is crossed at a bounded parameter, "
                "|t - T| <= R_t (t = RN(T) on an axis-aligned facet with exact differences), every exact weight "
                ">= -R_l, |position - P(T)|_inf <= R_pos, none of its boundary quantities certainly inside its band "
                "(R < |X| <= tol), and the earliest rule: no lower-index bitwise duplicate, no facet forced into a "
                "band, no facet j forced in or with an exact contact computable earlier (T_j + R_j < t) or equal at a "
                "lower index. " + _ROUNDED_MODEL + "."),
        inputs=_FIRST_HIT_INPUTS,
        value=S.any_of(
            S.obj(required={"outcome": S.const("hit", doc="A contact was found."),
                            "t": S.f64(doc=(
                                "The computed intersection parameter along the segment, in [0, 1] (a fraction of "
                                "the segment, not a length): the contact is start + t (end - start).")),
                            "triangle": S.integer(minimum=0, doc=(
                                "The hit facet's index in inputs.triangles (the lowest index on exact ties).")),
                            "position": S.vec(S.f64(), 3, doc="The contact point, float64 world coordinates."),
                            "stamp": _ECHOED_STAMP},
                  doc="A hit: the earliest contact."),
            S.obj(required={"outcome": S.const("miss", doc="No contact."), "stamp": _ECHOED_STAMP},
                  doc="A miss."),
            doc="first_hit's result: a hit or a miss (an Ambiguous query makes no claim of this row)."),
        plant=plant_first_hit,
        model=S.model("[R_t, R_pos]; the other facets' bounds scale by the same declared/reference ratio", NORMAL_K),
    ),
    "triangle.barycentric": RowContract(
        checks=("barycentric: every weight >= 0 and |w_k - lambda_k| <= R_l[k] against the exact weights of the "
                "segment's exact crossing with the facet's plane. " + _ROUNDED_MODEL + "."),
        inputs=_INPUTS,
        value=S.obj(required={"triangle": S.integer(minimum=0, doc="The hit facet's index."),
                              "weights": S.vec(S.f64(), 3, doc=(
                                  "The contact's barycentric weights of the facet's vertices (a, b, c), in that order: "
                                  "each >= 0, summing to 1 up to rounding (dimensionless)."))}),
        plant=plant_barycentric,
        model=S.model("1: R_l", NORMAL_K),
    ),
    "triangle.normal_facing": RowContract(
        checks=("normal_facing: n . N0 > 0 and |n - N0/|N0||_2 <= theta = 64u/G (three-valued: |N0| bracketed at "
                "256 bits), and facing is exactly Front when N0 . (e - s) < 0, Back when > 0. "
                + _ROUNDED_MODEL + "."),
        inputs=_INPUTS,
        value=S.obj(required={"triangle": S.integer(minimum=0, doc="The hit facet's index."),
                              "normal": S.vec(S.f64(), 3, doc=(
                                  "The winding-derived unit normal (b - a) x (c - a) / |(b - a) x (c - a)| (Euclidean "
                                  "length 1), float64.")),
                              "facing": S.enum([f.value for f in Facing], doc=(
                                  "Front when the segment runs against the normal (N . (end - start) < 0), Back when "
                                  "along it; geometric, not inside or outside a solid."))}),
        plant=plant_normal_facing,
        model=S.model("1: theta", NORMAL_K),
    ),
    "triangle.ambiguity": RowContract(
        checks=("ambiguity: a published hit or miss has no facet exactly coplanar with the segment and overlapping "
                "it, no exact contact on a facet the model cannot bound or within the tolerance of parallel to the "
                "segment, and no facet forced into a band (every boundary quantity X >= -tol + R and one with "
                "R < |X| <= tol); an ambiguous query's named facet can put a computed quantity inside its band with "
                "the model widened 2x (Verified; an exactly computed 0 or 1 is accepted), cannot even at 8x "
                "(Violated), else Undecided. Claims on a surface admission must reject are Violated."),
        inputs=_INPUTS,
        value=S.any_of(S.obj(required={"outcome": S.enum(["hit", "miss"],
                                                         doc="first_hit published a hit or a miss.")},
                             doc="A published result."),
                       S.obj(required={"outcome": S.const("ambiguous",
                                                          doc="first_hit rejected the query as Ambiguous."),
                                       "triangle": S.integer(minimum=0, doc=(
                                           "The facet the rejection names (one inside its uncertainty band)."))},
                             doc="A rejection."),
                       doc="Whether first_hit published a result or rejected the query as Ambiguous."),
        plant=plant_ambiguity,
    ),
}
