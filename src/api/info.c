/* info.c: what the library was built with and finds on this machine (sr_get_build_info). */
#include "../../include/stencilray.h"

#include <assimp/version.h>
#include <cJSON.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <strings.h>
#include <string.h>

#include "../backend/backend.h"
#include "../backend/cuda/cudaenv.h"
#include "../base/datadir.h"
#include "../io/images/image_exr.h"

#define SR_DEFAULT_SCENE_REL "scenes/default.json"   /* the file that marks the data folder */

/* When the kernels load, as the CUDA_MODULE_LOADING setting says ("" without CUDA). */
static void sr_info_kernel_loading(char *buf, size_t cap)
{
    buf[0] = '\0';
#ifdef SR_HAVE_CUDA
    const char *loading = sr_cuda_loading(), *from = sr_cuda_loading_source();
    if (!strcmp(from, "none"))
        snprintf(buf, cap, "kernels load on first launch (CUDA_MODULE_LOADING unset)");
    else
        snprintf(buf, cap, "kernels load %s (CUDA_MODULE_LOADING=%s, %s)",
                 !strcasecmp(loading, "lazy") ? "on first launch" : !strcasecmp(loading, "eager") ? "when the device opens"
                                                                                                : "as CUDA decides",
                 loading, !strcmp(from, "stencilray") ? "stencilray's default" : "from the environment");
#else
    (void)cap;
#endif
}

sr_result sr_get_build_info(sr_build_info *out)
{
    static char data[PATH_MAX], devices[4096], loading[256], assimp[48];
    if (!out) return SR_RESULT_INPUT_ERROR;
    memset(out, 0, sizeof *out);
    out->version = SR_VERSION;
    out->compiler = __VERSION__;
#ifdef SR_HAVE_CUDA
    out->cuda_built = 1;
#endif
    out->cpu_threads = omp_get_max_threads();
    const int found = sr_data_dir(SR_DEFAULT_SCENE_REL, data, sizeof data);
    out->data_dir = found ? data : "";
    out->data_looked_in = found ? "" : data;
    sr_cuda_describe(devices, sizeof devices);
    out->cuda_devices = devices;
    sr_info_kernel_loading(loading, sizeof loading);
    out->kernel_loading = loading;
    out->cjson = cJSON_Version();
    snprintf(assimp, sizeof assimp, "%u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    out->assimp = assimp;
    out->openexr = sr_exr_version();
    return SR_RESULT_OK;
}
