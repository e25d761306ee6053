/* env_settings.h: the documented user settings that the program takes from the environment
 * (docs/commands.md) and passes to the library, which reads none of them itself. */
#ifndef SR_ENV_SETTINGS_H
#define SR_ENV_SETTINGS_H

/* $SR_HOST_MEM_LIMIT and $SR_DEVICE_MEM_LIMIT (e.g. 8G, 64M): the memory caps every check
 * plans with (sr_set_memory_limits). A value that is not a size is ignored, as an unset one. */
void sr_env_settings_apply(void);

#endif
