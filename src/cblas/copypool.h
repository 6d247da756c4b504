/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small thread pool for the host staging copies of the GPU path (copypool.c says why not
 * OpenMP): mbc_pool_run(n, fn, ctx, nthreads) runs fn(ctx, i) for every i in [0, n) on up to
 * nthreads threads, the caller included, and returns when all are done. Items are claimed one
 * at a time, so a slow or descheduled thread delays only the item it holds. One job at a time:
 * a caller that finds the pool busy (another host thread's copy) runs its items itself.
 */
#ifndef MBC_COPYPOOL_H
#define MBC_COPYPOOL_H

#include <stdint.h>

void mbc_pool_run(int64_t n, void (*fn)(void *ctx, int64_t i), void *ctx, int nthreads);

/* Set by the threads that drive the devices of a split gemm (gpu_gemm.c) for the call: such a
 * thread waits for the pool instead of copying alone while another device's thread holds it.
 * The devices' threads take turns with every copy thread, rather than one of them packing
 * single-threaded, since the host's memory bandwidth is what they share. */
extern _Thread_local int mbc_pool_wait;

/* In the child of fork(): the parent's workers do not exist here and its locks may be held;
 * start afresh (workers are started again on demand). */
void mbc_pool_atfork_child(void);

#endif
