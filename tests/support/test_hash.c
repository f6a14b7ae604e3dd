/* test_hash.c - SHA-256 against the published vectors (FIPS 180-2
 * appendix B and NIST's examples: "", "abc", the 448- and 896-bit messages,
 * a million 'a's), lengths around the padding boundary, any split of the
 * input across updates, and the cache keys' length-prefixed parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static int failures, checks;

static void check(bool ok, const char *what) {
    checks++;
    if (!ok) failures++;
    printf("  %s %s\n", ok ? "ok  " : "FAIL", what);
}

static bool digest_is(const void *data, size_t n, const char *want) {
    unsigned char d[HASH_DIGEST_BYTES];
    char hex[HASH_KEY_SIZE];
    hash_digest(data, n, d);
    hash_hex(d, hex);
    if (strcmp(hex, want) != 0) printf("  got  %s\n  want %s\n", hex, want);
    return strcmp(hex, want) == 0;
}

static void published_vectors(void) {
    check(digest_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "\"\"");
    check(digest_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "\"abc\"");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check(digest_is(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
          "the 448-bit message");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                       "mnopqrstnopqrstu";
    check(digest_is(m896, strlen(m896), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
          "the 896-bit message");
    /* a million 'a's, fed in uneven pieces */
    char piece[997];
    memset(piece, 'a', sizeof piece);
    HashState s;
    hash_init(&s);
    size_t left = 1000000;
    for (size_t k = 1; left > 0; k = (k * 7 + 3) % sizeof piece + 1) { /* 1..997 bytes */
        size_t take = k < left ? k : left;
        hash_update(&s, piece, take);
        left -= take;
    }
    unsigned char d[HASH_DIGEST_BYTES];
    char hex[HASH_KEY_SIZE];
    hash_final(&s, d);
    hash_hex(d, hex);
    check(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"), "a million 'a's");
}

/* 'a' repeated n times, at lengths where the padding spills into a second
 * block or just fits (digests from coreutils' sha256sum). */
static void padding_boundaries(void) {
    static const struct {
        size_t n;
        const char *want;
    } cases[] = {
        {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
        {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
        {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
        {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
    };
    char a[128];
    memset(a, 'a', sizeof a);
    bool ok = true;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) ok &= digest_is(a, cases[i].n, cases[i].want);
    check(ok, "lengths 55, 56, 63, 64, 65, 119, 120");
}

static void any_split(void) {
    unsigned char msg[200], whole[HASH_DIGEST_BYTES], parts[HASH_DIGEST_BYTES];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (unsigned char)(i * 31 + 7);
    hash_digest(msg, sizeof msg, whole);
    bool ok = true;
    for (size_t a = 0; a <= sizeof msg; a += 3)
        for (size_t b = a; b <= sizeof msg; b += 11) {
            HashState s;
            hash_init(&s);
            hash_update(&s, msg, a);
            hash_update(&s, msg + a, b - a);
            hash_update(&s, msg + b, sizeof msg - b);
            hash_final(&s, parts);
            ok &= !memcmp(whole, parts, sizeof whole);
        }
    check(ok, "one digest however the input is split across updates");
}

static void keys(void) {
    char k1[HASH_KEY_SIZE], k2[HASH_KEY_SIZE];
    const char *ab_c[] = {"ab", "c"}, *a_bc[] = {"a", "bc"}, *a[] = {"a"}, *a_empty[] = {"a", ""};
    hash_key(k1, ab_c, 2);
    hash_key(k2, a_bc, 2);
    check(strlen(k1) == 64 && strspn(k1, "0123456789abcdef") == 64, "a key is 64 lowercase hex digits");
    check(strcmp(k1, k2) != 0, "(\"ab\", \"c\") and (\"a\", \"bc\") differ");
    hash_key(k1, a, 1);
    hash_key(k2, a_empty, 2);
    check(strcmp(k1, k2) != 0, "(\"a\") and (\"a\", \"\") differ");
    /* SHA-256 over each part's 8-byte big-endian length and bytes (Python's hashlib) */
    const char *parts[] = {"source", "sm_90a", "13.0", "0.1.0", "cubin"};
    hash_key(k1, parts, 5);
    check(!strcmp(k1, "055fd1f44312f4ddc36fbb2215b967d5dd12c3a35aa43641628c24e8a84fe6e6"), "a key's known answer");
    hash_key(k1, NULL, 0);
    check(!strcmp(k1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "no parts: the empty digest");
}

int main(void) {
    published_vectors();
    padding_boundaries();
    any_split();
    keys();
    printf("test_hash: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
