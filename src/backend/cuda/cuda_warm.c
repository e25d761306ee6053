/* cuda_warm.c: the CUDA contexts of a command's devices created on a thread of their own
 * (backend.h, sr_backend_warm_begin), so that the driver's start, the context and the
 * kernels' loading (eager: cudaenv.h) overlap the scene's reading instead of following it.
 * The primary context is the process's, one a device: the backend that opens the device
 * later finds it made. Errors are left for that open to report. */
#include "../backend.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>

struct sr_backend_warm {
    pthread_t thread;
    uint32_t n;
    int devices[];
};

static void *sr_warm_run(void *arg)
{
    const sr_backend_warm *w = (const sr_backend_warm *)arg;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) return NULL;
    for (uint32_t k = 0; k < w->n; k++) {
        uint32_t seen = 0;   /* a device named twice (several workers on one card) opens once */
        for (uint32_t j = 0; j < k; j++) seen |= w->devices[j] == w->devices[k];
        if (seen || w->devices[k] < 0 || w->devices[k] >= count) continue;
        if (cudaSetDevice(w->devices[k]) == cudaSuccess) (void)cudaFree(NULL);   /* makes the primary context */
    }
    return NULL;
}

sr_backend_warm *sr_backend_warm_begin(const sr_worker_device *workers, uint32_t n)
{
    uint32_t gpus = 0;
    for (uint32_t k = 0; k < n; k++) gpus += workers[k].kind != SR_BACKEND_CPU;
    if (!gpus) return NULL;
    sr_backend_warm *w = (sr_backend_warm *)malloc(sizeof *w + gpus * sizeof(int));
    if (!w) return NULL;
    w->n = 0;
    for (uint32_t k = 0; k < n; k++)
        if (workers[k].kind != SR_BACKEND_CPU) w->devices[w->n++] = workers[k].device;
    if (pthread_create(&w->thread, NULL, sr_warm_run, w)) {
        free(w);
        return NULL;
    }
    return w;
}

double sr_backend_warm_end(sr_backend_warm *w)
{
    if (!w) return 0.0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_join(w->thread, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    free(w);
    return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}
