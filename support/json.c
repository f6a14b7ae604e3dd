/* json.c - a streaming JSON writer (RFC 8259) for the files tilec writes:
 * --json, --trace and the autotuner's report.
 *
 * The writer owns the punctuation between members (commas, ": ", line
 * breaks and indentation), so callers cannot forget a comma or leave one
 * dangling. Output is always valid JSON whatever the strings hold: control
 * characters are escaped and bytes that are not UTF-8 are replaced. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

void json_init(JsonWriter *w, FILE *f, int indent) {
    memset(w, 0, sizeof *w);
    w->f = f;
    w->indent = indent;
}

static void newline(JsonWriter *w, int lines) {
    fprintf(w->f, "\n%*s", w->indent * lines, "");
}

/* What goes before a member of the innermost container (a key, or a value
 * that no key precedes): a comma after the first, then the layout's space. */
static void separate(JsonWriter *w) {
    if (w->depth == 0) return;
    JsonLevel *l = &w->level[w->depth - 1];
    if (!l->empty) fputc(',', w->f);
    if (l->layout == JSON_LINES) newline(w, w->lines);
    else if (l->layout == JSON_SPACED && !l->empty) fputc(' ', w->f);
    l->empty = false;
}

/* Before any value: its separator, unless its key already wrote one. */
static void before_value(JsonWriter *w) {
    if (w->keyed) {
        w->keyed = false;
        return;
    }
    if (w->depth > 0 && w->level[w->depth - 1].object) die("JSON: a value in an object without a key");
    separate(w);
}

static void open_container(JsonWriter *w, JsonLayout layout, bool object) {
    before_value(w);
    if (w->depth == JSON_MAX_DEPTH) die("JSON: nested deeper than %d", JSON_MAX_DEPTH);
    fputc(object ? '{' : '[', w->f);
    w->level[w->depth].layout = layout;
    w->level[w->depth].object = object;
    w->level[w->depth].empty = true;
    w->depth++;
    w->lines += layout == JSON_LINES;
}

void json_object(JsonWriter *w, JsonLayout layout) { open_container(w, layout, true); }
void json_array(JsonWriter *w, JsonLayout layout) { open_container(w, layout, false); }

void json_end(JsonWriter *w) {
    if (w->depth == 0 || w->keyed) die("JSON: json_end with no open container or after a key");
    JsonLevel *l = &w->level[--w->depth];
    w->lines -= l->layout == JSON_LINES;
    if (l->layout == JSON_LINES && !l->empty) newline(w, w->lines);
    fputc(l->object ? '}' : ']', w->f);
}

/* The escaped text of s[0..n) between quotes. */
static void quoted(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        int len;
        if (c == '"' || c == '\\') fputc('\\', f), fputc(c, f), i++;
        else if (c == '\n') fputs("\\n", f), i++;
        else if (c == '\t') fputs("\\t", f), i++;
        else if (c == '\r') fputs("\\r", f), i++;
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c), i++;
        else if (c < 0x80) fputc(c, f), i++;
        else if ((len = utf8_decode((const unsigned char *)s + i, n - i, &cp)) > 0)
            fwrite(s + i, 1, (size_t)len, f), i += (size_t)len;
        else fputs("\\ufffd", f), i++;
    }
    fputc('"', f);
}

void json_key(JsonWriter *w, const char *key) {
    if (w->depth == 0 || !w->level[w->depth - 1].object || w->keyed) die("JSON: a key outside an object");
    separate(w);
    quoted(w->f, key, strlen(key));
    fputs(w->level[w->depth - 1].layout == JSON_COMPACT ? ":" : ": ", w->f);
    w->keyed = true;
}

void json_string_n(JsonWriter *w, const char *s, size_t n) {
    before_value(w);
    if (s) quoted(w->f, s, n);
    else fputs("null", w->f);
}

void json_string(JsonWriter *w, const char *s) { json_string_n(w, s, s ? strlen(s) : 0); }

/* Plain decimals between 1e-4 and 1e15, else %g; in both the fewest digits
 * (at most 17) that strtod reads back as v. */
void json_number(JsonWriter *w, double v) {
    before_value(w);
    if (!isfinite(v)) {
        fputs("null", w->f);
        return;
    }
    char b[64];
    double a = fabs(v);
    bool done = false;
    if (a == 0 || (a >= 1e-4 && a < 1e15))
        for (int dec = 0; dec <= 20 && !done; dec++) {
            snprintf(b, sizeof b, "%.*f", dec, v);
            done = strtod(b, NULL) == v;
        }
    for (int prec = 1; prec <= 17 && !done; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        done = strtod(b, NULL) == v;
    }
    fputs(b, w->f);
}

void json_int(JsonWriter *w, long long v) {
    before_value(w);
    fprintf(w->f, "%lld", v);
}

void json_bool(JsonWriter *w, bool v) {
    before_value(w);
    fputs(v ? "true" : "false", w->f);
}

void json_null(JsonWriter *w) {
    before_value(w);
    fputs("null", w->f);
}
