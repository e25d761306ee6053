/* bounce_noassets.cu: the stage kernels and the megakernel built for scenes without assets (plain.cuh). */
#define SR_NO_ASSETS 1
#include "bounce.cu"
