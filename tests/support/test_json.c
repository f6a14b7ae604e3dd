/* test_json.c - the JSON writer: escaping (quotes, backslashes, control
 * characters, bytes that are not UTF-8), numbers (shortest round trip,
 * null when not finite), and the punctuation of nested objects and arrays
 * in each layout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static int failures, checks;

static void check_text(const char *got, const char *want, const char *what) {
    checks++;
    bool ok = !strcmp(got, want);
    if (!ok) failures++;
    printf("  %s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) printf("    got  |%s|\n    want |%s|\n", got, want);
}

/* A writer into memory; done() returns the text (the caller frees it). */
typedef struct Mem {
    char *text;
    size_t len;
    FILE *f;
    JsonWriter w;
} Mem;

static JsonWriter *start(Mem *m, int indent) {
    m->text = NULL;
    m->f = open_memstream(&m->text, &m->len);
    if (!m->f) exit(1);
    json_init(&m->w, m->f, indent);
    return &m->w;
}

static void finish(Mem *m, const char *want, const char *what) {
    fclose(m->f);
    check_text(m->text, want, what);
    free(m->text);
}

static void one_string(const char *s, size_t n, const char *want, const char *what) {
    Mem m;
    json_string_n(start(&m, 0), s, n);
    finish(&m, want, what);
}

static void escaping(void) {
    one_string("plain text", 10, "\"plain text\"", "plain text as it is");
    one_string("a\"b\\c/d", 7, "\"a\\\"b\\\\c/d\"", "quotes and backslashes escaped");
    one_string("\n\t\r", 3, "\"\\n\\t\\r\"", "newline, tab, return as short escapes");
    one_string("\x01\x08\x0c\x1f\x7f", 5, "\"\\u0001\\u0008\\u000c\\u001f\\u007f\"", "other controls as \\uXXXX");
    one_string("a\0b", 3, "\"a\\u0000b\"", "a NUL inside the length");
    one_string("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 11, "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
               "valid UTF-8 (2, 3 and 4 bytes) as it is");
    one_string("\x80x\xc3", 3, "\"\\ufffdx\\ufffd\"", "a stray continuation byte and a cut sequence");
    one_string("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"", "an overlong encoding");
    one_string("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"", "a UTF-16 surrogate");
    one_string("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "above U+10FFFF");
    Mem m;
    json_string(start(&m, 0), NULL);
    finish(&m, "null", "a NULL string is null");
    JsonWriter *w = start(&m, 0);
    json_object(w, JSON_COMPACT);
    json_key(w, "k\"\x01");
    json_int(w, 1);
    json_end(w);
    finish(&m, "{\"k\\\"\\u0001\":1}", "keys are escaped too");
}

static void one_number(double v, const char *want, const char *what) {
    Mem m;
    json_number(start(&m, 0), v);
    finish(&m, want, what);
}

static void numbers(void) {
    one_number(NAN, "null", "NaN is null");
    one_number(INFINITY, "null", "infinity is null");
    one_number(-INFINITY, "null", "minus infinity is null");
    one_number(0, "0", "zero");
    one_number(0.1, "0.1", "0.1 (shortest text that reads back)");
    one_number(-2.5, "-2.5", "-2.5");
    one_number(840000, "840000", "an integral value without a point");
    one_number(1.0 / 3, "0.3333333333333333", "1/3 to 16 digits");
    one_number(1e20, "1e+20", "large values in %g form");
    one_number(1.5e-7, "1.5e-07", "small values in %g form");
    Mem m;
    JsonWriter *w = start(&m, 0);
    json_array(w, JSON_COMPACT);
    json_int(w, -9223372036854775807LL - 1);
    json_bool(w, true);
    json_bool(w, false);
    json_null(w);
    json_end(w);
    finish(&m, "[-9223372036854775808,true,false,null]", "integers, booleans, null");
}

/* One document written in a given layout. */
static void document(JsonWriter *w, JsonLayout outer, JsonLayout inner) {
    json_object(w, outer);
    json_key(w, "a");
    json_int(w, 1);
    json_key(w, "list");
    json_array(w, inner);
    json_int(w, 2);
    json_object(w, inner);
    json_key(w, "x");
    json_string(w, "y");
    json_end(w);
    json_array(w, inner);
    json_end(w);
    json_end(w);
    json_key(w, "empty");
    json_object(w, outer);
    json_end(w);
    json_end(w);
}

static void nesting(void) {
    Mem m;
    document(start(&m, 2), JSON_COMPACT, JSON_COMPACT);
    finish(&m, "{\"a\":1,\"list\":[2,{\"x\":\"y\"},[]],\"empty\":{}}", "compact");
    document(start(&m, 2), JSON_SPACED, JSON_SPACED);
    finish(&m, "{\"a\": 1, \"list\": [2, {\"x\": \"y\"}, []], \"empty\": {}}", "spaced");
    document(start(&m, 2), JSON_LINES, JSON_LINES);
    finish(&m,
           "{\n  \"a\": 1,\n  \"list\": [\n    2,\n    {\n      \"x\": \"y\"\n    },\n    []\n  ],\n  \"empty\": {}\n}",
           "one member a line, two spaces a level; empty containers stay {} and []");
    document(start(&m, 2), JSON_SPACED, JSON_LINES);
    finish(&m, "{\"a\": 1, \"list\": [\n  2,\n  {\n    \"x\": \"y\"\n  },\n  []\n], \"empty\": {}}",
           "lines inside spaced: indented by the lines levels only");
    document(start(&m, 0), JSON_COMPACT, JSON_LINES);
    finish(&m, "{\"a\":1,\"list\":[\n2,\n{\n\"x\": \"y\"\n},\n[]\n],\"empty\":{}}",
           "lines with no indent");
}

int main(void) {
    escaping();
    numbers();
    nesting();
    printf("test_json: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
