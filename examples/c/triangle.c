/* Spec 004: TriangleSurface::new, first_hit and clip_segment, in binary64.
 *
 * Written from spec 004's text ("Segment query and clipping") and the tolerance bands and error
 * model the project documents for it (docs/decisions.md "Triangle surfaces: statuses",
 * "settings, capacity, ownership, cancellation", "the tolerance bands", "error model"):
 *
 *   - admission scales each facet's edges e1 = b - a, e2 = c - a by their largest component m
 *     before the cross product; the normalized cross-product magnitude g must exceed tol;
 *   - a query rejects facets whose axis-aligned box misses the segment's (exact), intersects the
 *     segment with the facet's plane through unit-normal heights h_s, h_e of its endpoints, and
 *     solves the barycentric equations in 2D after dropping the dominant normal axis;
 *   - every decision compares a computed quantity with tol widened by an a-priori bound of its
 *     own rounding error, and a quantity inside that band makes the facet ambiguous, which
 *     rejects the whole query; exactly computed 0 and 1 are accepted;
 *   - the earliest hit wins (smallest t), exact ties keep the lowest facet index.
 */
#include "geomc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_TOL 0x1p-47 /* 32 binary64 epsilons */
#define MAX_TOL 1e-3
#define MAX_COORD 0x1p1000
#define CAP_CEILING (1LL << 24)

typedef struct {
    size_t nv, nt;
    double *v;         /* nv x 3 */
    size_t *t;         /* nt x 3 */
    uint64_t identity, version;
    double tol;
    long long max_v, max_t;
    const jnode *inputs; /* the admission's request inputs, echoed into claims */
} surface;

typedef struct {
    double t, pos[3], w[3], n[3];
    int front;
    size_t tri;
} hit;

/* An a-priori bound computed in round-to-nearest, made an upper bound (as the documented model
 * does): 17/16 covers the few roundings of computing the bound itself, 2^-1060 its underflow. */
static double up(double x) { return x * 1.0625 + 0x1p-1060; }


/* --- admission ------------------------------------------------------------------------------ */

static int int_in(const jnode *x, long long lo, long long hi, long long *out) {
    long long v;
    if (!ji64(x, &v) || v < lo || v > hi) return 0;
    if (out) *out = v;
    return 1;
}

/* The facet's scaled edges, cross product and its norm; 0 when every edge is zero (m = 0). */
static int facet_frame(const surface *S, size_t j, double e1[3], double e2[3], double *m, double cr[3], double *g) {
    const double *a = S->v + 3 * S->t[3 * j], *b = S->v + 3 * S->t[3 * j + 1], *c = S->v + 3 * S->t[3 * j + 2];
    for (int i = 0; i < 3; i++) { e1[i] = b[i] - a[i]; e2[i] = c[i] - a[i]; }
    *m = fmax(norminf(e1), norminf(e2));
    if (*m == 0) return 0;
    double s1[3], s2[3];
    for (int i = 0; i < 3; i++) { s1[i] = e1[i] / *m; s2[i] = e2[i] / *m; }
    cr[0] = s1[1] * s2[2] - s1[2] * s2[1];
    cr[1] = s1[2] * s2[0] - s1[0] * s2[2];
    cr[2] = s1[0] * s2[1] - s1[1] * s2[0];
    *g = norm2(cr);
    return 1;
}

