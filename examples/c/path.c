/* Spec 002 paths: TryPreparePath, TryEvaluatePath, TryEvaluatePathTangent, TryConvertHermite
 * and TryConvertCentripetalCatmullRom.
 *
 * Written from spec 002 ("Contracts", "Domains", "Span sides", "Boundary policies", "Precision",
 * "Connectivity", "Paths") and the choices the project documents where the spec leaves them
 * open (docs/decisions.md: "ADR 0024 ranges of ToleranceProfile", "WorkLimits fields and
 * ranges", "The position floor", "Paths: where the chunk origin lives", "the parameter domain
 * and boundary policies", "joint classification", "conversion and tangent arguments",
 * "Centripetal Catmull-Rom sources", "ulp32 at the largest float32").
 *
 * The prepared path holds float32 controls: each float64 source control minus the chunk origin
 * in float64, narrowed to float32 (round to nearest even). Evaluation is a cubic Bernstein
 * (de Casteljau) evaluation of those float32 controls in binary64, so the claims declare no
 * error model: the oracle judges them against the project's binary64 reference model. */
#include "geomc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t n;
    float (*c)[4][3];
    double *w;
    double origin[3];
    uint64_t revision;
    int closed;
    double floor;
    const jnode *inputs; /* the preparation's request inputs */
} path;

/* --- exact helpers for the position floor ----------------------------------------------------- */

