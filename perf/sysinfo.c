/* SPDX-License-Identifier: BSD-3-Clause */
/* Facts about the machine for the result files' header (see sysinfo.h). */
#define _GNU_SOURCE
#include "sysinfo.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* clocks_event_reasons is the current name; older drivers call it clocks_throttle_reasons. */
#define QUERY_FIELDS(r)                                                                          \
    "clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu," \
    r ".active," r ".sw_power_cap"

static double field_num(const char *s) {
    char *end;
    while (isspace((unsigned char)*s)) ++s;
    double v = strtod(s, &end);
    return end == s ? NAN : v;
}

int sysinfo_parse_gpu_line(const char *line, bench_gpu_state *g) {
    char buf[512], *f[9];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", line);
    buf[strcspn(buf, "\r\n")] = '\0';
    char *p = buf;
    while (n < 9) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    if (n != 9) return -1;
    bench_gpu_state_init(g);
    g->sm_mhz = field_num(f[0]);
    g->mem_mhz = field_num(f[1]);
    g->max_sm_mhz = field_num(f[2]);
    g->max_mem_mhz = field_num(f[3]);
    g->power_w = field_num(f[4]);
    g->power_limit_w = field_num(f[5]);
    g->temperature_c = field_num(f[6]);
    char *r = f[7];
    while (isspace((unsigned char)*r)) ++r;
    if (strncmp(r, "0x", 2) == 0) snprintf(g->reasons, sizeof g->reasons, "%.31s", r);
    char *s = f[8];
    while (isspace((unsigned char)*s)) ++s;
    g->sw_power_cap = strncmp(s, "Active", 6) == 0 ? 1 : strncmp(s, "Not Active", 10) == 0 ? 0 : -1;
    g->valid = 1;
    return 0;
}

void sysinfo_gpu_state(const char *pci_bus_id, bench_gpu_state *g) {
    bench_gpu_state_init(g);
    for (int i = 0; i < 2; ++i) {
        char cmd[768], id[96] = "";
        if (pci_bus_id && *pci_bus_id) {
            for (const char *q = pci_bus_id; *q; ++q) /* a bus id: hex digits, ':' and '.' */
                if (!isxdigit((unsigned char)*q) && *q != ':' && *q != '.') return;
            snprintf(id, sizeof id, " --id=%s", pci_bus_id);
        }
        if (i == 0)
            snprintf(cmd, sizeof cmd, "nvidia-smi%s --query-gpu=" QUERY_FIELDS("clocks_event_reasons")
                     " --format=csv,noheader,nounits 2>/dev/null", id);
        else
            snprintf(cmd, sizeof cmd, "nvidia-smi%s --query-gpu=" QUERY_FIELDS("clocks_throttle_reasons")
                     " --format=csv,noheader,nounits 2>/dev/null", id);
        FILE *p = popen(cmd, "r");
        if (!p) return;
        char line[512];
        int ok = fgets(line, sizeof line, p) != NULL;
        int rc = pclose(p);
        if (ok && rc == 0 && sysinfo_parse_gpu_line(line, g) == 0) return;
    }
}

void sysinfo_driver_version(char *out, size_t size) {
    snprintf(out, size, "%s", "");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
            int digits = 0, dots = 0, other = 0;
            for (const char *q = t; *q; ++q) {
                if (isdigit((unsigned char)*q)) digits++;
                else if (*q == '.') dots++;
                else other++;
            }
            if (!other && dots >= 1 && digits >= 3) {
                snprintf(out, size, "%s", t);
                break;
            }
        }
    }
    fclose(f);
}

void sysinfo_openblas(const char *path, char *out, size_t size) {
    snprintf(out, size, "%s", "");
    void *h = dlopen(path ? path : "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    char *(*cfg)(void) = (char *(*)(void))dlsym(h, "openblas_get_config");
    if (cfg) snprintf(out, size, "%s", cfg());
    /* kept loaded: unloading a threaded BLAS at run time is not always safe */
}

void sysinfo_fill_meta(bench_meta *m, const char *tool, const char *commit, int argc, char **argv) {
    snprintf(m->tool, sizeof m->tool, "%s", tool);
    snprintf(m->version, sizeof m->version, "%s", MINIBLAS_VERSION_STRING);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", commit ? commit : "");
    sysinfo_driver_version(m->driver, sizeof m->driver);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(m->timestamp, sizeof m->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    size_t used = 0;
    m->command[0] = '\0';
    for (int i = 0; i < argc && used + 2 < sizeof m->command; ++i)
        used += (size_t)snprintf(m->command + used, sizeof m->command - used, "%s%s", i ? " " : "",
                                 argv[i]);
}
