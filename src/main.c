/* main.c: stencilray's entry point; everything else lives in cli.c and below. */
#include "cli.h"

int main(int argc, char **argv) { return sr_cli_main(argc, argv); }