/* TriangleSurface::new: a status, and on success the admitted surface in *out. */
static const char *admit(const jnode *inp, surface *out) {
    const jnode *st = jget(inp, "settings"), *stamp = jget(inp, "stamp");
    const jnode *V = jget(inp, "vertices"), *T = jget(inp, "triangles");
    surface S;
    memset(&S, 0, sizeof S);
    S.inputs = inp;
    /* Settings (docs/decisions.md "settings, capacity, ownership, cancellation"). */
    if (!jf64(jget(st, "tolerance"), &S.tol) || !(S.tol >= MIN_TOL && S.tol <= MAX_TOL)) return "InvalidArgument";
    if (!int_in(jget(st, "max_vertices"), 1, CAP_CEILING, &S.max_v)) return "InvalidArgument";
    if (!int_in(jget(st, "max_triangles"), 1, CAP_CEILING, &S.max_t)) return "InvalidArgument";
    if (!ju64(jget(stamp, "identity"), &S.identity) || !ju64(jget(stamp, "version"), &S.version))
        return "InvalidArgument";
    /* Shapes, then capacity before reading the vertices (spec 004: "retained buffer capacity"). */
    if (!V || V->type != J_ARR || !T || T->type != J_ARR) return "InvalidArgument";
    S.nv = jlen(V);
    S.nt = jlen(T);
    if (S.nv == 0 || S.nt == 0) return "InvalidArgument"; /* "nonempty geometry" */
    if ((long long)S.nv > S.max_v || (long long)S.nt > S.max_t) return "CapacityExceeded";
    S.v = malloc(S.nv * 3 * sizeof *S.v);
    S.t = malloc(S.nt * 3 * sizeof *S.t);
    const char *status = "Success";
    for (size_t i = 0; i < S.nv && !strcmp(status, "Success"); i++) {
        if (!jvec(jat(V, i), 3, S.v + 3 * i)) status = "InvalidArgument";
        else if (!finite3(S.v + 3 * i))
            status = "InvalidArgument"; /* "It checks finite vertices" */
        else if (norminf(S.v + 3 * i) > MAX_COORD) status = "OutOfRange";
    }
    for (size_t j = 0; j < S.nt && !strcmp(status, "Success"); j++) {
        const jnode *tri = jat(T, j);
        for (int k = 0; k < 3; k++) {
            long long idx;
            if (jlen(tri) != 3 || !int_in(jat(tri, k), 0, (long long)S.nv - 1, &idx)) { status = "InvalidArgument"; break; }
            S.t[3 * j + k] = (size_t)idx; /* "index validity" */
        }
    }
    /* "numerically conditioned nonzero facet area": g = |e1/m x e2/m| must exceed tol. */
    for (size_t j = 0; j < S.nt && !strcmp(status, "Success"); j++) {
        double e1[3], e2[3], m, cr[3], g;
        if (!facet_frame(&S, j, e1, e2, &m, cr, &g)) status = "Degenerate"; /* three equal vertices */
        else if (!(g > S.tol)) status = "IllConditioned"; /* includes an exactly zero cross product */
    }
    if (strcmp(status, "Success")) { free(S.v); free(S.t); return status; }
    *out = S;
    return "Success";
}

/* --- first_hit ------------------------------------------------------------------------------ */

enum { MISS, HIT, AMBIGUOUS };

/* Near-parallel facets: a 2D separating-axis test in the plane without axis k, coordinates
 * relative to a and scaled by a power of two into [-1, 1]. Any axis the computed coordinates
 * give is a valid separating direction, so only the projections' rounding (a few u |axis|_1)
 * must be covered: a gap beyond (tol + 32u) |axis|_1 is a definite miss. */
static int separated_2d(const double e1[3], const double e2[3], const double sa[3], const double ea[3], int k,
                        double tol) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    double P[5][2] = {{0, 0}, {e1[i], e1[j]}, {e2[i], e2[j]}, {sa[i], sa[j]}, {ea[i], ea[j]}};
    double M = 0;
    for (int p = 0; p < 5; p++) M = fmax(M, fmax(fabs(P[p][0]), fabs(P[p][1])));
    if (M == 0) return 0;
    int ex;
    frexp(M, &ex);
    for (int p = 0; p < 5; p++) { P[p][0] = ldexp(P[p][0], -ex); P[p][1] = ldexp(P[p][1], -ex); }
    static const int edges[4][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}};
    for (int a = 0; a < 4; a++) {
        const double *A = P[edges[a][0]], *B = P[edges[a][1]];
        double ax = -(B[1] - A[1]), ay = B[0] - A[0], n1 = fabs(ax) + fabs(ay);
        if (n1 == 0) continue;
        double tlo = INFINITY, thi = -INFINITY, slo = INFINITY, shi = -INFINITY;
        for (int p = 0; p < 3; p++) { double x = P[p][0] * ax + P[p][1] * ay; tlo = fmin(tlo, x); thi = fmax(thi, x); }
        for (int p = 3; p < 5; p++) { double x = P[p][0] * ax + P[p][1] * ay; slo = fmin(slo, x); shi = fmax(shi, x); }
        double gap = fmax(slo - thi, tlo - shi);
        if (gap > up((tol + 32 * U64) * n1)) return 1;
    }
    return 0;
}

