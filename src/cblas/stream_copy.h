/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbc_stream_copy: memcpy with non-temporal (streaming) stores, as a staging copy of the
 * host-pointer GPU path would use them: caller's pageable memory -> pinned chunk (then only the
 * DMA engine reads it) and pinned chunk -> caller's C. The layer's staging copies use plain
 * memcpy (streaming stores measured no reliable gain there); perf/miniblas-cblas-bench's probe
 * still measures both. Those copies are large (MBs per thread) and their
 * destination is not read again by this CPU soon, so an ordinary store's read-for-ownership
 * (the destination line fetched from DRAM before it is overwritten) is wasted traffic: a copy
 * with ordinary stores moves 3 bytes over the memory bus per byte copied, one with streaming
 * stores 2. glibc's memcpy switches to streaming stores only above a large size threshold
 * (a fraction of the last-level cache), which the layer's per-thread pieces stay below.
 * Not x86-64: plain memcpy.
 */
#ifndef MBC_STREAM_COPY_H
#define MBC_STREAM_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* The copy without the closing fence: a thread doing many pieces fences once, after the last
 * (mbc_stream_fence), before anything else may read the destination. */
static inline void mbc_stream_copy_nofence(void *dst, const void *src, size_t n) {
#if defined(__x86_64__)
    char *d = (char *)dst;
    const char *s = (const char *)src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15; /* streaming stores need 16-byte alignment */
    if (n < 4096 + head) {
        memcpy(d, s, n);
        return;
    }
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (size_t i = 0, nv = n / 64; i < nv; ++i, d += 64, s += 64) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)s);
        __m128i x1 = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i x3 = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, x0);
        _mm_stream_si128((__m128i *)(d + 16), x1);
        _mm_stream_si128((__m128i *)(d + 32), x2);
        _mm_stream_si128((__m128i *)(d + 48), x3);
    }
    memcpy(d, s, n & 63);
#else
    memcpy(dst, src, n);
#endif
}

/* Streaming stores are weakly ordered: make them visible before the data is used (DMA'd). */
static inline void mbc_stream_fence(void) {
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

static inline void mbc_stream_copy(void *dst, const void *src, size_t n) {
    mbc_stream_copy_nofence(dst, src, n);
    mbc_stream_fence();
}

#endif
