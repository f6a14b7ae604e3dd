/* cache.c - the on-disk cubin cache.
 *
 * Entries are named by a 128-bit key over everything that changes the
 * binary (generated source, target, NVRTC version, options, tilec
 * version). An entry is a header (magic, payload size, payload checksum)
 * and the cubin; it is written to a temporary file and renamed into place,
 * so concurrent tilec processes see a whole entry or none; a damaged or
 * truncated entry fails its checksum and is rebuilt. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

static const char magic[8] = {'T', 'I', 'L', 'E', 'C', 'C', '1', '\n'};

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

void rt_cache_key(char out[33], const char *const *parts, int n) {
    /* two independent 64-bit FNV streams (different offset bases) */
    uint64_t a = 1469598103934665603ull, b = 0x84222325cbf29ce4ull;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(parts[i]) + 1; /* the NUL separates parts */
        a = fnv1a(a, parts[i], len);
        b = fnv1a(b ^ 0x9e3779b97f4a7c15ull, parts[i], len);
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

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

static void entry_path(const RtCache *c, const char *key, char *out, size_t n) {
    snprintf(out, n, "%s/%s.cubin", c->dir, key);
}

bool rt_cache_get(const RtCache *c, const char *key, void **data, size_t *size) {
    *data = NULL;
    *size = 0;
    if (!c->enabled) return false;
    char path[4200];
    entry_path(c, key, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char head[24];
    bool ok = fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, magic, 8) == 0;
    uint64_t len = 0, sum = 0;
    if (ok) {
        memcpy(&len, head + 8, 8);
        memcpy(&sum, head + 16, 8);
        ok = len > 0 && len < (1u << 30);
    }
    void *buf = ok ? malloc(len) : NULL;
    if (ok) ok = buf && fread(buf, 1, len, f) == len && fgetc(f) == EOF;
    fclose(f);
    if (ok) ok = fnv1a(1469598103934665603ull, buf, len) == sum;
    if (!ok) {
        free(buf);
        remove(path); /* damaged: drop it so the rebuild replaces it */
        return false;
    }
    *data = buf;
    *size = len;
    return true;
}

void rt_cache_put(const RtCache *c, const char *key, const void *data, size_t size) {
    if (!c->enabled) return;
    char path[4200], tmp[4300];
    entry_path(c, key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    unsigned char head[24];
    uint64_t len = size, sum = fnv1a(1469598103934665603ull, data, size);
    memcpy(head, magic, 8);
    memcpy(head + 8, &len, 8);
    memcpy(head + 16, &sum, 8);
    bool ok = fwrite(head, 1, sizeof head, f) == sizeof head && fwrite(data, 1, size, f) == size;
    ok &= fclose(f) == 0;
    if (ok) ok = chmod(tmp, 0600) == 0 && rename(tmp, path) == 0;
    if (!ok) remove(tmp);
}
