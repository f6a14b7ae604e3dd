/* target.c - what the generated code may assume of the GPU (Target) and
 * the schedule choices the command line makes (PlanOptions): the only
 * inputs of the passes besides the program, both written into every
 * cache key through their descriptions. */
#include <stdio.h>
#include <string.h>

#include "ir.h"

bool target_preset(const char *arch, Target *t) {
    memset(t, 0, sizeof *t);
    t->arch = target_arch_number(arch, &t->arch_specific);
    if (!t->arch) return false;
    snprintf(t->name, sizeof t->name, "%s", arch);
    /* Every target from sm_80 on has 64 K 32-bit registers and 2048 threads
     * an SM (CUDA programming guide, compute capabilities). The presets are
     * the data-centre parts tilec is tuned on: sm_90 an H100 SXM / H200
     * (132 SMs, 228 KiB of shared memory an SM of which a block may opt in
     * to 227), sm_80 and sm_87 an A100 (108 SMs, 164 KiB, 163); the
     * others, the smallest part of their generation that has the
     * architecture's 99 KiB a block. */
    t->regs_per_sm = 65536;
    t->threads_per_sm = 2048;
    if (t->arch >= 90) {
        t->sms = 132;
        t->smem_per_sm = 228 * 1024;
        t->smem_per_block = 227 * 1024;
    } else if (t->arch == 80 || t->arch == 87) {
        t->sms = 108;
        t->smem_per_sm = 164 * 1024;
        t->smem_per_block = 163 * 1024;
    } else {
        t->sms = 16;
        t->smem_per_sm = 100 * 1024;
        t->smem_per_block = 99 * 1024;
    }
    return true;
}

void target_describe(const Target *t, char *out, size_t n) {
    snprintf(out, n, "%s sms=%d smem_sm=%lld smem_block=%lld regs_sm=%lld threads_sm=%d", t->name, t->sms,
             (long long)t->smem_per_sm, (long long)t->smem_per_block, (long long)t->regs_per_sm, t->threads_per_sm);
}

PlanOptions plan_defaults(void) {
    return (PlanOptions){.clusters = CHOICE_AUTO, .persistent = CHOICE_AUTO, .split_max = PLAN_SPLIT_MAX,
                         .halves = CHOICE_AUTO, .longest_first = CHOICE_AUTO, .idle = IDLE_AUTO};
}

static const char *choice_name(Choice c) { return c == CHOICE_ON ? "on" : c == CHOICE_OFF ? "off" : "auto"; }

const char *plan_variant_name(LaunchVariant v) {
    static const char *const names[VARIANT_COUNT] = {"base", "halves", "split"};
    return v >= 0 && v < VARIANT_COUNT ? names[v] : "?";
}

void plan_describe(const PlanOptions *p, char *out, size_t n) {
    static const char *idle[] = {"auto", "skip", "off"};
    snprintf(out, n, "clusters=%s persistent=%s split=%d halves=%s longest-first=%s idle-warpgroups=%s variant=%s",
             choice_name(p->clusters), choice_name(p->persistent), p->split_max, choice_name(p->halves),
             choice_name(p->longest_first), idle[p->idle], plan_variant_name(p->variant));
}
