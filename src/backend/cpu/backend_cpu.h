/* backend_cpu.h: the CPU frames around the shared stages, exposed so tests can run any stage
 * function under exactly the semantics the CUDA kernels have. */
#ifndef SR_BACKEND_CPU_H
#define SR_BACKEND_CPU_H

#include <stdbool.h>
#include <stdint.h>

typedef bool (*sr_cpu_stage_fn)(const void *ctx, uint32_t slot);

/* The stencil frame, warp by warp (32 slots = one stencil word), on every core: a warp's
 * word is read once; a warp whose word is 0 makes no stage call; a lane whose bit is clear
 * is not called; afterwards the word is the "ballot" of the lanes' alive flags, so only live
 * rays' bits can change (a dead ray stays dead). Ray i is bit i % 32 of word i / 32. */
void sr_cpu_stencil_frame(uint32_t *stencil, uint32_t n, sr_cpu_stage_fn fn, const void *ctx);

/* The same with one 32-bit flag per ray. */
void sr_cpu_flags_frame(uint32_t *flags, uint32_t n, sr_cpu_stage_fn fn, const void *ctx);

/* Ballot partitioning: for each warp, m = its stencil word, one atomic add of popcount(m)
 * reserves a base, and live lane l goes to base + popcount(m & lanemask_lt(l)). Calls
 * move(ctx, from, to) for each live ray and returns how many there were. The order of warps
 * (and so of rays) depends on thread timing, like on the GPU. */
typedef void (*sr_cpu_move_fn)(const void *ctx, uint32_t from, uint32_t to);
uint32_t sr_cpu_ballot_partition(const uint32_t *stencil, uint32_t n, sr_cpu_move_fn move, const void *ctx);

/* Set the first `live` bits of a stencil of `words` words and clear the rest. */
void sr_stencil_fill_prefix(uint32_t *stencil, uint32_t words, uint32_t live);

uint32_t sr_stencil_popcount(const uint32_t *stencil, uint32_t words);

#endif
