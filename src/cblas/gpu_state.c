/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU side's state: the probe at initialisation, the kind of an operand's memory (CUDA's
 * answer), the per-thread state (cblas_gpu.h) and the frame of one GPU call: the layer's
 * device set and restored, a failure's stickiness decided, the streams ordered.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_gpu.h"
#include "cblas_ptr.h"

/* ------------------------------------------------------------------ per-thread state */

static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static mbc_state *g_pool;

static void state_release(void *p) { /* thread exit: back to the pool, no CUDA calls here */
    mbc_state *s = p;
    pthread_mutex_lock(&g_pool_lock);
    s->next = g_pool;
    g_pool = s;
    pthread_mutex_unlock(&g_pool_lock);
}

static int g_key_made;
static void key_init(void) { g_key_made = pthread_key_create(&g_key, state_release) == 0; }

static void state_destroy(mbc_state *s) {
    for (int i = 0; i < NIN; ++i) {
        if (s->in_chunk[i]) cudaFreeHost(s->in_chunk[i]);
        if (s->in_ev[i]) cudaEventDestroy(s->in_ev[i]);
    }
    for (int i = 0; i < NOUT; ++i) {
        if (s->out_chunk[i]) cudaFreeHost(s->out_chunk[i]);
        if (s->out_ev[i]) cudaEventDestroy(s->out_ev[i]);
    }
    for (int i = 0; i < NPEV; ++i)
        if (s->pan_ev[i]) cudaEventDestroy(s->pan_ev[i]);
    if (s->blk_ev) cudaEventDestroy(s->blk_ev);
    for (int i = 0; i <= NTEV; ++i)
        if (s->tev[i]) cudaEventDestroy(s->tev[i]);
    for (int i = 0; i < 3; ++i)
        if (s->dbuf[i]) cudaFree(s->dbuf[i]);
    if (s->ev_in) cudaEventDestroy(s->ev_in);
    if (s->ev_peer) cudaEventDestroy(s->ev_peer);
    if (s->ev_comp) cudaEventDestroy(s->ev_comp);
    if (s->ev_caller) cudaEventDestroy(s->ev_caller);
    if (s->s_in) cudaStreamDestroy(s->s_in);
    if (s->s_peer) cudaStreamDestroy(s->s_peer);
    if (s->s_comp) cudaStreamDestroy(s->s_comp);
    if (s->s_out) cudaStreamDestroy(s->s_out);
    if (s->h) miniblas_destroy(s->h);
    free(s);
    cudaGetLastError();
}

/* The calling thread's state on `device` (already the current device). A thread keeps one
 * state, on the device of its first GPU call: the layer's callers use use[0] only, and each
 * worker of the multi-device gemm (mgpu.c) one other device for its whole life. A state found
 * on another device (not expected) is given back to the pool and replaced. */
static mbc_state *mbc_state_get(int device, char *msg, size_t msg_size) {
    pthread_once(&g_key_once, key_init);
    mbc_state *s = pthread_getspecific(g_key);
    if (s && s->device == device) return s;
    if (s) {
        pthread_setspecific(g_key, NULL);
        state_release(s);
    }
    pthread_mutex_lock(&g_pool_lock);
    mbc_state **pp = &g_pool;
    while (*pp && (*pp)->device != device) pp = &(*pp)->next;
    s = *pp;
    if (s) *pp = s->next;
    pthread_mutex_unlock(&g_pool_lock);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(msg, msg_size, "out of host memory for the per-thread state");
            return NULL;
        }
        s->device = device;
        cudaError_t e = cudaSuccess;
        miniblas_status_t st = miniblas_create(&s->h);
        if (st != MINIBLAS_STATUS_SUCCESS) {
            snprintf(msg, msg_size, "miniblas_create: %s", miniblas_status_string(st));
            s->h = NULL;
            state_destroy(s);
            return NULL;
        }
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_in, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_comp, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_out, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_peer, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_in, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_comp, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_peer, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_caller, cudaEventDisableTiming);
        for (int i = 0; i < NIN && e == cudaSuccess; ++i)
            e = cudaEventCreateWithFlags(&s->in_ev[i], cudaEventDisableTiming);
        for (int i = 0; i < NOUT && e == cudaSuccess; ++i)
            e = cudaEventCreateWithFlags(&s->out_ev[i], cudaEventDisableTiming);
        for (int i = 0; i < NPEV && e == cudaSuccess; ++i)
            e = cudaEventCreateWithFlags(&s->pan_ev[i], cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->blk_ev, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            snprintf(msg, msg_size, "creating streams/events: %s", cudaGetErrorString(e));
            state_destroy(s);
            return NULL;
        }
        miniblas_set_stream(s->h, s->s_comp);
    }
    pthread_setspecific(g_key, s);
    return s;
}

/* ------------------------------------------------------------------ probe, pointer kinds */

