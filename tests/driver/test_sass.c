/* test_sass.c - the SASS instruction counter (`--emit-sass`, `--profile -v`)
 * on lines as cuobjdump/nvdisasm print them: an address comment, an
 * optional predicate, the opcode with its modifiers. The excerpt is from
 * the sm_90a GEMM's machine code. */
#include "driver.h"
#include "test_util.h"

static const char sass[] =
    "        /*0bf0*/                   HGMMA.64x256x16.F32 R24, gdesc[UR16].tnspB, R24 ;\n"
    "        /*0f00*/                   HGMMA.64x256x16.F32 R24, gdesc[UR16].tnspB, R24, gsb0 ;\n"
    "        /*0f10*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;\n"
    "        /*0f20*/              @!P0 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR13+0x24018], RZ ;\n"
    "        /*26f0*/               @P0 UTMALDG.2D [UR8], [UR14] ;\n"
    "        /*1df0*/                   UTMASTG.2D [UR8], [UR30] ;\n"
    "        /*1e50*/                   UTMASTG.2D [UR12], [UR30] ;\n"
    "        /*1e80*/                   UTMACMDFLUSH ;\n"
    "        /*1910*/                   STS [R3+UR27+0x24400], R24 ;\n"
    "        /*2000*/                   LDGSTS.E.BYPASS.LTC128B.128 [R5], desc[UR4][R2.64] ;\n"
    "        /*2010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;\n"
    "        /*2020*/                   LDSM.16.M88.4 R8, [R2] ;\n"
    "        /*2030*/                   STL [R1], R4 ;\n"
    "        /*2040*/                   LDL R4, [R1] ;\n"
    "        /*2050*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;\n"
    "  // HGMMA in a comment is not an instruction\n"
    "        .section .text\n";

int main(void) {
    SassCounts c;
    sass_count_text(sass, &c);
    CHECK(c.hgmma == 2 && c.qgmma == 1, "HGMMA %d QGMMA %d", c.hgmma, c.qgmma);
    CHECK(c.utmaldg == 1, "UTMALDG %d (behind a predicate)", c.utmaldg);
    CHECK(c.utmastg == 2, "UTMASTG %d (UTMACMDFLUSH is not one)", c.utmastg);
    CHECK(c.ldgsts == 1 && c.hmma == 1 && c.ldsm == 1, "LDGSTS %d HMMA %d LDSM %d", c.ldgsts, c.hmma, c.ldsm);
    CHECK(c.stl == 1 && c.ldl == 1, "STL %d LDL %d (STS is not STL)", c.stl, c.ldl);
    sass_count_text("", &c);
    CHECK(c.hgmma == 0 && c.utmastg == 0, "empty text");
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