/* a + b = s + err exactly (Knuth's TwoSum). */
static double two_sum(double a, double b, double *err) {
    double s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

/* The smallest float64 >= |a + b| (a + b exact real). */
static double abs_sum_up(double a, double b) {
    double err, s = two_sum(a, b, &err);
    if (s < 0) { s = -s; err = -err; }
    return err > 0 ? nextafter(s, INFINITY) : s;
}

/* The spacing of the float32 binade holding |x| (2^-149 below the normal range, 2^104 at
 * float32 max): docs/decisions.md "ulp32 at the largest float32". */
static double ulp32(double x) {
    x = fabs(x);
    if (x < 0x1p-126) return 0x1p-149;
    int ex;
    frexp(x, &ex); /* x in [2^(ex-1), 2^ex) */
    return ldexp(1.0, ex - 24);
}

/* --- TryPreparePath ------------------------------------------------------------------------- */

#define PI 0x1.921fb54442d18p+1 /* the float64 nearest pi, below pi: ranges [0, pi] end there */

static const struct { const char *name; double lo, hi; } TOL[] = {
    {"position_error", 0, 1e6}, {"relative_position_error", 0, 1e-2}, {"asset_scale", 1e-6, 1e9},
    {"continuity_position", 0, 1e6}, {"continuity_angle", 0, PI}, {"continuity_derivative", 0, 1},
    {"continuity_second_derivative", 0, 1}, {"distance_error", 1e-12, 1e6}, {"projection_gap", 1e-12, 1e6},
    {"tangent_angle_error", 1e-12, PI}, {"minimum_speed", 0, 1e6}, {"minimum_sin_angle", 0, 1},
    {"normal_min_derivative_length", 0, 1e6}, {"normal_min_sin_angle", 0, 1},
};
static const struct { const char *name; long long hi; } LIMITS[] = {
    {"max_spans", 2147483647LL}, {"max_keys", 2147483647LL}, {"max_leaves", 2147483647LL},
    {"max_depth", 52}, {"max_subdivisions", 2147483647LL}, {"max_prepared_bytes", 1LL << 40},
    {"max_samples", 2147483647LL},
};

static double tol_field(const jnode *inp, const char *name) {
    double x = NAN;
    jf64(jget(jget(inp, "tolerance"), name), &x);
    return x;
}

static long long limit_field(const jnode *inp, const char *name) {
    long long x = -1;
    ji64(jget(jget(inp, "limits"), name), &x);
    return x;
}

/* The joint of span i's end and span j's start. */
typedef struct { size_t in, out; } joint;

static size_t joints_of(const path *P, joint *J) {
    size_t k = 0;
    if (P->closed && P->n > 0) J[k++] = (joint){P->n - 1, 0}; /* joint 0: the closing joint */
    for (size_t j = 1; j < P->n; j++) J[k++] = (joint){j - 1, j};
    return k;
}

static void free_path(path *P) { free(P->c); free(P->w); P->c = NULL; P->w = NULL; }

/* TryPreparePath: a status; *P holds the candidate (complete on success, with the floor also on
 * UnsupportedPrecision, floor NaN when a control left the float32 range). */
static const char *prepare(const jnode *inp, path *P) {
    memset(P, 0, sizeof *P);
    P->inputs = inp;
    P->floor = NAN;
    const jnode *spans = jget(inp, "spans");
    P->n = jlen(spans);
    if (P->n == 0) return "InvalidArgument"; /* an empty source */
    for (size_t i = 0; i < sizeof TOL / sizeof TOL[0]; i++) {
        double x = tol_field(inp, TOL[i].name);
        if (!(x >= TOL[i].lo && x <= TOL[i].hi)) return "InvalidArgument"; /* NaN fails too */
    }
    for (size_t i = 0; i < sizeof LIMITS / sizeof LIMITS[0]; i++) {
        long long x = limit_field(inp, LIMITS[i].name);
        if (x < 0 || x > LIMITS[i].hi) return "InvalidArgument";
    }
    if (!ju64(jget(inp, "revision"), &P->revision) || !jbool(jget(inp, "is_closed"), &P->closed))
        return "InvalidArgument";
    if (!jvec(jget(inp, "origin"), 3, P->origin) || !finite3(P->origin)) return "InvalidArgument";
    P->c = malloc(P->n * sizeof *P->c);
    P->w = malloc(P->n * sizeof *P->w);
    double src[4][3];
    for (size_t i = 0; i < P->n; i++) {
        const jnode *sp = jat(spans, i), *ctl = jget(sp, "controls");
        if (jlen(ctl) != 4 || !jf64(jget(sp, "domain_width"), &P->w[i])) return "InvalidArgument";
        if (!(P->w[i] > 0) || !isfinite(P->w[i])) return "InvalidArgument";
        for (int r = 0; r < 4; r++)
            if (!jvec(jat(ctl, r), 3, src[r]) || !finite3(src[r])) return "InvalidArgument";
    }
    /* Limits: "a zero work limit allows no work". */
    size_t nj = P->closed ? P->n : P->n - 1;
    if ((long long)P->n > limit_field(inp, "max_spans")) return "BudgetExceeded";
    if ((long long)(P->n * 56 + nj * 64) > limit_field(inp, "max_prepared_bytes")) return "BudgetExceeded";
    /* Narrowing: fl32(fl64(source - origin)); E the largest narrowed magnitude, N the largest
     * narrowing error against the exact difference, rounded up exactly. */
    double E = 0, N = 0;
    for (size_t i = 0; i < P->n; i++) {
        const jnode *ctl = jget(jat(spans, i), "controls");
        for (int r = 0; r < 4; r++) {
            jvec(jat(ctl, r), 3, src[r]);
            for (int a = 0; a < 3; a++) {
                double lo, hi = two_sum(src[r][a], -P->origin[a], &lo); /* source - origin = hi + lo */
                float f = (float)hi;
                if (!isfinite(f)) return "UnsupportedPrecision"; /* beyond float32: a nearer origin fixes it */
                P->c[i][r][a] = f;
                E = fmax(E, fabs((double)f));
                N = fmax(N, abs_sum_up((double)f - hi, -lo)); /* f - hi is exact */
            }
        }
    }
    P->floor = abs_sum_up(2 * ulp32(E), N);
    /* Connectivity: consecutive spans (and a closed path's closing joint) within ContinuityPosition. */
    joint *J = malloc((P->n + 1) * sizeof *J);
    size_t k = joints_of(P, J);
    for (size_t j = 0; j < k; j++) {
        double gap[3];
        for (int a = 0; a < 3; a++) gap[a] = (double)P->c[J[j].in][3][a] - (double)P->c[J[j].out][0][a];
        if (norm2(gap) > tol_field(inp, "continuity_position")) { free(J); return "InvalidTopology"; }
    }
    free(J);
    /* Precision: max(PositionError, RelativePositionError x AssetScale) must reach the floor. */
    double eff = fmax(tol_field(inp, "position_error"),
                      tol_field(inp, "relative_position_error") * tol_field(inp, "asset_scale"));
    if (!(eff >= P->floor)) return "UnsupportedPrecision";
    return "Success";
}

/* --- evaluation ----------------------------------------------------------------------------- */

/* The cubic Bernstein polynomial of float32 controls at u, in binary64 (de Casteljau), with its
 * first and second derivatives per u. */
static void bezier(const float c[4][3], double u, double pos[3], double d1[3], double d2[3]) {
    const double v = 1 - u;
    for (int a = 0; a < 3; a++) {
        double p0 = c[0][a], p1 = c[1][a], p2 = c[2][a], p3 = c[3][a];
        double a01 = v * p0 + u * p1, a12 = v * p1 + u * p2, a23 = v * p2 + u * p3;
        double b0 = v * a01 + u * a12, b1 = v * a12 + u * a23;
        pos[a] = v * b0 + u * b1;
        d1[a] = 3 * (b1 - b0);
        d2[a] = 6 * (v * ((p2 - 2 * p1) + p0) + u * ((p3 - 2 * p2) + p1));
    }
}

/* -1, 0 or 1 as u <, = or > the integer N, exactly. */
static int cmp_int(double u, long long N) {
    if (u < -0x1p63) return -1;
    if (u >= 0x1p63) return 1;
    double fl = floor(u);
    long long fi = (long long)fl;
    if (fi != N) return fi < N ? -1 : 1;
    return u == fl ? 0 : 1;
}

/* The (span, u) a request names (spec 002 "Span sides", "Boundary policies"; docs/decisions.md
 * "Paths: the parameter domain and boundary policies"), or NULL with the status in *status. */
static int resolve(const path *P, const jnode *q, size_t *k_out, double *u_out, const char **status) {
    long long k, n = (long long)P->n;
    double u;
    const jnode *policy = jget(q, "policy"), *side = jget(q, "side");
    *status = "InvalidArgument";
    if (!ji64(jget(q, "span"), &k) || !jf64(jget(q, "u"), &u)) return 0;
    int reject = jis_str(policy, "Reject"), clamp = jis_str(policy, "Clamp"), wrap = jis_str(policy, "Wrap");
    int outgoing = jis_str(side, "Outgoing"), incoming = jis_str(side, "Incoming");
    if (!(reject || clamp || wrap) || !(outgoing || incoming)) return 0; /* Hold, Loop, PingPong: tracks only */
    if (wrap && !P->closed) return 0;
    if (!isfinite(u)) return 0;
    if (k == n && u == 0) { k = n - 1; u = 1; }      /* the terminal endpoint by its outside name */
    else if (k == -1 && u == 1) { k = 0; u = 0; }    /* the first endpoint by its outside name */
    else if (!(k >= 0 && k < n && u >= 0 && u <= 1)) {
        int before = k == LLONG_MIN || cmp_int(u, -k) < 0;          /* span + u < 0 */
        int after = !before && k > LLONG_MIN + n && cmp_int(u, n - k) > 0; /* span + u > n */
        if (!before && !after) return 0; /* an interior span with u outside [0, 1] names no point */
        if (reject) { *status = "InvalidDomain"; return 0; }
        if (clamp) { k = before ? 0 : n - 1; u = before ? 0 : 1; }
        else { /* Wrap: span + u modulo n, exactly (u - floor(u) and fmod are exact) */
            double f = floor(u);
            long long r = (long long)fmod(f, (double)n) + k % n;
            k = ((r % n) + n) % n;
            u = u - f;
        }
    }
    if (u == 1 && k < n - 1 && outgoing) { k++; u = 0; }      /* an exact boundary: the outgoing span */
    else if (u == 0 && k > 0 && incoming) { k--; u = 1; }     /* Incoming: the previous span at u = 1 */
    *k_out = (size_t)k;
    *u_out = u;
    *status = "Success";
    return 1;
}

/* --- writing --------------------------------------------------------------------------------- */

static void f32_point(jwriter *w, const float p[3]) {
    jw_arr(w);
    for (int a = 0; a < 3; a++) jw_f64(w, (double)p[a]);
    jw_end_arr(w);
}

static void f32_span(jwriter *w, const float c[4][3]) {
    jw_arr(w);
    for (int r = 0; r < 4; r++) f32_point(w, c[r]);
    jw_end_arr(w);
}

static void path_controls(jwriter *w, const path *P) {
    jw_arr(w);
    for (size_t i = 0; i < P->n; i++) f32_span(w, P->c[i]);
    jw_end_arr(w);
}

static void path_state(jwriter *w, const path *P) {
    jw_obj(w);
    jw_key(w, "controls");
    if (!P) { jw_arr(w); jw_end_arr(w); jw_end_obj(w); return; }
    path_controls(w, P);
    jw_key(w, "domain_widths"); jw_f64v(w, P->w, P->n);
    jw_key(w, "origin"); jw_f64v(w, P->origin, 3);
    jw_key(w, "revision"); jw_u64(w, P->revision);
    jw_key(w, "is_closed"); jw_bool(w, P->closed);
    jw_key(w, "position_floor"); jw_f64(w, P->floor);
    jw_end_obj(w);
}

static void floor_claim(jwriter *w, const path *P, int accepted) {
    const jnode *inp = P->inputs, *spans = jget(inp, "spans"), *tol = jget(inp, "tolerance");
    claim_head(w, "path.position_floor", "Exact");
    jw_key(w, "value"); jw_obj(w);
    jw_key(w, "floor");
    if (isnan(P->floor)) jw_null(w); else jw_f64(w, P->floor);
    jw_key(w, "accepted"); jw_bool(w, accepted);
    jw_end_obj(w);
    jw_key(w, "inputs"); jw_obj(w);
    jw_key(w, "source"); jw_arr(w);
    for (size_t i = 0; i < jlen(spans); i++) jw_node(w, jget(jat(spans, i), "controls"));
    jw_end_arr(w);
    jw_key(w, "origin"); jw_node(w, jget(inp, "origin"));
    jw_key(w, "position_error"); jw_node(w, jget(tol, "position_error"));
    jw_key(w, "relative_position_error"); jw_node(w, jget(tol, "relative_position_error"));
    jw_key(w, "asset_scale"); jw_node(w, jget(tol, "asset_scale"));
    jw_end_obj(w);
    jw_end_obj(w);
}

/* A joint's values (docs/decisions.md "Paths: joint classification"): per-width derivatives
 * d = B'/w and s = B''/w^2 on both sides, their differences and scales, the position gap and
 * the tangent angle 2 atan2(|a - b|, |a + b|) of the unit derivatives; the class is the
 * threshold decision on these very values. */
static void continuity_claim(jwriter *w, const path *P, joint J) {
    const jnode *tol = jget(P->inputs, "tolerance");
    const float (*ci)[3] = P->c[J.in], (*co)[3] = P->c[J.out];
    double wi = P->w[J.in], wo = P->w[J.out], gap[3], din[3], dout[3], sin_[3], sout[3], dd[3], sd[3];
    for (int a = 0; a < 3; a++) {
        gap[a] = (double)ci[3][a] - (double)co[0][a];
        din[a] = 3 * ((double)ci[3][a] - ci[2][a]) / wi;
        dout[a] = 3 * ((double)co[1][a] - co[0][a]) / wo;
        sin_[a] = 6 * (((double)ci[3][a] - 2 * (double)ci[2][a]) + ci[1][a]) / wi / wi;
        sout[a] = 6 * (((double)co[2][a] - 2 * (double)co[1][a]) + co[0][a]) / wo / wo;
        dd[a] = din[a] - dout[a];
        sd[a] = sin_[a] - sout[a];
    }
    double ni = norm2(din), no = norm2(dout), angle = NAN;
    if (ni > 0 && no > 0) {
        double am[3], ap[3];
        for (int a = 0; a < 3; a++) { am[a] = din[a] / ni - dout[a] / no; ap[a] = din[a] / ni + dout[a] / no; }
        angle = 2 * atan2(norm2(am), norm2(ap));
    }
    double ddiff = norm2(dd), dscale = fmax(ni, no), sdiff = norm2(sd), sscale = fmax(norm2(sin_), norm2(sout));
    double ca = NAN, cd = NAN, csd = NAN;
    jf64(jget(tol, "continuity_angle"), &ca);
    jf64(jget(tol, "continuity_derivative"), &cd);
    jf64(jget(tol, "continuity_second_derivative"), &csd);
    const char *cls = "C0";
    if (angle <= ca) {
        cls = "G1";
        if (ddiff <= cd * dscale) {
            cls = "C1";
            if (sdiff <= csd * sscale) cls = "C2";
        }
    }
    claim_head(w, "path.continuity_values", "Rounded");
    jw_key(w, "value"); jw_obj(w);
    jw_key(w, "position_gap"); jw_f64(w, norm2(gap));
    jw_key(w, "tangent_angle"); jw_f64(w, angle);
    jw_key(w, "derivative_difference"); jw_f64(w, ddiff);
    jw_key(w, "derivative_scale"); jw_f64(w, dscale);
    jw_key(w, "second_derivative_difference"); jw_f64(w, sdiff);
    jw_key(w, "second_derivative_scale"); jw_f64(w, sscale);
    jw_key(w, "continuity"); jw_str(w, cls);
    jw_end_obj(w);
    jw_key(w, "inputs"); jw_obj(w);
    jw_key(w, "P_in"); f32_span(w, ci);
    jw_key(w, "P_out"); f32_span(w, co);
    jw_key(w, "w_in"); jw_f64(w, wi);
    jw_key(w, "w_out"); jw_f64(w, wo);
    jw_key(w, "continuity_angle"); jw_node(w, jget(tol, "continuity_angle"));
    jw_key(w, "continuity_derivative"); jw_node(w, jget(tol, "continuity_derivative"));
    jw_key(w, "continuity_second_derivative"); jw_node(w, jget(tol, "continuity_second_derivative"));
    jw_end_obj(w);
    jw_end_obj(w);
}

static void prepared_claims(jwriter *w, const path *P) {
    const jnode *spans = jget(P->inputs, "spans"), *origin = jget(P->inputs, "origin");
    floor_claim(w, P, 1);
    for (size_t i = 0; i < P->n; i++) {
        const jnode *ctl = jget(jat(spans, i), "controls");
        claim_head(w, "path.stored_endpoints", "Exact");
        jw_key(w, "value"); jw_arr(w); f32_point(w, P->c[i][0]); f32_point(w, P->c[i][3]); jw_end_arr(w);
        jw_key(w, "inputs"); jw_obj(w);
        jw_key(w, "source"); jw_arr(w); jw_node(w, jat(ctl, 0)); jw_node(w, jat(ctl, 3)); jw_end_arr(w);
        jw_key(w, "origin"); jw_node(w, origin);
        jw_end_obj(w);
        jw_end_obj(w);
        float lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = hi[a] = P->c[i][0][a];
            for (int r = 1; r < 4; r++) { lo[a] = fminf(lo[a], P->c[i][r][a]); hi[a] = fmaxf(hi[a], P->c[i][r][a]); }
        }
        claim_head(w, "path.control_boxes", "Exact");
        jw_key(w, "value"); jw_obj(w);
        jw_key(w, "lo"); f32_point(w, lo);
        jw_key(w, "hi"); f32_point(w, hi);
        jw_end_obj(w);
        jw_key(w, "inputs"); jw_obj(w);
        jw_key(w, "source"); jw_node(w, ctl);
        jw_key(w, "origin"); jw_node(w, origin);
        jw_end_obj(w);
        jw_end_obj(w);
    }
    joint *J = malloc((P->n + 1) * sizeof *J);
    size_t k = joints_of(P, J);
    for (size_t j = 0; j < k; j++) continuity_claim(w, P, J[j]);
    free(J);
}

