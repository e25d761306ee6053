/* module.c: _stencilray, the C extension under the Python package `stencilray`: one type,
 * Context, over an sr_context of include/stencilray.h (compiled against the header, so the
 * structs are the library's own), and the library's errors as Python exceptions. The
 * package (stencilray/__init__.py) gives it its Python shape.
 *
 * The GIL is released while the library works (loads, renders, saves). The progress and log
 * callbacks run on the library's threads and take the GIL back to call Python. A context is
 * used by one Python thread at a time (a second one gets stencilray.Error); loads and the
 * first render after a load hold a lock shared by every context, as stencilray.h asks. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stencilray.h>

static PyObject *sr_py_error, *sr_py_input_error, *sr_py_runtime_error;
/* stencilray.h: loads and the first render after a load must not overlap across contexts. */
static PyThread_type_lock sr_py_build_lock;

typedef struct {
    PyObject_HEAD
    sr_context *ctx;
    PyObject *log;      /* a callable (level, message) or None                                */
    int busy;           /* a call on this context is under way in some thread (GIL held to test) */
    int fresh;          /* a scene was loaded and not rendered yet: the next render builds the BVH */
} sr_py_context;

/* The exception for a result, with the context's last message. */
static PyObject *sr_py_raise(sr_py_context *self, sr_result r)
{
    PyObject *type = r == SR_RESULT_INPUT_ERROR ? sr_py_input_error
                   : r == SR_RESULT_RUNTIME_ERROR ? sr_py_runtime_error : sr_py_error;
    PyErr_SetString(type, sr_last_error(self->ctx));
    return NULL;
}

/* Marks the context busy; NULL (an exception set) when closed or busy in another thread. */
static int sr_py_enter(sr_py_context *self)
{
    if (!self->ctx) {
        PyErr_SetString(sr_py_error, "the renderer is closed");
        return 0;
    }
    if (self->busy) {
        PyErr_SetString(sr_py_error, "the renderer is in use by another thread (a render is running); "
                                     "expected one thread at a time per renderer");
        return 0;
    }
    self->busy = 1;
    return 1;
}

