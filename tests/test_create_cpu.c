/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why miniblas_create failed, told without a handle: the status of each CUDA cause (no driver,
 * no device, a driver older than the runtime, a busy device, out of memory, anything else)
 * and miniblas_last_create_error()'s sentence naming the cause and the CUDA error.
 *
 * The mapping is tested on every cause; miniblas_create itself on this machine: with no
 * loadable libcuda it must return MINIBLAS_STATUS_NO_DRIVER, with a driver that sees no GPU
 * MINIBLAS_STATUS_NO_DEVICE; with a GPU it must succeed and leave the message empty.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "cpu_check.h"
#include "internal.h"

static const miniblas_status_t all_status[] = {
    MINIBLAS_STATUS_SUCCESS,        MINIBLAS_STATUS_INVALID_VALUE, MINIBLAS_STATUS_NOT_INITIALIZED,
    MINIBLAS_STATUS_ALLOC_FAILED,   MINIBLAS_STATUS_CUDA_ERROR,    MINIBLAS_STATUS_UNKNOWN_RUNG,
    MINIBLAS_STATUS_NOT_SUPPORTED,  MINIBLAS_STATUS_NO_DRIVER,     MINIBLAS_STATUS_NO_DEVICE,
    MINIBLAS_STATUS_DRIVER_TOO_OLD, MINIBLAS_STATUS_DEVICE_UNAVAILABLE};

static void test_status_strings(void) {
    const int n = (int)(sizeof all_status / sizeof all_status[0]);
    for (int i = 0; i < n; ++i) {
        const char *s = miniblas_status_string(all_status[i]);
        CHECKF(s && s[0] && strcmp(s, "unknown status") != 0, "status %d", (int)all_status[i]);
        for (int j = 0; j < i; ++j)
            CHECKF(s && strcmp(s, miniblas_status_string(all_status[j])) != 0,
                   "status %d and %d share a string", (int)all_status[i], (int)all_status[j]);
    }
    CHECK(strstr(miniblas_status_string(MINIBLAS_STATUS_NO_DRIVER), "driver") != NULL);
    CHECK(strstr(miniblas_status_string(MINIBLAS_STATUS_NO_DEVICE), "device") != NULL);
    CHECK(strstr(miniblas_status_string(MINIBLAS_STATUS_DRIVER_TOO_OLD), "too old") != NULL);
    CHECK(strstr(miniblas_status_string(MINIBLAS_STATUS_DEVICE_UNAVAILABLE), "unavailable") !=
          NULL);
}

/* One cause: status, and a message naming the call, the CUDA error and `has`. */
static void cause(cudaError_t e, int dv, int rv, miniblas_status_t want, const char *has) {
    char msg[320];
    memset(msg, 'x', sizeof msg);
    miniblas_status_t st = mb_create_status(e, dv, rv, "cudaFoo", msg, sizeof msg);
    CHECKF(st == want, "%s (driver %d, runtime %d): status %d, expected %d", cudaGetErrorName(e),
           dv, rv, (int)st, (int)want);
    CHECKF(memchr(msg, '\0', sizeof msg) != NULL, "%s: message not terminated", cudaGetErrorName(e));
    msg[sizeof msg - 1] = '\0';
    CHECKF(strstr(msg, "cudaFoo") && strstr(msg, cudaGetErrorName(e)) && strstr(msg, has),
           "%s: message '%s' should name the call, the error and '%s'", cudaGetErrorName(e),
           msg, has);
    CHECK(mb_create_status(e, dv, rv, "cudaFoo", NULL, 0) == want); /* no message buffer */
}

static void test_causes(void) {
    /* The runtime reports a missing driver as an insufficient one: the driver version
     * (0 = none installed) tells them apart. */
    cause(cudaErrorInsufficientDriver, 0, 13000, MINIBLAS_STATUS_NO_DRIVER, "no CUDA driver");
    cause(cudaErrorInsufficientDriver, 12020, 13000, MINIBLAS_STATUS_DRIVER_TOO_OLD, "12.2");
    cause(cudaErrorInsufficientDriver, 12020, 13000, MINIBLAS_STATUS_DRIVER_TOO_OLD, "13.0");
    cause(cudaErrorCallRequiresNewerDriver, 12040, 13000, MINIBLAS_STATUS_DRIVER_TOO_OLD,
          "older");
    cause(cudaErrorCompatNotSupportedOnDevice, 13000, 13000, MINIBLAS_STATUS_DRIVER_TOO_OLD,
          "driver");
    cause(cudaErrorStubLibrary, 0, 13000, MINIBLAS_STATUS_NO_DRIVER, "stub");
    cause(cudaErrorNoDevice, 13000, 13000, MINIBLAS_STATUS_NO_DEVICE, "no CUDA device");
    cause(cudaErrorInvalidDevice, 13000, 13000, MINIBLAS_STATUS_NO_DEVICE, "CUDA_VISIBLE_DEVICES");
    cause(cudaErrorDevicesUnavailable, 13000, 13000, MINIBLAS_STATUS_DEVICE_UNAVAILABLE,
          "exclusive");
    cause(cudaErrorSystemNotReady, 13000, 13000, MINIBLAS_STATUS_DEVICE_UNAVAILABLE, "not ready");
    cause(cudaErrorMemoryAllocation, 13000, 13000, MINIBLAS_STATUS_ALLOC_FAILED, "memory");
    cause(cudaErrorInitializationError, 13000, 13000, MINIBLAS_STATUS_CUDA_ERROR, "CUDA error");
    cause(cudaErrorSystemDriverMismatch, 13000, 13000, MINIBLAS_STATUS_CUDA_ERROR, "CUDA error");
    cause(cudaErrorLaunchFailure, 13000, 13000, MINIBLAS_STATUS_CUDA_ERROR, "CUDA error");
    /* a short buffer is cut, terminated */
    char small[8];
    memset(small, 'x', sizeof small);
    mb_create_status(cudaErrorNoDevice, 13000, 13000, "cudaGetDevice", small, sizeof small);
    CHECK(small[sizeof small - 1] == '\0');
}