/* The request object evaluation claims name: the held path, span, u, policy, side. */
static void request_inputs(jwriter *w, const path *P, const jnode *q) {
    jw_key(w, "request"); jw_obj(w);
    jw_key(w, "path"); path_controls(w, P);
    jw_key(w, "is_closed"); jw_bool(w, P->closed);
    jw_key(w, "span"); jw_node(w, jget(q, "span"));
    jw_key(w, "u"); jw_node(w, jget(q, "u"));
    jw_key(w, "policy"); jw_node(w, jget(q, "policy"));
    jw_key(w, "side"); jw_node(w, jget(q, "side"));
    jw_end_obj(w);
}

/* Whether the rows' schemas have a place for this request: a path policy and a finite u. */
static int claimable(const jnode *q) {
    double u;
    const jnode *p = jget(q, "policy"), *s = jget(q, "side");
    long long k;
    return (jis_str(p, "Reject") || jis_str(p, "Clamp") || jis_str(p, "Wrap")) &&
           (jis_str(s, "Outgoing") || jis_str(s, "Incoming")) && ji64(jget(q, "span"), &k) &&
           jf64(jget(q, "u"), &u) && isfinite(u);
}

static void point_inputs(jwriter *w, const path *P, const jnode *q, size_t k, double u) {
    jw_key(w, "inputs"); jw_obj(w);
    jw_key(w, "controls"); f32_span(w, P->c[k]);
    jw_key(w, "u"); jw_f64(w, u);
    request_inputs(w, P, q);
    if (jget(q, "minimum_speed")) { jw_key(w, "minimum_speed"); jw_node(w, jget(q, "minimum_speed")); }
    jw_end_obj(w);
}

