/* bounce_instances.cu: the stage kernels and the megakernel built with the material maps and
 * instances (plain.cuh). */
#define SR_NO_MAPS 0
#define SR_NO_INSTANCES 0
#include "bounce.cu"
