/* cmd_bench.h: `stencilray bench`, the FPS-per-depth benchmark. */
#ifndef SR_CMD_BENCH_H
#define SR_CMD_BENCH_H

/* argv[1] is "bench". Returns the exit code. */
int sr_bench_main(int argc, char **argv);

#endif
