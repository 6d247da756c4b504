/*
 * The cblas layer's address-only host check (src/cblas/ptr.c): memory that cannot be a CUDA
 * allocation (brk heap, this thread's stack, the program's data/bss) is recognised; anything
 * else (an anonymous mmap, as CUDA's own allocations are, another thread's stack, NULL) is
 * "unknown" and gets the CUDA query. A false "plain host" would send a device pointer to the
 * CPU BLAS; a false "unknown" only costs the query.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cblas/cblas_ptr.h"
#include "cpu_check.h"

static float g_static_data[64] = {1.0f}; /* .data */
static double g_static_bss[1024];       /* .bss */

static void *other_thread(void *arg) {
    volatile float local[16];
    local[0] = 1.0f;
    /* our stack, seen from here: yes; the main thread's stack (arg): unknown */
    int *res = (int *)malloc(2 * sizeof(int));
    if (res) {
        res[0] = mbc_plain_host((const void *)&local[3]);
        res[1] = mbc_plain_host(arg);
    }
    return res;
}

int main(void) {
    mbc_ptr_init();
    float stack_arr[256];
    stack_arr[0] = 0.0f;
    CHECK(mbc_plain_host(stack_arr) == 1);
    CHECK(mbc_plain_host(stack_arr + 255) == 1);
    CHECK(mbc_plain_host(g_static_data) == 1);
    CHECK(mbc_plain_host(g_static_bss + 1023) == 1);
    CHECK(mbc_plain_host(NULL) == 0);

    /* small mallocs come from the brk heap (the default M_MMAP_THRESHOLD is 128 KiB) */
    float *small = (float *)malloc(1000 * sizeof(float));
    CHECK(small != NULL);
    CHECKF(mbc_plain_host(small) == 1, "small malloc at %p", (void *)small);
    CHECK(mbc_plain_host(small + 999) == 1);
    free(small);

    /* an anonymous mapping, like CUDA's: never "plain host" */
    size_t len = 1 << 20;
    char *map = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    if (map != MAP_FAILED) {
        CHECK(mbc_plain_host(map) == 0);
        CHECK(mbc_plain_host(map + len - 1) == 0);
        munmap(map, len);
    }
    /* a reserved, inaccessible range (CUDA reserves its address space this way) */
    char *res = (char *)mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res != MAP_FAILED) {
        CHECK(mbc_plain_host(res + 4096) == 0);
        munmap(res, len);
    }
    /* a large malloc is mmap'd: unknown (the query decides) */
    char *big = (char *)malloc(64u << 20);
    if (big) {
        CHECK(mbc_plain_host(big + 4096) == 0);
        free(big);
    }

    pthread_t t;
    void *ret = NULL;
    CHECK(pthread_create(&t, NULL, other_thread, stack_arr) == 0);
    CHECK(pthread_join(t, &ret) == 0);
    if (ret) {
        const int *r = (const int *)ret;
        CHECK(r[0] == 1); /* a thread's own stack */
        CHECK(r[1] == 0); /* another thread's stack: unknown */
        free(ret);
    }
    return cpu_check_report("test_cblas_ptr_cpu");
}
