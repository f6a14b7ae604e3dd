/* file.c - writing a file so that no reader ever sees half of it.
 *
 * The temporary file is created beside the target (rename is atomic only
 * within one file system) with O_EXCL under a name carrying the process id
 * and a per-process counter, so threads and processes writing one path at
 * once never share a temporary; the last rename wins with a whole file. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static atomic_ulong temp_serial;

/* Creates PATH.tmp.PID.N for writing; its name goes to *tmp (freed by the
 * caller). NULL with errno set when it cannot be created. */
static FILE *open_temp(const char *path, unsigned mode, char **tmp) {
    size_t n = strlen(path) + 64;
    char *name = xmalloc(n);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned long serial = atomic_fetch_add(&temp_serial, 1);
        snprintf(name, n, "%s.tmp.%ld.%lu", path, (long)getpid(), serial);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
        if (fd < 0 && errno == EEXIST) continue; /* left by a process that had this pid */
        if (fd < 0) break;
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            int e = errno;
            close(fd);
            unlink(name);
            errno = e;
            break;
        }
        *tmp = name;
        return f;
    }
    free(name);
    return NULL;
}

/* Fills f and closes it; false with errno set when any write failed. */
static bool fill_and_close(FILE *f, FileFill fill, const void *arg) {
    errno = 0;
    fill(f, arg);
    bool bad = ferror(f) != 0;
    int e = errno;
    if (fflush(f) != 0 && !bad) bad = true, e = errno;
    if (fclose(f) != 0 && !bad) bad = true, e = errno;
    errno = e ? e : EIO;
    return !bad;
}

bool file_write_atomic_fn(const char *path, unsigned mode, FileFill fill, const void *arg) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        FILE *f = fopen(path, "wb");
        return f && fill_and_close(f, fill, arg);
    }
    char *tmp = NULL;
    FILE *f = open_temp(path, mode, &tmp);
    if (!f) return false;
    bool ok = fill_and_close(f, fill, arg) && rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return ok;
}

typedef struct Bytes {
    const void *data;
    size_t n;
} Bytes;

static void write_bytes(FILE *f, const void *arg) {
    const Bytes *b = arg;
    fwrite(b->data, 1, b->n, f);
}

bool file_write_atomic(const char *path, const void *data, size_t n) {
    Bytes b = {data, n};
    return file_write_atomic_fn(path, 0666, write_bytes, &b);
}
