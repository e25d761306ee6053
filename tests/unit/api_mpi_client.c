/* api_mpi_client.c: a client of include/stencilray.h alone that renders a frame over MPI ranks
 * (test_mpi runs it under mpirun): SCENE OUT.exr [WIDTH]. Every rank renders its share; rank
 * 0 writes the frame as float EXR. Exit 0, or the failure's sr_result after its message. */
#include "../../include/stencilray.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    char msg[512];
    if (sr_mpi_begin(&argc, &argv, msg, sizeof msg) != SR_RESULT_OK) {
        fprintf(stderr, "api_mpi_client: %s\n", msg);
        return 2;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: api_mpi_client SCENE OUT.exr [WIDTH]\n");
        sr_mpi_end();
        return 2;
    }
    sr_context *ctx = sr_create(NULL);
    const uint32_t width = argc > 3 ? (uint32_t)atoi(argv[3]) : 40u;
    sr_result r = ctx ? sr_load_file(ctx, argv[1]) : SR_RESULT_RUNTIME_ERROR;
    if (r == SR_RESULT_OK)
        r = sr_set_frame(ctx, &(sr_frame_desc){ .width = width, .height = 24, .spp = 40, .depth = 3,
                                               .device = SR_DEVICE_KIND_CPU });
    if (r == SR_RESULT_OK) r = sr_render(ctx);
    uint32_t samples = 0;
    sr_film_size(ctx, NULL, NULL, &samples);
    if (r == SR_RESULT_OK && samples != (sr_mpi_rank() == 0 ? 40u : 0u)) {
        fprintf(stderr, "api_mpi_client: rank %d of %d holds %u samples\n", sr_mpi_rank(), sr_mpi_size(), samples);
        r = SR_RESULT_RUNTIME_ERROR;
    }
    if (r == SR_RESULT_OK && sr_mpi_rank() == 0) r = sr_save(ctx, argv[2], &(sr_save_desc){ .exr_float = 1 });
    if (r != SR_RESULT_OK) fprintf(stderr, "api_mpi_client: rank %d: %s\n", sr_mpi_rank(), ctx ? sr_last_error(ctx) : "");
    sr_destroy(ctx);
    sr_mpi_end();
    return (int)r;
}
