/* launch_args.c - tilec_launch's arguments: checked against what the
 * kernel was compiled for before anything touches the GPU, and scalars
 * converted from double to their declared dtype. */
#include <math.h>
#include <string.h>

#include "lib.h"

/* The parameter names of one kind, "A, B, C", for a count mismatch. */
static void print_names(FILE *err, const tilec_kernel *k, bool tensor) {
    const char *sep = "";
    for (int i = 0; i < k->nparams; i++)
        if (k->params[i].tensor == tensor) {
            fprintf(err, "%s%s", sep, k->params[i].name);
            sep = ", ";
        }
}

static bool counts_match(const tilec_kernel *k, const tilec_tensor *t, int nt, const double *s, int ns, FILE *err) {
    if (nt != k->ntensors || (nt > 0 && !t)) {
        fprintf(err, "tilec: kernel '%s' takes %d tensor%s (", k->name, k->ntensors, k->ntensors == 1 ? "" : "s");
        print_names(err, k, true);
        fprintf(err, "), given %d%s\n", nt, nt > 0 && !t ? " and a NULL array" : "");
        return false;
    }
    if (ns != k->nscalars || (ns > 0 && !s)) {
        fprintf(err, "tilec: kernel '%s' takes %d scalar%s", k->name, k->nscalars, k->nscalars == 1 ? "" : "s");
        if (k->nscalars) {
            fputs(" (", err);
            print_names(err, k, false);
            fputc(')', err);
        }
        fprintf(err, ", given %d%s\n", ns, ns > 0 && !s ? " and a NULL array" : "");
        return false;
    }
    return true;
}

/* Binds dynamic size j to extent v of dimension d of tensor p (pos from
 * 1) where it is the first to name it; else checks it agrees. */
static bool dynamic_matches(const tilec_kernel *k, const LibParam *p, int pos, int d, int64_t v, int64_t *dims,
                            bool *bound, FILE *err) {
    int j = p->dyn[d];
    const char *size = k->dynamic_name[j];
    if (bound[j]) {
        if (v == dims[j]) return true;
        fprintf(err, "tilec: tensor '%s' (parameter %d): dimension %d (%s) is %lld, but an earlier tensor gave %s = %lld\n",
                p->name, pos, d, size, (long long)v, size, (long long)dims[j]);
        return false;
    }
    if (v < 1 || v > INT32_MAX) {
        fprintf(err, "tilec: tensor '%s' (parameter %d): dimension %d (%s) is %lld; a dynamic size is 1 to 2^31 - 1\n",
                p->name, pos, d, size, (long long)v);
        return false;
    }
    if (v % k->dynamic_divisor[j]) {
        fprintf(err, "tilec: tensor '%s' (parameter %d): dimension %d (%s) is %lld, which is not a multiple of %lld "
                     "(the kernel's promise %s %% %lld)\n", p->name, pos, d, size, (long long)v,
                (long long)k->dynamic_divisor[j], size, (long long)k->dynamic_divisor[j]);
        return false;
    }
    bound[j] = true;
    dims[j] = v;
    return true;
}

/* One tensor against its parameter (position pos, from 1); dynamic sizes
 * are read from its shape. */
static bool tensor_matches(const tilec_kernel *k, const LibParam *p, int pos, const tilec_tensor *t, int64_t *dims,
                           bool *bound, FILE *err) {
    if (t->ndim != p->rank) {
        fprintf(err, "tilec: tensor '%s' (parameter %d) has %d dimension%s, the kernel takes %d\n", p->name, pos,
                t->ndim, t->ndim == 1 ? "" : "s", p->rank);
        return false;
    }
    if (p->rank > 0 && !t->shape) {
        fprintf(err, "tilec: tensor '%s' (parameter %d): the shape is NULL\n", p->name, pos);
        return false;
    }
    bool ok = true;
    for (int d = 0; d < p->rank; d++) {
        if (p->dyn[d] >= 0) {
            ok &= dynamic_matches(k, p, pos, d, t->shape[d], dims, bound, err);
            continue;
        }
        if (t->shape[d] == p->shape[d]) continue;
        fprintf(err, "tilec: tensor '%s' (parameter %d): dimension %d", p->name, pos, d);
        if (p->dim_name[d]) fprintf(err, " (%s)", p->dim_name[d]);
        fprintf(err, " is %lld, the kernel was compiled for %lld\n", (long long)t->shape[d], (long long)p->shape[d]);
        ok = false;
    }
    if (!t->data) {
        fprintf(err, "tilec: tensor '%s' (parameter %d): the data pointer is NULL\n", p->name, pos);
        ok = false;
    }
    return ok;
}

