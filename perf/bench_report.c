/*
 * miniblas-bench reporting (pure C, no CUDA): table, CSV, JSON out, JSON in, baseline check.
 * The JSON reader is a small recursive-descent parser into a tree, enough for our own format
 * (and any valid JSON: strings with escapes and \u sequences, numbers, nested containers).
 */
#include "bench_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {"ok", "wrong", "skipped", "unsupported", "error"};

const char *bench_status_name(bench_status s) {
    return ((int)s >= 0 && (int)s < 5) ? status_names[s] : "error";
}

int bench_status_parse(const char *name, bench_status *s) {
    for (int i = 0; i < 5; ++i)
        if (name && strcmp(name, status_names[i]) == 0) {
            *s = (bench_status)i;
            return 0;
        }
    return -1;
}

void bench_run_init(bench_run *run) {
    memset(run, 0, sizeof *run);
    run->meta.copy_gbs = run->meta.read_gbs = NAN;
    run->meta.fp32_peak_gflops = run->meta.fp64_peak_gflops = NAN;
}

void bench_run_free(bench_run *run) {
    free(run->results);
    run->results = NULL;
    run->count = run->cap = 0;
}

int bench_run_add(bench_run *run, const bench_result *r) {
    if (run->count == run->cap) {
        size_t cap = run->cap ? 2 * run->cap : 64;
        bench_result *p = realloc(run->results, cap * sizeof *p);
        if (!p) return -1;
        run->results = p;
        run->cap = cap;
    }
    run->results[run->count++] = *r;
    return 0;
}

void bench_result_init(bench_result *r) {
    memset(r, 0, sizeof *r);
    r->time_us = r->rate = r->ratio_cublas = r->fraction_ceiling = NAN;
    r->status = BENCH_OK;
}

/* ------------------------------------------------------------------------------------ */
/* table */

void bench_table_header(FILE *f) {
    fprintf(f, "%-10s %-20s %-5s %-4s %-18s %12s %11s %-8s %8s %9s  %s\n", "op", "shape", "trans",
            "inc", "rung", "time_us", "rate", "unit", "%cuBLAS", "%ceiling", "note");
}

static void fmt_num(char *buf, size_t size, double v, const char *fmt) {
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, fmt, v);
}

void bench_table_row(FILE *f, const bench_result *r) {
    char t[32], rate[32], ratio[32], frac[32], inc[24];
    fmt_num(t, sizeof t, r->time_us, "%.2f");
    fmt_num(rate, sizeof rate, r->rate, "%.1f");
    fmt_num(ratio, sizeof ratio, r->ratio_cublas * 100.0, "%.1f");
    fmt_num(frac, sizeof frac, r->fraction_ceiling * 100.0, "%.1f");
    if (r->inc)
        snprintf(inc, sizeof inc, "%" PRId64, r->inc);
    else
        snprintf(inc, sizeof inc, "-");
    const char *what = "";
    if (r->status == BENCH_WRONG) what = "WRONG ";
    else if (r->status == BENCH_SKIPPED) what = "SKIPPED ";
    else if (r->status == BENCH_UNSUPPORTED) what = "UNSUPPORTED ";
    else if (r->status == BENCH_ERROR) what = "ERROR ";
    fprintf(f, "%-10s %-20s %-5s %-4s %-18s %12s %11s %-8s %8s %9s  %s%s\n", r->op, r->shape,
            r->trans, inc, r->rung, t, rate, r->unit, ratio, frac, what, r->note);
}

/* ------------------------------------------------------------------------------------ */
/* CSV */

static void csv_field(FILE *f, const char *s) {
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v) {
    if (!isnan(v)) fprintf(f, "%.9g", v);
}

