/* lex.re - the re2c lexer (LANGUAGE.md §2). The buffer ends in a NUL
 * sentinel; a NUL before the end is an error, as is every byte that is not
 * part of a token (reported once per run of such bytes). */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "parse.h"

void lex_init(Lexer *lx, Ctx *c) {
    memset(lx, 0, sizeof *lx);
    lx->c = c;
    lx->cur = c->src.text;
    lx->lim = c->src.text + c->src.len;
    lx->line = 1;
}

static Loc loc_at(Lexer *lx, const char *p) {
    return (Loc){(uint32_t)(p - lx->c->src.text), lx->line};
}

/* Skips UTF-8 text up to end (comments), counting lines; reports the first
 * invalid byte. */
static void scan_text(Lexer *lx, const char *p, const char *end) {
    bool reported = false;
    while (p < end) {
        uint32_t cp;
        int n = utf8_decode((const unsigned char *)p, (size_t)(end - p), &cp);
        if (n == 0) {
            if (!reported)
                diag_error(lx->c, loc_at(lx, p), "invalid UTF-8 byte 0x%02x",
                           (unsigned char)*p);
            reported = true;
            n = 1;
        } else if (cp == 0 && !reported) {
            diag_error(lx->c, loc_at(lx, p), "NUL byte in source");
            reported = true;
        }
        if (*p == '\n') lx->line++;
        p += n;
    }
}

/* A string literal starting at the opening quote: unescaped into the arena. */
static bool scan_string(Lexer *lx, Token *t) {
    const char *start = lx->tok, *p = lx->tok + 1;
    char *buf = arena_alloc(&lx->c->arena, (size_t)(lx->lim - p) + 1);
    size_t n = 0;
    for (;;) {
        /* a backslash in the last byte escapes the sentinel: unterminated too */
        if (p >= lx->lim || *p == '\n' || (*p == '\\' && p + 1 >= lx->lim)) {
            diag_error(lx->c, loc_at(lx, start), "unterminated string literal");
            lx->cur = p < lx->lim && *p == '\n' ? p : lx->lim; /* the newline is still a token boundary */
            return false;
        }
        if (*p == '"') break;
        if (*p == '\\') {
            char e = p[1];
            char v = e == 'n' ? '\n' : e == 't' ? '\t' : e == '"' ? '"' : e == '\\' ? '\\' : 0;
            if (!v) {
                diag_error(lx->c, loc_at(lx, p), "unknown escape sequence in string (only \\n \\t \\\" \\\\)");
                v = '?';
            }
            buf[n++] = v;
            p += 2;
            continue;
        }
        uint32_t cp;
        int len = utf8_decode((const unsigned char *)p, (size_t)(lx->lim - p), &cp);
        if (len == 0) {
            diag_error(lx->c, loc_at(lx, p), "invalid UTF-8 byte 0x%02x in string literal", (unsigned char)*p);
            len = 1;
        } else if (cp == 0) {
            diag_error(lx->c, loc_at(lx, p), "NUL byte in string literal");
        }
        memcpy(buf + n, p, (size_t)len);
        n += (size_t)len;
        p += len;
    }
    t->str = buf;
    t->str_len = (uint32_t)n;
    lx->cur = p + 1;
    return true;
}

/* Digits with `_` separators into an int64, reporting overflow. */
static int64_t parse_int(Lexer *lx, const char *s, const char *e, int base) {
    uint64_t v = 0;
    bool overflow = false;
    for (const char *p = s; p < e; p++) {
        if (*p == '_') continue;
        int d = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
        if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)d) / (uint64_t)base) overflow = true;
        else v = v * (uint64_t)base + (uint64_t)d;
    }
    if (overflow)
        /* constants are 64-bit signed: past that, say how to spell the two
         * values people reach for */
        diag_error(lx->c, loc_at(lx, lx->tok), "integer literal is too large (the limit is 2^63 - 1: the largest u64 is "
                   "~u64(0), the least i64 -9223372036854775807 - 1)");
    return (int64_t)v;
}

