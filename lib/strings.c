/* strings.c - the text the library hands back: diagnostics collected in a
 * memory stream, and copies of C strings. */
#include <stdlib.h>
#include <string.h>

#include "lib.h"

FILE *lib_text_open(LibText *t) {
    memset(t, 0, sizeof *t);
    t->f = open_memstream(&t->text, &t->len);
    if (!t->f) die("out of memory opening a diagnostics stream");
    return t->f;
}

void lib_text_close(LibText *t, char **out) {
    fclose(t->f);
    t->f = NULL;
    if (out) *out = t->text;
    else free(t->text);
    t->text = NULL;
}

char *lib_strdup(const char *s) { return s ? xstrdup(s) : NULL; }
