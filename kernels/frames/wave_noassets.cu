/* wave_noassets.cu: the wave mask's kernels built for scenes without assets (plain.cuh). */
#define SR_NO_ASSETS 1
#include "wave.cu"
