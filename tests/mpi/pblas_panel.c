/* SPDX-License-Identifier: BSD-3-Clause */
/* PILAENV for ScaLAPACK's PBLAS, preloaded: the width of the panels in which PDGEMM (and the
 * other distributed products) multiplies, from MINIBLAS_PBLAS_PANEL (default 32, ScaLAPACK's
 * own value). PBLAS calls its local dgemm_ once per panel, with k = the panel width: with 32,
 * each process's products are m x n x 32, which libminiblas_cblas keeps on the CPU (a product
 * that thin moves more bytes than it computes); with 1024 they are m x n x 1024.
 *
 *   LD_PRELOAD=libminiblas_pblas_panel.so MINIBLAS_PBLAS_PANEL=1024 ./program
 *
 * Fortran interface: INTEGER FUNCTION PILAENV(ICTXT, PREC), PREC a CHARACTER*1 (its hidden
 * length argument is not read). */
#include <stdlib.h>

int pilaenv_(int *ictxt, const char *prec) {
    (void)ictxt;
    (void)prec;
    static int panel; /* the same answer on every call; 0: not read yet */
    int p = __atomic_load_n(&panel, __ATOMIC_RELAXED);
    if (p == 0) {
        const char *s = getenv("MINIBLAS_PBLAS_PANEL");
        char *end = NULL;
        long v = s ? strtol(s, &end, 10) : 0;
        p = s && *s && !*end && v >= 1 && v <= 1 << 20 ? (int)v : 32;
        __atomic_store_n(&panel, p, __ATOMIC_RELAXED);
    }
    return p;
}