/* One facet against the segment s -> e: MISS, HIT (with *h) or AMBIGUOUS. */
static int facet_query(const surface *S, size_t j, const double s[3], const double e[3], const double smin[3],
                       const double smax[3], const options *opt, hit *h) {
    const double *A = S->v + 3 * S->t[3 * j], *B = S->v + 3 * S->t[3 * j + 1], *C = S->v + 3 * S->t[3 * j + 2];
    /* "Segment/facet axis bounds provide a simple rejection phase" (exact comparisons). */
    for (int i = 0; i < 3; i++) {
        double lo = fmin(A[i], fmin(B[i], C[i])), hi = fmax(A[i], fmax(B[i], C[i]));
        if (smax[i] < lo || smin[i] > hi) return MISS;
    }
    const double tol = S->tol, u = U64;
    double e1[3], e2[3], m, cr[3], g, n[3], sa[3], ea[3], d[3];
    facet_frame(S, j, e1, e2, &m, cr, &g); /* admitted: m > 0 and g > tol */
    for (int i = 0; i < 3; i++) { n[i] = cr[i] / g; sa[i] = s[i] - A[i]; ea[i] = e[i] - A[i]; d[i] = e[i] - s[i]; }
    const double theta = up(64 * u / (g - 30 * u)); /* |n - N|_2, N the exact unit normal */
    const double hs = n[0] * sa[0] + n[1] * sa[1] + n[2] * sa[2];
    const double he = n[0] * ea[0] + n[1] * ea[1] + n[2] * ea[2];
    const double eta_s = up((1.001 * theta + 6 * u) * up(norm2(sa)));
    const double eta_e = up((1.001 * theta + 6 * u) * up(norm2(ea)));
    const double dn2 = norm2(d), dinf = norminf(d), D = hs - he, aD = fabs(D);
    int k = 0; /* the dominant normal axis */
    for (int i = 1; i < 3; i++) if (fabs(cr[i]) > fabs(cr[k])) k = i;

    /* Parallel within the tolerance: no parameter is computed (it would be unbounded). */
    if (aD <= up(tol * dn2 + 4 * (eta_s + eta_e) + 4 * u * aD)) {
        double bs = up(tol * (m + dn2) + eta_s), be = up(tol * (m + dn2) + eta_e);
        if ((hs > bs && he > be) || (hs < -bs && he < -be)) return MISS; /* both ends off one side */
        return separated_2d(e1, e2, sa, ea, k, tol) ? MISS : AMBIGUOUS; /* coplanar overlap */
    }
    int miss = 0, amb = 0;
    const double t = hs / D;
    const double T_up = (fabs(hs) + eta_s) / (aD - eta_s - eta_e - u * aD);
    const double R_t = up((eta_s + T_up * (eta_s + eta_e + u * aD)) / aD + 1.01 * u * fabs(t));
    const double B_t = up(tol + R_t);
    if (t < -B_t || t > 1 + B_t) miss = 1;
    if ((t != 0 && fabs(t) <= B_t) || (t != 1 && fabs(t - 1) <= B_t)) amb = 1;
    double q[3], Q[3]; /* the contact's offset from a, and the same divided by m */
    for (int i = 0; i < 3; i++) { q[i] = sa[i] + t * d[i]; Q[i] = q[i] / m; }
    const double qinf = norminf(q);
    const double rho = up(R_t * dinf * (1 + 4 * u) + 1.02 * u * (norminf(sa) + 2 * fabs(t) * dinf + qinf));
    if (qinf > 4 * m) {
        if (qinf - rho > 2 * m) miss = 1; else amb = 1;
    }
    /* Barycentric weights in the plane without axis k: q = l1 e1 + l2 e2. */
    int i1 = (k + 1) % 3, i2 = (k + 2) % 3;
    double s1[3], s2[3];
    for (int i = 0; i < 3; i++) { s1[i] = e1[i] / m; s2[i] = e2[i] / m; }
    const double ck = cr[k], ack = fabs(ck);
    const double num1 = Q[i1] * s2[i2] - Q[i2] * s2[i1];
    const double num2 = s1[i1] * Q[i2] - s1[i2] * Q[i1];
    const double l1 = num1 / ck, l2 = num2 / ck, l0 = (1 - l1) - l2;
    const double bq = 12.2 * u / ack, Qinf = norminf(Q);
    const double a1 = (8.2 * u * Qinf + 2.1 * rho / m + u * fabs(num1)) / ack + 1.01 * u * fabs(l1);
    const double a2 = (8.2 * u * Qinf + 2.1 * rho / m + u * fabs(num2)) / ack + 1.01 * u * fabs(l2);
    /* (bq < 1 holds for every admitted facet: |c_k| >= g / sqrt(3) > tol / 2 >= 2^-48) */
    const double R1 = bq < 1 ? up((a1 + bq * fabs(l1)) / (1 - bq)) : INFINITY;
    const double R2 = bq < 1 ? up((a2 + bq * fabs(l2)) / (1 - bq)) : INFINITY;
    const double R0 = up(R1 + R2 + 1.01 * u * (1 + fabs(l1) + fabs(l0)));
    const double w[3] = {l0, l1, l2}, R[3] = {R0, R1, R2};
    for (int i = 0; i < 3; i++) {
        double band = up(tol + R[i]);
        if (w[i] < -band) miss = 1;
        else if ((w[i] != 0 && fabs(w[i]) <= band) || R[i] > 0.5) amb = 1;
    }
    if (miss) return MISS; /* a definite miss of any quantity wins over ambiguity of another */
    if (amb) return AMBIGUOUS;
    h->t = opt->flip_t ? (float)t : t; /* PLANTED BUG (--flip-rounding t): a float32 field for t */
    h->tri = j;
    for (int i = 0; i < 3; i++) { h->pos[i] = s[i] + t * d[i]; h->w[i] = w[i]; h->n[i] = n[i]; }
    h->front = D > 0; /* the segment runs against the winding normal */
    return HIT;
}

