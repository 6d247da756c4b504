/* SPDX-License-Identifier: BSD-3-Clause */
/* How fast does a 2D DMA from pinned host memory run by the length of its columns? One-off
 * probe (not part of the build). cudaMemcpy2DAsync host -> device of columns of 1 KB to 64 KB
 * taken from a pitch of 64 KB (a column-major 8192-row double matrix), 16384 columns or
 * 256 MB, best of 3 after a warm-up; alone, then beside a 512 MB device -> host copy on
 * another stream; and one contiguous 256 MB copy. It sets the drop-in's pin_row_kb (pinned
 * pieces with shorter columns are packed into the staging chunks, docs/cblas-internals.md).
 * Measured (one H100 80GB HBM3, PCIe 5; GB/s alone / beside the copy back):
 *   1 KB 27.8 / 27.7, 2 KB 33.6 / 33.7, 4 KB 33.7 / 33.8, 8 KB 49.1 / 46.1,
 *   16 KB 49.2 / 44.0, 32 KB 55.2 / 50.6, 48 KB 55.2 / 46.3, 64 KB 55.1 / 44.9;
 *   contiguous 55.0.
 * Build: nvcc -O2 -o dma2d_probe dma2d_probe.cu      Run: ./dma2d_probe
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "probe_check.h"

static const size_t MB = (size_t)1 << 20, PITCH = 65536, MAXBYTES = 256 * MB;

/* Best of 3 timed copies (after a warm-up) of `cols` columns of `len` bytes; back: a 512 MB
 * device -> host copy runs beside each on stream s2. Returns milliseconds. */
static float time_copy(char *d, const char *h, size_t len, size_t cols, char *hb,
                       const char *db, cudaStream_t s, cudaStream_t s2, cudaEvent_t a,
                       cudaEvent_t b, int back) {
    float best = 1e30f;
    for (int r = 0; r < 4; ++r) {
        if (back) CK(cudaMemcpyAsync(hb, db, 512 * MB, cudaMemcpyDeviceToHost, s2));
        CK(cudaEventRecord(a, s));
        if (cols == 0) /* one contiguous copy */
            CK(cudaMemcpyAsync(d, h, len, cudaMemcpyHostToDevice, s));
        else
            CK(cudaMemcpy2DAsync(d, len, h, PITCH, len, cols, cudaMemcpyHostToDevice, s));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        CK(cudaStreamSynchronize(s2));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0 && ms < best) best = ms;
    }
    return best;
}

int main(void) {
    char *h, *d, *hb, *db;
    CK(cudaMallocHost((void **)&h, 1024 * MB));
    CK(cudaMalloc((void **)&d, 1024 * MB));
    CK(cudaMallocHost((void **)&hb, 512 * MB));
    CK(cudaMalloc((void **)&db, 512 * MB));
    cudaStream_t s, s2;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    const size_t lens[] = {1024, 2048, 4096, 8192, 16384, 32768, 49152, 65536};
    printf("column bytes  columns   alone GB/s  beside D2H GB/s\n");
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; ++i) {
        size_t len = lens[i], bytes = len * 16384 < MAXBYTES ? len * 16384 : MAXBYTES;
        size_t cols = bytes / len;
        float t0 = time_copy(d, h, len, cols, hb, db, s, s2, a, b, 0);
        float t1 = time_copy(d, h, len, cols, hb, db, s, s2, a, b, 1);
        printf("%12zu %8zu %12.1f %16.1f\n", len, cols, bytes / t0 / 1e6, bytes / t1 / 1e6);
    }
    float t = time_copy(d, h, MAXBYTES, 0, hb, db, s, s2, a, b, 0);
    printf("contiguous %zu MB: %.1f GB/s\n", MAXBYTES / MB, MAXBYTES / t / 1e6);
    return 0;
}
