/* source.c - loading source files and turning offsets into columns. */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A carriage return that no line feed follows ends a line (classic Mac
 * line ends): made a line feed, so that lines and columns count as the
 * editor shows them. Same length: offsets stay valid. */
static void lone_carriage_returns_to_newlines(char *text, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n')) text[i] = '\n';
}

bool source_read(Source *src, const char *path, const char **why) {
    /* A FIFO nobody writes would block open() for ever: open without
     * waiting, then read normally (with no writer, a read returns end of
     * file at once). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return false;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        *why = strerror(errno);
        close(fd);
        return false;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        *why = "is a directory";
        return false;
    }
    /* Read in pieces rather than trusting the size from stat: pipes and
     * /proc files report 0, and the file may change while we read. */
    size_t cap = 1 << 16, len = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            if (cap > LIMIT_SOURCE_BYTES) break;
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        *why = "read error";
        return false;
    }
    if (len > LIMIT_SOURCE_BYTES) {
        free(buf);
        *why = "the file is larger than the 16 MiB limit for source files";
        src->too_large = true;
        return false;
    }
    /* a UTF-8 byte-order mark is no part of the program (editors hide it,
     * and columns count from the character after it) */
    if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
        memmove(buf, buf + 3, len - 3);
        len -= 3;
    }
    buf[len] = 0;
    lone_carriage_returns_to_newlines(buf, len);
    src->name = path;
    src->text = buf;
    src->len = len;
    return true;
}

void source_from_string(Source *src, const char *name, const char *text, size_t len) {
    src->name = name;
    src->text = xmalloc(len + 1);
    memcpy(src->text, text, len);
    src->text[len] = 0;
    lone_carriage_returns_to_newlines(src->text, len);
    src->len = len;
}

size_t source_next_cell(const Source *src, size_t i, size_t end) {
    uint32_t cp;
    int n = utf8_decode((const unsigned char *)src->text + i, end - i, &cp);
    return i + (n > 0 ? (size_t)n : 1);
}

size_t source_line_start(const Source *src, unsigned line) {
    size_t i = 0;
    for (unsigned l = 1; l < line && i < src->len; i++)
        if (src->text[i] == '\n') l++;
    return i;
}

void source_line_text(const Source *src, size_t off, char *buf, size_t n) {
    size_t i = off > src->len ? src->len : off, k = 0;
    while (i > 0 && src->text[i - 1] != '\n') i--;
    while (i < src->len && (src->text[i] == ' ' || src->text[i] == '\t')) i++;
    for (; i < src->len && src->text[i] != '\n' && src->text[i] != '\r' && k + 1 < n; i++) {
        unsigned char c = (unsigned char)src->text[i];
        buf[k++] = c == '\t' ? ' ' : c < 0x20 ? '?' : (char)c;
    }
    while (k > 0 && buf[k - 1] == ' ') k--;
    buf[k] = 0;
}

int source_column(const Source *src, Loc loc) {
    size_t off = loc.off > src->len ? src->len : loc.off;
    size_t start = off;
    while (start > 0 && src->text[start - 1] != '\n') start--;
    int col = 1;
    for (size_t i = start; i < off; i = source_next_cell(src, i, src->len)) col++;
    return col;
}