static void evaluate_step(jwriter *w, const path *P, const jnode *q, int with_output, const options *opt) {
    size_t k;
    double u, pos[3], d1[3], d2[3];
    const char *status;
    int ok = resolve(P, q, &k, &u, &status);
    jw_key(w, "status"); jw_str(w, status);
    if (!ok) {
        if (claimable(q)) { /* the status the request names, as a claim of its own */
            jw_key(w, "claims"); jw_arr(w);
            claim_head(w, "path.interior_positions", "Rounded");
            jw_key(w, "value"); jw_obj(w); jw_key(w, "status"); jw_str(w, status); jw_end_obj(w);
            jw_key(w, "inputs"); jw_obj(w); request_inputs(w, P, q); jw_end_obj(w);
            jw_end_obj(w);
            jw_end_arr(w);
        }
        if (with_output) { jw_key(w, "output"); jw_obj(w); jw_key(w, "status"); jw_str(w, status); jw_end_obj(w); }
        return;
    }
    bezier(P->c[k], opt->flip_u ? (double)(float)u : u, pos, d1, d2); /* PLANTED BUG: fl32(u) */
    jw_key(w, "claims"); jw_arr(w);
    claim_head(w, "path.interior_positions", "Rounded");
    jw_key(w, "value"); jw_f64v(w, pos, 3);
    point_inputs(w, P, q, k, u);
    jw_end_obj(w);
    claim_head(w, "path.derivatives", "Rounded");
    jw_key(w, "value"); jw_obj(w);
    jw_key(w, "first"); jw_f64v(w, d1, 3);
    jw_key(w, "second"); jw_f64v(w, d2, 3);
    jw_end_obj(w);
    point_inputs(w, P, q, k, u);
    jw_end_obj(w);
    jw_end_arr(w);
    if (with_output) {
        jw_key(w, "output"); jw_obj(w);
        jw_key(w, "position"); jw_f64v(w, pos, 3);
        jw_key(w, "first"); jw_f64v(w, d1, 3);
        jw_key(w, "second"); jw_f64v(w, d2, 3);
        jw_end_obj(w);
    }
}

