/* bench_print.h: how `stencilray bench` shows the library's sr_bench_report: the table, the
 * per-stage breakdown, CSV, JSON and the gnuplot chart. */
#ifndef SR_BENCH_PRINT_H
#define SR_BENCH_PRINT_H

#include <stdint.h>
#include <stdio.h>
#include "../../include/stencilray.h"
#include "options.h"

/* The table as `bench` prints it; noisy rows carry a '!' after their spread and a line under
 * the table says what it means. */
void sr_bench_print_table(FILE *f, const sr_bench_row *rows, uint32_t n);
void sr_bench_print_breakdown(FILE *f, const sr_bench_row *rows, uint32_t n);

/* What the JSON's "setup" takes from the command line rather than the report. */
typedef struct sr_bench_setup {
    const char *scene, *date;     /* date: ISO 8601, UTC */
    int argc;
    char **argv;
} sr_bench_setup;

sr_status sr_bench_write_csv(const char *path, const sr_bench_row *rows, uint32_t n, int breakdown, sr_error *err);
sr_status sr_bench_write_json(const char *path, const sr_bench_setup *setup, const sr_bench_report *report,
                              sr_error *err);

/* The gnuplot terminal for a chart's file name, by its extension (.png, .svg, .pdf; any
 * case), or NULL for any other name. */
const char *sr_bench_plot_terminal(const char *path);
/* The FPS-per-depth chart (one line per mask and sort) in the format of path's extension. */
sr_status sr_bench_write_plot(const char *path, const char *title, const sr_bench_row *rows, uint32_t n,
                              sr_error *err);

#endif