/* Whether v is a value of integer dtype t. */
static bool int_fits(Dtype t, double v) {
    if (!isfinite(v) || v != floor(v)) return false;
    switch (t) {
    case DT_BOOL: return v == 0 || v == 1;
    case DT_I8: return v >= -128 && v <= 127;
    case DT_U8: return v >= 0 && v <= 255;
    case DT_I16: return v >= -32768 && v <= 32767;
    case DT_U16: return v >= 0 && v <= 65535;
    case DT_I32: return v >= -2147483648.0 && v <= 2147483647.0;
    case DT_U32: return v >= 0 && v <= 4294967295.0;
    case DT_I64: return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    default: return v >= 0 && v < 18446744073709551616.0; /* u64 */
    }
}

static bool scalar_matches(const LibParam *p, int pos, double v, FILE *err) {
    bool is_int = p->dtype == DT_BOOL || dtype_is_int(p->dtype);
    if (is_int && !int_fits(p->dtype, v)) {
        fprintf(err, "tilec: scalar '%s' (parameter %d): %.17g is not a value of %s\n", p->name, pos, v,
                dtype_name(p->dtype));
        return false;
    }
    return true;
}

/* The grid for the sizes' values, within CUDA's limits: checked here,
 * before the launch, so that a size too large is a bad argument (2). */
static bool grid_fits(const tilec_kernel *k, const int64_t *dims, long long grid[3], FILE *err) {
    if (!rt_launch_grid(k->grid, k->grid_expr, dims, k->persistent, &k->units, grid)) {
        long long tiles[3]; /* the extents alone defined: a persistent grid of more units than its loop numbers */
        if (k->persistent && rt_launch_units(k->grid, k->grid_expr, dims, false, NULL, tiles))
            fprintf(err, "tilec: kernel '%s': a grid of %lld x %lld x %lld tiles at these sizes, more than its persistent "
                         "blocks number (2^30 - 1)\n", k->name, tiles[0], tiles[1], tiles[2]);
        else
            fprintf(err, "tilec: kernel '%s': its grid is undefined at these sizes (a division by zero or an overflow)\n",
                    k->name);
        return false;
    }
    if (rt_grid_in_limits(grid)) return true;
    fprintf(err, "tilec: kernel '%s': a grid of %lld x %lld x %lld blocks at these sizes; CUDA allows x 1 to 2147483647, "
                 "y and z 1 to 65535\n", k->name, grid[0], grid[1], grid[2]);
    return false;
}

int lib_check_args(const tilec_kernel *k, const tilec_tensor *t, int nt, const double *s, int ns, int64_t *dims,
                   long long grid[3], FILE *err) {
    if (!counts_match(k, t, nt, s, ns, err)) return LIB_USAGE;
    bool ok = true, bound[RT_MAX_DYNAMIC] = {false};
    for (int i = 0, ti = 0, si = 0; i < k->nparams; i++) {
        const LibParam *p = &k->params[i];
        if (p->tensor) ok &= tensor_matches(k, p, i + 1, &t[ti++], dims, bound, err);
        else ok &= scalar_matches(p, i + 1, s[si++], err);
    }
    return ok && grid_fits(k, dims, grid, err) ? LIB_OK : LIB_USAGE;
}

