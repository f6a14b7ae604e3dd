/* test_file.c - file_write_atomic: a whole file or none, nothing left
 * behind on failure, devices written in place, and threads and processes
 * writing one path at once. Also the allocation wrappers' basics. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static int failures, checks;
static char dir[] = "/tmp/tilec-file-test-XXXXXX";

static void check(bool ok, const char *what) {
    checks++;
    if (!ok) failures++;
    printf("  %s %s\n", ok ? "ok  " : "FAIL", what);
}

/* The whole content of path (NUL-terminated; the caller frees), or NULL. */
static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = xmalloc(1 << 20);
    *n = fread(buf, 1, (1 << 20) - 1, f);
    buf[*n] = 0;
    fclose(f);
    return buf;
}

static int count_temporaries(void) {
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

static void basics(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    size_t n;
    check(file_write_atomic(path, "first", 5), "writes a new file");
    check(file_write_atomic(path, "second!", 7), "replaces it");
    char *got = slurp(path, &n);
    check(got && n == 7 && !memcmp(got, "second!", 7), "with the whole new content");
    free(got);
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    check(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask), "mode 0666 less the umask");
    check(count_temporaries() == 0, "no temporary left");

    snprintf(path, sizeof path, "%s/missing/out.txt", dir);
    errno = 0;
    check(!file_write_atomic(path, "x", 1) && errno == ENOENT, "a missing folder fails with ENOENT");
    snprintf(path, sizeof path, "%s/adir", dir);
    mkdir(path, 0700);
    check(!file_write_atomic(path, "x", 1) && errno != 0, "a folder is not replaced");
    check(count_temporaries() == 0, "and no temporary is left");
    rmdir(path);
    check(file_write_atomic("/dev/null", "x", 1), "/dev/null is written in place");
    struct stat dn;
    check(stat("/dev/null", &dn) == 0 && S_ISCHR(dn.st_mode), "and stays a device");
}

static bool uniform(const char *s, size_t n) {
    for (size_t i = 1; i < n; i++)
        if (s[i] != s[0]) return false;
    return true;
}

typedef struct Writer {
    const char *path;
    char fill;
    int bad;
} Writer;

enum { BIG = 100000, ROUNDS = 40 };

/* Writes BIG copies of its byte ROUNDS times; every read in between must
 * see one writer's whole file. */
static void *hammer(void *arg) {
    Writer *w = arg;
    char *buf = xmalloc(BIG);
    memset(buf, w->fill, BIG);
    for (int r = 0; r < ROUNDS; r++) {
        w->bad += !file_write_atomic(w->path, buf, BIG);
        size_t n;
        char *got = slurp(w->path, &n);
        w->bad += !got || n != BIG || !uniform(got, n);
        free(got);
    }
    free(buf);
    return NULL;
}

static void concurrent(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/shared.bin", dir);
    Writer w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (Writer){path, (char)('a' + i), 0};
        pthread_create(&th[i], NULL, hammer, &w[i]);
    }
    int bad = 0;
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL), bad += w[i].bad;
    check(bad == 0, "4 threads writing one path: every write succeeds, every read is whole");
    pid_t kids[4];
    for (int k = 0; k < 4; k++)
        if ((kids[k] = fork()) == 0) {
            Writer x = {path, (char)('p' + k), 0};
            hammer(&x);
            _exit(x.bad ? 1 : 0);
        }
    bad = 0;
    for (int k = 0; k < 4; k++) {
        int status = 0;
        waitpid(kids[k], &status, 0);
        bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    check(bad == 0, "4 processes likewise");
    check(count_temporaries() == 0, "no temporary left");
}

static void allocation(void) {
    char *s = xstrdup("tile");
    s = xrealloc(s, 64);
    check(!strcmp(s, "tile"), "xstrdup, xrealloc keeps the content");
    free(s);
    int *z = xcalloc(16, sizeof *z);
    bool zero = true;
    for (int i = 0; i < 16; i++) zero &= z[i] == 0;
    check(zero, "xcalloc zeroes");
    free(z);
    void *p = xmalloc(0);
    check(p != NULL, "xmalloc(0) is a pointer");
    free(p);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    basics();
    concurrent();
    allocation();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("  (could not remove %s)\n", dir);
    printf("test_file: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
