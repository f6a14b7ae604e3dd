/* tidy.c - the printed kernel made easier to read without changing what it
 * computes: the index arithmetic that layouts and constant sizes leave
 * behind (`q * 8 + 0`, `bx * 1`, `r / 1 % 64`, `0 + c`, `(q * 8) / 8`)
 * loses its identity operations, and doubled parentheses, or those around
 * a product that opens a term, lose a pair. Only integer identities of
 * whole tokens are removed (`* 1` before `)`, `]`, `;`, `,`,
 * ` +`, ` -`, ...); comments, string literals and preprocessor lines are
 * left as they are. NVRTC folds all of this anyway: the SASS is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

static bool ident(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '.'; }

/* Whether what follows an operand (at p) ends it at this precedence or
 * lower: an identity removed before it leaves the same parse. */
static bool ends_term(const char *p) {
    return *p == ')' || *p == ']' || *p == ';' || *p == ',' || *p == ':' || *p == '?' ||
           (p[0] == ' ' && (p[1] == '+' || p[1] == '-' || p[1] == '<' || p[1] == '>' || p[1] == '=' || p[1] == '!' ||
                            p[1] == '&' || p[1] == '|' || p[1] == '?' || p[1] == ':' || p[1] == ')'));
}

/* Whether what was written before w (the line starts at s) lets a term
 * begin there: after '(' '[' ',' or a binary + or -, so that replacing
 * the term by 0 keeps the parse. */
static bool term_starts(const char *s, const char *w) {
    if (w == s) return false;
    if (w[-1] == '(' || w[-1] == '[') return true;
    return w - s >= 3 && w[-1] == ' ' && (w[-2] == '+' || w[-2] == '-' || w[-2] == ',') && (w[-2] == ',' || w[-3] == ' ');
}

/* Whether every declaration of the name [n, n + len) in the kernel's text
 * declares an int (and there is one): (v * 8) / 8 is v only where v * 8
 * cannot wrap around, which an unsigned or a user's u32 can. A word
 * before the name other than a statement keyword makes it a declaration. */
static bool declared_int_only(const char *text, const char *n, size_t len) {
    bool declared = false;
    for (const char *p = text; *p; p++) {
        if (*p != *n || strncmp(p, n, len) != 0 || (p > text && ident(p[-1])) || ident(p[len])) continue;
        const char *e = p; /* the word before the name: [w, e) */
        while (e > text && e[-1] == ' ') e--;
        const char *w = e;
        while (w > text && ident(w[-1])) w--;
        size_t wl = (size_t)(e - w);
        if (wl == 0 || (wl == 6 && !strncmp(w, "return", 6)) || (wl == 4 && !strncmp(w, "else", 4)) ||
            (wl == 4 && !strncmp(w, "case", 4)) || (wl == 2 && !strncmp(w, "do", 2)))
            continue;
        if (wl != 3 || strncmp(w, "int", 3) != 0) return false;
        const char *b = w; /* and the one before "int": [bw, b) */
        while (b > text && b[-1] == ' ') b--;
        const char *bw = b;
        while (bw > text && ident(bw[-1])) bw--;
        size_t bl = (size_t)(b - bw);
        if ((bl == 8 && !strncmp(bw, "unsigned", 8)) || (bl == 4 && !strncmp(bw, "long", 4)) ||
            (bl == 5 && !strncmp(bw, "short", 5)))
            return false;
        declared = true;
    }
    return declared;
}

/* One pass over a line of code (no comment, no string) of the kernel
 * `text`: the identities removed; true when something changed. */
