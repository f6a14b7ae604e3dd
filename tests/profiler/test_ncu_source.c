/* test_ncu_source.c - the parser of --ncu --lines on a source page laid
 * out as Nsight Compute prints it with --page source --print-source
 * cuda,sass --csv: a block per file (File Path, Function Name, a "Line No"
 * header, line rows with their totals and SASS rows under them), ncu's
 * "==PROF==" lines around it. The hottest lines of the .tile file, their
 * shares of all samples and their two largest stall reasons. */
#include "profiler.h"
#include "test_util.h"

static const char page[] =
    "==PROF== Connected to process 1234 (/work/build/tilec)\n"
    "verify: PASSED 16777216 of 16777216 elements checked\n"
    "\"File Path\",\"/work/examples/gemm.tile\"\n"
    "\"Function Name\",\"tilec_gemm_34cd0df8\"\n"
    "\"Line No\",\"Source\",\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\","
    "\"Warp Stall Sampling (Not-issued Samples)\",\"stall_long_sb\",\"stall_long_sb (Not Issued)\",\"stall_wait\","
    "\"stall_barrier\"\n"
    "\"20\",\"    clear(acc);\",\"-\",\"\",\"10\",\"5\",\"0\",\"0\",\"10\",\"0\"\n"
    "\"\",\"\",\"0x7f00\",\"MOV R1, c[0x0][0x28]\",\"10\",\"5\",\"0\",\"0\",\"10\",\"0\"\n"
    "\"22\",\"        copy(A[by * BM, k * BK], A_s);\",\"-\",\"\",\"1,200\",\"900\",\"900\",\"800\",\"100\",\"200\"\n"
    "\"24\",\"        gemm(A_s, B_s, acc);\",\"-\",\"\",\"2,400\",\"1,000\",\"100\",\"50\",\"300\",\"2,000\"\n"
    "\"26\",\"    copy(acc, C[by * BM, bx * BN]);\",\"-\",\"\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\"\n"
    "\"File Path\",\"tilec-generated\"\n"
    "\"Function Name\",\"tilec_gemm_34cd0df8\"\n"
    "\"Line No\",\"Source\",\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\",\"stall_long_sb\"\n"
    "\"1\",\"\",\"-\",\"\",\"390\",\"390\"\n"
    "==PROF== Disconnected from process 1234\n";

int main(void) {
    SourceLines l;
    CHECK(prof_parse_ncu_source(page, "examples/gemm.tile", &l), "the page parses: %s", l.note);
    CHECK(l.present && l.n == 3, "three lines with samples: %d", l.n);
    CHECK_NEAR(l.total, 4000, 0);
    if (l.n == 3) {
        CHECK(l.top[0].line == 24 && near(l.top[0].share, 0.6, 1e-12), "gemm first: line %d %g", l.top[0].line,
              l.top[0].share);
        CHECK(!strcmp(l.top[0].reason[0], "stall_barrier") && near(l.top[0].reason_share[0], 2000.0 / 2400, 1e-12) &&
                  !strcmp(l.top[0].reason[1], "stall_wait"),
              "its reasons: %s %s", l.top[0].reason[0], l.top[0].reason[1]);
        CHECK(l.top[1].line == 22 && !strcmp(l.top[1].reason[0], "stall_long_sb"), "the copy second: line %d %s",
              l.top[1].line, l.top[1].reason[0]);
        CHECK(l.top[2].line == 20 && l.top[2].samples == 10 && !l.top[2].reason[1][0], "clear third, one reason");
    }
    /* another file's lines only count in the total; no page at all says so */
    CHECK(!prof_parse_ncu_source(page, "softmax.tile", &l) && l.present && strstr(l.note, "softmax.tile"),
          "no line of another file: %s", l.note);
    CHECK(!prof_parse_ncu_source("==PROF== Error: ERR_NVGPUCTRPERM\n", "gemm.tile", &l) && !l.present && l.note[0],
          "no page: %s", l.note);
    CHECK(!prof_parse_ncu_source("", "gemm.tile", &l), "empty output");
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
