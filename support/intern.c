/* intern.c - interned identifiers. Every identifier is stored once, so names
 * compare by pointer, and each carries the symbol it is bound to right now
 * (scopes rebind and restore it), which makes name lookup O(1). */
#include "support.h"

#include <string.h>

static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

Name *intern(Ctx *c, const char *s, size_t len) {
    NameTable *t = &c->names;
    if (t->count * 2 >= t->cap) {
        int cap = t->cap ? t->cap * 2 : 256;
        Name **slots = arena_alloc(&c->arena, sizeof(Name *) * (size_t)cap);
        for (int i = 0; i < t->cap; i++) {
            Name *n = t->slots[i];
            if (!n) continue;
            size_t j = n->hash & (size_t)(cap - 1);
            while (slots[j]) j = (j + 1) & (size_t)(cap - 1);
            slots[j] = n;
        }
        t->slots = slots;
        t->cap = cap;
    }
    uint64_t h = hash_bytes(s, len);
    size_t j = h & (size_t)(t->cap - 1);
    for (Name *n; (n = t->slots[j]); j = (j + 1) & (size_t)(t->cap - 1))
        if (n->hash == h && n->len == len && memcmp(n->s, s, len) == 0) return n;
    Name *n = arena_alloc(&c->arena, sizeof *n);
    n->s = arena_strndup(&c->arena, s, len);
    n->len = len;
    n->hash = h;
    t->slots[j] = n;
    t->count++;
    return n;
}

Name *intern_cstr(Ctx *c, const char *s) { return intern(c, s, strlen(s)); }