int bench_write_csv(FILE *f, const bench_run *run) {
    fprintf(f, "op,shape,trans,inc,rung,m,n,k,time_us,rate,unit,ratio_cublas,fraction_ceiling,"
               "status,note\n");
    for (size_t i = 0; i < run->count; ++i) {
        const bench_result *r = &run->results[i];
        csv_field(f, r->op);
        fputc(',', f);
        csv_field(f, r->shape);
        fputc(',', f);
        csv_field(f, r->trans);
        fprintf(f, ",%" PRId64 ",", r->inc);
        csv_field(f, r->rung);
        fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->m, r->n, r->k);
        csv_num(f, r->time_us);
        fputc(',', f);
        csv_num(f, r->rate);
        fputc(',', f);
        csv_field(f, r->unit);
        fputc(',', f);
        csv_num(f, r->ratio_cublas);
        fputc(',', f);
        csv_num(f, r->fraction_ceiling);
        fputc(',', f);
        csv_field(f, bench_status_name(r->status));
        fputc(',', f);
        csv_field(f, r->note);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------ */
/* JSON out */

char *bench_json_escape(const char *s, char *out, size_t size) {
    size_t o = 0;
    if (size == 0) return out;
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        const char *piece;
        switch (c) {
        case '"': piece = "\\\""; break;
        case '\\': piece = "\\\\"; break;
        case '\n': piece = "\\n"; break;
        case '\r': piece = "\\r"; break;
        case '\t': piece = "\\t"; break;
        case '\b': piece = "\\b"; break;
        case '\f': piece = "\\f"; break;
        default:
            if (c < 0x20) {
                snprintf(tmp, sizeof tmp, "\\u%04x", c);
            } else {
                tmp[0] = (char)c; /* UTF-8 bytes pass through */
                tmp[1] = '\0';
            }
            piece = tmp;
        }
        size_t len = strlen(piece);
        if (o + len >= size) break; /* truncate at a whole escape */
        memcpy(out + o, piece, len);
        o += len;
    }
    out[o] = '\0';
    return out;
}

static void json_str(FILE *f, const char *s) {
    char buf[2048];
    fprintf(f, "\"%s\"", bench_json_escape(s, buf, sizeof buf));
}

static void json_num(FILE *f, double v) {
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, "%.9g", v);
}

int bench_write_json(FILE *f, const bench_run *run) {
    const bench_meta *m = &run->meta;
    fputs("{\n  \"device\": ", f);
    json_str(f, m->device);
    fputs(",\n  \"driver\": ", f);
    json_str(f, m->driver);
    fputs(",\n  \"cuda_driver\": ", f);
    json_str(f, m->cuda_driver);
    fputs(",\n  \"cuda_runtime\": ", f);
    json_str(f, m->cuda_runtime);
    fputs(",\n  \"cublas\": ", f);
    json_str(f, m->cublas);
    fputs(",\n  \"git_commit\": ", f);
    json_str(f, m->git_commit);
    fputs(",\n  \"timestamp\": ", f);
    json_str(f, m->timestamp);
    fputs(",\n  \"command\": ", f);
    json_str(f, m->command);
    fputs(",\n  \"ceilings\": {\"copy_gbs\": ", f);
    json_num(f, m->copy_gbs);
    fputs(", \"read_gbs\": ", f);
    json_num(f, m->read_gbs);
    fputs(", \"fp32_peak_gflops\": ", f);
    json_num(f, m->fp32_peak_gflops);
    fputs(", \"fp64_peak_gflops\": ", f);
    json_num(f, m->fp64_peak_gflops);
    fputs("},\n  \"results\": [", f);
    for (size_t i = 0; i < run->count; ++i) {
        const bench_result *r = &run->results[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"op\": ", f);
        json_str(f, r->op);
        fputs(", \"shape\": ", f);
        json_str(f, r->shape);
        fputs(", \"trans\": ", f);
        json_str(f, r->trans);
        fprintf(f, ", \"inc\": %" PRId64 ", \"rung\": ", r->inc);
        json_str(f, r->rung);
        fprintf(f, ", \"m\": %" PRId64 ", \"n\": %" PRId64 ", \"k\": %" PRId64, r->m, r->n, r->k);
        fputs(", \"time_us\": ", f);
        json_num(f, r->time_us);
        fputs(", \"rate\": ", f);
        json_num(f, r->rate);
        fputs(", \"unit\": ", f);
        json_str(f, r->unit);
        fputs(", \"ratio_cublas\": ", f);
        json_num(f, r->ratio_cublas);
        fputs(", \"fraction_ceiling\": ", f);
        json_num(f, r->fraction_ceiling);
        fputs(", \"correct\": ", f);
        fputs(r->status == BENCH_OK ? "true"
              : (r->status == BENCH_WRONG || r->status == BENCH_ERROR) ? "false"
                                                                        : "null",
              f);
        fputs(", \"status\": ", f);
        json_str(f, bench_status_name(r->status));
        fputs(", \"note\": ", f);
        json_str(f, r->note);
        fputc('}', f);
    }
    fputs(run->count ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------ */
/* JSON in: a tree */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype t;
    int b;
    double num;
    char *str;          /* J_STR */
    struct jval *items; /* J_ARR, J_OBJ: values */
    char **keys;        /* J_OBJ: keys */
    size_t n, cap;
} jval;

typedef struct jparser {
    const char *p;
    const char *start;
    char *err;
    size_t errsize;
    int failed;
} jparser;

static void jfail(jparser *ps, const char *fmt, ...) {
    if (ps->failed) return;
    ps->failed = 1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ps->err && ps->errsize)
        snprintf(ps->err, ps->errsize, "JSON error at offset %ld: %s", (long)(ps->p - ps->start),
                 msg);
}

