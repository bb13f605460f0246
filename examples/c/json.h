/* A minimal JSON reader and writer for the request (requests/1) and answer (answers/1) files.
 *
 * Reading keeps every number as its JSON text, so that a number is converted once, where its
 * type is known (a float64 with strtod, an integer with strtoll/strtoull), and so that inputs
 * can be echoed into claims byte for byte. Writing is streamed; floats are written as C99 hex
 * floats ("%a"), which the oracle reads exactly. */
#ifndef GEOMC_JSON_H
#define GEOMC_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jnode {
    jtype type;
    int boolean;          /* J_BOOL */
    char *text;           /* J_NUM: the number's text; J_STR: the decoded string */
    size_t n;             /* J_ARR, J_OBJ: item count */
    struct jnode **items; /* J_ARR, J_OBJ: items (values of an object) */
    char **keys;          /* J_OBJ: keys */
} jnode;

/* Parse a whole document; NULL on error with a message in err (static storage). */
jnode *json_parse(const char *text, size_t len, const char **err);

void json_free(jnode *x);

const jnode *jget(const jnode *obj, const char *key); /* NULL when absent or not an object */
size_t jlen(const jnode *arr);                         /* 0 when not an array */
const jnode *jat(const jnode *arr, size_t i);          /* NULL when out of range */
int jis_str(const jnode *x, const char *s);            /* x is the string s */

/* A float64 from a number or a string holding one (hex, decimal, "nan", "inf", "-inf"); 0 when
 * x is neither. Decimals are rounded to nearest (strtod), hex floats are exact. */
int jf64(const jnode *x, double *out);
/* Integers: JSON integers only (no fraction, no exponent), in range; 0 otherwise. */
int ji64(const jnode *x, long long *out);
int ju64(const jnode *x, uint64_t *out);
int jbool(const jnode *x, int *out);
/* A vector of k float64 numbers; 0 when the shape or a number is wrong. */
int jvec(const jnode *x, size_t k, double *out);

/* Streaming writer: commas and nesting are tracked here. */
typedef struct {
    FILE *f;
    int depth;
    unsigned char first[128];
    int after_key;
} jwriter;

void jw_init(jwriter *w, FILE *f);
void jw_obj(jwriter *w);
void jw_end_obj(jwriter *w);
void jw_arr(jwriter *w);
void jw_end_arr(jwriter *w);
void jw_key(jwriter *w, const char *key);
void jw_str(jwriter *w, const char *s);
void jw_f64(jwriter *w, double x); /* a hex float string ("nan", "inf", "-inf" where not finite) */
void jw_f64v(jwriter *w, const double *x, size_t n);
void jw_i64(jwriter *w, long long x);
void jw_u64(jwriter *w, uint64_t x);
void jw_bool(jwriter *w, int b);
void jw_null(jwriter *w);
void jw_node(jwriter *w, const jnode *x); /* echo a parsed value as it was read */

#endif
