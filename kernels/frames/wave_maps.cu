/* wave_maps.cu: the wave mask's kernels built with the glTF material maps (plain.cuh). */
#define SR_NO_MAPS 0
#include "wave.cu"
