/* test_cache.c - the on-disk cubin cache: hits and misses, damaged entries
 * rebuilt, private directories, unusable directories, concurrent writers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime.h"
#include "support.h"

static int failures, checks;

static void check(bool ok, const char *what) {
    checks++;
    if (!ok) failures++;
    printf("  %s %s\n", ok ? "ok  " : "FAIL", what);
}

static void write_raw(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

int main(void) {
    char dir[] = "/tmp/tilec-cache-test-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char sub[512], warn[256];
    snprintf(sub, sizeof sub, "%s/a/b/tilec", dir);
    RtCache c;
    rt_cache_init(&c, sub, false, warn);
    struct stat st;
    check(c.enabled && warn[0] == 0, "a missing cache directory is created");
    check(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700, "it is private (0700)");

    char key[HASH_KEY_SIZE], key2[HASH_KEY_SIZE];
    const char *parts[] = {"source", "sm_90a", "13.0", "0.1.0", "cubin"};
    const char *parts2[] = {"source", "sm_80", "13.0", "0.1.0", "cubin"};
    hash_key(key, parts, 5);
    hash_key(key2, parts2, 5);
    check(strlen(key) == 64 && strcmp(key, key2) != 0, "keys are 64 hex digits and differ by target");
    void *data;
    size_t size;
    check(!rt_cache_get(&c, key, &data, &size), "an absent entry misses");
    const char payload[] = "\x7f" "ELF pretend cubin payload";
    rt_cache_put(&c, key, payload, sizeof payload);
    check(rt_cache_get(&c, key, &data, &size) && size == sizeof payload && !memcmp(data, payload, size), "put, then hit");
    free(data);

    char path[700];
    snprintf(path, sizeof path, "%s/%s.cubin", sub, key);
    check(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "entries are private (0600)");
    /* a truncated entry */
    FILE *f = fopen(path, "rb");
    char buf[256];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    write_raw(path, buf, n - 5);
    check(!rt_cache_get(&c, key, &data, &size), "a truncated entry is rejected");
    check(stat(path, &st) != 0, "and removed, so the next compile rebuilds it");
    /* a flipped byte */
    buf[n - 3] ^= 0x40;
    write_raw(path, buf, n);
    check(!rt_cache_get(&c, key, &data, &size), "an entry with a flipped byte fails its checksum");
    write_raw(path, "garbage", 7);
    check(!rt_cache_get(&c, key, &data, &size), "garbage is rejected");

    /* concurrent writers and readers: a reader sees a whole entry or none */
    char big[200000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)(i * 7 + 3);
    int bad = 0;
    pid_t kids[8];
    for (int k = 0; k < 8; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            int wrong = 0;
            for (int r = 0; r < 50; r++) {
                rt_cache_put(&c, key2, big, sizeof big);
                void *d;
                size_t s;
                if (rt_cache_get(&c, key2, &d, &s)) {
                    wrong += s != sizeof big || memcmp(d, big, s) != 0;
                    free(d);
                }
            }
            _exit(wrong ? 1 : 0);
        }
    }
    for (int k = 0; k < 8; k++) {
        int status = 0;
        waitpid(kids[k], &status, 0);
        bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    check(bad == 0, "8 processes writing and reading one entry never see a partial one");
    check(rt_cache_get(&c, key2, &data, &size) && size == sizeof big, "the entry is whole afterwards");
    free(data);

    /* an unusable directory degrades to no caching, with a warning */
    RtCache u;
    rt_cache_init(&u, "/dev/null/tilec", false, warn);
    check(!u.enabled && strstr(warn, "without a cache") != NULL, "an unusable directory disables the cache with a warning");
    rt_cache_put(&u, key, payload, sizeof payload);
    check(!rt_cache_get(&u, key, &data, &size), "a disabled cache never hits");
    RtCache off;
    rt_cache_init(&off, sub, true, warn);
    check(!off.enabled && warn[0] == 0, "--no-cache disables it quietly");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("  (could not remove %s)\n", dir);
    printf("test_cache: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
