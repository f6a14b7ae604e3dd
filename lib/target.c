/* target.c - which GPU the code is compiled for (the arch, and the Target
 * figures the passes size the schedule by), and which kernel of the
 * program. */
#include <string.h>

#include "lib.h"

bool lib_check_arch(const char *arch, char err[300]) {
    bool specific;
    int n = target_arch_number(arch, &specific);
    if (!n) {
        snprintf(err, 300, "'%s' is not sm_XX or sm_XXa", arch);
        return false;
    }
    if (n < 80) {
        snprintf(err, 300, "%s is older than sm_80, which tilec does not target", arch);
        return false;
    }
    char known[256];
    if (!rt_nvrtc_targets(n, known)) {
        snprintf(err, 300, "this NVRTC cannot compile for %s (it can for %s)", arch, known);
        return false;
    }
    /* the arch-specific "a" targets exist from sm_90 on (sm_90a: wgmma, setmaxnreg) */
    if (specific && n < 90) {
        snprintf(err, 300, "%s does not exist: arch-specific targets (sm_XXa) start at sm_90a", arch);
        return false;
    }
    return true;
}

/* The device's own figures where it is of the target's architecture: the
 * schedule is sized for the GPU that runs the kernel. */
void lib_choose_target(const char *arch, const RtDevice *dev, Target *t, const char **arch_out) {
    static _Thread_local char own_arch[16];
    if (dev && !arch) {
        rt_device_arch(dev, own_arch);
        arch = own_arch;
    }
    if (!arch) arch = "sm_90a";
    target_preset(arch, t);
    if (dev && dev->cc_major * 10 + dev->cc_minor == t->arch) {
        t->sms = dev->sms;
        t->smem_per_sm = dev->smem_per_sm;
        t->smem_per_block = dev->smem_per_block_optin;
        t->regs_per_sm = dev->regs_per_sm;
        t->threads_per_sm = dev->max_threads_per_sm;
    }
    *arch_out = arch;
}

bool lib_kernel_found(FILE *err, const Node *prog, const char *name, const char *file) {
    for (int i = 0; i < prog->u.list.len; i++) {
        const Node *it = prog->u.list.items[i];
        if (it->kind == N_KERNEL && !strcmp(it->u.kernel.name->s, name)) return true;
    }
    fprintf(err, "tilec: no kernel named '%s' in %s; it has:", name, file);
    for (int i = 0; i < prog->u.list.len; i++) {
        const Node *it = prog->u.list.items[i];
        if (it->kind == N_KERNEL) fprintf(err, " %s", it->u.kernel.name->s);
    }
    fputc('\n', err);
    return false;
}