int mbc_gpu_probe(char *msg, size_t msg_size) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    mbc_cfg.cuda_memory = e == cudaSuccess && count > 0; /* else no device memory can exist */
    mbc_cfg.nuse = 0;
    if (e != cudaSuccess || count == 0) {
        snprintf(msg, msg_size, "no usable GPU (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        cudaGetLastError();
        return 0;
    }
    /* The list: all (or unset): every device CUDA shows (CUDA_VISIBLE_DEVICES applies); else
     * the devices named, in that order, each once. */
    int n = 0;
    if (mbc_cfg.ndevices == 0) {
        for (int d = 0; d < count && n < MBC_MAX_DEVICES; ++d) mbc_cfg.use[n++] = d;
    } else {
        for (int i = 0; i < mbc_cfg.ndevices; ++i) {
            int d = mbc_cfg.devices[i], dup = 0;
            if (d < 0 || d >= count) {
                snprintf(msg, msg_size,
                         "device %d (MINIBLAS_CBLAS_DEVICES) but there are %d devices", d, count);
                return 0;
            }
            for (int j = 0; j < n; ++j) dup |= mbc_cfg.use[j] == d;
            if (!dup) mbc_cfg.use[n++] = d;
        }
    }
    int device = mbc_cfg.use[0];
    mbc_cfg.device = device;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(msg, msg_size, "cannot query device %d", device);
        return 0;
    }
    /* A gemm spread over several devices gives the one-device result only on GPUs of one
     * model (a rung's split-K choices follow the SM count): the others are left out. */
    int kept = 1, left = 0;
    for (int i = 1; i < n; ++i) {
        struct cudaDeviceProp p2;
        if (cudaGetDeviceProperties(&p2, mbc_cfg.use[i]) != cudaSuccess) {
            cudaGetLastError();
            ++left;
            continue;
        }
        if (p2.major != prop.major || p2.minor != prop.minor ||
            p2.multiProcessorCount != prop.multiProcessorCount || strcmp(p2.name, prop.name)) {
            ++left;
            continue;
        }
        mbc_cfg.use[kept++] = mbc_cfg.use[i];
    }
    n = kept;
    mbc_cfg.nuse = n;
    if (n == 1)
        snprintf(msg, msg_size, "GPU %d: %s%s", device, prop.name,
                 left ? " (other listed GPUs are another model: not used)" : "");
    else
        snprintf(msg, msg_size,
                 "GPUs %d and %d more (gemm on host operands, asum and dot on pinned vectors "
                 "over all %d): %s%s",
                 device, n - 1, n, prop.name,
                 left ? " (other listed GPUs are another model: not used)" : "");
    mbc_check_rung_env(prop.major, prop.minor, stderr); /* a bad MINIBLAS_SGEMM=...: say so once */
    return 1;
}

int mbc_ptr_kind(const void *p, size_t bytes) {
    if (!p || !mbc_cfg.ptr_check || !mbc_cfg.cuda_memory) return MBC_HOST;
    if (mbc_plain_host(p)) return MBC_HOST; /* heap, stack, static data: no CUDA query */
    /* Only while the GPU is usable: after a sticky error, at exit or in a fork() child CUDA
     * cannot answer (or must not be called); the address range decides then. */
    if (mbc_gpu_usable()) {
        struct cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, p) == cudaSuccess) {
            switch (a.type) {
            case cudaMemoryTypeDevice:
            case cudaMemoryTypeManaged: return MBC_DEVICE;
            case cudaMemoryTypeHost: return MBC_PINNED;
            default: return MBC_HOST;
            }
        }
        cudaGetLastError(); /* older runtimes: unregistered host memory is an error */
    }
    return mbc_ptr_kind_nocuda(p, bytes);
}

void mbc_gpu_atfork_child(void) {
    /* The parent's per-thread state holds its CUDA objects: never used here (the GPU is off
     * in the child) nor given back to the pool at thread exit; the pool's lock may have been
     * held by another thread of the parent. */
    pthread_mutex_init(&g_pool_lock, NULL);
    g_pool = NULL;
    if (g_key_made) pthread_setspecific(g_key, NULL);
}

/* ------------------------------------------------------------------ call frame */

int mbc_frame_enter(mbc_frame *f, size_t elem, char *msg, size_t msg_size) {
    return mbc_frame_enter_dev(f, mbc_cfg.device, elem, msg, msg_size);
}