static void jfree(jval *v) {
    if (v->t == J_STR) free(v->str);
    if (v->t == J_ARR || v->t == J_OBJ) {
        for (size_t i = 0; i < v->n; ++i) {
            jfree(&v->items[i]);
            if (v->keys) free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
    memset(v, 0, sizeof *v);
}

static void jskip_ws(jparser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int hex4(const char *s, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t utf8_put(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* At the opening quote; returns a malloc'ed decoded string or NULL. */
static char *jparse_string(jparser *ps) {
    const char *q = ps->p + 1;
    size_t len = 0;
    /* Decoded text is never longer than the escaped text. */
    const char *e = q;
    while (*e && *e != '"') {
        if (*e == '\\' && e[1]) e++;
        e++;
    }
    if (*e != '"') {
        jfail(ps, "unterminated string");
        return NULL;
    }
    char *out = malloc((size_t)(e - q) + 1);
    if (!out) {
        jfail(ps, "out of memory");
        return NULL;
    }
    while (*q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20) {
            ps->p = q;
            jfail(ps, "control character in string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            out[len++] = (char)c;
            q++;
            continue;
        }
        q++;
        switch (*q) {
        case '"': out[len++] = '"'; break;
        case '\\': out[len++] = '\\'; break;
        case '/': out[len++] = '/'; break;
        case 'b': out[len++] = '\b'; break;
        case 'f': out[len++] = '\f'; break;
        case 'n': out[len++] = '\n'; break;
        case 'r': out[len++] = '\r'; break;
        case 't': out[len++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(q + 1, &cp) != 0) {
                ps->p = q;
                jfail(ps, "bad \\u escape");
                free(out);
                return NULL;
            }
            q += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && q[1] == '\\' && q[2] == 'u' &&
                hex4(q + 3, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            }
            len += utf8_put(out + len, cp); /* \uXXXX (6 chars) decodes to <= 4 bytes */
            break;
        }
        default:
            ps->p = q;
            jfail(ps, "bad escape");
            free(out);
            return NULL;
        }
        q++;
    }
    out[len] = '\0';
    ps->p = q + 1;
    return out;
}

static int jparse_value(jparser *ps, jval *v, int depth);

static int jpush(jparser *ps, jval *v, char *key, jval *item) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        jval *items = realloc(v->items, cap * sizeof *items);
        if (!items) goto oom;
        v->items = items;
        if (v->t == J_OBJ) {
            char **keys = realloc(v->keys, cap * sizeof *keys);
            if (!keys) goto oom;
            v->keys = keys;
        }
        v->cap = cap;
    }
    v->items[v->n] = *item;
    if (v->t == J_OBJ) v->keys[v->n] = key;
    v->n++;
    return 0;
oom:
    jfail(ps, "out of memory");
    free(key);
    jfree(item);
    return -1;
}

static int jparse_value(jparser *ps, jval *v, int depth) {
    memset(v, 0, sizeof *v);
    if (depth > 64) {
        jfail(ps, "nesting too deep");
        return -1;
    }
    jskip_ws(ps);
    char c = *ps->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        v->t = c == '{' ? J_OBJ : J_ARR;
        ps->p++;
        jskip_ws(ps);
        if (*ps->p == close) {
            ps->p++;
            return 0;
        }
        for (;;) {
            char *key = NULL;
            jskip_ws(ps);
            if (v->t == J_OBJ) {
                if (*ps->p != '"') {
                    jfail(ps, "expected a key");
                    goto bad;
                }
                key = jparse_string(ps);
                if (!key) goto bad;
                jskip_ws(ps);
                if (*ps->p != ':') {
                    free(key);
                    jfail(ps, "expected ':'");
                    goto bad;
                }
                ps->p++;
            }
            jval item;
            if (jparse_value(ps, &item, depth + 1) != 0) {
                free(key);
                goto bad;
            }
            if (jpush(ps, v, key, &item) != 0) goto bad;
            jskip_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p == close) {
                ps->p++;
                return 0;
            }
            jfail(ps, "expected ',' or '%c'", close);
            goto bad;
        }
    bad:
        jfree(v);
        return -1;
    }
    if (c == '"') {
        v->t = J_STR;
        v->str = jparse_string(ps);
        if (!v->str) {
            v->t = J_NULL;
            return -1;
        }
        return 0;
    }
    if (strncmp(ps->p, "true", 4) == 0) {
        v->t = J_BOOL;
        v->b = 1;
        ps->p += 4;
        return 0;
    }
    if (strncmp(ps->p, "false", 5) == 0) {
        v->t = J_BOOL;
        ps->p += 5;
        return 0;
    }
    if (strncmp(ps->p, "null", 4) == 0) {
        v->t = J_NULL;
        ps->p += 4;
        return 0;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        errno = 0;
        v->t = J_NUM;
        v->num = strtod(ps->p, &end);
        if (end == ps->p) {
            jfail(ps, "bad number");
            return -1;
        }
        ps->p = end;
        return 0;
    }
    jfail(ps, c ? "unexpected character '%c'" : "unexpected end of text", c);
    return -1;
}

