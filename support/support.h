/* support.h - what every layer of tilec shares: the arena, growable arrays,
 * source files, diagnostics and the per-compilation context; allocation
 * that cannot fail, hashing, atomic file writes and a JSON writer.
 *
 * One Ctx per compilation owns an arena; nothing allocated from it is freed
 * individually (the arena goes away with the Ctx). */
#ifndef TILEC_SUPPORT_H
#define TILEC_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TILEC_VERSION "0.1.0"

/* Hard limits: inputs beyond them get a located error, never a crash. */
enum {
    LIMIT_SOURCE_BYTES = 16 * 1024 * 1024, /* refuse larger source files */
    LIMIT_NESTING = 256,                   /* ( [ { nesting in the source */
    LIMIT_EXPR_DEPTH = 1000,               /* depth of any syntax tree */
    LIMIT_IDENT_BYTES = 1024,              /* longest identifier */
    LIMIT_ERRORS = 20,                     /* errors reported before stopping */
};

/* ---- arena.c ---- */
typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *head;
    size_t total;
} Arena;

void *arena_alloc(Arena *a, size_t size);       /* zeroed, 16-byte aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);

/* A growable array of pointers living in an arena (old storage is simply
 * abandoned when it grows; the arena reclaims everything at the end). */
typedef struct PtrVec {
    void **items;
    int len, cap;
} PtrVec;
void vec_push(Arena *a, PtrVec *v, void *item);

/* ---- source.c ---- */
/* A source position: byte offset and 1-based line. The column is computed
 * only when a diagnostic is printed (in code points, so carets line up under
 * UTF-8 text); computing it per token would be quadratic on long lines. */
typedef struct Loc {
    uint32_t off;
    uint32_t line;
} Loc;

typedef struct Source {
    const char *name;
    char *text;   /* NUL-terminated copy; may contain NUL bytes before len */
    size_t len;
    bool too_large;  /* source_read refused it: over LIMIT_SOURCE_BYTES */
} Source;

/* Reads a whole file; on failure returns false and says why in *why. */
bool source_read(Source *src, const char *path, const char **why);
void source_from_string(Source *src, const char *name, const char *text, size_t len);
int source_column(const Source *src, Loc loc);
/* Where line `line` (1-based) starts; src->len past the last line. */
size_t source_line_start(const Source *src, unsigned line);
/* The line holding offset off as a quote: leading and trailing blanks
 * dropped, tabs as spaces and other control bytes as '?', at most n - 1
 * bytes of it (the generated code's comments, the profiler's hot lines). */
void source_line_text(const Source *src, size_t off, char *buf, size_t n);
/* The offset after the display cell at offset i (< end): a whole UTF-8
 * code point, or one byte that does not decode (printed as '?'). */
size_t source_next_cell(const Source *src, size_t i, size_t end);

/* ---- intern.c ---- */
typedef struct Name {
    const char *s;
    size_t len;
    uint64_t hash;
    void *binding;   /* the front end's current symbol for this name */
} Name;
typedef struct NameTable {
    Name **slots;
    int cap, count;
} NameTable;

/* ---- diag.c ---- */
typedef struct Ctx {
    Arena arena;
    NameTable names;
    Source src;
    FILE *err;          /* where diagnostics go (stderr) */
    int errors;         /* errors reported so far */
    bool too_many;      /* the error limit was reached; stop reporting */
    /* Warnings (-w: none, -Werror: errors); each said once, though a
     * kernel may be lowered several times (a pipeline's stages). */
    bool no_warnings, warnings_are_errors;
    uint64_t *warned;   /* hashes of the warnings said */
    int nwarned, warned_cap;
} Ctx;

