/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Facts about the machine for the result files' header (pure C, no CUDA): the GPU's clocks,
 * power and clock-event reasons through nvidia-smi, the kernel driver version, OpenBLAS's
 * configuration string. Anything that cannot be found is left unknown (null in the JSON).
 */
#ifndef MINIBLAS_PERF_SYSINFO_H
#define MINIBLAS_PERF_SYSINFO_H

#include <stddef.h>

#include "bench_report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queries the GPU with that PCI bus id ("0000:19:00.0"; NULL: the first) through nvidia-smi. */
void sysinfo_gpu_state(const char *pci_bus_id, bench_gpu_state *g);
/* Parses one line of nvidia-smi --query-gpu=SYSINFO_QUERY --format=csv,noheader,nounits. */
int sysinfo_parse_gpu_line(const char *line, bench_gpu_state *g);
/* The kernel driver version from /proc/driver/nvidia/version, or "". */
void sysinfo_driver_version(char *out, size_t size);
/* openblas_get_config() of the library at path (NULL: libopenblas.so.0), or "". */
void sysinfo_openblas(const char *path, char *out, size_t size);
/* The header facts common to both tools: tool, version, commit, time, command line. */
void sysinfo_fill_meta(bench_meta *m, const char *tool, const char *commit, int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
