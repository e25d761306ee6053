/* san_keep_dri.c: linked into the binary only in AddressSanitizer builds (CMakeLists.txt,
 * hardening block). Mesa's DRI driver (swrast_dri.so under Xvfb) is dlclose'd at
 * glfwTerminate while its globals still hold two small blocks it never frees; once the
 * module is gone LeakSanitizer reports them from "<unknown module>", which no suppression
 * can name. Keeping *_dri.so modules mapped until exit keeps those blocks reachable, like
 * any library's globals at exit; every other dlclose, and every other leak, is unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

int dlclose(void *handle)
{
    static int (*next)(void *);
    if (!next) next = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
        size_t n = strlen(map->l_name);
        if (n >= 7 && strcmp(map->l_name + n - 7, "_dri.so") == 0) return 0;
    }
    return next ? next(handle) : -1;
}
