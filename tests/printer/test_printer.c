/* test_printer.c - the printed kernel's tidying (codegen/tidy.c) and the
 * choice of device-header sections (codegen/device_header.c) on their
 * own: which identities go, which text is left alone (comments, literals,
 * preprocessor lines, float literals, comma expressions in calls), and
 * that a kernel gets the sections of the helpers it names and of the
 * helpers those use. */
#include "codegen.h"
#include "test_util.h"

static void tidy_is(const char *in, const char *want) {
    size_t n;
    char *got = cg_tidy(in, strlen(in), &n);
    CHECK(!strcmp(got, want) && n == strlen(want), "tidy(%s)\n  got  %s\n  want %s", in, got, want);
    free(got);
}

static void test_tidy(void) {
    tidy_is("x[(q * 8 + 0)] = y;", "x[q * 8] = y;");
    tidy_is("a = (bx * 1) + (c / 1 % 64);", "a = (bx) + (c % 64);");
    tidy_is("a = f((0 + i), j * 1, k - 0);", "a = f((i), j, k);");
    tidy_is("if ((k < 5000)) {", "if (k < 5000) {");
    tidy_is("a = ((b + c)) * d;", "a = (b + c) * d;");
    tidy_is("y = x * 1 + 2;", "y = x + 2;");
    tidy_is("y = x + 0 < n ? 1 : 0;", "y = x < n ? 1 : 0;");
    /* a coordinate modulo 1 (one warp along a dimension) is 0, its term goes */
    tidy_is("a = s[(warp % 1 * 64 + (r) / 4 % 8 * 8)];", "a = s[((r) / 4 % 8 * 8)];");
    tidy_is("a = s[warp % 1 * 64 + l];", "a = s[l];");
    tidy_is("a = b + warp % 1;", "a = b;");
    tidy_is("a = c * warp % 1;", "a = c * warp % 1;");
    tidy_is("a = (warp % 10 * 64);", "a = (warp % 10 * 64);");
    tidy_is("a = (warp % 1 * n);", "a = (warp % 1 * n);");
    /* a register number built as a multiple of a width, split by it again */
    tidy_is("for (int q = 0;;)\na = (tid + (q * 8) / 8 * 128) * 8 + (q * 8) % 8;", "for (int q = 0;;)\na = (tid + q * 128) * 8;");
    tidy_is("const int q = 1; a = x[(q * 16) / 4 * 2] + (q * 16 + 4) % 4;", "const int q = 1; a = x[q * 4 * 2] + (q * 16 + 4) % 4;");
    /* only where the name is an int: an unsigned's product can wrap */
    tidy_is("const unsigned v = 1; a = x[(v * 8) / 8 + (v * 4) % 4];", "const unsigned v = 1; a = x[v * 8 / 8];");
    tidy_is("int v; unsigned long long v; a = x[(v * 8) / 8];", "int v; unsigned long long v; a = x[v * 8 / 8];");
    tidy_is("unsigned int v; a = x[(v * 8) / 8];", "unsigned int v; a = x[v * 8 / 8];");
    tidy_is("a = x[(v * 8) / 8];", "a = x[v * 8 / 8];");
    /* but not a quotient divided again: NVVM's code for "q % 2" differs
     * from that for "(q * 2) / 2 % 2" (more instructions, same result) */
    tidy_is("a = x[(q * 16) / 4 % 2];", "a = x[q * 16 / 4 % 2];");
    tidy_is("a = b / (q * 8) / 8 + c % (q * 8) % 4;", "a = b / (q * 8) / 8 + c % (q * 8) % 4;");
    tidy_is("a = 1 + (q * 6) / 4 + (q * 8) / 3 + (q * 8) / 8u;", "a = 1 + q * 6 / 4 + q * 8 / 3 + q * 8 / 8u;");
    tidy_is("a = f((q * 8), (p * 2)[0], (long long)(q * 4));", "a = f(q * 8, (p * 2)[0], (long long)(q * 4));");
    /* left alone: other constants, float literals, products whose right
     * side continues, a call's comma expression, comments, strings, #line */
    tidy_is("y = x * 10 + 0.5f * 1.0f + x * 1ULL;", "y = x * 10 + 0.5f * 1.0f + x * 1ULL;");
    tidy_is("y = x + 0.0f;", "y = x + 0.0f;");
    tidy_is("y = a + 0 * b;", "y = a + 0 * b;");
    tidy_is("f((a, b));", "f((a, b));");
    tidy_is("g = h((a, b));", "g = h((a, b));");
    tidy_is("y = x;  // bx * 1 + 0)", "y = x;  // bx * 1 + 0)");
    tidy_is("asm(\"add %0, %1 * 1;\" : \"=r\"(x * 1));", "asm(\"add %0, %1 * 1;\" : \"=r\"(x * 1));");
    tidy_is("#line 12 \"k.tile\"\n    a = (b * 1);", "#line 12 \"k.tile\"\n    a = (b);");
    tidy_is("a = b; /* c * 1) */", "a = b; /* c * 1) */");
    tidy_is("", "");
    tidy_is("\n\n", "\n\n");
}

/* The header chosen for kernel text k has (or lacks) the named section. */
static bool has_section(const char *kernel, const char *title) {
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cg_write_device_header(o, kernel, strlen(kernel));
    fclose(o);
    bool has = strstr(buf, title) != NULL;
    CHECK(strstr(buf, "#endif /* TILEC_DEVICE_CUH */") && strstr(buf, "#define TILEC_DEVICE_CUH"), "guards kept");
    free(buf);
    return has;
}

static void test_sections(void) {
    const char *plain = "y[i] = x[i] * 2.0f;";
    CHECK(!has_section(plain, "2. Asynchronous") && !has_section(plain, "10. Hopper"), "nothing for a kernel naming none");
    const char *cp = "tl_cp_async16(tl_smem_addr(&A_s[0]), p, true); tl_cp_async_commit();";
    CHECK(has_section(cp, "2. Asynchronous") && has_section(cp, "1. Shared-memory addresses"),
          "cp.async brings its section and the shared addresses it names");
    CHECK(!has_section(cp, "4. Warp-level MMA"), "and not the mma section");
    const char *conv = "w.e[l] = tl_from_float<__half>(tl_to_float(v.e[l]));";
    CHECK(has_section(conv, "6. Conversions"), "conversions");
    /* a name in a comment of an earlier section is no definition there */
    CHECK(has_section("tl_wgmma_fence();", "10. Hopper"), "wgmma's section");
}

int main(void) {
    test_tidy();
    test_sections();
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
