/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Former rung names (RUNG_ALIAS lines of kernels/<family>/rungs.def) select the current rung
 * through miniblas_set_rung and the MINIBLAS_<OP> parser, only for the ops of their family,
 * while the tables and error messages list current names only.
 */
#include <string.h>
#include <strings.h>
#include "internal.h"
#include "cpu_check.h"

static const miniblas_op_t reduce_ops[] = {MINIBLAS_OP_SASUM, MINIBLAS_OP_DASUM,
                                           MINIBLAS_OP_SDOT, MINIBLAS_OP_DDOT};

int main(void) {
    for (int k = 0; k < 4; ++k) {
        miniblas_op_t op = reduce_ops[k];
        int inter = mb_rung_index(op, "interleaved"), seq = mb_rung_index(op, "sequential");
        CHECKF(inter == 1, "op %d: interleaved is rung index %d", (int)op, inter);
        CHECKF(seq == 2, "op %d: sequential is rung index %d", (int)op, seq);
        CHECK(mb_rung_index(op, "tiled") == inter);
        CHECK(mb_rung_index(op, "PADDED") == seq);
        CHECK(mb_rung_parse_env(op, "tiled") == inter);
        CHECK(mb_rung_parse_env(op, "padded") == seq);
        CHECK(mb_rung_index(op, "no-such-rung") == -1);
        CHECK(mb_rung_parse_env(op, "no-such-rung") == MB_SEL_UNKNOWN);
        int n = miniblas_rung_count(op);
        for (int i = 0; i < n; ++i) { /* the tables carry current names only */
            CHECK(strcasecmp(miniblas_rung_name(op, i), "tiled") != 0);
            CHECK(strcasecmp(miniblas_rung_name(op, i), "padded") != 0);
        }
        char names[512];
        mb_rung_name_list(op, names, sizeof names);
        CHECKF(strstr(names, "interleaved") && strstr(names, "sequential") &&
                   !strstr(names, "tiled") && !strstr(names, "padded"),
               "name list '%s'", names);
    }
    /* The reduce aliases do not leak into the other ladders, whose own rungs keep the names. */
    CHECK(mb_rung_index(MINIBLAS_OP_SGEMM, "tiled") >= 0);
    CHECK(mb_rung_index(MINIBLAS_OP_SGEMM, "interleaved") == -1);
    CHECK(mb_rung_index(MINIBLAS_OP_SOMATCOPY, "padded") >= 0);
    CHECK(mb_rung_index(MINIBLAS_OP_SOMATCOPY, "sequential") == -1);
    CHECK(mb_rung_index(MINIBLAS_OP_SGEMM, "tiled") != mb_rung_index(MINIBLAS_OP_SGEMM, "padded"));
    return cpu_check_report("test_rung_alias_cpu");
}
