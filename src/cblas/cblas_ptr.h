/* Ordinary host memory recognised from its address alone (src/cblas/ptr.c). No CUDA. */
#ifndef MINIBLAS_CBLAS_PTR_H
#define MINIBLAS_CBLAS_PTR_H

/* 1 when p lies in the brk heap, the calling thread's live stack or the main program's
 * data/bss: memory that cannot be a CUDA allocation. 0 means "unknown" (ask CUDA). */
int mbc_plain_host(const void *p);

#endif