static double parse_float(Lexer *lx, const char *s, const char *e, bool *fsuffix) {
    char tmp[128];
    size_t n = 0;
    *fsuffix = false;
    if (e - s >= (ptrdiff_t)sizeof tmp) {
        /* f64 holds 17 significant digits; longer spellings are mistakes */
        diag_error(lx->c, loc_at(lx, s), "float literal is too long (%td characters)", e - s);
        return 0;
    }
    for (const char *p = s; p < e && n < sizeof tmp - 1; p++) {
        if (*p == '_') continue;
        if (*p == 'f' || *p == 'F') { *fsuffix = true; continue; }
        tmp[n++] = *p;
    }
    tmp[n] = 0;
    errno = 0;
    double v = strtod(tmp, NULL);
    if (isinf(v)) diag_error(lx->c, loc_at(lx, s), "float literal is out of range");
    return v;
}

/* A number followed directly by letters, digits or `_` (`12abc`, `1e`, `0x`)
 * is one malformed token; report it whole and skip it. */
static bool bad_suffix(Lexer *lx) {
    const char *p = lx->cur;
    if (!(*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
        return false;
    while (*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')) p++;
    int shown = (int)(p - lx->tok) > 40 ? 40 : (int)(p - lx->tok);
    diag_error(lx->c, loc_at(lx, lx->tok), "malformed number '%.*s%s'", shown, lx->tok,
               shown < (int)(p - lx->tok) ? "..." : "");
    lx->cur = p;
    return true;
}

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "lx->cur";
    re2c:define:YYMARKER = "lx->marker";
    re2c:yyfill:enable = 0;
    re2c:flags:utf-8 = 0;

    dec = [0-9]+ ("_" [0-9]+)*;
    hex = "0" [xX] [0-9a-fA-F]+ ("_" [0-9a-fA-F]+)*;
    exp = [eE] [+-]? [0-9]+;
    flt = (dec "." [0-9]* exp? | "." [0-9]+ exp? | dec exp) [fF]?;
    ident = [A-Za-z_][A-Za-z0-9_]*;
*/

int lex_next(Lexer *lx, Token *t) {
    memset(t, 0, sizeof *t);
    for (;;) {
        lx->tok = lx->cur;
        t->loc = loc_at(lx, lx->tok);
        /*!re2c
        "\x00" {
            if (lx->tok >= lx->lim) { lx->cur = lx->lim; return 0; }
            diag_error(lx->c, t->loc, "NUL byte in source");
            continue;
        }
        "\n" { lx->line++; continue; }
        [ \t\r\f\v]+ { continue; }
        "//" {
            const char *end = lx->cur;
            while (end < lx->lim && *end != '\n') end++;
            scan_text(lx, lx->cur, end);
            lx->cur = end;
            continue;
        }
        "/*" {
            const char *end = NULL;
            for (const char *p = lx->cur; p + 1 < lx->lim; p++)
                if (p[0] == '*' && p[1] == '/') { end = p; break; }
            if (!end) {
                diag_error(lx->c, t->loc, "unterminated comment (no closing */)");
                scan_text(lx, lx->cur, lx->lim);
                lx->cur = lx->lim;
                continue;
            }
            scan_text(lx, lx->cur, end);
            lx->cur = end + 2;
            continue;
        }
        "\"" { if (!scan_string(lx, t)) continue; t->len = (uint32_t)(lx->cur - lx->tok); return TK_STRING; }

        "kernel" { return TK_KERNEL; }
        "pipeline" { return TK_PIPELINE; }
        "const" { return TK_CONST; }
        "let" { return TK_LET; }
        "var" { return TK_VAR; }
        "out" { return TK_OUT; }
        "inout" { return TK_INOUT; }
        "where" { return TK_WHERE; }
        "tune" { return TK_TUNE; }
        "dynamic" { return TK_DYNAMIC; }
        "inputs" { return TK_INPUTS; }
        "in" { return TK_IN; }
        "grid" { return TK_GRID; }
        "as" { return TK_AS; }
        "threads" { return TK_THREADS; }
        "for" { return TK_FOR; }
        "if" { return TK_IF; }
        "else" { return TK_ELSE; }
        "reference" { return TK_REFERENCE; }
        "flops" { return TK_FLOPS; }
        "bytes" { return TK_BYTES; }
        "true" { return TK_TRUE; }
        "false" { return TK_FALSE; }
        "inf" { return TK_INF; }
        ident {
            size_t n = (size_t)(lx->cur - lx->tok);
            Dtype dt = dtype_from_name(lx->tok, n);
            if (dt != DT_NONE) { t->dtype = dt; return TK_DTYPE; }
            if (n > LIMIT_IDENT_BYTES) {
                diag_error(lx->c, t->loc, "identifier is %zu bytes long; the limit is %d", n, LIMIT_IDENT_BYTES);
                n = LIMIT_IDENT_BYTES;
            }
            t->name = intern(lx->c, lx->tok, n);
            t->len = (uint32_t)(lx->cur - lx->tok);
            return TK_IDENT;
        }
        /* a malformed number is reported and read as a 0 of its kind, so
         * that the parser does not report the gap it would leave */
        hex {
            if (bad_suffix(lx)) { t->ival = 0; return TK_INT; }
            t->ival = parse_int(lx, lx->tok + 2, (const char *)lx->cur, 16);
            return TK_INT;
        }
        dec {
            if (bad_suffix(lx)) { t->ival = 0; return TK_INT; }
            t->ival = parse_int(lx, lx->tok, (const char *)lx->cur, 10);
            return TK_INT;
        }
        flt {
            if (bad_suffix(lx)) { t->fval = 0; t->fsuffix = false; return TK_FLOAT; }
            t->fval = parse_float(lx, lx->tok, (const char *)lx->cur, &t->fsuffix);
            return TK_FLOAT;
        }

        "(" { return TK_LPAREN; }
        ")" { return TK_RPAREN; }
        "[" { return TK_LBRACKET; }
        "]" { return TK_RBRACKET; }
        "{" { return TK_LBRACE; }
        "}" { return TK_RBRACE; }
        "," { return TK_COMMA; }
        ";" { return TK_SEMI; }
        ":" { return TK_COLON; }
        "?" { return TK_QUESTION; }
        "=" { return TK_ASSIGN; }
        "+=" { return TK_PLUSEQ; }
        "-=" { return TK_MINUSEQ; }
        "*=" { return TK_STAREQ; }
        "/=" { return TK_SLASHEQ; }
        "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=" {
            /* read as '=' after the error, so the parser reports nothing more */
            int n = (int)(lx->cur - lx->tok);
            diag_error(lx->c, t->loc, "'%.*s' is not an assignment operator (=, +=, -=, *= and /= are): write x = x %.*s y",
                       n, lx->tok, n - 1, lx->tok);
            return TK_ASSIGN;
        }
        "||" { return TK_OROR; }
        "&&" { return TK_ANDAND; }
        "==" { return TK_EQ; }
        "!=" { return TK_NE; }
        "<" { return TK_LT; }
        "<=" { return TK_LE; }
        ">" { return TK_GT; }
        ">=" { return TK_GE; }
        "<<" { return TK_SHL; }
        ">>" { return TK_SHR; }
        "+" { return TK_PLUS; }
        "-" { return TK_MINUS; }
        "*" { return TK_STAR; }
        "/" { return TK_SLASH; }
        "%" { return TK_PERCENT; }
        "&" { return TK_AMP; }
        "|" { return TK_PIPE; }
        "^" { return TK_CARET; }
        "!" { return TK_BANG; }
        "~" { return TK_TILDE; }

        [\x80-\xff] {
            uint32_t cp;
            int n = utf8_decode((const unsigned char *)lx->tok, (size_t)(lx->lim - lx->tok), &cp);
            if (n == 0) {
                diag_error(lx->c, t->loc, "invalid UTF-8 byte 0x%02x", (unsigned char)*lx->tok);
                n = 1;
            } else {
                diag_error(lx->c, t->loc, "unexpected character U+%04X (non-ASCII text is only allowed in comments and strings)", cp);
            }
            lx->cur = lx->tok + n;
            /* Skip the rest of a run of such bytes: one error per run. */
            while (lx->cur < lx->lim && ((unsigned char)*lx->cur & 0x80)) lx->cur++;
            continue;
        }
        * {
            unsigned char ch = (unsigned char)*lx->tok;
            if (ch >= 0x20 && ch < 0x7f)
                diag_error(lx->c, t->loc, "unexpected character '%c'", ch);
            else
                diag_error(lx->c, t->loc, "unexpected control character 0x%02x", ch);
            continue;
        }
        */
    }
}
