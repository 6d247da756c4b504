/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ordinary host memory, recognised without asking CUDA.
 *
 * The drop-in must know whether an operand is device (or managed) memory before it can call
 * the CPU BLAS on it. cudaPointerGetAttributes answers, but costs ~170 ns per operand (H200
 * machine), which is 2-4x the whole of a small OpenBLAS call (sasum n = 1024: ~90 ns). Most
 * small operands live in places that can never hold a CUDA allocation, and those are cheap to
 * recognise from their address alone:
 *   - the brk heap, [start_brk, sbrk(0)): one mapping owned by malloc; CUDA's allocations
 *     (device, managed, its own pinned ones) are mappings of their own elsewhere;
 *   - the calling thread's live stack, [an address in this frame, top of the stack), when this
 *     frame is on the thread's own stack (pthread_getattr_np's range): code running on a
 *     fiber/coroutine stack or an alternate signal stack gets the full check instead;
 *   - the main program's writable segments (.data, .bss), mapped for the life of the process.
 * An address in none of these (mmap'd blocks of large mallocs, other threads' stacks, shared
 * libraries' data, anything from CUDA) gets the full CUDA check. Memory the caller registered
 * with cudaHostRegister inside these ranges is then treated as pageable: staged rather than
 * DMA'd in place, equally correct.
 *
 * No CUDA here: this file is also compiled into a CPU test (tests/test_cblas_ptr_cpu.c).
 * Cost: ~1-2 ns for a heap pointer (two loads and compares), against ~170 ns for the query.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cblas_ptr.h"

uintptr_t mbc_heap_lo = UINTPTR_MAX, mbc_exe_lo, mbc_exe_hi; /* see cblas_ptr.h */
/* Top of this thread's stack; 0 = not looked up yet. initial-exec: a plain load from the
 * thread pointer instead of a __tls_get_addr call (a few bytes of static TLS). */
__thread uintptr_t mbc_t_stack_hi __attribute__((tls_model("initial-exec")));
__thread uintptr_t mbc_t_stack_lo __attribute__((tls_model("initial-exec")));

/* start_brk: field 47 of /proc/self/stat (Linux >= 3.5). Fields after the command name,
 * which may hold spaces and parentheses, are counted from the last ')'. */
static uintptr_t read_start_brk(void) {
    char buf[4096];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return 0;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    unsigned long long v = 0;
    int field = 2; /* the ')' ends field 2 */
    for (p = p + 1; *p && field < 47; ++p)
        if (*p == ' ') ++field;
    if (field != 47 || sscanf(p, "%llu", &v) != 1) return 0;
    /* sanity: the heap starts at or below the current break */
    if (v == 0 || v > (uintptr_t)sbrk(0)) return 0;
    return (uintptr_t)v;
}

static int exe_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    /* the first object reported is the main program */
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
        uintptr_t a = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (lo < hi) mbc_exe_lo = lo, mbc_exe_hi = hi;
    return 1; /* stop after the first object */
}

void mbc_ptr_init(void) {
    uintptr_t lo = read_start_brk();
    mbc_heap_lo = lo ? lo : UINTPTR_MAX;
    dl_iterate_phdr(exe_segments, NULL);
}

/* The calling thread's stack mapping [lo, hi), once per thread. Unknown: the empty range
 * [UINTPTR_MAX, 1), which no frame is in. */
static void stack_range(void) {
    if (mbc_t_stack_hi) return;
    uintptr_t lo = UINTPTR_MAX, hi = 1;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr)
            lo = (uintptr_t)addr, hi = (uintptr_t)addr + size;
        pthread_attr_destroy(&attr);
    }
    mbc_t_stack_lo = lo;
    mbc_t_stack_hi = hi;
}

int mbc_on_own_stack(const void *p) {
    /* The live part of this thread's stack: from this frame up, when this frame is on it.
     * The caller's arrays are in its frames, which are above ours. */
    char here;
    const uintptr_t a = (uintptr_t)p, h = (uintptr_t)&here;
    stack_range();
    return h >= mbc_t_stack_lo && h < mbc_t_stack_hi && a >= h && a < mbc_t_stack_hi;
}

/* A pipe for the fallback of mbc_host_readable (write() of a byte the process cannot read
 * fails with EFAULT); created once, both ends non-blocking and close-on-exec. */
static int g_pipe[2] = {-1, -1};
static pthread_once_t g_pipe_once = PTHREAD_ONCE_INIT;
static void pipe_init(void) {
    if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
}

static int byte_readable_pipe(const char *b) {
    pthread_once(&g_pipe_once, pipe_init);
    if (g_pipe[1] < 0) return 1; /* cannot tell: as before, host */
    for (;;) {
        ssize_t w = write(g_pipe[1], b, 1);
        if (w == 1) {
            char sink[64];
            while (read(g_pipe[0], sink, sizeof sink) > 0) {
            }
            return 1;
        }
        if (w < 0 && errno == EFAULT) return 0;
        if (w < 0 && errno == EAGAIN) { /* full (another thread's byte): drain, retry */
            char sink[64];
            while (read(g_pipe[0], sink, sizeof sink) > 0) {
            }
            continue;
        }
        return 1;
    }
}

int mbc_host_readable(const void *p, size_t bytes) {
    if (!p) return 0;
    const char *first = (const char *)p, *last = first + (bytes ? bytes - 1 : 0);
    char got[2];
    struct iovec local[2] = {{&got[0], 1}, {&got[1], 1}};
    struct iovec remote[2] = {{(void *)first, 1}, {(void *)last, 1}};
    ssize_t r = process_vm_readv(getpid(), local, 2, remote, 2, 0);
    if (r == 2) return 1;
    if (r >= 0 || errno == EFAULT) return 0; /* the first byte, or the last, cannot be read */
    /* process_vm_readv not available (ENOSYS, EPERM under a seccomp filter): the pipe */
    return byte_readable_pipe(first) && byte_readable_pipe(last);
}
