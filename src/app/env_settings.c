/* env_settings.c: user settings from the environment, handed to the library (env_settings.h). */
#include "env_settings.h"
#include "../base/mem_limits.h"

#include <stdlib.h>

void sr_env_settings_apply(void)
{
    sr_mem_limits_set(sr_mem_size_parse(getenv("SR_HOST_MEM_LIMIT")), sr_mem_size_parse(getenv("SR_DEVICE_MEM_LIMIT")),
                      "$SR_HOST_MEM_LIMIT");
}