static bool tidy_code(char *s, const char *text) {
    bool changed = false;
    char *w = s;
    for (char *r = s; *r;) {
        /* "v % 1" (times constants) opening a term is 0: a layout's warp
         * coordinate along a dimension of one warp */
        if ((r == s || !ident(r[-1])) && ident(*r) && !(*r >= '0' && *r <= '9') && term_starts(s, w)) {
            char *e = r;
            while (ident(*e) && *e != '.') e++;
            if (e[0] == ' ' && e[1] == '%' && e[2] == ' ' && e[3] == '1' && !ident(e[4])) {
                char *end = e + 4;
                while (end[0] == ' ' && end[1] == '*' && end[2] == ' ' && end[3] >= '0' && end[3] <= '9') {
                    char *d = end + 3;
                    while (*d >= '0' && *d <= '9') d++;
                    if (ident(*d)) break;
                    end = d;
                }
                if (ends_term(end)) {
                    *w++ = '0';
                    r = end;
                    changed = true;
                    continue;
                }
            }
        }
        /* "(v * 8) / 8" opening a term is v, "(v * 8) / 4" is v * 2 and
         * "(v * 8) % 4" is 0: a register number built as a multiple of a
         * vector width, then split by the width again. Exact for any v whose
         * product does not overflow (which would be undefined anyway), and
         * the operators after it are of the same or lower precedence. A
         * quotient divided again ("(v * 2) / 2 % 2") stays: NVVM emits more
         * instructions for "v % 2" there, and the SASS must not change. */
        if (r[0] == '(' && term_starts(s, w) && ident(r[1]) && !(r[1] >= '0' && r[1] <= '9') && r[1] != '.') {
            char *e = r + 1;
            while (ident(*e) && *e != '.') e++;
            long long c1 = 0, c2 = 0;
            char *d = e;
            if (d[0] == ' ' && d[1] == '*' && d[2] == ' ' && d[3] >= '1' && d[3] <= '9') {
                for (d += 3; *d >= '0' && *d <= '9' && c1 < 1000000; d++) c1 = c1 * 10 + (*d - '0');
                char op = d[2];
                if (d[0] == ')' && d[1] == ' ' && (op == '/' || op == '%') && d[3] == ' ' && d[4] >= '1' && d[4] <= '9') {
                    char *f = d + 4;
                    for (; *f >= '0' && *f <= '9' && c2 < 1000000; f++) c2 = c2 * 10 + (*f - '0');
                    if (!ident(*f) && c1 % c2 == 0 && (op == '%' || !(f[0] == ' ' && (f[1] == '%' || f[1] == '/'))) &&
                        (op == '%' || declared_int_only(text, r + 1, (size_t)(e - r - 1)))) {
                        if (op == '%') *w++ = '0';
                        else {
                            memmove(w, r + 1, (size_t)(e - r - 1)); /* w <= r: the name moves left */
                            w += e - r - 1;
                            if (c1 != c2) w += sprintf(w, " * %lld", c1 / c2);
                        }
                        r = f;
                        changed = true;
                        continue;
                    }
                }
                /* "(v * 8)" opening a term is "v * 8": nothing binds
                 * tighter than a product that would change its parse */
                if (d[0] == ')' && !ident(d[1]) && d[1] != '(' && d[1] != '[') {
                    memmove(w, r + 1, (size_t)(d - r - 1));
                    w += d - r - 1;
                    r = d + 1;
                    changed = true;
                    continue;
                }
            }
        }
        /* " * 1", " / 1" ending a term, " + 0", " - 0" ending a sum: x * 1 + y,
         * x / 1 % n, (x + 0) < y; a product may also go on (x * 1 * y) */
        bool product = r[1] == '*' || r[1] == '/';
        if (r[0] == ' ' && (product || r[1] == '+' || r[1] == '-') && r[2] == ' ' && r[3] == (product ? '1' : '0') &&
            !ident(r[4]) && (ends_term(r + 4) || (product && r[4] == ' ' && (r[5] == '*' || r[5] == '/' || r[5] == '%')))) {
            r += 4;
            changed = true;
            continue;
        }
        /* "(0 + x" or "[0 + x" opening a sum: the 0 and the plus go */
        if ((r[0] == '(' || r[0] == '[') && r[1] == '0' && r[2] == ' ' && r[3] == '+' && r[4] == ' ') {
            *w++ = r[0];
            r += 5;
            changed = true;
            continue;
        }
        *w++ = *r++;
    }
    *w = 0;
    /* "((x))" -> "(x)": the inner pair's closing one right before the outer's */
    for (char *p = s; *p; p++) {
        if (p[0] != '(' || p[1] != '(') continue;
        int depth = 0;
        bool comma = false; /* f((a, b)) is one argument, f(a, b) two */
        char *q = p + 1;
        for (; *q; q++) {
            if (*q == '(') depth++;
            else if (*q == ')' && --depth == 0) break;
            else if (*q == ',' && depth == 1) comma = true;
        }
        if (*q == ')' && q[1] == ')' && !comma && (p == s || !ident(p[-1]))) {
            /* drop the inner pair: p+1 and q */
            memmove(q, q + 1, strlen(q + 1) + 1);
            memmove(p + 1, p + 2, strlen(p + 2) + 1);
            changed = true;
            p--;
        }
    }
    return changed;
}

/* The code part of a line: up to a // comment, with string and character
 * literals skipped; its length. */
static size_t code_length(const char *s) {
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '"' || s[i] == '\'') {
            char q = s[i];
            for (i++; s[i] && s[i] != q; i++)
                if (s[i] == '\\' && s[i + 1]) i++;
            if (!s[i]) return i;
            continue;
        }
        if (s[i] == '/' && (s[i + 1] == '/' || s[i + 1] == '*')) return i;
    }
    return strlen(s);
}

char *cg_tidy(const char *text, size_t len, size_t *out_len) {
    char *out = xmalloc(len + 1);
    size_t n = 0;
    char *line = xmalloc(len + 1);
    char *whole = xmalloc(len + 1); /* text, NUL-terminated: declarations are looked up in it */
    memcpy(whole, text, len);
    whole[len] = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        size_t l = e - i;
        memcpy(line, text + i, l);
        line[l] = 0;
        size_t lead = 0;
        while (line[lead] == ' ') lead++;
        size_t c = code_length(line);
        bool literal = memchr(line, '"', c) || memchr(line, '\'', c);
        if (line[lead] != '#' && !literal) { /* code lines only; asm strings and #line stay */
            char *comment = c < l ? xstrdup(line + c) : NULL;
            line[c] = 0;
            while (tidy_code(line, whole)) {}
            if (comment) {
                strcat(line, comment);
                free(comment);
            }
            l = strlen(line);
        }
        memcpy(out + n, line, l);
        n += l;
        if (e < len) out[n++] = '\n';
        i = e + 1;
    }
    out[n] = 0;
    free(line);
    free(whole);
    *out_len = n;
    return out;
}
