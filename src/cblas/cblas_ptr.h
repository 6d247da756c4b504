/* SPDX-License-Identifier: BSD-3-Clause */
/* Ordinary host memory recognised from its address alone (src/cblas/ptr.c). No CUDA. */
#ifndef MINIBLAS_CBLAS_PTR_H
#define MINIBLAS_CBLAS_PTR_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Looks up the ranges (heap start, the program's data); call once before mbc_plain_host. */
void mbc_ptr_init(void);

/* Set once by mbc_ptr_init, read-only after (internal to the library: exports.map). */
extern uintptr_t mbc_heap_lo;              /* start_brk; UINTPTR_MAX when unknown (no heap range) */
extern uintptr_t mbc_exe_lo, mbc_exe_hi;   /* the main program's writable segments */

/* The current program break. glibc's sbrk(0) costs ~6 ns a call; the variable it returns,
 * __curbrk, is exported by glibc and reads in one load. */
#ifdef __GLIBC__
extern void *__curbrk;
static inline uintptr_t mbc_cur_brk(void) {
    return (uintptr_t)__atomic_load_n(&__curbrk, __ATOMIC_RELAXED);
}
#else
static inline uintptr_t mbc_cur_brk(void) { return (uintptr_t)sbrk(0); }
#endif

/* 1 when p lies in the calling thread's live stack (from the caller's frame up to the top of
 * the thread's stack mapping) and the caller's frame is itself on that stack; looks the stack
 * up on a thread's first call. Called on another stack (a fiber or coroutine stack, an
 * alternate signal stack) it answers 0: the live range is not known there. */
int mbc_on_own_stack(const void *p);

/* The calling thread's stack mapping [mbc_t_stack_lo, mbc_t_stack_hi) once mbc_on_own_stack
 * has looked it up; mbc_t_stack_hi is 0 before. initial-exec: one load from the thread
 * pointer each. */
extern __thread uintptr_t mbc_t_stack_hi __attribute__((tls_model("initial-exec")));
extern __thread uintptr_t mbc_t_stack_lo __attribute__((tls_model("initial-exec")));

/* 1 when the first and the last byte of [p, p + bytes) can be read by this process (without
 * touching them: a failed read is an error code, never a fault), 0 when either cannot: a
 * device allocation (its host address range is an inaccessible reservation), unmapped
 * memory. For memory CUDA can no longer classify (a sticky error, process exit): a pointer
 * this rejects never reaches the CPU BLAS. ~0.3-1 us (one system call). */
int mbc_host_readable(const void *p, size_t bytes);

/* Both x and y in the brk heap (the common case of small vectors): one compare each against
 * the heap's span, no branch between them (an unknown heap start gives an empty span). */
static inline int mbc_in_heap2(const void *x, const void *y) {
    const uintptr_t lo = mbc_heap_lo, cur = mbc_cur_brk();
    const uintptr_t span = cur > lo ? cur - lo : 0;
    return ((uintptr_t)x - lo < span) & ((uintptr_t)y - lo < span);
}

/* mbc_plain_host without any call: the brk heap, the main program's data/bss, or the live
 * stack when its top is already known; 0 also means "not known yet". The reductions' quick
 * path uses it, so that it needs no stack frame of its own. */
static inline int mbc_plain_host_known(const void *p) {
    const uintptr_t a = (uintptr_t)p;
    char here; /* in the caller's frame once inlined: its callers' arrays lie above */
    const uintptr_t h = (uintptr_t)&here;
    if (!p) return 0;
    if (a >= mbc_heap_lo && a < mbc_cur_brk()) return 1;
    if (a >= mbc_exe_lo && a < mbc_exe_hi) return 1;
    /* [here, top of the thread's stack), only when this frame is on that stack: from a fiber
     * or signal stack below it the range would span unrelated mappings (device ones too);
     * from one above it, a >= here >= top fails the last compare */
    return h >= mbc_t_stack_lo && a >= h && a < mbc_t_stack_hi;
}

/* 1 when p lies in the brk heap, the main program's data/bss or the calling thread's live
 * stack: memory that cannot be a CUDA allocation. 0 means "unknown" (ask CUDA). Inline: the
 * small-call path of the drop-in checks up to three operands per call (~1 ns each). */
static inline int mbc_plain_host(const void *p) {
    if (mbc_plain_host_known(p)) return 1;
    return p && !mbc_t_stack_hi && mbc_on_own_stack(p);
}

#endif