typedef struct {
    const char *status;
    int has_hit;
    hit h;
    size_t ambiguous; /* the lowest ambiguous facet */
} query_out;

/* first_hit(start, end, cancel): the token answers "not cancelled" to its first k polls (k < 0:
 * no token) and is polled before each facet ("Cancellation polls per facet"). */
static query_out first_hit(const surface *S, const double s[3], const double e[3], long long k, const options *opt) {
    query_out r;
    memset(&r, 0, sizeof r);
    r.status = "Success";
    if (!finite3(s) || !finite3(e)) { r.status = "InvalidArgument"; return r; } /* "for a nonzero finite segment" */
    if (norminf(s) > MAX_COORD || norminf(e) > MAX_COORD) { r.status = "OutOfRange"; return r; }
    if (s[0] == e[0] && s[1] == e[1] && s[2] == e[2]) { r.status = "InvalidArgument"; return r; }
    double smin[3], smax[3];
    for (int i = 0; i < 3; i++) { smin[i] = fmin(s[i], e[i]); smax[i] = fmax(s[i], e[i]); }
    long long polls = 0;
    for (size_t j = 0; j < S->nt; j++) {
        if (k >= 0 && ++polls > k) { r.status = "Cancelled"; r.has_hit = 0; return r; }
        hit h;
        int f = facet_query(S, j, s, e, smin, smax, opt, &h);
        if (f == AMBIGUOUS) { r.status = "Ambiguous"; r.has_hit = 0; r.ambiguous = j; return r; }
        if (f == HIT && (!r.has_hit || h.t < r.h.t)) { r.h = h; r.has_hit = 1; } /* ties keep the lower index */
    }
    return r;
}

/* --- answers -------------------------------------------------------------------------------- */

static void write_stamp(jwriter *w, const surface *S) {
    jw_obj(w);
    jw_key(w, "identity"); jw_u64(w, S->identity);
    jw_key(w, "version"); jw_u64(w, S->version);
    jw_end_obj(w);
}

