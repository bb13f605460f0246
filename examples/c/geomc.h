/* geomc: an independent C implementation of spec 002's path evaluation and spec 004's
 * triangle-surface queries, answering request files (requests/1) with answer files (answers/1).
 * See README.md beside this file and docs/integrating.md. */
#ifndef GEOMC_H
#define GEOMC_H

#include "json.h"

/* Planted bugs, each flipping one rounding (the test expects the oracle to catch them). */
typedef struct {
    int flip_u; /* path evaluation at fl32(u) instead of u */
    int flip_t; /* triangle contact parameter t rounded to float32 */
} options;

#include <math.h>

/* Every component finite. (Not isfinite(norminf(x)): fmax ignores a NaN operand.) */
static inline int finite3(const double x[3]) { return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]); }

/* |x|_inf of a finite vector. */
static inline double norminf(const double x[3]) { return fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2]))); }

/* |x|_2 without overflow or underflow: the components are scaled by a power of two (exactly)
 * near 1 first, since coordinates reach 2^1000 (and waypoints 1e-160 apart) and their squares
 * would not be normal finite numbers. */
static inline double norm2(const double x[3]) {
    double M = norminf(x);
    if (M == 0 || !isfinite(M)) return M;
    int ex;
    frexp(M, &ex);
    double a = ldexp(x[0], -ex), b = ldexp(x[1], -ex), c = ldexp(x[2], -ex);
    return ldexp(sqrt(a * a + b * b + c * c), ex);
}

/* Binary64 unit roundoff. */
#define U64 0x1p-53

/* Answer one request of a family: writes {"request": id, "steps": [...]} to w. */
void answer_triangle(jwriter *w, const jnode *req, const options *opt);
void answer_path(jwriter *w, const jnode *req, const options *opt);

/* Claims: claim_step names the step whose claims follow; claim_head opens a claim object
 * {"row", "guarantee", "id"} whose id ("triangle/00010 step 1 claim 0") is echoed in every
 * report of its verdict (--verdicts, JUnit), so a failure leads back to the claim. */
void claim_step(const jnode *request_id, size_t step);
void claim_head(jwriter *w, const char *row, const char *guarantee);

/* Whether step k's output is compared by one of the request's same_output rules. */
int rule_needs(const jnode *req, size_t k);

#endif
