/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A MINIBLAS_<OP> rung setting the GPU cannot honour, said once at initialisation. The native
 * API reads MINIBLAS_SGEMM=... etc. into each handle and fails the op's calls with the reason
 * in miniblas_last_error; the drop-in then runs host-pointer calls on the CPU BLAS (quietly
 * unless MINIBLAS_CBLAS_VERBOSE) but must refuse calls on device pointers, so without this
 * line the reason would show only in verbose mode. Uses the public rung tables only.
 */
#define _GNU_SOURCE /* strcasecmp */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "miniblas.h"
#include "cblas_internal.h"

int mbc_check_rung_env(int cc_major, int cc_minor, FILE *out) {
    const char *mm = mbc_getenv("MINIBLAS_MATH_MODE");
    int reduced_ok = mm && (!strcasecmp(mm, "tf32") || !strcasecmp(mm, "reduced") ||
                            !strcasecmp(mm, "fast"));
    int lines = 0;
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        const char *name = miniblas_op_name((miniblas_op_t)op);
        if (!name) continue;
        char var[64] = "MINIBLAS_";
        size_t at = strlen(var);
        for (const char *c = name; *c && at + 1 < sizeof var; ++c)
            var[at++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        var[at] = '\0';
        const char *v = mbc_getenv(var);
        if (!v || !v[0] || !strcasecmp(v, "auto")) continue;
        int n = miniblas_rung_count((miniblas_op_t)op), idx = -1;
        for (int i = 0; i < n; ++i) {
            const char *r = miniblas_rung_name((miniblas_op_t)op, i);
            if (r && !strcasecmp(r, v)) idx = i;
        }
        const char *why = NULL;
        char buf[600];
        if (idx < 0) {
            size_t used = (size_t)snprintf(buf, sizeof buf, "names no %s rung (valid: auto", name);
            for (int i = 0; i < n && used < sizeof buf; ++i)
                used += (size_t)snprintf(buf + used, sizeof buf - used, ", %s",
                                         miniblas_rung_name((miniblas_op_t)op, i));
            if (used < sizeof buf) snprintf(buf + used, sizeof buf - used, ")");
            why = buf;
        } else {
            unsigned fl = miniblas_rung_flags((miniblas_op_t)op, idx);
            if ((fl & MINIBLAS_RUNG_REDUCED_PRECISION) && !reduced_ok)
                why = "trades precision for speed and MINIBLAS_MATH_MODE does not allow it "
                      "(MINIBLAS_MATH_MODE=tf32)";
            else if ((fl & MINIBLAS_RUNG_NEEDS_SM90A) && !(cc_major == 9 && cc_minor == 0)) {
                snprintf(buf, sizeof buf, "needs a compute capability 9.0 GPU (this one is %d.%d)",
                         cc_major, cc_minor);
                why = buf;
            }
        }
        if (!why) continue;
        fprintf(out,
                "miniblas_cblas: %s=%s %s: %s calls on device pointers will fail (reported "
                "through cblas_xerbla), calls on host memory run on the CPU BLAS\n",
                var, v, why, name);
        ++lines;
    }
    return lines;
}