/* The claim inputs every triangle row reads: the held surface's mesh and tolerance and the
 * query's segment, echoed as the request wrote them. */
static void geometry_inputs(jwriter *w, const surface *S, const jnode *q, int with_stamp) {
    jw_key(w, "inputs");
    jw_obj(w);
    jw_key(w, "vertices"); jw_node(w, jget(S->inputs, "vertices"));
    jw_key(w, "triangles"); jw_node(w, jget(S->inputs, "triangles"));
    jw_key(w, "tolerance"); jw_node(w, jget(jget(S->inputs, "settings"), "tolerance"));
    jw_key(w, "start"); jw_node(w, jget(q, "start"));
    jw_key(w, "end"); jw_node(w, jget(q, "end"));
    if (with_stamp) { jw_key(w, "stamp"); write_stamp(w, S); }
    jw_end_obj(w);
}

static void surface_state(jwriter *w, const surface *S) {
    jw_obj(w);
    if (!S) { jw_key(w, "held"); jw_bool(w, 0); jw_end_obj(w); return; }
    jw_key(w, "vertices"); jw_arr(w);
    for (size_t i = 0; i < S->nv; i++) jw_f64v(w, S->v + 3 * i, 3);
    jw_end_arr(w);
    jw_key(w, "triangles"); jw_arr(w);
    for (size_t j = 0; j < S->nt; j++) {
        jw_arr(w);
        for (int k = 0; k < 3; k++) jw_i64(w, (long long)S->t[3 * j + k]);
        jw_end_arr(w);
    }
    jw_end_arr(w);
    jw_key(w, "stamp"); write_stamp(w, S);
    jw_key(w, "settings"); jw_obj(w);
    jw_key(w, "tolerance"); jw_f64(w, S->tol);
    jw_key(w, "max_vertices"); jw_i64(w, S->max_v);
    jw_key(w, "max_triangles"); jw_i64(w, S->max_t);
    jw_end_obj(w);
    jw_end_obj(w);
}

