/* Minimal JSON reader and writer: see json.h. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100

typedef struct {
    const char *p, *end;
    const char *err;
    int depth;
} parser;

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("geomc: out of memory\n", stderr);
        exit(3);
    }
    return p;
}

static void skip_ws(parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static jnode *node(jtype t) {
    jnode *x = xmalloc(sizeof *x);
    memset(x, 0, sizeof *x);
    x->type = t;
    return x;
}

static jnode *parse_value(parser *ps);

static int hex4(const char *s, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

/* A string literal (ps->p at the opening quote), decoded into UTF-8. */
static char *parse_string(parser *ps) {
    const char *s = ++ps->p;
    size_t cap = 0;
    while (s + cap < ps->end && s[cap] != '"') cap += (s[cap] == '\\') ? 2 : 1;
    char *out = xmalloc(cap * 2 + 1), *o = out;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) { ps->err = "control character in a string"; free(out); return NULL; }
        if (c != '\\') { *o++ = (char)c; ps->p++; continue; }
        if (ps->p + 1 >= ps->end) break;
        char e = ps->p[1];
        ps->p += 2;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp;
            if (ps->end - ps->p < 4 || !hex4(ps->p, &cp)) { ps->err = "bad \\u escape"; free(out); return NULL; }
            ps->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                unsigned lo;
                if (hex4(ps->p + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    ps->p += 6;
                }
            }
            o += put_utf8(o, cp);
            break;
        }
        default: ps->err = "bad escape"; free(out); return NULL;
        }
    }
    if (ps->p >= ps->end) { ps->err = "unterminated string"; free(out); return NULL; }
    ps->p++; /* closing quote */
    *o = '\0';
    return out;
}

static jnode *parse_number(parser *ps) {
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-') ps->p++;
    if (ps->p >= ps->end || !(*ps->p >= '0' && *ps->p <= '9')) { ps->err = "bad number"; return NULL; }
    if (*ps->p == '0') ps->p++;
    else while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || !(*ps->p >= '0' && *ps->p <= '9')) { ps->err = "bad fraction"; return NULL; }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
        if (ps->p >= ps->end || !(*ps->p >= '0' && *ps->p <= '9')) { ps->err = "bad exponent"; return NULL; }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    jnode *x = node(J_NUM);
    size_t n = (size_t)(ps->p - s);
    x->text = xmalloc(n + 1);
    memcpy(x->text, s, n);
    x->text[n] = '\0';
    return x;
}

static int literal(parser *ps, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return 0;
    ps->p += n;
    return 1;
}

static void push(jnode *x, jnode *item, char *key, size_t *cap) {
    if (x->n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        jnode **items = xmalloc(*cap * sizeof *items);
        if (x->n) memcpy(items, x->items, x->n * sizeof *items);
        free(x->items);
        x->items = items;
        if (x->type == J_OBJ) {
            char **keys = xmalloc(*cap * sizeof *keys);
            if (x->n) memcpy(keys, x->keys, x->n * sizeof *keys);
            free(x->keys);
            x->keys = keys;
        }
    }
    if (x->type == J_OBJ) x->keys[x->n] = key;
    x->items[x->n++] = item;
}

static jnode *parse_container(parser *ps, int is_obj) {
    if (++ps->depth > MAX_DEPTH) { ps->err = "nested too deeply"; return NULL; }
    jnode *x = node(is_obj ? J_OBJ : J_ARR);
    size_t cap = 0;
    char close = is_obj ? '}' : ']';
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) { ps->p++; ps->depth--; return x; }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (is_obj) {
            if (ps->p >= ps->end || *ps->p != '"') { ps->err = "expected a key"; return NULL; }
            if (!(key = parse_string(ps))) return NULL;
            for (size_t i = 0; i < x->n; i++)
                if (strcmp(x->keys[i], key) == 0) { ps->err = "duplicate key"; return NULL; }
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') { ps->err = "expected ':'"; return NULL; }
            ps->p++;
        }
        jnode *v = parse_value(ps);
        if (!v) return NULL;
        push(x, v, key, &cap);
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == close) { ps->p++; break; }
        ps->err = is_obj ? "expected ',' or '}'" : "expected ',' or ']'";
        return NULL;
    }
    ps->depth--;
    return x;
}

static jnode *parse_value(parser *ps) {
    skip_ws(ps);
    if (ps->p >= ps->end) { ps->err = "unexpected end"; return NULL; }
    char c = *ps->p;
    if (c == '{') return parse_container(ps, 1);
    if (c == '[') return parse_container(ps, 0);
    if (c == '"') {
        char *s = parse_string(ps);
        if (!s) return NULL;
        jnode *x = node(J_STR);
        x->text = s;
        return x;
    }
    if (literal(ps, "true")) { jnode *x = node(J_BOOL); x->boolean = 1; return x; }
    if (literal(ps, "false")) return node(J_BOOL);
    if (literal(ps, "null")) return node(J_NULL);
    return parse_number(ps);
}

jnode *json_parse(const char *text, size_t len, const char **err) {
    parser ps = {text, text + len, NULL, 0};
    jnode *x = parse_value(&ps);
    if (x) {
        skip_ws(&ps);
        if (ps.p != ps.end) { x = NULL; ps.err = "trailing text"; }
    }
    if (!x && err) *err = ps.err ? ps.err : "not JSON";
    return x;
}

void json_free(jnode *x) {
    if (!x) return;
    for (size_t i = 0; i < x->n; i++) {
        json_free(x->items[i]);
        if (x->type == J_OBJ) free(x->keys[i]);
    }
    free(x->items);
    free(x->keys);
    free(x->text);
    free(x);
}

