/* wave_plain.cu: the wave mask's kernels built for plain scenes (plain.cuh). */
#define SR_NO_ASSETS 1
#define SR_NO_LIGHTS 1
#include "wave.cu"