/* TryEvaluatePathTangent: Degenerate where |dP/du| <= the caller's speed (spec 002 Paths). */
static void tangent_step(jwriter *w, const path *P, const jnode *q, int with_output, const options *opt) {
    size_t k;
    double u, speed_min, pos[3], d1[3], d2[3], t[3];
    const char *status;
    int ok = resolve(P, q, &k, &u, &status);
    if (ok && !(jf64(jget(q, "minimum_speed"), &speed_min) && speed_min >= 0 && isfinite(speed_min))) {
        ok = 0;
        status = "InvalidArgument"; /* docs/decisions.md "Paths: conversion and tangent arguments" */
    }
    if (ok) {
        bezier(P->c[k], opt->flip_u ? (double)(float)u : u, pos, d1, d2);
        double s = norm2(d1);
        if (s <= speed_min) status = "Degenerate";
        else for (int a = 0; a < 3; a++) t[a] = d1[a] / s;
    }
    int success = ok && !strcmp(status, "Success");
    jw_key(w, "status"); jw_str(w, status);
    if (ok && claimable(q)) {
        jw_key(w, "claims"); jw_arr(w);
        claim_head(w, "path.tangents", "Rounded");
        jw_key(w, "value"); jw_obj(w);
        if (success) { jw_key(w, "tangent"); jw_f64v(w, t, 3); }
        else { jw_key(w, "status"); jw_str(w, status); }
        jw_end_obj(w);
        point_inputs(w, P, q, k, u);
        jw_end_obj(w);
        jw_end_arr(w);
    }
    if (with_output) {
        jw_key(w, "output"); jw_obj(w);
        if (success) { jw_key(w, "tangent"); jw_f64v(w, t, 3); }
        else { jw_key(w, "status"); jw_str(w, status); }
        jw_end_obj(w);
    }
}

