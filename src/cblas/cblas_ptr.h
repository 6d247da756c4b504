/* Ordinary host memory recognised from its address alone (src/cblas/ptr.c). No CUDA. */
#ifndef MINIBLAS_CBLAS_PTR_H
#define MINIBLAS_CBLAS_PTR_H

/* Looks up the ranges (heap start, the program's data); call once before mbc_plain_host. */
void mbc_ptr_init(void);

/* 1 when p lies in the brk heap, the calling thread's live stack or the main program's
 * data/bss: memory that cannot be a CUDA allocation. 0 means "unknown" (ask CUDA). */
int mbc_plain_host(const void *p);

#endif
