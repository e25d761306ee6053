/* bounce_plain.cu: the stage kernels and the megakernel built for plain scenes (plain.cuh). */
#define SR_NO_ASSETS 1
#define SR_NO_LIGHTS 1
#include "bounce.cu"
