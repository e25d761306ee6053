/* bench_micro_none.c: stands in for bench_micro.c in a build without a CUDA compiler. */
#include "bench_micro.h"

sr_status sr_bench_micro(const sr_micro_opts *opts, FILE *out, sr_error *err)
{
    (void)opts; (void)out;
    return sr_fail(err, SR_ERR_INPUT, "needs a CUDA device: this stencilray was built without CUDA "
                   "(no nvcc at configure time)");
}
