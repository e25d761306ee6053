/* test_api_threads.c: two contexts on two threads at once, each loading its scene (a plain
 * OBJ the direct reader takes, and the shipped mesh scene assimp reads) and rendering it, give the same films as one context alone on one
 * thread, bit for bit, and the process's build and load counters miss none of their calls. */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/stencilray.h"
#include "../../src/io/meshes/mesh.h"
#include "../../src/render/bvh.h"

#define SR_W 48u
#define SR_H 27u
#define SR_ROUNDS 3

typedef struct sr_job {
    const char *scene;                  /* a scene file */
    float film[3u * SR_W * SR_H];       /* the last round's */
    pthread_barrier_t *start;           /* NULL: run at once */
    char error[512];
} sr_job;

/* One context from the scene's load to its film, `rounds` times over. */
static void *sr_run_job(void *arg)
{
    sr_job *job = (sr_job *)arg;
    for (int round = 0; round < SR_ROUNDS; round++) {
        sr_context *ctx = sr_create(NULL);
        if (!ctx) { snprintf(job->error, sizeof job->error, "sr_create failed"); return NULL; }
        if (job->start) pthread_barrier_wait(job->start);   /* both threads load together */
        sr_result r = sr_load_file(ctx, job->scene);
        if (!r) r = sr_set_frame(ctx, &(sr_frame_desc){ .width = SR_W, .height = SR_H, .spp = 2,
                                                        .device = SR_DEVICE_KIND_CPU });
        if (!r) r = sr_render(ctx);
        if (!r) r = sr_read_pixels(ctx, job->film, sizeof job->film / sizeof job->film[0], 3);
        if (r) snprintf(job->error, sizeof job->error, "%s, round %d: %s", job->scene, round, sr_last_error(ctx));
        sr_destroy(ctx);
        if (r) return NULL;
    }
    return NULL;
}

/* A scene of a pyramid from a plain OBJ file (direct reader) on a plane; its path in buf. */
static const char *sr_write_pyramid_scene(char *buf, size_t cap)
{
    char obj[1024];
    sr_test_write_file(obj, sizeof obj, "threads_pyramid.obj",
                       "v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nv 0 1.5 0\n"
                       "f 1 2 5\nf 2 3 5\nf 3 4 5\nf 4 1 5\nf 1 3 2\nf 1 4 3\n");
    char json[2048];
    snprintf(json, sizeof json,
             "{\"camera\": {\"position\": [0, 2, 5], \"look_at\": [0, 0.5, 0], \"fov\": 40},\n"
             " \"image\": {\"width\": 64, \"height\": 36, \"spp\": 1, \"max_depth\": 4},\n"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.6, 0.4]}},\n"
             " \"objects\": [{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 1, 0], \"material\": \"m\"},\n"
             "   {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}],\n"
             " \"lights\": [{\"type\": \"point\", \"position\": [2, 5, 3], \"color\": [1, 1, 1], \"intensity\": 60}]}\n",
             obj);
    return sr_test_write_file(buf, cap, "threads_pyramid.json", json);
}

static void test_two_contexts_on_two_threads(void **state)
{
    (void)state;
    static char pyramid[1024], mesh[4096];
    sr_write_pyramid_scene(pyramid, sizeof pyramid);
    sr_test_source_path(mesh, sizeof mesh, "scenes/mesh.json");
    static sr_job alone[2] = { { .scene = pyramid }, { .scene = mesh } };
    static sr_job together[2] = { { .scene = pyramid }, { .scene = mesh } };
    uint32_t builds = sr_bvh_builds(), loads = sr_mesh_direct_loads();
    for (int i = 0; i < 2; i++) {
        sr_run_job(&alone[i]);
        if (alone[i].error[0]) fail_msg("%s", alone[i].error);
    }
    const uint32_t builds_alone = sr_bvh_builds() - builds, loads_alone = sr_mesh_direct_loads() - loads;
    assert_true(builds_alone >= 2u * SR_ROUNDS);   /* a BVH a load at least */
    assert_true(loads_alone >= SR_ROUNDS);         /* the pyramid's OBJ, read directly */

    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
    pthread_t threads[2];
    builds = sr_bvh_builds();
    loads = sr_mesh_direct_loads();
    for (int i = 0; i < 2; i++) {
        together[i].start = &start;
        assert_int_equal(pthread_create(&threads[i], NULL, sr_run_job, &together[i]), 0);
    }
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(threads[i], NULL), 0);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < 2; i++) {
        if (together[i].error[0]) fail_msg("%s", together[i].error);
        if (memcmp(together[i].film, alone[i].film, sizeof alone[i].film))
            fail_msg("%s: the film rendered beside another context differs from the one rendered alone", alone[i].scene);
    }
    printf("  %u BVH builds and %u direct mesh loads on two threads, as on one\n", sr_bvh_builds() - builds,
           sr_mesh_direct_loads() - loads);
    assert_int_equal(sr_bvh_builds() - builds, builds_alone);
    assert_int_equal(sr_mesh_direct_loads() - loads, loads_alone);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_contexts_on_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
