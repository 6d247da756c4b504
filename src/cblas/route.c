/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initialisation and the one routing decision of the layer: every call, whatever its op,
 * goes to the CPU BLAS, to the GPU on its device operands in place, to the GPU with its host
 * operands staged, or is refused (an operand that is not host memory while no GPU can run it).
 *
 *   - an operand in device or managed memory: the GPU (a CPU BLAS would read it as host
 *     memory); in place when every operand the call references is;
 *   - an operand neither host nor usable device memory: refused, nothing written;
 *   - host operands: the GPU when one is usable and the CPU BLAS cannot run the call, or
 *     miniblas_cblas_force_path pinned the GPU, or (the default, automatic) the call reaches
 *     every crossover of its op (config.c); else the CPU BLAS.
 *
 * The small-call quick paths of entry.c are this decision precomputed (mbc_route_cpu_below).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "cblas_internal.h"
#include "cblas_ptr.h"
#include "miniblas_cblas.h"

int mbc_force = MINIBLAS_CBLAS_PATH_AUTO;
int mbc_gpu_broken, mbc_exiting, mbc_forked;

static void on_exit_flag(void) {
    mbc_flag_set(&mbc_exiting);
    mbc_quick_update();
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_once(void) {
    mbc_config_read(&mbc_cfg, mbc_getenv, sysconf(_SC_NPROCESSORS_ONLN), stderr);
    mbc_ptr_init();
    mbc_cpu_load();

    char msg[256] = "disabled by MINIBLAS_CBLAS_GPU=0";
    mbc_cfg.gpu = 0;
    mbc_cfg.cuda_memory = 1; /* GPU disabled: device pointers may still exist */
    if (mbc_cfg.gpu_enabled) mbc_cfg.gpu = mbc_gpu_probe(msg, sizeof msg);
    atexit(on_exit_flag);
    mbc_fork_init();
    mbc_notice("CPU BLAS: %s; %s%s", mbc_cpu.handle ? mbc_cpu.name : "none loaded", msg,
               mbc_cfg.gpu ? "" : " (CPU BLAS only)");
    mbc_quick_update(); /* last: the quick paths open */
}

void mbc_init(void) { pthread_once(&g_once, init_once); }

int mbc_gpu_usable(void) {
    return mbc_cfg.gpu && !mbc_flag(&mbc_gpu_broken) && !mbc_flag(&mbc_exiting) &&
           !mbc_flag(&mbc_forked);
}

static int forced(void) { return __atomic_load_n(&mbc_force, __ATOMIC_RELAXED); }

int mbc_ptr_kind_nocuda(const void *p, size_t bytes) {
    if (!p || !mbc_cfg.ptr_check || !mbc_cfg.cuda_memory || mbc_plain_host(p)) return MBC_HOST;
    return mbc_host_readable(p, bytes) ? MBC_HOST : MBC_UNREACHABLE;
}

int64_t mbc_route_cpu_below(int x) {
    if (!mbc_gpu_usable()) return INT64_MAX;
    int f = forced();
    return f == MINIBLAS_CBLAS_PATH_GPU ? 0 : f == MINIBLAS_CBLAS_PATH_AUTO ? mbc_cfg.xover[x] : INT64_MAX;
}

mbc_route_t mbc_route(const mbc_call *c, int *bad) {
    int any_dev = 0, all_dev = 1;
    for (int i = 0; i < c->nops; ++i) {
        if (c->kind[i] == MBC_UNREACHABLE) {
            *bad = i;
            return MBC_ROUTE_REFUSE;
        }
        any_dev |= c->kind[i] == MBC_DEVICE;
        all_dev &= c->kind[i] == MBC_DEVICE;
    }
    if (any_dev) return all_dev ? MBC_ROUTE_GPU_INPLACE : MBC_ROUTE_GPU;
    if (!mbc_gpu_usable()) return MBC_ROUTE_CPU;
    int f = forced();
    if (!c->cpu_have || f == MINIBLAS_CBLAS_PATH_GPU) return MBC_ROUTE_GPU;
    if (f == MINIBLAS_CBLAS_PATH_AUTO && c->size >= (double)mbc_cfg.xover[c->xover] &&
        c->min_dim >= mbc_cfg.xover[MBC_X_GEMM_DIM])
        return MBC_ROUTE_GPU;
    return MBC_ROUTE_CPU;
}