/* --- conversions ---------------------------------------------------------------------------- */

/* The caller's output ranges: capacity spans of controls and widths, zero until written. A
 * request's conversions of one capacity share them (so a failed conversion is seen to leave
 * them unchanged). */
typedef struct {
    long long cap;
    double (*c)[4][3];
    double *w;
} ranges;

static void ranges_output(jwriter *w, const ranges *R) {
    jw_key(w, "output"); jw_obj(w);
    jw_key(w, "controls"); jw_arr(w);
    for (long long i = 0; i < R->cap; i++) {
        jw_arr(w);
        for (int r = 0; r < 4; r++) jw_f64v(w, R->c[i][r], 3);
        jw_end_arr(w);
    }
    jw_end_arr(w);
    jw_key(w, "widths"); jw_f64v(w, R->w, (size_t)R->cap);
    jw_end_obj(w);
}

/* One span in Bezier form from its end points, end tangents (per knot parameter) and width h:
 * B1 = P0 + h T0 / 3, B2 = P1 - h T1 / 3 (spec 002 Paths). */
static void hermite_span(const double p0[3], const double t0[3], const double p1[3], const double t1[3], double h,
                         double out[4][3]) {
    for (int a = 0; a < 3; a++) {
        out[0][a] = p0[a];
        out[1][a] = p0[a] + h * t0[a] / 3;
        out[2][a] = p1[a] - h * t1[a] / 3;
        out[3][a] = p1[a];
    }
}