int mbc_frame_enter_dev(mbc_frame *f, int device, size_t elem, char *msg, size_t msg_size) {
    f->msg = msg;
    f->msg_size = msg_size;
    f->prev_device = -1;
    f->device = device;
    f->s = NULL;
    if (cudaGetDevice(&f->prev_device) != cudaSuccess) {
        cudaGetLastError();
        f->prev_device = -1;
    }
    if (f->prev_device != device) {
        cudaError_t e = cudaSetDevice(device);
        if (e != cudaSuccess) {
            snprintf(msg, msg_size, "cudaSetDevice(%d): %s", device, cudaGetErrorString(e));
            cudaGetLastError();
            return -1;
        }
    }
    f->s = mbc_state_get(device, msg, msg_size);
    if (!f->s) {
        if (f->prev_device >= 0 && f->prev_device != device) cudaSetDevice(f->prev_device);
        return -1;
    }
    f->s->elem = elem;
    f->s->dbuf_used = 0;
    f->s->in_next = 0;
    f->s->out_next = 0;
    f->s->nout = elem == sizeof(float) ? NOUT : 2;
    for (int i = 0; i < NOUT; ++i) f->s->out[i].busy = 0;
    f->s->prog.done_col = 0;
    f->s->prog.done_row = 0;
    f->s->ngemm = 0;
    f->s->fail_gemm = mbc_cfg.test_fail_dev < 0 || (mbc_cfg.test_fail_dev < mbc_cfg.nuse &&
                                                    mbc_cfg.use[mbc_cfg.test_fail_dev] == device)
                          ? mbc_cfg.test_fail_gemm
                          : -1;
    f->s->npiece = 0;
    f->s->fail_reduce = mbc_cfg.test_fail_reduce_dev < 0 ||
                                (mbc_cfg.test_fail_reduce_dev < mbc_cfg.nuse &&
                                 mbc_cfg.use[mbc_cfg.test_fail_reduce_dev] == device)
                            ? mbc_cfg.test_fail_reduce
                            : -1;
    memset(&f->s->tr, 0, sizeof f->s->tr);
    f->s->tr.t0 = mbc_now_ms();
    f->s->tr_which = 0;
    return 0;
}

int mbc_frame_leave_detail(mbc_frame *f, cudaError_t err, miniblas_status_t st,
                              const char *what, const char *detail) {
    mbc_state *s = f->s;
    int rc = 0;
    if (err != cudaSuccess || st != MINIBLAS_STATUS_SUCCESS) {
        rc = -1;
        if (err != cudaSuccess)
            snprintf(f->msg, f->msg_size, "%s: %s (%s)", what, cudaGetErrorString(err),
                     cudaGetErrorName(err));
        else
            snprintf(f->msg, f->msg_size, "%s: %s (%s)", what, miniblas_status_string(st),
                     detail ? detail : miniblas_last_error(s->h));
        cudaStreamSynchronize(s->s_in);
        cudaStreamSynchronize(s->s_peer);
        cudaStreamSynchronize(s->s_comp);
        cudaStreamSynchronize(s->s_out);
        cudaGetLastError();
        if (cudaDeviceSynchronize() != cudaSuccess) { /* the context is gone */
            mbc_flag_set(&mbc_gpu_broken);
            mbc_quick_update();
            cudaGetLastError();
        }
        for (int i = 0; i < NOUT; ++i) s->out[i].busy = 0;
    }
    if (f->prev_device >= 0 && f->prev_device != f->device) cudaSetDevice(f->prev_device);
    return rc;
}

int mbc_frame_leave(mbc_frame *f, cudaError_t err, miniblas_status_t st, const char *what) {
    return mbc_frame_leave_detail(f, err, st, what, NULL);
}

cudaError_t mbc_sync_all(mbc_state *s) {
    cudaError_t e = cudaStreamSynchronize(s->s_in);
    cudaError_t e1 = cudaStreamSynchronize(s->s_peer);
    cudaError_t e2 = cudaStreamSynchronize(s->s_comp);
    cudaError_t e3 = cudaStreamSynchronize(s->s_out);
    return e != cudaSuccess ? e : e1 != cudaSuccess ? e1 : e2 != cudaSuccess ? e2 : e3;
}

/* Device (or managed) operands: s_comp waits for the work the caller queued before this call.
 * Our streams are non-blocking, so without this they do not wait for the legacy default
 * stream at all: a cudaMemcpy from pageable memory returns before its DMA has landed ("the
 * DMA to final destination may not have completed"), and a kernel the caller launched on the
 * default stream may still be running. An event recorded on the legacy default stream
 * completes after everything queued before it on that stream and on every blocking stream
 * (per-thread default streams included). Work on the caller's own non-blocking streams is the
 * caller's to synchronise (docs/cblas.md). */
cudaError_t mbc_comp_after_caller(mbc_state *s) {
    cudaError_t e = cudaEventRecord(s->ev_caller, cudaStreamLegacy);
    return e == cudaSuccess ? cudaStreamWaitEvent(s->s_comp, s->ev_caller, 0) : e;
}

/* s_comp waits for everything queued so far on s_in, and on s_peer once this call has copied
 * a piece of A from another device there. */
cudaError_t mbc_comp_after_in(mbc_state *s) {
    cudaError_t e = cudaEventRecord(s->ev_in, s->s_in);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(s->s_comp, s->ev_in, 0);
    if (e == cudaSuccess && s->tr.peer) e = cudaEventRecord(s->ev_peer, s->s_peer);
    return e == cudaSuccess && s->tr.peer ? cudaStreamWaitEvent(s->s_comp, s->ev_peer, 0) : e;
}

/* s_out waits for everything queued so far on s_comp. */
cudaError_t mbc_out_after_comp(mbc_state *s) {
    cudaError_t e = cudaEventRecord(s->ev_comp, s->s_comp);
    return e == cudaSuccess ? cudaStreamWaitEvent(s->s_out, s->ev_comp, 0) : e;
}
