/* utf8.c - strict UTF-8 decoding (no overlongs, no surrogates, <= U+10FFFF). */
#include "support.h"

int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    if (n == 0) return 0;
    unsigned char b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    int len;
    uint32_t v, min;
    if ((b & 0xE0) == 0xC0) { len = 2; v = b & 0x1F; min = 0x80; }
    else if ((b & 0xF0) == 0xE0) { len = 3; v = b & 0x0F; min = 0x800; }
    else if ((b & 0xF8) == 0xF0) { len = 4; v = b & 0x07; min = 0x10000; }
    else return 0;
    if ((size_t)len > n) return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}