static void conversion_step(jwriter *w, const jnode *q, int hermite, ranges *R) {
    long long cap;
    int closed;
    const char *status = "Success";
    long long bad_pair = -1;
    double cd = 0;
    size_t n = hermite ? jlen(jget(q, "waypoints")) : jlen(jget(q, "points"));
    double (*P)[3] = malloc((n + 1) * sizeof *P), (*T)[3] = malloc((n + 1) * sizeof *T);
    double *W = malloc((n + 1) * sizeof *W);
    if (!ji64(jget(q, "capacity"), &cap) || cap < 0 || cap > (1LL << 24) || !jbool(jget(q, "is_closed"), &closed)) {
        status = "InvalidArgument";
        cap = R->cap < 0 ? 0 : R->cap; /* the caller's ranges as they are */
        closed = 0;
    }
    if (cap != R->cap) { /* new ranges of this capacity, zero until written */
        free(R->c); free(R->w);
        R->cap = cap;
        R->c = calloc((size_t)cap + 1, sizeof *R->c);
        R->w = calloc((size_t)cap + 1, sizeof *R->w);
    }
    size_t spans = 0;
    if (!strcmp(status, "Success")) {
        if (hermite) {
            const jnode *wp = jget(q, "waypoints");
            if (n < 2) status = "InvalidArgument";
            for (size_t i = 0; i < n && !strcmp(status, "Success"); i++) {
                const jnode *x = jat(wp, i);
                if (jlen(x) != 3 || !jvec(jat(x, 0), 3, P[i]) || !jvec(jat(x, 1), 3, T[i]) || !jf64(jat(x, 2), &W[i]) ||
                    !finite3(P[i]) || !finite3(T[i]) || !(W[i] > 0) || !isfinite(W[i]))
                    status = "InvalidArgument";
            }
        } else {
            const jnode *pts = jget(q, "points");
            if (n < (closed ? 3u : 2u)) status = "InvalidArgument";
            if (!jf64(jget(q, "coincidence_distance"), &cd) || !(cd >= 0) || !isfinite(cd)) status = "InvalidArgument";
            for (size_t i = 0; i < n && !strcmp(status, "Success"); i++)
                if (!jvec(jat(pts, i), 3, P[i]) || !finite3(P[i])) status = "InvalidArgument";
        }
    }
    if (!strcmp(status, "Success")) {
        spans = closed ? n : n - 1;
        if (!hermite) { /* knot intervals sqrt(|P_{i+1} - P_i|); coincident waypoints are InvalidDomain */
            for (size_t i = 0; i < spans; i++) {
                double d[3];
                for (int a = 0; a < 3; a++) d[a] = P[(i + 1) % n][a] - P[i][a];
                double len = norm2(d);
                if (len <= cd) { status = "InvalidDomain"; bad_pair = (long long)i; break; }
                W[i] = sqrt(len);
            }
        }
    }
    if (!strcmp(status, "Success") && (long long)spans > cap) status = "CapacityExceeded"; /* before writing */
    if (!strcmp(status, "Success")) {
        if (!hermite) { /* tangents per knot parameter: Barry-Goldman inside, one-sided chords at open ends */
            for (size_t i = 0; i < n; i++) {
                int first = i == 0 && !closed, last = i == n - 1 && !closed;
                size_t pr = (i + n - 1) % n, nx = (i + 1) % n;
                double d0 = W[pr], d1 = W[i];
                for (int a = 0; a < 3; a++) {
                    if (first) T[i][a] = (P[1][a] - P[0][a]) / W[0];
                    else if (last) T[i][a] = (P[n - 1][a] - P[n - 2][a]) / W[n - 2];
                    else T[i][a] = (P[i][a] - P[pr][a]) / d0 - (P[nx][a] - P[pr][a]) / (d0 + d1) + (P[nx][a] - P[i][a]) / d1;
                }
            }
        }
        /* Into scratch first: a control or width that overflowed (inf, NaN) is OutOfRange, and the
         * caller's ranges keep what they held (docs/decisions.md "Paths: overflowing conversions"). */
        double (*S)[4][3] = malloc((spans + 1) * sizeof *S);
        for (size_t i = 0; i < spans && !strcmp(status, "Success"); i++) {
            hermite_span(P[i], T[i], P[(i + 1) % n], T[(i + 1) % n], W[i], S[i]);
            for (int r = 0; r < 4; r++)
                if (!finite3(S[i][r]) || !isfinite(W[i])) status = "OutOfRange";
        }
        if (!strcmp(status, "Success"))
            for (size_t i = 0; i < spans; i++) {
                memcpy(R->c[i], S[i], sizeof S[i]);
                R->w[i] = W[i];
            }
        free(S);
    }
    jw_key(w, "status"); jw_str(w, status);
    int ok = !strcmp(status, "Success");
    if (ok || bad_pair >= 0) {
        jw_key(w, "claims"); jw_arr(w);
        for (size_t i = 0; i < (ok ? spans : 1); i++) {
            claim_head(w, "path.conversions", "Rounded");
            jw_key(w, "value"); jw_obj(w);
            if (ok) {
                jw_key(w, "controls"); jw_arr(w);
                for (int r = 0; r < 4; r++) jw_f64v(w, R->c[i][r], 3);
                jw_end_arr(w);
                jw_key(w, "width"); jw_f64(w, R->w[i]);
            } else {
                jw_key(w, "status"); jw_str(w, status);
                jw_key(w, "index"); jw_i64(w, bad_pair);
            }
            jw_end_obj(w);
            jw_key(w, "inputs"); jw_obj(w);
            jw_key(w, "kind"); jw_str(w, hermite ? "hermite" : "catmull_rom");
            if (hermite) {
                const jnode *wp = jget(q, "waypoints");
                const char *names[3] = {"points", "tangents", "widths"};
                for (int f = 0; f < 3; f++) {
                    jw_key(w, names[f]); jw_arr(w);
                    for (size_t j = 0; j < n; j++) jw_node(w, jat(jat(wp, j), (size_t)f));
                    jw_end_arr(w);
                }
            } else {
                jw_key(w, "points"); jw_node(w, jget(q, "points"));
                jw_key(w, "coincidence_distance"); jw_node(w, jget(q, "coincidence_distance"));
            }
            jw_key(w, "is_closed"); jw_bool(w, closed);
            if (ok) { jw_key(w, "span"); jw_i64(w, (long long)i); }
            jw_end_obj(w);
            jw_end_obj(w);
        }
        jw_end_arr(w);
    }
    ranges_output(w, R);
    free(P); free(T); free(W);
}

