/* env_settings.c: user settings from the environment, handed to the library (env_settings.h). */
#include "env_settings.h"
#include "../../include/stencilray.h"

#include <stdlib.h>

void sr_env_settings_apply(void)
{
    const sr_memory_limits limits = { .host_bytes = sr_memory_size(getenv("SR_HOST_MEM_LIMIT")),
                                      .device_bytes = sr_memory_size(getenv("SR_DEVICE_MEM_LIMIT")),
                                      .host_name = "$SR_HOST_MEM_LIMIT" };
    sr_set_memory_limits(&limits);
}
