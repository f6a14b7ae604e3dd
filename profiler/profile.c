/* profile.c - `tilec --profile`: verify first (a wrong kernel is never
 * timed as if it were right), check that runs are bitwise consistent,
 * time, derive the rates against the device's roofs, and report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

int prof_write_outputs(const Profile *p, const ProfileOptions *o) {
    const struct { const char *path; bool (*write)(const char *, const Profile *, char *); } outs[] = {
        {o->json, prof_write_json}, {o->report, prof_write_markdown}, {o->trace, prof_write_trace},
        {o->roofline, prof_write_roofline_svg}};
    int rc = 0;
    char err[256];
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        if (outs[i].path && !outs[i].write(outs[i].path, p, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            rc = 2;
        }
    return rc;
}

void prof_say_consistency(FILE *out, const Profile *p, int atomic_line) {
    if (p->consistency_tolerant)
        fprintf(out, "consistency: %s over %d runs on the same inputs: the runs differ bitwise, as the float atomic_add "
                "at line %d makes them (the order of its additions changes the rounding); compared within the "
                "verification tolerance instead, largest difference %.3g\n", p->consistent ? "PASSED" : "FAILED",
                p->consistency_runs, atomic_line, p->consistency_max_diff);
    else
        fprintf(out, "consistency: %s over %d runs on the same inputs\n",
                p->consistent ? "PASSED (bitwise identical)" : "FAILED (outputs differ)", p->consistency_runs);
    if (!p->consistent)
        fprintf(out, p->consistency_tolerant ? "not timed: runs on the same inputs differ by more than the verification "
                                               "tolerance\n"
                                             : "not timed: the %s gives different results on the same inputs (a race?)\n",
                p->nstages || (p->info && p->info->pipeline) ? "pipeline" : "kernel");
}

/* What a sweep keeps of one point. */
static void summarise(const Profile *p, ProfileSummary *s) {
    const Derived *d = &p->derived;
    *s = (ProfileSummary){.timed = p->bench.samples > 0, .median_ms = p->bench.median_ms, .flops = d->flops,
                          .bytes = d->bytes, .tflops = d->tflops, .gbps = d->gbps, .bound = d->bound,
                          .peak_tflops = p->device.peak_tflops, .peak_gbps = p->device.peak_gbps,
                          .compare_ms = p->compare.present ? p->compare.median_ms : NAN,
                          .cache_hit = p->cache_hit, .compile_s = p->compile_s, .verified = p->verified};
}

int prof_finish(Profile *p, const ProfileOptions *o) {
    p->lines = o->lines;
    p->source = o->source;
    Baseline base;
    int baseline_rc = prof_apply_baseline(p, o, &base);
    prof_report_terminal(o->out ? o->out : stdout, p);
    int rc = prof_write_outputs(p, o);
    if (o->json_stream) prof_json_print(o->json_stream, p);
    if (o->summary) summarise(p, o->summary);
    prof_baseline_free(&base);
    return rc ? rc : baseline_rc;
}

int prof_profile(KernelInfo *k, const ProfileTarget *t, const RtDevice *dev, const ProfileOptions *o) {
    FILE *out = o->out ? o->out : stdout;
    Profile p;
    memset(&p, 0, sizeof p);
    p.file = t->file;
    p.kernel = k->name->s;
    p.kernel_symbol = t->symbol;
    p.arch = t->arch;
    p.info = k;
    p.tiles_for_sizes = o->tiles_for_sizes;
    p.cache_hit = t->cache_hit;
    p.compile_s = t->compile_s;
    Session s;
    int rc = prof_session_open(&s, k, t->symbol, t->cubin, t->cubin_size, &t->launch, &o->run);
    if (rc) return rc;
    char err[256];

    rc = prof_session_verify(&s, &o->run, &p.verify, &p.verified);
    if (rc == 4) goto done;
    if (p.verified) prof_verify_print(out, &p.verify);
    else fprintf(out, "verify: NOT VERIFIED: kernel '%s' has no reference block; its output is timed unchecked\n", p.kernel);
    if (rc == 3) {
        fprintf(out, "not timed: the output does not match the reference\n");
        goto done;
    }

    /* Races show up as runs that disagree on the same inputs. */
    p.consistent = true;
    if (o->consistency >= 2) {
        p.consistency_runs = o->consistency;
        uint64_t outs[64];
        size_t bytes[64];
        bool poison[64]; /* pure outputs: they start as 0xFF bytes, as for the verified run */
        int n = 0;
        for (int i = 0; i < s.n && n < 64; i++)
            if (s.in[i].sym->mode != MODE_IN) {
                outs[n] = s.dev[i];
                poison[n] = s.in[i].sym->mode == MODE_OUT;
                bytes[n++] = s.in[i].storage_bytes;
            }
        if (!prof_consistency(&s.fn, s.grid, s.block, s.smem, s.params, outs, bytes, poison, n, o->consistency,
                              &p.consistent, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            rc = 4;
            goto done;
        }
        if (!p.consistent && k->float_atomic) {
            /* Not a race: additions landing in another order round differently. */
            p.consistency_tolerant = true;
            rc = prof_session_consistency_within(&s, &o->run, o->consistency, &p.consistent, &p.consistency_max_diff);
            if (rc) goto done;
        }
        prof_say_consistency(out, &p, k->float_atomic ? k->float_atomic->loc.line : 0);
        if (!p.consistent) {
            rc = 3;
            goto done;
        }
    }

    if (!prof_bench(&s.fn, s.grid, s.block, s.smem, s.params, dev->l2_bytes, &o->bench, &p.bench, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        rc = 4;
        goto done;
    }

    /* Resources: the loaded function's attributes, ptxas's spill count. */
    Resources *r = &p.res;
    r->registers = -1;
    if (!rt_kernel_attrs(&s.fn, &r->registers, &r->local_bytes, &r->static_smem, err)) r->registers = -1;
    r->spill_bytes = t->spill_bytes;
    r->dynamic_smem = t->launch.smem;
    r->block_threads = (int)t->launch.block;
    /* a persistent kernel launches fewer blocks than it has tiles; waves
     * count tiles either way */
    r->grid_blocks = s.grid[0] * s.grid[1] * s.grid[2];
    int64_t tiles = t->launch.grid[0] * t->launch.grid[1] * t->launch.grid[2];
    if (rt_occupancy(&s.fn, t->launch.block, t->launch.smem, &r->blocks_per_sm, err) && dev->max_threads_per_sm > 0) {
        r->occupancy = (double)r->blocks_per_sm * (double)t->launch.block / dev->max_threads_per_sm;
        if (r->blocks_per_sm > 0) r->waves = (double)tiles / ((double)r->blocks_per_sm * dev->sms);
    }

    DeviceInfo *d = &p.device;
    prof_device_info(d, dev, prof_input_dtype(k));

    prof_derive_work(k, &p.derived);
    prof_derive_rates(&p.derived, d, p.bench.median_ms);
    p.compare.name = o->compare;
    if (o->compare && !prof_compare_cublas(k, &s, dev->l2_bytes, &o->bench, p.bench.median_ms, &p.compare, err))
        fprintf(stderr, "tilec: --compare cublas: %s\n", err);
    prof_diagnose(&p);
    rc = prof_finish(&p, o);
    prof_bench_free(&p.bench);
done:
    prof_session_close(&s);
    return rc;
}
