/* diag.c - located diagnostics: FILE:LINE:COL: error: MESSAGE, line, caret. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

void ctx_init(Ctx *c, FILE *err) {
    memset(c, 0, sizeof *c);
    c->err = err;
}

void ctx_free(Ctx *c) {
    free(c->warned);
    c->warned = NULL;
    arena_free(&c->arena);
    free(c->src.text);
    c->src.text = NULL;
}

/* Long lines (a 1 MB identifier, minified input) are shown as a window
 * around the column so one diagnostic never floods the terminal. */
enum { SHOW_BEFORE = 80, SHOW_AFTER = 80 };

static void show_line(Ctx *c, Loc loc) {
    const Source *s = &c->src;
    if (!s->text) return;
    size_t off = loc.off > s->len ? s->len : loc.off;
    size_t start = off, end = off;
    while (start > 0 && s->text[start - 1] != '\n') start--;
    while (end < s->len && s->text[end] != '\n') end++;
    if (end > start && s->text[end - 1] == '\r') end--; /* a CRLF line's CR is no character of it */
    size_t from = start, to = end;
    if (off - from > SHOW_BEFORE) from = off - SHOW_BEFORE;
    if (to - off > SHOW_AFTER) to = off + SHOW_AFTER;
    while (from > start && ((unsigned char)s->text[from] & 0xC0) == 0x80) from--;
    while (to < end && ((unsigned char)s->text[to] & 0xC0) == 0x80) to++;
    /* Print the line with unprintable bytes replaced so the terminal shows
     * exactly one cell per code point (the caret math relies on it). */
    FILE *o = c->err;
    fputs("    ", o);
    if (from > start) fputs("...", o);
    for (size_t i = from; i < to;) {
        unsigned char ch = (unsigned char)s->text[i];
        uint32_t cp;
        int n = utf8_decode((const unsigned char *)s->text + i, to - i, &cp);
        if (n == 0) { fputc('?', o); i++; continue; }
        if (n == 1 && ch != '\t' && (ch < 0x20 || ch == 0x7f)) fputc('?', o);
        else fwrite(s->text + i, 1, (size_t)n, o);
        i += (size_t)n;
    }
    if (to < end) fputs("...", o);
    fputs("\n    ", o);
    if (from > start) fputs("   ", o);
    /* one cell per code point or undecodable byte, as printed above */
    for (size_t i = from; i < off; i = source_next_cell(s, i, to)) fputc(s->text[i] == '\t' ? '\t' : ' ', o);
    fputs("^\n", o);
}

static void report(Ctx *c, const char *kind, Loc loc, const char *fmt, va_list ap) {
    FILE *o = c->err;
    fprintf(o, "%s:%u:%d: %s: ", c->src.name ? c->src.name : "<input>", loc.line,
            source_column(&c->src, loc), kind);
    vfprintf(o, fmt, ap);
    fputc('\n', o);
    show_line(c, loc);
}

static void diag_print(Ctx *c, const char *kind, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(c, kind, loc, fmt, ap);
    va_end(ap);
}

void diag_verror(Ctx *c, Loc loc, const char *fmt, va_list ap) {
    if (c->too_many) return;
    c->errors++;
    report(c, "error", loc, fmt, ap);
    if (c->errors >= LIMIT_ERRORS) {
        c->too_many = true;
        fprintf(c->err, "%s: too many errors (%d); stopping\n",
                c->src.name ? c->src.name : "<input>", c->errors);
    }
}

void diag_error(Ctx *c, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(c, loc, fmt, ap);
    va_end(ap);
}

void diag_warning(Ctx *c, Loc loc, const char *fmt, ...) {
    if (c->no_warnings || c->too_many) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    uint64_t h = 1469598103934665603ull ^ ((uint64_t)loc.off << 1);
    for (const char *p = text; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (int i = 0; i < c->nwarned; i++)
        if (c->warned[i] == h) return;
    if (c->nwarned == c->warned_cap) {
        c->warned_cap = c->warned_cap ? 2 * c->warned_cap : 16;
        c->warned = xrealloc(c->warned, sizeof *c->warned * (size_t)c->warned_cap);
    }
    c->warned[c->nwarned++] = h;
    if (c->warnings_are_errors) diag_error(c, loc, "%s [-Werror]", text);
    else diag_print(c, "warning", loc, "%s", text);
}

void diag_note(Ctx *c, Loc loc, const char *fmt, ...) {
    if (c->too_many) return;
    va_list ap;
    va_start(ap, fmt);
    report(c, "note", loc, fmt, ap);
    va_end(ap);
}

_Noreturn void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("tilec: internal error (this is a bug in tilec): ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
