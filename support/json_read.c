/* json_read.c - a JSON reader (RFC 8259) for the files tilec reads back:
 * a saved --json profile (--baseline). The whole text becomes a tree of
 * JsonValue in one arena-free allocation per node; malformed, truncated or
 * deeply nested input is refused with the line and a reason, never read
 * past its end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { READ_MAX_DEPTH = 64 };

typedef struct Reader {
    const char *s, *end;
    int line;
    char *err;  /* 256 bytes */
    bool failed;
} Reader;

static bool fail(Reader *r, const char *what) {
    if (!r->failed) snprintf(r->err, 256, "line %d: %s", r->line, what);
    r->failed = true;
    return false;
}

static void skip_space(Reader *r) {
    while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r')) {
        if (*r->s == '\n') r->line++;
        r->s++;
    }
}

static JsonValue *node(JsonType t) {
    JsonValue *v = xcalloc(1, sizeof *v);
    v->type = t;
    return v;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string after its opening quote; *out malloc'd, NUL-terminated. */
static bool read_string(Reader *r, char **out, size_t *out_len) {
    size_t cap = 16, n = 0;
    char *b = xmalloc(cap);
    for (;;) {
        if (r->s >= r->end) {
            free(b);
            return fail(r, "the text ends inside a string");
        }
        unsigned char c = (unsigned char)*r->s++;
        if (c == '"') break;
        if (c < 0x20) {
            free(b);
            return fail(r, "a control character inside a string");
        }
        char enc[4];
        int m = 1;
        enc[0] = (char)c;
        if (c == '\\') {
            if (r->s >= r->end) {
                free(b);
                return fail(r, "the text ends inside a string");
            }
            char e = *r->s++;
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e && simple) {
                static const char to[] = "\"\\/\b\f\n\r\t";
                enc[0] = to[simple - "\"\\/bfnrt"];
            } else if (e == 'u') {
                int u = r->end - r->s >= 4 ? hex4(r->s) : -1;
                if (u < 0) {
                    free(b);
                    return fail(r, "a bad \\u escape");
                }
                r->s += 4;
                if (u >= 0xD800 && u < 0xDC00) { /* a surrogate pair */
                    int lo = r->end - r->s >= 6 && r->s[0] == '\\' && r->s[1] == 'u' ? hex4(r->s + 2) : -1;
                    if (lo < 0xDC00 || lo > 0xDFFF) {
                        free(b);
                        return fail(r, "a lone surrogate in a \\u escape");
                    }
                    r->s += 6;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                } else if (u >= 0xDC00 && u < 0xE000) {
                    free(b);
                    return fail(r, "a lone surrogate in a \\u escape");
                }
                if (u < 0x80) enc[0] = (char)u;
                else if (u < 0x800) enc[0] = (char)(0xC0 | u >> 6), enc[1] = (char)(0x80 | (u & 63)), m = 2;
                else if (u < 0x10000)
                    enc[0] = (char)(0xE0 | u >> 12), enc[1] = (char)(0x80 | (u >> 6 & 63)), enc[2] = (char)(0x80 | (u & 63)), m = 3;
                else
                    enc[0] = (char)(0xF0 | u >> 18), enc[1] = (char)(0x80 | (u >> 12 & 63)),
                    enc[2] = (char)(0x80 | (u >> 6 & 63)), enc[3] = (char)(0x80 | (u & 63)), m = 4;
            } else {
                free(b);
                return fail(r, "a bad escape in a string");
            }
        }
        if (n + (size_t)m + 1 > cap) {
            cap = cap * 2 + (size_t)m;
            b = xrealloc(b, cap);
        }
        memcpy(b + n, enc, (size_t)m);
        n += (size_t)m;
    }
    b[n] = 0;
    *out = b;
    if (out_len) *out_len = n;
    return true;
}

/* A number as the grammar has it (no leading zeros, no '+', no NaN). */
static bool read_number(Reader *r, double *out) {
    const char *p = r->s;
    if (p < r->end && *p == '-') p++;
    if (p >= r->end || !(*p >= '0' && *p <= '9')) return fail(r, "a bad number");
    if (*p == '0') p++;
    else
        while (p < r->end && *p >= '0' && *p <= '9') p++;
    if (p < r->end && *p == '.') {
        p++;
        if (p >= r->end || !(*p >= '0' && *p <= '9')) return fail(r, "a bad number");
        while (p < r->end && *p >= '0' && *p <= '9') p++;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < r->end && (*p == '+' || *p == '-')) p++;
        if (p >= r->end || !(*p >= '0' && *p <= '9')) return fail(r, "a bad number");
        while (p < r->end && *p >= '0' && *p <= '9') p++;
    }
    char buf[64];
    size_t n = (size_t)(p - r->s);
    if (n >= sizeof buf) return fail(r, "a number too long to be one tilec wrote");
    memcpy(buf, r->s, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    r->s = p;
    return true;
}