static void sr_py_lock_build(void)
{
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(sr_py_build_lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

/* The log callback: runs on the thread that called into the library, without the GIL. */
static void sr_py_log(void *user, sr_log_level level, const char *message)
{
    sr_py_context *self = (sr_py_context *)user;
    PyGILState_STATE g = PyGILState_Ensure();
    if (self->log && self->log != Py_None) {
        PyObject *r = PyObject_CallFunction(self->log, "is", (int)level, message);
        if (r) Py_DECREF(r);
        else PyErr_WriteUnraisable(self->log);
    }
    PyGILState_Release(g);
}

static int sr_py_context_init(sr_py_context *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = { "log", NULL };
    PyObject *log = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:Context", kwlist, &log)) return -1;
    if (log != Py_None && !PyCallable_Check(log)) {
        PyErr_SetString(PyExc_TypeError, "log: expected a callable (level, message) or None");
        return -1;
    }
    if (self->ctx) return 0;
    Py_INCREF(log);
    self->log = log;
    self->ctx = sr_create(&(sr_context_desc){ .log = sr_py_log, .log_user = self });
    if (!self->ctx) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void sr_py_context_free(sr_py_context *self)
{
    if (!self->ctx) return;
    sr_context *ctx = self->ctx;
    self->ctx = NULL;
    Py_BEGIN_ALLOW_THREADS
    sr_destroy(ctx);
    Py_END_ALLOW_THREADS
}

static void sr_py_context_dealloc(sr_py_context *self)
{
    sr_py_context_free(self);
    Py_CLEAR(self->log);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *sr_py_close(sr_py_context *self, PyObject *unused)
{
    (void)unused;
    if (self->busy) {
        PyErr_SetString(sr_py_error, "close: the renderer is in use by another thread; expected the render to end first");
        return NULL;
    }
    sr_py_context_free(self);
    Py_RETURN_NONE;
}

/* load_file(path) and load_json(text, name): the GIL released, the build lock held. */
static PyObject *sr_py_loaded(sr_py_context *self, sr_result r)
{
    self->busy = 0;
    self->fresh = r == SR_RESULT_OK;
    if (r != SR_RESULT_OK) return sr_py_raise(self, r);
    Py_RETURN_NONE;
}

static PyObject *sr_py_load_file(sr_py_context *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:load_file", PyUnicode_FSConverter, &path)) return NULL;
    if (!sr_py_enter(self)) {
        Py_DECREF(path);
        return NULL;
    }
    sr_result r;
    sr_py_lock_build();
    Py_BEGIN_ALLOW_THREADS
    r = sr_load_file(self->ctx, PyBytes_AS_STRING(path));
    PyThread_release_lock(sr_py_build_lock);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    return sr_py_loaded(self, r);
}

static PyObject *sr_py_load_json(sr_py_context *self, PyObject *args)
{
    const char *text, *name = NULL;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "s#z:load_json", &text, &len, &name)) return NULL;
    if (len == 0) {
        PyErr_SetString(sr_py_input_error, "load_json: empty text; expected a scene as JSON");
        return NULL;
    }
    if (!sr_py_enter(self)) return NULL;
    sr_result r;
    sr_py_lock_build();
    Py_BEGIN_ALLOW_THREADS
    r = sr_load_json(self->ctx, text, (size_t)len, name);
    PyThread_release_lock(sr_py_build_lock);
    Py_END_ALLOW_THREADS
    return sr_py_loaded(self, r);
}

/* set_frame(width, height, spp, depth, integrator, mask, seed, device, gpu, camera): the
 * sr_frame_desc fields (0: the scene's value or the default); camera is None or a tuple
 * (px, py, pz, lx, ly, lz, fov). */
static PyObject *sr_py_set_frame(sr_py_context *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = { "width", "height", "spp", "depth", "integrator", "mask", "seed", "device", "gpu",
                              "camera", NULL };
    sr_frame_desc d = { 0 };
    int integrator = 0, mask = 0, device = 0;
    PyObject *camera = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|IIIIiiIiIO:set_frame", kwlist, &d.width, &d.height, &d.spp,
                                     &d.depth, &integrator, &mask, &d.seed, &device, &d.gpu, &camera))
        return NULL;
    d.integrator = (sr_integrator_kind)integrator;
    d.mask = (sr_mask_kind)mask;
    d.device = (sr_device_kind)device;
    if (camera != Py_None) {
        sr_camera_view *c = &d.camera;
        if (!PyArg_ParseTuple(camera, "fffffff:camera", &c->position[0], &c->position[1], &c->position[2],
                              &c->look_at[0], &c->look_at[1], &c->look_at[2], &c->fov))
            return NULL;
    }
    if (!sr_py_enter(self)) return NULL;
    const sr_result r = sr_set_frame(self->ctx, &d);
    self->busy = 0;
    if (r != SR_RESULT_OK) return sr_py_raise(self, r);
    Py_RETURN_NONE;
}

/* get_frame(): the frame the next render draws, every field filled, as a dict. */
static PyObject *sr_py_get_frame(sr_py_context *self, PyObject *unused)
{
    (void)unused;
    if (!sr_py_enter(self)) return NULL;
    sr_frame_desc d;
    const sr_result r = sr_get_frame(self->ctx, &d);
    self->busy = 0;
    if (r != SR_RESULT_OK) {
        PyErr_SetString(sr_py_input_error, "no scene is loaded");
        return NULL;
    }
    const sr_camera_view *c = &d.camera;
    return Py_BuildValue("{sIsIsIsIsisisIsisIs{s(fff)s(fff)sf}}", "width", d.width, "height", d.height, "spp", d.spp,
                         "depth", d.depth, "integrator", (int)d.integrator, "mask", (int)d.mask, "seed", d.seed,
                         "device", (int)d.device, "gpu", d.gpu, "camera", "position", c->position[0], c->position[1],
                         c->position[2], "look_at", c->look_at[0], c->look_at[1], c->look_at[2], "fov", c->fov);
}

/* The progress callback: on a library thread, without the GIL. The first Python exception
 * cancels the render; render() raises it afterwards in the calling thread. */
typedef struct {
    PyObject *fn;
    PyObject *type, *value, *traceback;
} sr_py_progress_call;