static const jval *jget(const jval *obj, const char *key) {
    if (!obj || obj->t != J_OBJ) return NULL;
    for (size_t i = 0; i < obj->n; ++i)
        if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
    return NULL;
}

static void jcopy_str(const jval *obj, const char *key, char *dst, size_t size) {
    const jval *v = jget(obj, key);
    if (v && v->t == J_STR) snprintf(dst, size, "%s", v->str);
}

static double jnum(const jval *obj, const char *key) {
    const jval *v = jget(obj, key);
    return (v && v->t == J_NUM) ? v->num : NAN;
}

static int64_t jint(const jval *obj, const char *key) {
    const jval *v = jget(obj, key);
    return (v && v->t == J_NUM) ? (int64_t)v->num : 0;
}

int bench_read_json(const char *text, bench_run *run, char *err, size_t errsize) {
    jparser ps = {text, text, err, errsize, 0};
    jval root;
    bench_run_init(run);
    if (err && errsize) err[0] = '\0';
    if (jparse_value(&ps, &root, 0) != 0) return -1;
    jskip_ws(&ps);
    if (*ps.p != '\0') {
        jfail(&ps, "text after the document");
        jfree(&root);
        return -1;
    }
    if (root.t != J_OBJ) {
        if (err && errsize) snprintf(err, errsize, "the document is not a JSON object");
        jfree(&root);
        return -1;
    }
    bench_meta *m = &run->meta;
    jcopy_str(&root, "device", m->device, sizeof m->device);
    jcopy_str(&root, "driver", m->driver, sizeof m->driver);
    jcopy_str(&root, "cuda_driver", m->cuda_driver, sizeof m->cuda_driver);
    jcopy_str(&root, "cuda_runtime", m->cuda_runtime, sizeof m->cuda_runtime);
    jcopy_str(&root, "cublas", m->cublas, sizeof m->cublas);
    jcopy_str(&root, "git_commit", m->git_commit, sizeof m->git_commit);
    jcopy_str(&root, "timestamp", m->timestamp, sizeof m->timestamp);
    jcopy_str(&root, "command", m->command, sizeof m->command);
    const jval *ceil = jget(&root, "ceilings");
    if (ceil) {
        m->copy_gbs = jnum(ceil, "copy_gbs");
        m->read_gbs = jnum(ceil, "read_gbs");
        m->fp32_peak_gflops = jnum(ceil, "fp32_peak_gflops");
        m->fp64_peak_gflops = jnum(ceil, "fp64_peak_gflops");
    }
    const jval *res = jget(&root, "results");
    if (!res || res->t != J_ARR) {
        if (err && errsize) snprintf(err, errsize, "no \"results\" array");
        jfree(&root);
        return -1;
    }
    for (size_t i = 0; i < res->n; ++i) {
        const jval *o = &res->items[i];
        bench_result r;
        bench_result_init(&r);
        if (o->t != J_OBJ || !jget(o, "op") || !jget(o, "rung")) {
            if (err && errsize) snprintf(err, errsize, "results[%zu] has no op or rung", i);
            jfree(&root);
            bench_run_free(run);
            return -1;
        }
        jcopy_str(o, "op", r.op, sizeof r.op);
        jcopy_str(o, "shape", r.shape, sizeof r.shape);
        jcopy_str(o, "trans", r.trans, sizeof r.trans);
        jcopy_str(o, "rung", r.rung, sizeof r.rung);
        jcopy_str(o, "unit", r.unit, sizeof r.unit);
        jcopy_str(o, "note", r.note, sizeof r.note);
        r.inc = jint(o, "inc");
        r.m = jint(o, "m");
        r.n = jint(o, "n");
        r.k = jint(o, "k");
        r.time_us = jnum(o, "time_us");
        r.rate = jnum(o, "rate");
        r.ratio_cublas = jnum(o, "ratio_cublas");
        r.fraction_ceiling = jnum(o, "fraction_ceiling");
        const jval *st = jget(o, "status");
        const jval *ok = jget(o, "correct");
        if (!(st && st->t == J_STR && bench_status_parse(st->str, &r.status) == 0))
            r.status = (ok && ok->t == J_BOOL && !ok->b) ? BENCH_WRONG : BENCH_OK;
        if (bench_run_add(run, &r) != 0) {
            if (err && errsize) snprintf(err, errsize, "out of memory");
            jfree(&root);
            bench_run_free(run);
            return -1;
        }
    }
    jfree(&root);
    return 0;
}

