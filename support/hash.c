/* hash.c - SHA-256 (FIPS 180-4) and the cache keys built from it.
 *
 * Written from the standard: eight 32-bit words of state, 64-byte blocks,
 * a 64-entry message schedule, 64 rounds. The round constants are the first
 * 32 bits of the fractional parts of the cube roots of the first 64 primes,
 * the initial state those of the square roots of the first 8 (§4.2.2,
 * §5.3.3). Speed is not the point (keys hash a few hundred kilobytes of
 * generated source at most); a collision-resistant key is. */
#include <string.h>

#include "support.h"

static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t initial_h[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* One 64-byte block into the state (§6.2.2). */
static void compress(uint32_t h[8], const unsigned char block[64]) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t big_s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + big_s1 + ch + round_k[t] + w[t];
        uint32_t big_s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = big_s0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d;
    h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void hash_init(HashState *s) {
    memcpy(s->h, initial_h, sizeof s->h);
    s->bytes = 0;
    s->fill = 0;
}

void hash_update(HashState *s, const void *data, size_t n) {
    const unsigned char *p = data;
    s->bytes += n;
    if (s->fill > 0) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->block + s->fill, p, take);
        s->fill += take, p += take, n -= take;
        if (s->fill < 64) return;
        compress(s->h, s->block);
        s->fill = 0;
    }
    for (; n >= 64; p += 64, n -= 64) compress(s->h, p);
    memcpy(s->block, p, n);
    s->fill = n;
}

/* Padding (§5.1.1): a 1 bit, zeros up to 56 bytes into a block, then the
 * message length in bits as a big-endian 64-bit number. */
void hash_final(HashState *s, unsigned char out[HASH_DIGEST_BYTES]) {
    uint64_t bits = s->bytes * 8;
    s->block[s->fill++] = 0x80;
    if (s->fill > 56) {
        memset(s->block + s->fill, 0, 64 - s->fill);
        compress(s->h, s->block);
        s->fill = 0;
    }
    memset(s->block + s->fill, 0, 56 - s->fill);
    for (int i = 0; i < 8; i++) s->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    compress(s->h, s->block);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, s->h[i]);
}

void hash_digest(const void *data, size_t n, unsigned char out[HASH_DIGEST_BYTES]) {
    HashState s;
    hash_init(&s);
    hash_update(&s, data, n);
    hash_final(&s, out);
}

void hash_hex(const unsigned char digest[HASH_DIGEST_BYTES], char out[HASH_KEY_SIZE]) {
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < HASH_DIGEST_BYTES; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[2 * HASH_DIGEST_BYTES] = 0;
}

/* Each part is preceded by its length (8 bytes, big-endian), so the
 * encoding of a list reads back one way only: ("ab", "c") and ("a", "bc")
 * hash different bytes, and so do ("a") and ("a", ""). */
void hash_key(char out[HASH_KEY_SIZE], const char *const *parts, int n) {
    HashState s;
    hash_init(&s);
    for (int i = 0; i < n; i++) {
        uint64_t len = strlen(parts[i]);
        unsigned char prefix[8];
        for (int b = 0; b < 8; b++) prefix[b] = (unsigned char)(len >> (56 - 8 * b));
        hash_update(&s, prefix, sizeof prefix);
        hash_update(&s, parts[i], (size_t)len);
    }
    unsigned char digest[HASH_DIGEST_BYTES];
    hash_final(&s, digest);
    hash_hex(digest, out);
}