static int sr_py_progress(void *user, uint32_t done, uint32_t total)
{
    sr_py_progress_call *call = (sr_py_progress_call *)user;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = call->type != NULL;
    if (!stop) {
        PyObject *r = PyObject_CallFunction(call->fn, "II", done, total);
        stop = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
        if (stop < 0) {
            PyErr_Fetch(&call->type, &call->value, &call->traceback);
            stop = 1;
        }
    }
    PyGILState_Release(g);
    return stop;
}

/* render(progress=None): the frame's samples into the film, the GIL released. progress(done,
 * total) is called before each pass and at the end; a true result cancels. Returns True when
 * every sample was rendered, False when cancelled (the film keeps the samples done). */
static PyObject *sr_py_render(sr_py_context *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = { "progress", NULL };
    sr_py_progress_call call = { NULL, NULL, NULL, NULL };
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:render", kwlist, &call.fn)) return NULL;
    if (call.fn == Py_None) call.fn = NULL;
    if (call.fn && !PyCallable_Check(call.fn)) {
        PyErr_SetString(PyExc_TypeError, "progress: expected a callable (done, total) or None");
        return NULL;
    }
    if (!sr_py_enter(self)) return NULL;
    const int fresh = self->fresh;
    if (fresh) sr_py_lock_build();
    sr_result r;
    Py_BEGIN_ALLOW_THREADS
    r = sr_render_progress(self->ctx, call.fn ? sr_py_progress : NULL, &call);
    if (fresh) PyThread_release_lock(sr_py_build_lock);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (r == SR_RESULT_OK || r == SR_RESULT_CANCELLED) self->fresh = 0;
    if (call.type) {
        PyErr_Restore(call.type, call.value, call.traceback);
        return NULL;
    }
    if (r == SR_RESULT_CANCELLED) Py_RETURN_FALSE;
    if (r != SR_RESULT_OK) return sr_py_raise(self, r);
    Py_RETURN_TRUE;
}

/* film_size(): (width, height, samples) of the film of the last render. */
static PyObject *sr_py_film_size(sr_py_context *self, PyObject *unused)
{
    (void)unused;
    if (!sr_py_enter(self)) return NULL;
    uint32_t w, h, samples;
    const sr_result r = sr_film_size(self->ctx, &w, &h, &samples);
    self->busy = 0;
    if (r != SR_RESULT_OK) return sr_py_raise(self, r);
    return Py_BuildValue("(III)", w, h, samples);
}

/* read_pixels(channels): the film as linear float32, row 0 at the top, in a bytearray. */
static PyObject *sr_py_read_pixels(sr_py_context *self, PyObject *args)
{
    unsigned channels;
    if (!PyArg_ParseTuple(args, "I:read_pixels", &channels)) return NULL;
    if (!sr_py_enter(self)) return NULL;
    uint32_t w = 0, h = 0;
    sr_film_size(self->ctx, &w, &h, NULL);
    const size_t n = (size_t)w * h * (channels == 4 ? 4u : 3u);
    PyObject *buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(sizeof(float) * n));
    if (!buf) {
        self->busy = 0;
        return NULL;
    }
    const sr_result r = sr_read_pixels(self->ctx, (float *)(void *)PyByteArray_AS_STRING(buf), n, channels);
    self->busy = 0;
    if (r != SR_RESULT_OK) {
        Py_DECREF(buf);
        return sr_py_raise(self, r);
    }
    return buf;
}

/* save(path, exposure, tonemap, exr_float): the GIL released while writing. */
static PyObject *sr_py_save(sr_py_context *self, PyObject *args)
{
    PyObject *path;
    float exposure;
    int tonemap, exr_float;
    if (!PyArg_ParseTuple(args, "O&fip:save", PyUnicode_FSConverter, &path, &exposure, &tonemap, &exr_float))
        return NULL;
    if (!sr_py_enter(self)) {
        Py_DECREF(path);
        return NULL;
    }
    const sr_save_desc d = { .exposure = exposure, .tonemap = (sr_tonemap_kind)tonemap, .exr_float = exr_float };
    sr_result r;
    Py_BEGIN_ALLOW_THREADS
    r = sr_save(self->ctx, PyBytes_AS_STRING(path), &d);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    Py_DECREF(path);
    if (r != SR_RESULT_OK) return sr_py_raise(self, r);
    Py_RETURN_NONE;
}

