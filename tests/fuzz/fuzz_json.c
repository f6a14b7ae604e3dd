/* fuzz_json.c - a libFuzzer target over what --baseline reads: the JSON
 * reader (support/json_read.c) and the profile fields taken from its tree
 * (prof_baseline_parse), under AddressSanitizer and UBSan. Any input must
 * be read or refused with a sentence, never crash, hang or leak. */
#include <stdint.h>
#include <string.h>

#include "profiler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256];
    Baseline b;
    if (prof_baseline_parse((const char *)data, size, "fuzz.json", &b, err)) {
        /* what the report reads of a loaded baseline */
        TimingSet cur = {1.0, 0.01, NULL, 0};
        (void)prof_compare_times(&b.time, &cur);
        for (int i = 0; i < b.nstages; i++) (void)prof_compare_times(&b.stages[i].time, &cur);
        prof_baseline_free(&b);
    } else if (!err[0]) {
        __builtin_trap(); /* a refusal always says why */
    }
    return 0;
}
