/* wave_instances.cu: the wave mask's kernels built with the material maps and instances
 * (plain.cuh). */
#define SR_NO_MAPS 0
#define SR_NO_INSTANCES 0
#include "wave.cu"