static bool word(Reader *r, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(r->end - r->s) < n || memcmp(r->s, w, n) != 0) return false;
    r->s += n;
    return true;
}

static JsonValue *read_value(Reader *r, int depth);

static void push(JsonValue *c, JsonValue *v, char *key) {
    if (c->len % 8 == 0) {
        c->items = xrealloc(c->items, sizeof *c->items * (size_t)(c->len + 8));
        if (c->type == JSON_OBJECT_V) c->keys = xrealloc(c->keys, sizeof *c->keys * (size_t)(c->len + 8));
    }
    c->items[c->len] = v;
    if (c->type == JSON_OBJECT_V) c->keys[c->len] = key;
    c->len++;
}

static JsonValue *read_container(Reader *r, int depth, bool object) {
    JsonValue *c = node(object ? JSON_OBJECT_V : JSON_ARRAY_V);
    char close = object ? '}' : ']';
    skip_space(r);
    if (r->s < r->end && *r->s == close) {
        r->s++;
        return c;
    }
    for (;;) {
        char *key = NULL;
        skip_space(r);
        if (object) {
            if (r->s >= r->end || *r->s != '"') {
                fail(r, r->s >= r->end ? "the text ends inside an object" : "an object's member needs a quoted name");
                break;
            }
            r->s++;
            if (!read_string(r, &key, NULL)) break;
            skip_space(r);
            if (r->s >= r->end || *r->s != ':') {
                free(key);
                fail(r, "a ':' after a member's name");
                break;
            }
            r->s++;
        }
        JsonValue *v = read_value(r, depth + 1);
        if (!v) {
            free(key);
            break;
        }
        push(c, v, key);
        skip_space(r);
        if (r->s >= r->end) {
            fail(r, object ? "the text ends inside an object" : "the text ends inside an array");
            break;
        }
        char d = *r->s++;
        if (d == close) return c;
        if (d != ',') {
            fail(r, object ? "a ',' or '}' after a member" : "a ',' or ']' after an element");
            break;
        }
    }
    json_value_free(c);
    return NULL;
}

static JsonValue *read_value(Reader *r, int depth) {
    if (depth > READ_MAX_DEPTH) {
        fail(r, "nested too deeply");
        return NULL;
    }
    skip_space(r);
    if (r->s >= r->end) {
        fail(r, "the text ends where a value should be");
        return NULL;
    }
    char c = *r->s;
    if (c == '{' || c == '[') {
        r->s++;
        return read_container(r, depth, c == '{');
    }
    if (c == '"') {
        r->s++;
        JsonValue *v = node(JSON_STRING_V);
        if (read_string(r, &v->str, &v->str_len)) return v;
        free(v);
        return NULL;
    }
    if (word(r, "true") || word(r, "false")) {
        JsonValue *v = node(JSON_BOOL_V);
        v->boolean = r->s[-1] == 'e' && r->s[-2] == 'u';
        return v;
    }
    if (word(r, "null")) return node(JSON_NULL_V);
    double d;
    if (!read_number(r, &d)) return NULL;
    JsonValue *v = node(JSON_NUMBER_V);
    v->number = d;
    return v;
}

JsonValue *json_parse(const char *text, size_t len, char err[256]) {
    Reader r = {text, text + len, 1, err, false};
    err[0] = 0;
    JsonValue *v = read_value(&r, 0);
    if (!v) return NULL;
    skip_space(&r);
    if (r.s != r.end) {
        fail(&r, "more text after the value");
        json_value_free(v);
        return NULL;
    }
    return v;
}

void json_value_free(JsonValue *v) {
    if (!v) return;
    for (int i = 0; i < v->len; i++) {
        json_value_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

const JsonValue *json_member(const JsonValue *obj, const char *key) {
    if (!obj || obj->type != JSON_OBJECT_V) return NULL;
    for (int i = obj->len - 1; i >= 0; i--) /* the last of repeated names, as most readers do */
        if (!strcmp(obj->keys[i], key)) return obj->items[i];
    return NULL;
}

double json_number_or(const JsonValue *v, double otherwise) {
    return v && v->type == JSON_NUMBER_V && isfinite(v->number) ? v->number : otherwise;
}

const char *json_string_or(const JsonValue *v, const char *otherwise) {
    return v && v->type == JSON_STRING_V ? v->str : otherwise;
}