static void *other_thread(void *arg) {
    const char **out = arg;
    *out = miniblas_last_create_error();
    return NULL;
}

/* What this machine has, asked of the driver library directly (not through the runtime). */
enum { HOST_NO_DRIVER, HOST_NO_DEVICE, HOST_DEVICE, HOST_UNKNOWN };
static int host_has(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) return HOST_NO_DRIVER;
    int (*cu_init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
    int (*cu_count)(int *) = (int (*)(int *))dlsym(lib, "cuDeviceGetCount");
    int kind = HOST_UNKNOWN, count = 0;
    if (cu_init && cu_count) {
        int r = cu_init(0);
        if (r == 100 /* CUDA_ERROR_NO_DEVICE */) kind = HOST_NO_DEVICE;
        else if (r == 0 && cu_count(&count) == 0) kind = count > 0 ? HOST_DEVICE : HOST_NO_DEVICE;
    }
    return kind; /* the library stays loaded: the runtime uses it too */
}

static void test_create_here(void) {
    CHECK(miniblas_create(NULL) == MINIBLAS_STATUS_INVALID_VALUE);
    CHECKF(strstr(miniblas_last_create_error(), "parameter 1") != NULL, "'%s'",
           miniblas_last_create_error());
    int kind = host_has();
    miniblas_handle_t h = (miniblas_handle_t)&kind; /* must be overwritten */
    miniblas_status_t st = miniblas_create(&h);
    const char *msg = miniblas_last_create_error();
    printf("this machine: %s; miniblas_create: %s; \"%s\"\n",
           kind == HOST_NO_DRIVER   ? "no libcuda"
           : kind == HOST_NO_DEVICE ? "a driver, no device"
           : kind == HOST_DEVICE    ? "a GPU"
                                    : "a driver whose state is unclear",
           miniblas_status_string(st), msg);
    if (st == MINIBLAS_STATUS_SUCCESS) {
        CHECK(h != NULL && h != (miniblas_handle_t)&kind);
        CHECK(msg[0] == '\0');
        CHECK(kind != HOST_NO_DRIVER);
        if (h && h != (miniblas_handle_t)&kind) miniblas_destroy(h);
        return;
    }
    CHECK(h == NULL);
    CHECKF(msg[0] != '\0' && strstr(msg, "cudaError") != NULL,
           "the message must name the CUDA error: '%s'", msg);
    if (kind == HOST_NO_DRIVER) {
        CHECKF(st == MINIBLAS_STATUS_NO_DRIVER, "no libcuda: status %s",
               miniblas_status_string(st));
        CHECKF(strstr(msg, "no CUDA driver") != NULL, "'%s'", msg);
    } else if (kind == HOST_NO_DEVICE) {
        CHECKF(st == MINIBLAS_STATUS_NO_DEVICE, "a driver, no device: status %s",
               miniblas_status_string(st));
    } else {
        CHECKF(st != MINIBLAS_STATUS_SUCCESS && st != MINIBLAS_STATUS_INVALID_VALUE,
               "status %s", miniblas_status_string(st));
    }
    /* thread-local: another thread that never called miniblas_create sees "" */
    const char *seen = NULL;
    pthread_t t;
    if (pthread_create(&t, NULL, other_thread, &seen) == 0) {
        pthread_join(t, NULL);
        CHECKF(seen && seen[0] == '\0', "other thread sees '%s'", seen ? seen : "(null)");
    }
    /* a second try says the same */
    miniblas_handle_t h2 = NULL;
    CHECK(miniblas_create(&h2) == st && h2 == NULL);
}

int main(void) {
    test_status_strings();
    test_causes();
    test_create_here();
    return cpu_check_report("create");
}
