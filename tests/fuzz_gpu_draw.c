/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fuzzer: operand buffers of every memory kind, random scalars, IEEE specials, shapes and
 * input images. */
#include "fuzz_gpu.h"

/* ------------------------------------------------------------------ memory kinds */

static size_t page_round(size_t b) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (b + pg - 1) / pg * pg;
}

int pick_kind(rng *r) {
    for (;;) {
        int k = rint_(r, K_COUNT);
        if (g_kind_ok[k]) return k;
    }
}

/* 0 on success; on failure a message in msg. */
int buf_alloc(buf *b, int kind, size_t bytes, char *msg, size_t msz) {
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->bytes = bytes < 64 ? 64 : bytes;
    cudaError_t e = cudaSuccess;
    void *p = NULL;
    switch (kind) {
    case K_HEAP: p = malloc(b->bytes); break;
    case K_MMAP:
    case K_REGISTERED:
        b->map_bytes = page_round(b->bytes);
        p = mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) p = NULL;
        if (p && kind == K_REGISTERED) {
            e = cudaHostRegister(p, b->map_bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
            if (e != cudaSuccess) {
                munmap(p, b->map_bytes);
                p = NULL;
            }
        }
        break;
    case K_PINNED: e = cudaMallocHost(&p, b->bytes); break;
    case K_DEVICE: e = cudaMalloc(&p, b->bytes); break;
    case K_MANAGED: e = cudaMallocManaged(&p, b->bytes, cudaMemAttachGlobal); break;
    }
    if (!p || e != cudaSuccess) {
        snprintf(msg, msz, "allocating %zu bytes of %s memory: %s", b->bytes, kind_names[kind],
                 e != cudaSuccess ? cudaGetErrorString(e) : "failed");
        cudaGetLastError();
        return -1;
    }
    b->host = b->api = p;
#ifndef MB_FUZZ_CBLAS
    if (kind == K_REGISTERED) {
        void *d = NULL;
        e = cudaHostGetDevicePointer(&d, p, 0);
        if (e != cudaSuccess) {
            snprintf(msg, msz, "cudaHostGetDevicePointer: %s", cudaGetErrorString(e));
            return -1;
        }
        b->api = d;
    }
#endif
    add(&g_kind_uses[kind], 1);
    return 0;
}

void buf_free(buf *b) {
    if (!b->host) return;
    switch (b->kind) {
    case K_HEAP: free(b->host); break;
    case K_MMAP: munmap(b->host, b->map_bytes); break;
    case K_REGISTERED:
        cudaHostUnregister(b->host);
        munmap(b->host, b->map_bytes);
        break;
    case K_PINNED: cudaFreeHost(b->host); break;
    case K_DEVICE:
    case K_MANAGED: cudaFree(b->host); break;
    }
    b->host = b->api = NULL;
}


int buf_put(buf *b, const void *src, size_t bytes, char *msg, size_t msz) {
    if (host_kind(b->kind)) {
        memcpy(b->host, src, bytes);
        return 0;
    }
    cudaError_t e = cudaMemcpy(b->host, src, bytes, cudaMemcpyDefault);
    /* a pageable upload may return before its DMA lands, and the library's streams need not
     * wait for the legacy stream: wait here */
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) snprintf(msg, msz, "upload: %s", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : -1;
}
int buf_get(void *dst, const buf *b, size_t bytes, char *msg, size_t msz) {
    if (host_kind(b->kind)) {
        memcpy(dst, b->host, bytes);
        return 0;
    }
    cudaError_t e = cudaMemcpy(dst, b->host, bytes, cudaMemcpyDefault);
    if (e != cudaSuccess) snprintf(msg, msz, "download: %s", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : -1;
}

/* ------------------------------------------------------------------ random values, shapes */

/* An IEEE special value: NaN, +-Inf, +-0, a subnormal. allow_inf / allow_sub restrict it. */
double special(rng *r, int dbl, int allow_inf, int allow_sub) {
    for (;;) {
        switch (rint_(r, 7)) {
        case 0: return NAN;
        case 1: if (allow_inf) return INFINITY; break;
        case 2: if (allow_inf) return -INFINITY; break;
        case 3: return 0.0;
        case 4: return -0.0;
        case 5:
            if (allow_sub)
                return (dbl ? DBL_TRUE_MIN : (double)FLT_TRUE_MIN) * (double)(1 + rint_(r, 1000));
            break;
        default:
            if (allow_sub) return -(dbl ? DBL_MIN : (double)FLT_MIN) * 0.5 * (1.0 + runif(r));
            break;
        }
    }
}

/* A scalar alpha / beta: 0, 1, -1, 0.5, 2, random, NaN, +-Inf (specials rarer). */
double scalar(rng *r) {
    int w = rint_(r, 100);
    if (w < 15) return 0.0;
    if (w < 35) return 1.0;
    if (w < 45) return -1.0;
    if (w < 50) return 0.5;
    if (w < 55) return 2.0;
    if (w < 88) {
        double v = runif(r);
        return v < 0 ? v - 0.1 : v + 0.1;
    }
    if (w < 92) return NAN;
    if (w < 96) return INFINITY;
    return -INFINITY;
}

/* ------------------------------------------------------------------ shapes */

int64_t dim(rng *r, int64_t cap) {
    static const int64_t edges[] = {15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257};
    int w = rint_(r, 100);
    int64_t v;
    if (w < 4) v = 0;
    else if (w < 16) v = 1;
    else if (w < 40) v = 2 + rint_(r, 9);
    else if (w < 70) v = edges[rint_(r, (int)(sizeof edges / sizeof edges[0]))];
    else v = 1 + rint_(r, 300);
    return v > cap ? cap : v;
}


int trans_value(rng *r) {
    static const int t[] = {111, 112, 111, 112, 113, 114};
    return t[rint_(r, 6)];
}

int64_t ld_pad(rng *r) {
    int w = rint_(r, 10);
    return w < 5 ? 0 : w < 8 ? 1 + rint_(r, 3) : 17 + rint_(r, 50);
}


/* Fill an input image: n elements, random in [-1, 1), a fraction of specials. */
void fill_input(rng *r, void *p, size_t n, int dbl, int density, int allow_inf,
                int allow_sub) {
    for (size_t i = 0; i < n; ++i)
        eset(p, i, (density && rint_(r, 1000) < density) ? special(r, dbl, allow_inf, allow_sub)
                                                         : runif(r), dbl);
}
