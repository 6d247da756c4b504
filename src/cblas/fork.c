/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fork(): a child of a process that used the GPU path (R's mclapply, Python's multiprocessing)
 * cannot use CUDA: the parent's context does not carry over, and CUDA calls in the child fail
 * or hang. The child handler turns the GPU off for good in the child (every call runs on the
 * CPU BLAS; device pointers are refused through cblas_xerbla), forgets the parent's GPU state
 * without a CUDA call, and resets the staging copy pool and the device workers of split gemms,
 * whose threads stayed in the parent and whose locks another thread may have held at the fork.
 */
#include <pthread.h>
#include "cblas_internal.h"
#include "copypool.h"

static void child(void) {
    mbc_flag_set(&mbc_forked);
    mbc_pool_atfork_child();
    mbc_gpu_atfork_child();
    mbc_mgpu_atfork_child();
    mbc_quick_update(); /* the small-call limits without a GPU */
}

void mbc_fork_init(void) { pthread_atfork(NULL, NULL, child); }
