/* datadir.c: finding the shipped files, installed or in the source tree (datadir.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sr_data_dir(const char *rel, char *dir, size_t cap)
{
    char exe[PATH_MAX] = "";
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    if (slash) *slash = '\0';
    char candidates[2][PATH_MAX + 32];   /* exe is at most PATH_MAX - 1 */
    int count = 0;
    if (slash) snprintf(candidates[count++], sizeof candidates[0], "%s/%s", exe, SR_DATA_FROM_BIN);
    snprintf(candidates[count++], sizeof candidates[0], "%s", SR_DATA_DIR);
    for (int k = 0; k < count; k++) {
        char file[2 * PATH_MAX];
        const int len = snprintf(file, sizeof file, "%s/%s", candidates[k], rel);
        if (len < 0 || (size_t)len >= sizeof file || access(file, R_OK) != 0) continue;
        char resolved[PATH_MAX];
        snprintf(dir, cap, "%s", realpath(candidates[k], resolved) ? resolved : candidates[k]);
        return 1;
    }
    snprintf(dir, cap, "%s%s%s", candidates[0], count > 1 ? ", " : "", count > 1 ? candidates[1] : "");
    return 0;
}
