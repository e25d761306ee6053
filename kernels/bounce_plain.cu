/* bounce_plain.cu: the stage kernels and the megakernel built for plain scenes (plain.cuh). */
#define SR_PLAIN_BUILD 1
#include "bounce.cu"