static PyMethodDef sr_py_context_methods[] = {
    { "load_file", (PyCFunction)sr_py_load_file, METH_VARARGS, "load_file(path): a JSON scene or a glTF file" },
    { "load_json", (PyCFunction)sr_py_load_json, METH_VARARGS, "load_json(text, name): a scene from JSON text" },
    { "set_frame", (PyCFunction)(void (*)(void))sr_py_set_frame, METH_VARARGS | METH_KEYWORDS,
      "set_frame(**fields): the sr_frame_desc of the next render" },
    { "get_frame", (PyCFunction)sr_py_get_frame, METH_NOARGS, "get_frame(): the frame the next render draws" },
    { "render", (PyCFunction)(void (*)(void))sr_py_render, METH_VARARGS | METH_KEYWORDS,
      "render(progress=None): True when done, False when cancelled" },
    { "film_size", (PyCFunction)sr_py_film_size, METH_NOARGS, "film_size(): (width, height, samples)" },
    { "read_pixels", (PyCFunction)sr_py_read_pixels, METH_VARARGS, "read_pixels(channels): float32 bytes" },
    { "save", (PyCFunction)sr_py_save, METH_VARARGS, "save(path, exposure, tonemap, exr_float)" },
    { "close", (PyCFunction)sr_py_close, METH_NOARGS, "close(): free the scene, the device and the film" },
    { NULL, NULL, 0, NULL },
};

static PyTypeObject sr_py_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stencilray._stencilray.Context",
    .tp_basicsize = sizeof(sr_py_context),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An sr_context of stencilray.h (use stencilray.Renderer)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)sr_py_context_init,
    .tp_dealloc = (destructor)sr_py_context_dealloc,
    .tp_methods = sr_py_context_methods,
};

static PyObject *sr_py_version(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(sr_version());
}

static PyMethodDef sr_py_module_methods[] = {
    { "version", sr_py_version, METH_NOARGS, "version(): the library's \"major.minor.patch\"" },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef sr_py_module = {
    PyModuleDef_HEAD_INIT, "_stencilray", "The stencilray C library (include/stencilray.h)", -1, sr_py_module_methods,
    NULL, NULL, NULL, NULL,
};

/* An exception class stencilray.NAME with the given bases, added to the module. */
static PyObject *sr_py_add_error(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
    char qualified[64];
    snprintf(qualified, sizeof qualified, "stencilray.%s", name);
    PyObject *type = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
    if (type && PyModule_AddObject(m, name, type) < 0) return NULL;
    Py_XINCREF(type);   /* the module's reference was stolen; keep one here */
    return type;
}

PyMODINIT_FUNC PyInit__stencilray(void)
{
    if (PyType_Ready(&sr_py_context_type) < 0) return NULL;
    if (!(sr_py_build_lock = PyThread_allocate_lock())) return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&sr_py_module);
    if (!m) return NULL;
    Py_INCREF(&sr_py_context_type);
    if (PyModule_AddObject(m, "Context", (PyObject *)&sr_py_context_type) < 0) goto fail;
    if (!(sr_py_error = sr_py_add_error(m, "Error", PyExc_Exception, "A failure reported by the stencilray library")))
        goto fail;
    PyObject *input_bases = PyTuple_Pack(2, sr_py_error, PyExc_ValueError);
    PyObject *runtime_bases = PyTuple_Pack(2, sr_py_error, PyExc_RuntimeError);
    if (input_bases && runtime_bases) {
        sr_py_input_error = sr_py_add_error(m, "InputError", input_bases,
                                            "The input is wrong: a scene (file:line:column), a setting, a call out of order");
        sr_py_runtime_error = sr_py_add_error(m, "RuntimeError", runtime_bases,
                                              "The machine failed: out of memory, a device or an I/O error");
    }
    Py_XDECREF(input_bases);
    Py_XDECREF(runtime_bases);
    if (!sr_py_input_error || !sr_py_runtime_error) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
