/* mem_limits.h: what a render needs, checked against fixed limits and against the memory that
 * is free before anything large is allocated, so that a request that cannot fit ends with a
 * message that has the numbers (needed vs available) and exit code 2, never with a crash or
 * the kernel's out-of-memory killer. */
#ifndef SR_MEM_LIMITS_H
#define SR_MEM_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

/* Mesh files: bigger than this is refused before assimp reads it. */
#define SR_MAX_MESH_BYTES (4ull << 30)
/* Primitives (spheres, quads, triangles) in one scene; the BVH addresses at most 2^31. */
#define SR_MAX_PRIMS (1u << 28)
/* Triangles and primitives a scene places in all, each instance's counted again: a hit
 * numbers them in 31 bits (src/render/instances.c). */
#define SR_MAX_PLACED_PRIMS 0x7fffffffu
/* Host memory while assimp imports a file, per byte of the file: measured 16x for OBJ
 * (1M triangles, 35 MiB) and 20x for binary PLY (19 MiB); 24x leaves a margin. Files
 * with unusually dense faces can need more (see tests/fuzz/README.md). */
#define SR_MESH_IMPORT_FACTOR 24u
/* Host memory per node of a glTF file, on top of the bytes' factor: assimp's node (its name
 * alone 1 KiB) and its reader's, and our walk's. Measured 2.0 KiB a node without a mesh and
 * 2.3 KiB with one (100 000 vs 500 000 nodes, peak resident size); 2.5 KiB leaves a margin. */
#define SR_GLTF_NODE_BYTES 2560u
/* Host memory per placement in a glTF file (a node placing a mesh: one per primitive of the
 * mesh, as assimp makes a mesh of each) while it is imported: assimp's index of the mesh in
 * its node. Measured 3.9 bytes (10^8 placements); 6 leaves a margin. */
#define SR_GLTF_PLACEMENT_BYTES 6u

/* Caps on the host and device memory the checks count as free, below what the machine has
 * (0: none), for the whole process: the program sets them from $SR_HOST_MEM_LIMIT and
 * $SR_DEVICE_MEM_LIMIT (src/app/env_settings.c), a library client with sr_set_memory_limits
 * (stencilray.h); the library reads no variable for them. `host_source` names the host cap in
 * messages ("$SR_HOST_MEM_LIMIT"; a string that outlives the process's renders; NULL keeps
 * the last name). Safe to call while other threads render. */
void sr_mem_limits_set(uint64_t host_bytes, uint64_t device_bytes, const char *host_source);

/* "123", "64M", "2G", "1.5G", "64MiB" (suffixes K, M, G, T) -> bytes; 0 when not a size. */
uint64_t sr_mem_size_parse(const char *s);

/* Host memory this process can still use, in bytes: MemAvailable from /proc/meminfo, capped
 * by the cgroup's memory.max (containers) and by the host cap (sr_mem_limits_set). `source`
 * (may be NULL) gets where the figure came from. Returns 0 when nothing could be read (then
 * *bytes = UINT64_MAX). */
int sr_host_memory_available(uint64_t *bytes, char *source, size_t cap);

/* Free device memory `free_b` capped by the device cap (sr_mem_limits_set). */
uint64_t sr_device_memory_cap(uint64_t free_b);

/* "512.0 MiB" or "27.9 GiB". */
const char *sr_fmt_bytes(char *buf, size_t cap, uint64_t bytes);

/* SR_ERR_INPUT with "<what> needs X of host memory, Y are available (<source>)<hint>" when
 * need does not fit, else SR_OK. */
sr_status sr_check_host_memory(uint64_t need, const char *what, const char *hint, sr_error *err);

/* The same for `need` more bytes while this process already holds `held` (e.g. the scene's
 * decoded textures): need + held must fit the host cap, a cap on what the process uses
 * in all; need alone must fit MemAvailable and the cgroup's figure, which already count what
 * is held. `held_what` names what is held in the message ("textures already decoded"). */
sr_status sr_check_host_memory_held(uint64_t need, uint64_t held, const char *held_what, const char *what,
                                    const char *hint, sr_error *err);

/* Bytes the CPU backend allocates for a w x h image: both pool halves, hits, stencil,
 * flags and the film (cpu_upload in backend_cpu.c). */
uint64_t sr_cpu_pool_bytes(uint32_t w, uint32_t h, uint32_t factor);
/* The same on the device (cuda_upload in backend_cuda.c): pools rounded up to 256 rays. */
uint64_t sr_cuda_pool_bytes(uint32_t w, uint32_t h, uint32_t factor);
/* Peak host bytes of a BVH build over n primitives on the CPU (the larger builder's). */
uint64_t sr_bvh_build_bytes(uint64_t n);
/* Bytes sr_image_write needs for a w x h image written to `path` (.png, .hdr or .exr). */
uint64_t sr_image_write_bytes(uint32_t w, uint32_t h, const char *path);


#endif
