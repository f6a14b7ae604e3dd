/* device_header.c - the part of tilec_device.cuh a kernel uses. The header
 * is in numbered sections (a rule line, "N. title", a rule line), each
 * defining helpers named tl_* or TL_*; a helper is defined where its name
 * first appears (C declares before use), so a section is needed when a
 * name it defines appears in the kernel's own code or in a later section
 * that is needed. The text before section 1 and the closing #endif are
 * always kept. Unused helpers never reach the SASS either way: this is for
 * the reader of --emit-cuda and for NVRTC's parse time. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

enum { MAX_SECTIONS = 32 };

static bool ident_char(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

/* Whether the identifier name[0..n) occurs as a whole word in text[0..len). */
static bool has_word(const char *text, size_t len, const char *name, size_t n) {
    for (size_t i = 0; i + n <= len; i++)
        if (text[i] == name[0] && !memcmp(text + i, name, n) && (i == 0 || !ident_char(text[i - 1])) &&
            (i + n == len || !ident_char(text[i + n])))
            return true;
    return false;
}

/* A copy of the header with its comments blanked out (same offsets), so
 * that a name a comment mentions early does not count as its definition. */
static char *without_comments(const char *h, size_t len) {
    char *b = xmalloc(len + 1);
    memcpy(b, h, len + 1);
    for (size_t i = 0; i < len; i++) {
        if (b[i] == '/' && b[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(b[j] == '*' && b[j + 1] == '/')) j++;
            for (size_t k = i; k < j + 2 && k < len; k++)
                if (b[k] != '\n') b[k] = ' ';
            i = j + 1;
        } else if (b[i] == '/' && b[i + 1] == '/') {
            while (i < len && b[i] != '\n') b[i++] = ' ';
        } else if (b[i] == '"') { /* a string (inline PTX) may hold "//" */
            for (i++; i < len && b[i] != '"' && b[i] != '\n'; i++)
                if (b[i] == '\\') i++;
        }
    }
    return b;
}

/* Where each section starts: the rule line above its "N. title" line. */
static int find_sections(const char *h, const char *starts[MAX_SECTIONS + 1]) {
    static const char rule[] = "/* ------------------------------------------------------------------------ */\n";
    int n = 0;
    for (const char *p = strstr(h, rule); p && n < MAX_SECTIONS; p = strstr(p, rule)) {
        const char *title = p + sizeof rule - 1;
        if (title[0] == '/' && title[1] == '*' && title[2] == ' ' && title[3] >= '1' && title[3] <= '9')
            starts[n++] = p;
        p = title;
        const char *next = strstr(p, rule); /* the rule below the title */
        if (!next) break;
        p = next + sizeof rule - 1;
    }
    return n;
}

void cg_write_device_header(FILE *o, const char *kernel_text, size_t kernel_len) {
    const char *h = cg_device_header, *starts[MAX_SECTIONS + 1];
    int n = find_sections(h, starts);
    const char *tail = strstr(h, "#endif /* TILEC_DEVICE_CUH */");
    if (n == 0 || !tail || tail < starts[n - 1]) { /* not in sections after all: all of it */
        fputs(h, o);
        return;
    }
    starts[n] = tail;
    char *code = without_comments(h, strlen(h));
    const char *at[MAX_SECTIONS + 1]; /* the sections in the blanked copy */
    for (int s = 0; s <= n; s++) at[s] = code + (starts[s] - h);
    bool needed[MAX_SECTIONS] = {0};
    for (int s = n - 1; s >= 0; s--) {
        /* the names that first appear in section s, each looked for in the
         * kernel and in the later sections already needed */
        const char *p = at[s], *end = at[s + 1];
        while (p < end && !needed[s]) {
            if (!((p[0] == 't' && p[1] == 'l' && p[2] == '_') || (p[0] == 'T' && p[1] == 'L' && p[2] == '_')) ||
                ident_char(p[-1])) {
                p++;
                continue;
            }
            size_t len = 0;
            while (p + len < end && ident_char(p[len])) len++;
            if (!has_word(at[0], (size_t)(at[s] - at[0]), p, len)) {
                needed[s] = has_word(kernel_text, kernel_len, p, len);
                for (int later = s + 1; later < n && !needed[s]; later++)
                    needed[s] = needed[later] && has_word(at[later], (size_t)(at[later + 1] - at[later]), p, len);
            }
            p += len;
        }
    }
    free(code);
    fwrite(h, 1, (size_t)(starts[0] - h), o);
    for (int s = 0; s < n; s++)
        if (needed[s]) fwrite(starts[s], 1, (size_t)(starts[s + 1] - starts[s]), o);
    fputs(tail, o);
}