/* --- a whole request ------------------------------------------------------------------------- */

void answer_path(jwriter *w, const jnode *req, const options *opt) {
    path held;
    int has = 0;
    ranges R = {-1, NULL, NULL};
    const jnode *steps = jget(req, "steps");
    jw_obj(w);
    jw_key(w, "request"); jw_node(w, jget(req, "id"));
    jw_key(w, "steps"); jw_arr(w);
    for (size_t k = 0; k < jlen(steps); k++) {
        const jnode *st = jat(steps, k), *inp = jget(st, "inputs"), *op = jget(st, "op");
        int out = rule_needs(req, k);
        int prep = jis_str(op, "TryPreparePath"), eval = jis_str(op, "TryEvaluatePath");
        int tan = jis_str(op, "TryEvaluatePathTangent"), herm = jis_str(op, "TryConvertHermite");
        int cr = jis_str(op, "TryConvertCentripetalCatmullRom");
        if (!(prep || eval || tan || herm || cr)) break; /* unknown op: this and later steps unanswered */
        claim_step(jget(req, "id"), k);
        jw_obj(w);
        if (prep) {
            path cand;
            const char *status = prepare(inp, &cand);
            jw_key(w, "status"); jw_str(w, status);
            int ok = !strcmp(status, "Success");
            if (ok || !strcmp(status, "UnsupportedPrecision")) {
                jw_key(w, "claims"); jw_arr(w);
                if (ok) prepared_claims(w, &cand); else floor_claim(w, &cand, 0);
                jw_end_arr(w);
            }
            if (ok) { /* the owner takes the complete candidate only on success */
                if (has) free_path(&held);
                held = cand;
                has = 1;
            } else {
                free_path(&cand);
            }
            if (out) { jw_key(w, "output"); path_state(w, has ? &held : NULL); }
        } else if (eval || tan) {
            if (!has) { jw_key(w, "status"); jw_str(w, "MissingCache"); }
            else if (eval) evaluate_step(w, &held, inp, out, opt);
            else tangent_step(w, &held, inp, out, opt);
        } else {
            conversion_step(w, inp, herm, &R);
        }
        jw_end_obj(w);
    }
    jw_end_arr(w);
    jw_end_obj(w);
    if (has) free_path(&held);
    free(R.c);
    free(R.w);
}