/* A first_hit or clip_segment step on the held surface. */
static void query_step(jwriter *w, const surface *S, const jnode *q, int clip, int with_output, const options *opt) {
    double s[3], e[3];
    long long k = -1;
    const jnode *cancel = jget(q, "cancel_after_polls");
    query_out r;
    if (!jvec(jget(q, "start"), 3, s) || !jvec(jget(q, "end"), 3, e) || (cancel && (!ji64(cancel, &k) || k < 0))) {
        r.status = "InvalidArgument";
        r.has_hit = 0;
    } else {
        r = first_hit(S, s, e, k, opt);
    }
    int ok = !strcmp(r.status, "Success"), ambiguous = !strcmp(r.status, "Ambiguous");
    jw_key(w, "status"); jw_str(w, r.status);
    if (ok || (ambiguous && !clip)) {
        jw_key(w, "claims"); jw_arr(w);
        if (ambiguous) {
            claim_head(w, "triangle.ambiguity", "Certified");
            jw_key(w, "value"); jw_obj(w);
            jw_key(w, "outcome"); jw_str(w, "ambiguous");
            jw_key(w, "triangle"); jw_i64(w, (long long)r.ambiguous);
            jw_end_obj(w);
            geometry_inputs(w, S, q, 0);
            jw_end_obj(w);
        } else {
            claim_head(w, "triangle.first_hit", "Rounded");
            jw_key(w, "value"); jw_obj(w);
            jw_key(w, "outcome"); jw_str(w, r.has_hit ? "hit" : "miss");
            if (r.has_hit) {
                jw_key(w, "t"); jw_f64(w, r.h.t);
                jw_key(w, "triangle"); jw_i64(w, (long long)r.h.tri);
                jw_key(w, "position"); jw_f64v(w, r.h.pos, 3); /* for clip_segment: the clipped end */
            }
            jw_key(w, "stamp"); write_stamp(w, S);
            jw_end_obj(w);
            geometry_inputs(w, S, q, 1);
            jw_end_obj(w);
            if (!clip) {
                if (r.has_hit) {
                    claim_head(w, "triangle.barycentric", "Rounded");
                    jw_key(w, "value"); jw_obj(w);
                    jw_key(w, "triangle"); jw_i64(w, (long long)r.h.tri);
                    jw_key(w, "weights"); jw_f64v(w, r.h.w, 3);
                    jw_end_obj(w);
                    geometry_inputs(w, S, q, 0);
                    jw_end_obj(w);
                    claim_head(w, "triangle.normal_facing", "Rounded");
                    jw_key(w, "value"); jw_obj(w);
                    jw_key(w, "triangle"); jw_i64(w, (long long)r.h.tri);
                    jw_key(w, "normal"); jw_f64v(w, r.h.n, 3);
                    jw_key(w, "facing"); jw_str(w, r.h.front ? "Front" : "Back");
                    jw_end_obj(w);
                    geometry_inputs(w, S, q, 0);
                    jw_end_obj(w);
                }
                claim_head(w, "triangle.ambiguity", "Certified");
                jw_key(w, "value"); jw_obj(w);
                jw_key(w, "outcome"); jw_str(w, r.has_hit ? "hit" : "miss");
                jw_end_obj(w);
                geometry_inputs(w, S, q, 0);
                jw_end_obj(w);
            }
        }
        jw_end_arr(w);
    }
    if (with_output) {
        jw_key(w, "output"); jw_obj(w);
        jw_key(w, "status"); jw_str(w, r.status);
        jw_key(w, "stamp"); write_stamp(w, S);
        if (ok && clip) {
            jw_key(w, "start"); jw_f64v(w, s, 3);
            jw_key(w, "end"); jw_f64v(w, r.has_hit ? r.h.pos : e, 3);
            jw_key(w, "hit");
            if (r.has_hit) jw_i64(w, (long long)r.h.tri); else jw_null(w);
        } else if (ok) {
            jw_key(w, "outcome"); jw_str(w, r.has_hit ? "hit" : "miss");
            if (r.has_hit) {
                jw_key(w, "t"); jw_f64(w, r.h.t);
                jw_key(w, "triangle"); jw_i64(w, (long long)r.h.tri);
                jw_key(w, "position"); jw_f64v(w, r.h.pos, 3);
                jw_key(w, "barycentric"); jw_f64v(w, r.h.w, 3);
                jw_key(w, "normal"); jw_f64v(w, r.h.n, 3);
                jw_key(w, "facing"); jw_str(w, r.h.front ? "Front" : "Back");
            }
        } else if (ambiguous) {
            jw_key(w, "triangle"); jw_i64(w, (long long)r.ambiguous);
        }
        jw_end_obj(w);
    }
}

void answer_triangle(jwriter *w, const jnode *req, const options *opt) {
    surface held;
    int has = 0;
    const jnode *steps = jget(req, "steps");
    jw_obj(w);
    jw_key(w, "request"); jw_node(w, jget(req, "id"));
    jw_key(w, "steps"); jw_arr(w);
    for (size_t k = 0; k < jlen(steps); k++) {
        const jnode *st = jat(steps, k), *inp = jget(st, "inputs"), *op = jget(st, "op");
        int out = rule_needs(req, k);
        if (!jis_str(op, "TriangleSurface::new") && !jis_str(op, "first_hit") && !jis_str(op, "clip_segment"))
            break; /* an op this implementation does not know: this and later steps stay unanswered */
        claim_step(jget(req, "id"), k);
        jw_obj(w);
        if (jis_str(op, "TriangleSurface::new")) {
            surface fresh;
            const char *status = admit(inp, &fresh);
            if (!strcmp(status, "Success")) {
                if (has) { free(held.v); free(held.t); }
                held = fresh; /* a rejected admission leaves the held surface as it was */
                has = 1;
            }
            jw_key(w, "status"); jw_str(w, status);
            if (out) { jw_key(w, "output"); surface_state(w, has ? &held : NULL); }
        } else if (!has) {
            jw_key(w, "status"); jw_str(w, "MissingCache"); /* nothing admitted to query */
        } else {
            query_step(w, &held, inp, jis_str(op, "clip_segment"), out, opt);
        }
        jw_end_obj(w);
    }
    jw_end_arr(w);
    jw_end_obj(w);
    if (has) { free(held.v); free(held.t); }
}
