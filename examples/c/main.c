/* geomc REQUESTS.json -o ANSWERS.json [--families path,triangle] [--flip-rounding u|t]
 *
 * Reads a request file (requests/1), answers every request of the families it implements
 * (path, triangle) and writes an answer file (answers/1) that declares those families, so the
 * oracle judges each of their requests and lists the others as "not covered". */
#include "geomc.h"

#include <stdlib.h>
#include <string.h>

static const char *FAMILIES[] = {"path", "triangle"};
#define N_FAMILIES 2

int rule_needs(const jnode *req, size_t k) {
    const jnode *rules = jget(req, "rules");
    for (size_t i = 0; i < jlen(rules); i++) {
        long long b, a;
        if (ji64(jget(jat(rules, i), "before"), &b) && (size_t)b == k) return 1;
        if (ji64(jget(jat(rules, i), "after"), &a) && (size_t)a == k) return 1;
    }
    return 0;
}

static char claim_id_prefix[512];
static int claim_counter;

void claim_step(const jnode *request_id, size_t step) {
    snprintf(claim_id_prefix, sizeof claim_id_prefix, "%s step %zu",
             request_id && request_id->type == J_STR ? request_id->text : "?", step);
    claim_counter = 0;
}

void claim_head(jwriter *w, const char *row, const char *guarantee) {
    char id[600];
    snprintf(id, sizeof id, "%s claim %d", claim_id_prefix, claim_counter++);
    jw_obj(w);
    jw_key(w, "row"); jw_str(w, row);
    jw_key(w, "guarantee"); jw_str(w, guarantee);
    jw_key(w, "id"); jw_str(w, id);
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

static int usage(void) {
    fputs("usage: geomc REQUESTS.json -o ANSWERS.json [--families path,triangle] [--flip-rounding u|t]\n"
          "  --families       answer (and declare) only these of the families geomc implements\n"
          "  --flip-rounding  plant a bug: u = evaluate paths at fl32(u); t = round a hit's t to float32\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *families = "path,triangle";
    options opt = {0, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--families") && i + 1 < argc) families = argv[++i];
        else if (!strcmp(argv[i], "--flip-rounding") && i + 1 < argc) {
            const char *b = argv[++i];
            if (!strcmp(b, "u")) opt.flip_u = 1;
            else if (!strcmp(b, "t")) opt.flip_t = 1;
            else return usage();
        } else if (argv[i][0] != '-' && !in) in = argv[i];
        else return usage();
    }
    if (!in || !out) return usage();
    size_t len;
    char *text = read_file(in, &len);
    if (!text) { fprintf(stderr, "geomc: cannot read %s\n", in); return 2; }
    const char *err = NULL;
    jnode *doc = json_parse(text, len, &err);
    if (!doc || !jis_str(jget(doc, "format"), "requests/1")) {
        fprintf(stderr, "geomc: %s is not a requests/1 file%s%s\n", in, err ? ": " : "", err ? err : "");
        return 2;
    }
    const jnode *reqs = jget(doc, "requests");
    /* The families to answer: implemented, asked for with --families, and present in the file
     * (an answer file may not declare a family its request set does not have). */
    int use[N_FAMILIES] = {0};
    for (size_t i = 0; i < jlen(reqs); i++)
        for (int f = 0; f < N_FAMILIES; f++) {
            const char *name = FAMILIES[f];
            size_t n = strlen(name);
            const char *p = strstr(families, name);
            int listed = p && (p == families || p[-1] == ',') && (p[n] == ',' || p[n] == '\0');
            if (listed && jis_str(jget(jat(reqs, i), "family"), name)) use[f] = 1;
        }
    FILE *f = fopen(out, "w");
    if (!f) { fprintf(stderr, "geomc: cannot write %s\n", out); return 2; }
    jwriter w;
    jw_init(&w, f);
    jw_obj(&w);
    jw_key(&w, "format"); jw_str(&w, "answers/1");
    jw_key(&w, "producer");
    jw_str(&w, opt.flip_u ? "geomc 0.1 (C, binary64; planted bug: u narrowed to float32)"
               : opt.flip_t ? "geomc 0.1 (C, binary64; planted bug: t rounded to float32)"
               : "geomc 0.1 (C, binary64)");
    jw_key(&w, "families"); jw_arr(&w);
    for (int k = 0; k < N_FAMILIES; k++) if (use[k]) jw_str(&w, FAMILIES[k]);
    jw_end_arr(&w);
    jw_key(&w, "answers"); jw_arr(&w);
    size_t answered = 0;
    for (size_t i = 0; i < jlen(reqs); i++) {
        const jnode *r = jat(reqs, i);
        if (use[0] && jis_str(jget(r, "family"), "path")) { answer_path(&w, r, &opt); answered++; }
        else if (use[1] && jis_str(jget(r, "family"), "triangle")) { answer_triangle(&w, r, &opt); answered++; }
    }
    jw_end_arr(&w);
    jw_end_obj(&w);
    fputc('\n', f);
    if (fclose(f) != 0) { fprintf(stderr, "geomc: cannot write %s\n", out); return 2; }
    fprintf(stderr, "geomc: answered %zu of %zu requests\n", answered, jlen(reqs));
    json_free(doc);
    free(text);
    return 0;
}
