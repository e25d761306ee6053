/* denoise.c: Open Image Denoise loaded with dlopen (denoise.h). */
#include "denoise.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>

#include "../base/test_hooks.h"

#ifdef SR_OIDN_HEADER
/* A system OIDN (find_package(OpenImageDenoise)): its header gives the types and constants. */
#include <OpenImageDenoise/oidn.h>
#else
/* PyPI's oidn wheel (.ci/install-deps) ships the library without its header, so the few
 * types and constants used here are declared as OIDN's C API (versions 1.4 and 2.x) has them. */
typedef struct OIDNDeviceImpl *OIDNDevice;
typedef struct OIDNFilterImpl *OIDNFilter;
typedef enum { OIDN_DEVICE_TYPE_CPU = 1 } OIDNDeviceType;
typedef enum { OIDN_FORMAT_FLOAT3 = 3 } OIDNFormat;
typedef enum { OIDN_ERROR_NONE = 0 } OIDNError;
#endif

/* The C API functions called here, looked up by name, with OIDN's signatures. */
typedef struct sr_oidn_api {
    OIDNDevice (*new_device)(OIDNDeviceType type);
    void (*commit_device)(OIDNDevice device);
    OIDNError (*get_device_error)(OIDNDevice device, const char **message);
    void (*release_device)(OIDNDevice device);
    OIDNFilter (*new_filter)(OIDNDevice device, const char *type);
    void (*set_shared_filter_image)(OIDNFilter filter, const char *name, void *ptr, OIDNFormat format, size_t width,
                                    size_t height, size_t byte_offset, size_t byte_pixel_stride, size_t byte_row_stride);
    void (*set_filter_bool)(OIDNFilter filter, const char *name, bool value);  /* 2.x: Bool, 1.x: 1b */
    void (*commit_filter)(OIDNFilter filter);
    void (*execute_filter)(OIDNFilter filter);
    void (*release_filter)(OIDNFilter filter);
} sr_oidn_api;

static sr_oidn_api sr_oidn;
static int sr_oidn_loaded;
static pthread_once_t sr_oidn_once = PTHREAD_ONCE_INIT;

/* The library as the system names it (OIDN 2, then 1.x), then where .ci/install-deps puts
 * the wheel's copy (SR_OIDN_DIR: its RPATH, $ORIGIN/../lib, finds the TBB beside it). */
static void *sr_oidn_open(void)
{
    static const char *const names[] = { "libOpenImageDenoise.so.2", "libOpenImageDenoise.so.1",
                                         "libOpenImageDenoise.so.0",
#ifdef SR_OIDN_DIR
                                         SR_OIDN_DIR "/lib/libOpenImageDenoise.so.1",
#endif
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) return lib;
    }
    return NULL;
}

#define SR_OIDN_SYM(field, name) (*(void **)&sr_oidn.field = dlsym(lib, name)) != NULL

static void sr_oidn_load(void)
{
    void *lib = sr_oidn_open();
    if (!lib) return;
    if (!dlsym(lib, "oidnSetFilterBool") && dlsym(lib, "oidnSetFilter1b"))
        *(void **)&sr_oidn.set_filter_bool = dlsym(lib, "oidnSetFilter1b");
    else
        *(void **)&sr_oidn.set_filter_bool = dlsym(lib, "oidnSetFilterBool");
    sr_oidn_loaded = sr_oidn.set_filter_bool && SR_OIDN_SYM(new_device, "oidnNewDevice") &&
                     SR_OIDN_SYM(commit_device, "oidnCommitDevice") && SR_OIDN_SYM(get_device_error, "oidnGetDeviceError") &&
                     SR_OIDN_SYM(release_device, "oidnReleaseDevice") && SR_OIDN_SYM(new_filter, "oidnNewFilter") &&
                     SR_OIDN_SYM(set_shared_filter_image, "oidnSetSharedFilterImage") &&
                     SR_OIDN_SYM(commit_filter, "oidnCommitFilter") && SR_OIDN_SYM(execute_filter, "oidnExecuteFilter") &&
                     SR_OIDN_SYM(release_filter, "oidnReleaseFilter");
    if (!sr_oidn_loaded) dlclose(lib);
}

int sr_denoise_lib_available(void)
{
    const char *off = sr_test_hook(SR_HOOK_NO_DENOISER);
    if (off && *off && *off != '0') return 0;
    pthread_once(&sr_oidn_once, sr_oidn_load);
    return sr_oidn_loaded;
}

/* SR_OK when the device reports no error, else SR_ERR_RUNTIME with its message. */
static sr_status sr_oidn_check(OIDNDevice device, const char *step, sr_error *err)
{
    const char *message = NULL;
    if (sr_oidn.get_device_error(device, &message) == OIDN_ERROR_NONE) return SR_OK;
    char text[512];
    sr_sanitize(text, sizeof text, message ? message : "no message");
    return sr_fail(err, SR_ERR_RUNTIME, "denoise: Open Image Denoise failed to %s: %s", step, text);
}

/* The filter reads its inputs only; OIDN's API takes every image as void *. */
static void sr_oidn_image(OIDNFilter filter, const char *name, const float *pixels, size_t width, size_t height)
{
    sr_oidn.set_shared_filter_image(filter, name, (void *)pixels, OIDN_FORMAT_FLOAT3, width, height, 0, 0, 0);
}

sr_status sr_denoise_image(size_t width, size_t height, const float *rgb, const float *albedo, const float *normal,
                           float *out, sr_error *err)
{
    if (!sr_denoise_lib_available()) return sr_fail(err, SR_ERR_INPUT, "%s", SR_DENOISE_MISSING);
    if (!rgb || !out || width == 0 || height == 0)
        return sr_fail(err, SR_ERR_INPUT, "denoise: a %zux%zu image%s; expected pixels of a nonempty image", width, height,
                       rgb && out ? "" : " without pixels");
    OIDNDevice device = sr_oidn.new_device(OIDN_DEVICE_TYPE_CPU);
    if (!device) return sr_fail(err, SR_ERR_RUNTIME, "denoise: Open Image Denoise could not create a CPU device");
    sr_oidn.commit_device(device);
    sr_status s = sr_oidn_check(device, "start its CPU device", err);
    OIDNFilter filter = s ? NULL : sr_oidn.new_filter(device, "RT");
    if (!s) s = sr_oidn_check(device, "create its RT filter", err);
    if (!s) {
        sr_oidn_image(filter, "color", rgb, width, height);
        if (albedo) sr_oidn_image(filter, "albedo", albedo, width, height);
        if (albedo && normal) sr_oidn_image(filter, "normal", normal, width, height);
        sr_oidn_image(filter, "output", out, width, height);
        sr_oidn.set_filter_bool(filter, "hdr", true);
        sr_oidn.set_filter_bool(filter, "cleanAux", false);   /* the guides are as noisy as the image */
        sr_oidn.commit_filter(filter);
        s = sr_oidn_check(device, "set up its RT filter", err);
    }
    if (!s) {
        sr_oidn.execute_filter(filter);
        s = sr_oidn_check(device, "denoise the image", err);
    }
    if (filter) sr_oidn.release_filter(filter);
    sr_oidn.release_device(device);
    return s;
}
