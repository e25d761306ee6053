/* cuda_info.c: what `stencilray info` and the benchmark's header say about the CUDA devices
 * (backend.h): how many there are or why none is usable, their properties, and the driver's
 * version and clocks through NVML when it can be loaded. Apart from the backend, which
 * needs none of it. */
#include "../backend.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

int sr_cuda_device_count(char *why, size_t cap)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        /* Without a driver the runtime says "driver version is insufficient": say what is
         * really missing when libcuda cannot be loaded at all. */
        void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!driver)
            snprintf(why, cap, "no NVIDIA driver found (libcuda.so.1 is not installed)");
        else
            snprintf(why, cap, "no usable CUDA device (%s: %s)", cudaGetErrorName(e), cudaGetErrorString(e));
        if (driver) dlclose(driver);
        return -1;
    }
    if (count == 0) {
        snprintf(why, cap, "no CUDA device found");
        return -1;
    }
    return count;
}

void sr_cuda_describe(char *buf, size_t cap)
{
    char why[256];
    int count = sr_cuda_device_count(why, sizeof why);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    size_t used = driver
        ? (size_t)snprintf(buf, cap, "  CUDA runtime %d.%d, driver supports CUDA %d.%d\n", runtime / 1000,
                           (runtime % 1000) / 10, driver / 1000, (driver % 1000) / 10)
        : (size_t)snprintf(buf, cap, "  CUDA runtime %d.%d, no driver\n", runtime / 1000, (runtime % 1000) / 10);
    if (count < 0) {
        snprintf(buf + used, cap - used, "  %s\n", why);
        return;
    }
    for (int d = 0; d < count && used < cap; d++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
        used += (size_t)snprintf(buf + used, cap - used,
                                 "  device %d: %s, compute %d.%d, %d SMs, %.1f GiB, L2 %d MiB\n", d, prop.name,
                                 prop.major, prop.minor, prop.multiProcessorCount,
                                 (double)prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize >> 20);
    }
}

/* NVML, loaded at run time: the driver's version and clocks are nice to print, not worth a
 * link-time dependency on the driver's library. */
static void *sr_nvml_sym(void *lib, const char *name) { return lib ? dlsym(lib, name) : NULL; }

void sr_cuda_gpu_summary(int device, char *buf, size_t cap)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        snprintf(buf, cap, "CUDA device %d (properties unavailable)", device);
        return;
    }
    size_t used = (size_t)snprintf(buf, cap, "%s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor,
                                   prop.multiProcessorCount);
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    int (*init)(void) = (int (*)(void))sr_nvml_sym(lib, "nvmlInit_v2");
    int (*driver)(char *, unsigned) = (int (*)(char *, unsigned))sr_nvml_sym(lib, "nvmlSystemGetDriverVersion");
    int (*by_bus)(const char *, void **) = (int (*)(const char *, void **))sr_nvml_sym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    int (*clock)(void *, int, unsigned *) = (int (*)(void *, int, unsigned *))sr_nvml_sym(lib, "nvmlDeviceGetClockInfo");
    int (*max_clock)(void *, int, unsigned *) = (int (*)(void *, int, unsigned *))sr_nvml_sym(lib, "nvmlDeviceGetMaxClockInfo");
    int (*shutdown)(void) = (int (*)(void))sr_nvml_sym(lib, "nvmlShutdown");
    if (init && driver && by_bus && clock && max_clock && shutdown && init() == 0) {
        char version[96] = "?", bus[32];
        void *dev = NULL;
        unsigned sm = 0, sm_max = 0, mem = 0;
        driver(version, sizeof version);
        used += (size_t)snprintf(buf + used, cap - used, ", driver %s", version);
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess && by_bus(bus, &dev) == 0) {
            clock(dev, 1 /* NVML_CLOCK_SM */, &sm);
            max_clock(dev, 1, &sm_max);
            clock(dev, 2 /* NVML_CLOCK_MEM */, &mem);
            snprintf(buf + used, cap - used, ", SM clock %u MHz (max %u), memory clock %u MHz", sm, sm_max, mem);
        }
        shutdown();
    } else {
        int v = 0;
        cudaDriverGetVersion(&v);
        snprintf(buf + used, cap - used, ", driver for CUDA %d.%d (NVML not available)", v / 1000, (v % 1000) / 10);
    }
    if (lib) dlclose(lib);
}
