/* cli.h: the stencilray command line: render | info (| bench | view). */
#ifndef SR_CLI_H
#define SR_CLI_H

/* Runs a command; returns the process exit code (0 ok, 1 runtime failure, 2 bad input). */
int sr_cli_main(int argc, char **argv);

#endif
