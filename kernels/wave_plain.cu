/* wave_plain.cu: the wave mask's kernels built for plain scenes (plain.cuh). */
#define SR_PLAIN_BUILD 1
#include "wave.cu"
