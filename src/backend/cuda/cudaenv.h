/* cudaenv.h: when CUDA loads this program's kernels.
 *
 * Since CUDA 12.2 the runtime loads each kernel on its first launch (lazy loading), and that
 * launch waits for the load: a render's first samples, each way the wave mask measures the
 * first time it runs it, the viewer's first frame after a change of depth or mask. stencilray
 * has a few dozen kernels and the benchmark and the viewer run most of them, so they ask CUDA
 * to load them all when the device opens (CUDA_MODULE_LOADING=EAGER), unless the person chose
 * a mode: the loading moves out of the timed frames and does not grow. `render` runs once and
 * is judged by its wall time, which loading only the kernels its scene runs shortens (the
 * 1 M-triangle mesh at depth 1: 0.45-0.49 s instead of 0.51-0.53 s on an H100), so it keeps
 * CUDA's lazy loading (docs/commands.md has the figures).
 *
 * CUDA reads the variable when it starts (cuInit), which is after main's first line: setting
 * it there is enough, unlike OpenMP's (ompenv.h). */
#ifndef SR_CUDAENV_H
#define SR_CUDAENV_H

/* At the start of main (after sr_omp_wait_policy_default, whose second start must not see
 * this choice as the person's), with the command line: when CUDA_MODULE_LOADING is unset,
 * LAZY for `render` and EAGER for every other command. */
void sr_cuda_loading_default(int argc, char **argv);

/* The mode CUDA was told, for reports: the variable's value ("EAGER", "LAZY", ...) or
 * "unset"; and who chose it: "stencilray", "environment" or "none". */
const char *sr_cuda_loading(void);
const char *sr_cuda_loading_source(void);

#endif