int bench_read_json_file(const char *path, bench_run *run, char *err, size_t errsize) {
    bench_run_init(run);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errsize) snprintf(err, errsize, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (len + 1 < cap) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (!buf || rd_err) {
        free(buf);
        if (err && errsize) snprintf(err, errsize, "cannot read %s", path);
        return -1;
    }
    buf[len] = '\0';
    int rc = bench_read_json(buf, run, err, errsize);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* baseline comparison */

static int same_row(const bench_result *a, const bench_result *b) {
    return strcmp(a->op, b->op) == 0 && strcmp(a->shape, b->shape) == 0 &&
           strcmp(a->trans, b->trans) == 0 && a->inc == b->inc && strcmp(a->rung, b->rung) == 0;
}

static int is_cublas(const bench_result *r) { return strncmp(r->rung, "cublas", 6) == 0; }

int bench_compare(const bench_run *baseline, const bench_run *current, double tolerance_pct,
                  FILE *report, size_t *matched) {
    int regressions = 0;
    size_t nmatch = 0;
    for (size_t i = 0; i < current->count; ++i) {
        const bench_result *c = &current->results[i];
        const bench_result *b = NULL;
        for (size_t j = 0; j < baseline->count && !b; ++j)
            if (same_row(c, &baseline->results[j])) b = &baseline->results[j];
        if (!b) continue;
        nmatch++;
        char inc[24] = "";
        if (c->inc) snprintf(inc, sizeof inc, " inc=%" PRId64, c->inc);
        if (b->status == BENCH_OK && (c->status == BENCH_WRONG || c->status == BENCH_ERROR)) {
            if (!is_cublas(c)) regressions++;
            if (report)
                fprintf(report, "%s %s %s %s%s %s: was ok, now %s %s\n",
                        is_cublas(c) ? "note:" : "REGRESSION:", c->op, c->shape, c->trans, inc,
                        c->rung, bench_status_name(c->status), c->note);
            continue;
        }
        if (b->status != BENCH_OK || c->status != BENCH_OK || isnan(b->time_us) ||
            isnan(c->time_us) || !(b->time_us > 0))
            continue;
        double change = (c->time_us / b->time_us - 1.0) * 100.0;
        if (change > tolerance_pct) {
            if (!is_cublas(c)) regressions++;
            if (report)
                fprintf(report,
                        "%s %s %s %s%s %s: %.2f us -> %.2f us (%+.1f%% time, tolerance %.1f%%)%s\n",
                        is_cublas(c) ? "note:" : "REGRESSION:", c->op, c->shape, c->trans, inc,
                        c->rung, b->time_us, c->time_us, change, tolerance_pct,
                        is_cublas(c) ? " (cuBLAS: the machine or its state changed?)" : "");
        }
    }
    if (matched) *matched = nmatch;
    return regressions;
}
