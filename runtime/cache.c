/* cache.c - the on-disk cubin cache.
 *
 * Entries are named by a key (hash_key: SHA-256) over everything that
 * changes the binary (generated source, target, NVRTC version, options,
 * tilec version). An entry is a header (magic, payload size, the payload's
 * SHA-256) and the cubin; it is written atomically (file_write_atomic_fn),
 * so concurrent tilec processes see a whole entry or none; a damaged or
 * truncated entry fails its digest and is rebuilt. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"
#include "support.h"

/* An entry: the magic (its digit is the format's version), the payload's
 * size (8 bytes, host order), the payload's SHA-256, the payload. */
static const char magic[8] = {'T', 'I', 'L', 'E', 'C', 'C', '2', '\n'};
enum { HEAD_BYTES = 8 + 8 + HASH_DIGEST_BYTES }; /* magic, size, digest */

/* mkdir -p with mode 0700 for what it creates. */
static bool make_dirs(const char *path) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) return false;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return false;
        *p = '/';
    }
    return mkdir(tmp, 0700) == 0 || errno == EEXIST;
}

bool rt_cache_init(RtCache *c, const char *cli_dir, bool disabled, char warn[256]) {
    memset(c, 0, sizeof *c);
    warn[0] = 0;
    if (disabled) return true;
    const char *env = getenv("TILEC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (cli_dir) n = snprintf(c->dir, sizeof c->dir, "%s", cli_dir);
    else if (env && *env) n = snprintf(c->dir, sizeof c->dir, "%s", env);
    else if (xdg && *xdg) n = snprintf(c->dir, sizeof c->dir, "%s/tilec", xdg);
    else if (home && *home) n = snprintf(c->dir, sizeof c->dir, "%s/.cache/tilec", home);
    else {
        snprintf(warn, 256, "no cache directory (set TILEC_CACHE_DIR or HOME); compiling without a cache");
        return true;
    }
    if (n >= (int)sizeof c->dir - 64) {
        snprintf(warn, 256, "the cache directory path is too long; compiling without a cache");
        return true;
    }
    struct stat st;
    if (!make_dirs(c->dir) || stat(c->dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(c->dir, W_OK | X_OK) != 0) {
        snprintf(warn, 256, "cannot use the cache directory %.180s; compiling without a cache", c->dir);
        return true;
    }
    c->enabled = true;
    return true;
}

static void entry_path(const RtCache *c, const char *key, const char *ext, char *out, size_t n) {
    snprintf(out, n, "%s/%s.%s", c->dir, key, ext);
}

bool rt_cache_get(const RtCache *c, const char *key, void **data, size_t *size) {
    return rt_cache_get_ext(c, key, "cubin", data, size);
}

void rt_cache_put(const RtCache *c, const char *key, const void *data, size_t size) {
    rt_cache_put_ext(c, key, "cubin", data, size);
}

bool rt_cache_get_ext(const RtCache *c, const char *key, const char *ext, void **data, size_t *size) {
    *data = NULL;
    *size = 0;
    if (!c->enabled) return false;
    char path[4200];
    entry_path(c, key, ext, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char head[HEAD_BYTES], digest[HASH_DIGEST_BYTES];
    bool ok = fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, magic, 8) == 0;
    uint64_t len = 0;
    if (ok) {
        memcpy(&len, head + 8, 8);
        ok = len > 0 && len < (1u << 30);
    }
    void *buf = ok ? malloc(len) : NULL;
    if (ok) ok = buf && fread(buf, 1, len, f) == len && fgetc(f) == EOF;
    fclose(f);
    if (ok) {
        hash_digest(buf, len, digest);
        ok = memcmp(digest, head + 16, HASH_DIGEST_BYTES) == 0;
    }
    if (!ok) {
        free(buf);
        remove(path); /* damaged: drop it so the rebuild replaces it */
        return false;
    }
    *data = buf;
    *size = len;
    return true;
}

typedef struct Entry {
    const void *data;
    size_t size;
} Entry;

static void write_entry(FILE *f, const void *arg) {
    const Entry *e = arg;
    unsigned char head[HEAD_BYTES];
    uint64_t len = e->size;
    memcpy(head, magic, 8);
    memcpy(head + 8, &len, 8);
    hash_digest(e->data, e->size, head + 16);
    fwrite(head, 1, sizeof head, f);
    fwrite(e->data, 1, e->size, f);
}

/* Private (0600) like the directory; a failed write leaves no entry, and
 * the next compile simply misses. */
void rt_cache_put_ext(const RtCache *c, const char *key, const char *ext, const void *data, size_t size) {
    if (!c->enabled) return;
    char path[4200];
    entry_path(c, key, ext, path, sizeof path);
    Entry e = {data, size};
    file_write_atomic_fn(path, 0600, write_entry, &e);
}
