/* sass.c - `--emit-sass`: the cubin's machine code as cuobjdump prints it,
 * and the count of the instructions that say whether the fast path was
 * taken (for `--profile -v`): tensor-core MMAs (HGMMA on Hopper's f16/bf16
 * wgmma, QGMMA on its fp8 one, HMMA on mma.sync), asynchronous copies (UTMALDG for TMA, LDGSTS for
 * cp.async), TMA stores (UTMASTG) and local-memory traffic (STL/LDL:
 * register spills). cuobjdump ships with the CUDA toolkit but is not
 * needed to build or run tilec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

/* Runs cuobjdump -sass on the cubin; returns its output (malloc'd) or NULL
 * after saying why on stderr. */
static char *disassemble(const void *cubin, size_t size) {
    char tool[4096];
    if (!find_cuda_tool("cuobjdump", tool, sizeof tool)) {
        fprintf(stderr, "tilec: --emit-sass needs cuobjdump (CUDA toolkit), which is not on the PATH or in "
                        "/usr/local/cuda/bin\n");
        return NULL;
    }
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4200];
    snprintf(path, sizeof path, "%s/tilec-sass-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "tilec: cannot create a temporary file in %s for cuobjdump\n", dir);
        return NULL;
    }
    bool written = write(fd, cubin, size) == (ssize_t)size;
    close(fd);
    char *text = NULL;
    size_t len = 0;
    if (written) {
        char cmd[8500];
        snprintf(cmd, sizeof cmd, "'%s' -sass '%s' 2>&1", tool, path);
        FILE *p = popen(cmd, "r");
        if (p) {
            FILE *o = open_memstream(&text, &len);
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, p)) > 0) fwrite(buf, 1, n, o);
            fclose(o);
            if (pclose(p) != 0) {
                fprintf(stderr, "tilec: cuobjdump failed on the cubin: %.200s\n", text ? text : "");
                free(text);
                text = NULL;
            }
        }
    }
    unlink(path);
    return text;
}

int sass_print(const void *cubin, size_t size, FILE *out) {
    char *text = disassemble(cubin, size);
    if (!text) return EXIT_CUDA;
    fputs(text, out);
    SassCounts c;
    sass_count_text(text, &c);
    sass_print_counts(out, "// tilec: ", &c);
    free(text);
    return EXIT_OK;
}

void sass_print_counts(FILE *o, const char *prefix, const SassCounts *c) {
    fprintf(o, "%sHGMMA %d, QGMMA %d, HMMA %d, UTMALDG %d, UTMASTG %d, LDGSTS %d, LDSM %d, STL %d, LDL %d\n", prefix,
            c->hgmma, c->qgmma, c->hmma, c->utmaldg, c->utmastg, c->ldgsts, c->ldsm, c->stl, c->ldl);
}

/* Counts opcodes: the word after the optional predicate (@P0, @!PT) of each
 * instruction line, which cuobjdump prints as an address comment followed by
 * the opcode ("slash-star 0040 star-slash  HGMMA.64x256x16 ..."). */
void sass_count_text(const char *text, SassCounts *c) {
    memset(c, 0, sizeof *c);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        const char *p = strstr(line, "*/");
        if (p && (!end || p < end) && line[strspn(line, " \t")] == '/') {
            p += 2;
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '@') {
                while (*p && *p != ' ' && *p != '\n') p++;
                while (*p == ' ') p++;
            }
            size_t n = strcspn(p, " .;\n");
#define OPC(name, field) \
    if (n == strlen(name) && !strncmp(p, name, n)) c->field++;
            OPC("HGMMA", hgmma) OPC("QGMMA", qgmma) OPC("HMMA", hmma) OPC("UTMALDG", utmaldg) OPC("UTMASTG", utmastg)
            OPC("LDGSTS", ldgsts) OPC("LDSM", ldsm) OPC("STL", stl) OPC("LDL", ldl)
#undef OPC
        }
        line = end ? end + 1 : NULL;
    }
}

bool sass_count(const void *cubin, size_t size, SassCounts *c) {
    memset(c, 0, sizeof *c);
    char *text = disassemble(cubin, size);
    if (!text) return false;
    sass_count_text(text, c);
    free(text);
    return true;
}
