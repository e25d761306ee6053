/* egl_context.c: see egl_context.h. Built into the tests that need it when EGL is found. */
#include "egl_context.h"

#define EGL_NO_X11 1   /* eglplatform.h: plain pointers, no Xlib */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>

static EGLDisplay sr_dpy = EGL_NO_DISPLAY;

int sr_test_egl_context(int w, int h, char *why, size_t cap)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!query_devices || !platform_display) {
        snprintf(why, cap, "EGL has no eglQueryDevicesEXT / eglGetPlatformDisplayEXT (EGL_EXT_device_enumeration)");
        return 0;
    }
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (!query_devices(16, devices, &count) || count == 0) {
        snprintf(why, cap, "eglQueryDevicesEXT found no EGL device (error 0x%x)", eglGetError());
        return 0;
    }
    static const EGLint config_attrs[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                           EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE };
    const EGLint pbuffer_attrs[] = { EGL_WIDTH, w, EGL_HEIGHT, h, EGL_NONE };
    static const EGLint context_attrs[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
    snprintf(why, cap, "no EGL device gave an OpenGL 3.3 core context");
    for (EGLint i = 0; i < count; i++) {
        EGLDisplay dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
        EGLint major = 0, minor = 0;
        if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) continue;
        EGLConfig config;
        EGLint n = 0;
        EGLSurface surface = EGL_NO_SURFACE;
        EGLContext ctx = EGL_NO_CONTEXT;
        if (eglChooseConfig(dpy, config_attrs, &config, 1, &n) && n == 1 &&
            (surface = eglCreatePbufferSurface(dpy, config, pbuffer_attrs)) != EGL_NO_SURFACE && eglBindAPI(EGL_OPENGL_API) &&
            (ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attrs)) != EGL_NO_CONTEXT &&
            eglMakeCurrent(dpy, surface, surface, ctx)) {
            sr_dpy = dpy;
            printf("EGL %d.%d, device %d of %d\n", major, minor, (int)i, (int)count);
            return 1;
        }
        snprintf(why, cap, "EGL device %d: no pbuffer + GL 3.3 core context (EGL error 0x%x)", (int)i, eglGetError());
        eglTerminate(dpy);
    }
    return 0;
}

void sr_test_egl_end(void)
{
    if (sr_dpy != EGL_NO_DISPLAY) eglTerminate(sr_dpy);
    sr_dpy = EGL_NO_DISPLAY;
}