const jnode *jget(const jnode *obj, const char *key) {
    if (!obj || obj->type != J_OBJ) return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
    return NULL;
}

size_t jlen(const jnode *arr) { return arr && arr->type == J_ARR ? arr->n : 0; }

const jnode *jat(const jnode *arr, size_t i) { return arr && arr->type == J_ARR && i < arr->n ? arr->items[i] : NULL; }

int jis_str(const jnode *x, const char *s) { return x && x->type == J_STR && strcmp(x->text, s) == 0; }

int jf64(const jnode *x, double *out) {
    if (!x || (x->type != J_NUM && x->type != J_STR)) return 0;
    const char *s = x->text;
    if (x->type == J_STR) {
        /* The words the case-file grammar admits; strtod would also take "infinity", "nan(...)". */
        if (strcmp(s, "nan") == 0) { *out = NAN; return 1; }
        if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0) { *out = INFINITY; return 1; }
        if (strcmp(s, "-inf") == 0) { *out = -INFINITY; return 1; }
        /* only signs, digits, '.', 'x', 'p', 'e' and hex digits: no spaces, words or "p/q" */
        if (!*s) return 0;
        for (const char *c = s; *c; c++)
            if (!strchr("+-.0123456789abcdefABCDEFxXpP", *c)) return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || end == s) return 0;
    if (errno == ERANGE && isinf(v)) return 0; /* a decimal beyond the format is not an infinity */
    *out = v;
    return 1;
}

static int integer_text(const jnode *x) {
    if (!x || x->type != J_NUM) return 0;
    return strpbrk(x->text, ".eE") == NULL;
}

int ji64(const jnode *x, long long *out) {
    if (!integer_text(x)) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(x->text, &end, 10);
    if (errno == ERANGE || *end) return 0;
    *out = v;
    return 1;
}

int ju64(const jnode *x, uint64_t *out) {
    if (!integer_text(x) || x->text[0] == '-') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(x->text, &end, 10);
    if (errno == ERANGE || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

int jbool(const jnode *x, int *out) {
    if (!x || x->type != J_BOOL) return 0;
    *out = x->boolean;
    return 1;
}

int jvec(const jnode *x, size_t k, double *out) {
    if (jlen(x) != k || !x) return 0;
    for (size_t i = 0; i < k; i++)
        if (!jf64(jat(x, i), &out[i])) return 0;
    return 1;
}

/* --- writer --------------------------------------------------------------------------------- */

void jw_init(jwriter *w, FILE *f) {
    memset(w, 0, sizeof *w);
    w->f = f;
    w->first[0] = 1;
}

static void sep(jwriter *w) {
    if (w->after_key) { w->after_key = 0; return; }
    if (!w->first[w->depth]) fputc(',', w->f);
    w->first[w->depth] = 0;
}

static void open(jwriter *w, char c) {
    sep(w);
    fputc(c, w->f);
    if (w->depth + 1 >= (int)sizeof w->first) { fputs("geomc: JSON output nested too deeply\n", stderr); exit(3); }
    w->first[++w->depth] = 1;
}

void jw_obj(jwriter *w) { open(w, '{'); }
void jw_arr(jwriter *w) { open(w, '['); }
void jw_end_obj(jwriter *w) { w->depth--; fputc('}', w->f); }
void jw_end_arr(jwriter *w) { w->depth--; fputc(']', w->f); }

static void raw_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') { fputc('\\', f); fputc(*c, f); }
        else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

void jw_key(jwriter *w, const char *key) {
    sep(w);
    raw_string(w->f, key);
    fputc(':', w->f);
    w->after_key = 1;
}

void jw_str(jwriter *w, const char *s) { sep(w); raw_string(w->f, s); }

void jw_f64(jwriter *w, double x) {
    sep(w);
    if (isnan(x)) fputs("\"nan\"", w->f);
    else if (isinf(x)) fputs(x > 0 ? "\"inf\"" : "\"-inf\"", w->f);
    else fprintf(w->f, "\"%a\"", x); /* exact: the oracle reads C99 hex floats */
}

void jw_f64v(jwriter *w, const double *x, size_t n) {
    jw_arr(w);
    for (size_t i = 0; i < n; i++) jw_f64(w, x[i]);
    jw_end_arr(w);
}

void jw_i64(jwriter *w, long long x) { sep(w); fprintf(w->f, "%lld", x); }
void jw_u64(jwriter *w, uint64_t x) { sep(w); fprintf(w->f, "%llu", (unsigned long long)x); }
void jw_bool(jwriter *w, int b) { sep(w); fputs(b ? "true" : "false", w->f); }
void jw_null(jwriter *w) { sep(w); fputs("null", w->f); }

void jw_node(jwriter *w, const jnode *x) {
    if (!x) { jw_null(w); return; }
    switch (x->type) {
    case J_NULL: jw_null(w); break;
    case J_BOOL: jw_bool(w, x->boolean); break;
    case J_NUM: sep(w); fputs(x->text, w->f); break;
    case J_STR: jw_str(w, x->text); break;
    case J_ARR:
        jw_arr(w);
        for (size_t i = 0; i < x->n; i++) jw_node(w, x->items[i]);
        jw_end_arr(w);
        break;
    case J_OBJ:
        jw_obj(w);
        for (size_t i = 0; i < x->n; i++) { jw_key(w, x->keys[i]); jw_node(w, x->items[i]); }
        jw_end_obj(w);
        break;
    }
}