void ctx_init(Ctx *c, FILE *err);
void ctx_free(Ctx *c);
/* FILE:LINE:COL: error: MESSAGE, the source line and a caret. */
void diag_error(Ctx *c, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_verror(Ctx *c, Loc loc, const char *fmt, va_list ap);
/* A note attached to the previous error (same format, "note:"). */
void diag_note(Ctx *c, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* FILE:LINE:COL: warning: MESSAGE and the caret, where the compiled code
 * leaves a fast path the source asks for; silenced by no_warnings, an
 * error (with " [-Werror]") by warnings_are_errors. */
void diag_warning(Ctx *c, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Internal compiler errors are bugs: say so and abort. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

Name *intern(Ctx *c, const char *s, size_t len);
Name *intern_cstr(Ctx *c, const char *s);

/* ---- utf8.c ---- */
/* Length of the valid UTF-8 sequence at s (limited to n bytes), or 0 when
 * the bytes there are not valid UTF-8; the code point goes to *cp. */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* ---- alloc.c ---- */
/* malloc, calloc, realloc and strdup that never return NULL: running out of
 * memory ends tilec through die(). A zero size allocates one byte, so the
 * result is always a distinct pointer. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* ---- hash.c ---- */
/* SHA-256 (FIPS 180-4). A key is the lowercase hex of a digest. */
enum { HASH_DIGEST_BYTES = 32, HASH_KEY_SIZE = 2 * HASH_DIGEST_BYTES + 1 };
typedef struct HashState {
    uint32_t h[8];
    uint64_t bytes;           /* message length so far */
    unsigned char block[64];  /* the partial block */
    size_t fill;
} HashState;

void hash_init(HashState *s);
void hash_update(HashState *s, const void *data, size_t n);
void hash_final(HashState *s, unsigned char out[HASH_DIGEST_BYTES]);
void hash_digest(const void *data, size_t n, unsigned char out[HASH_DIGEST_BYTES]);
void hash_hex(const unsigned char digest[HASH_DIGEST_BYTES], char out[HASH_KEY_SIZE]);
/* The key of a list of strings (cache keys): each part length-prefixed, so
 * no two different lists share their hashed bytes. */
void hash_key(char out[HASH_KEY_SIZE], const char *const *parts, int n);

/* ---- file.c ---- */
/* Writes path atomically: a new temporary file beside it (unique to the
 * process and the call), filled by fill(f, arg), then renamed over path, so
 * a reader sees the old file or the whole new one. A path that exists and
 * is not a regular file (/dev/null, a pipe, /dev/stdout) is written in
 * place: renaming over it would replace it. mode: the permissions of a new
 * file (before the umask). False with errno set on failure, and nothing
 * left behind. */
typedef void (*FileFill)(FILE *f, const void *arg);
bool file_write_atomic_fn(const char *path, unsigned mode, FileFill fill, const void *arg);
/* The same for bytes in memory, mode 0666. */
bool file_write_atomic(const char *path, const void *data, size_t n);

/* ---- json.c ---- */
/* How a container lays out its members. */
typedef enum JsonLayout {
    JSON_COMPACT, /* {"a":1,"b":[2,3]} */
    JSON_SPACED,  /* {"a": 1, "b": [2, 3]} */
    JSON_LINES,   /* each member on a line of its own, indented by the
                   * writer's indent once per open JSON_LINES container */
} JsonLayout;

enum { JSON_MAX_DEPTH = 32 };
typedef struct JsonLevel {
    JsonLayout layout;
    bool object;
    bool empty;  /* no member written yet */
} JsonLevel;
typedef struct JsonWriter {
    FILE *f;
    int indent;  /* spaces per JSON_LINES level */
    int depth;   /* open containers */
    int lines;   /* open JSON_LINES containers */
    bool keyed;  /* a key was written; its value comes next */
    JsonLevel level[JSON_MAX_DEPTH];
} JsonWriter;

/* The writer puts commas, line breaks and indentation between members;
 * inside an object every value follows a json_key. Strings are escaped
 * (quotes, backslashes, control characters; bytes that are not UTF-8 become
 * U+FFFD); a NULL string and a number that is not finite are null. */
void json_init(JsonWriter *w, FILE *f, int indent);
void json_object(JsonWriter *w, JsonLayout layout);
void json_array(JsonWriter *w, JsonLayout layout);
void json_end(JsonWriter *w); /* closes the innermost object or array */
void json_key(JsonWriter *w, const char *key);
void json_string(JsonWriter *w, const char *s);
void json_string_n(JsonWriter *w, const char *s, size_t n);
void json_number(JsonWriter *w, double v); /* the shortest text that reads back exactly */
void json_int(JsonWriter *w, long long v);
void json_bool(JsonWriter *w, bool v);
void json_null(JsonWriter *w);

/* ---- json_read.c ---- */
typedef enum JsonType { JSON_NULL_V, JSON_BOOL_V, JSON_NUMBER_V, JSON_STRING_V, JSON_ARRAY_V, JSON_OBJECT_V } JsonType;
typedef struct JsonValue {
    JsonType type;
    bool boolean;
    double number;
    char *str;                 /* JSON_STRING_V: UTF-8, NUL-terminated (may hold NULs: str_len) */
    size_t str_len;
    int len;                   /* arrays and objects: members */
    struct JsonValue **items;
    char **keys;               /* objects: each member's name */
} JsonValue;
/* The value of text[0..len) (RFC 8259, nested at most 64 deep), or NULL
 * with "line N: why" in err (truncated, malformed, trailing text). */
JsonValue *json_parse(const char *text, size_t len, char err[256]);
void json_value_free(JsonValue *v);
/* An object's member (the last of that name), or NULL (v not an object). */
const JsonValue *json_member(const JsonValue *obj, const char *key);
/* A finite number, else `otherwise`; a string, else `otherwise`. */
double json_number_or(const JsonValue *v, double otherwise);
const char *json_string_or(const JsonValue *v, const char *otherwise);

#endif
