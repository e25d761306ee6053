/* bounce_maps.cu: the stage kernels and the megakernel built with the glTF material maps (plain.cuh). */
#define SR_NO_MAPS 0
#include "bounce.cu"
