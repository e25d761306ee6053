/* mesh_materials.h: a mesh file's materials and the notice of what it holds that is not
 * used, for the assimp path of mesh.c. Internal to src/io. */
#ifndef SR_MESH_MATERIALS_H
#define SR_MESH_MATERIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <assimp/scene.h>
#include "mesh.h"
#include "../gltf/gltf_materials.h"

/* The project material for one of the file's: glTF's metallic-roughness (the file is glTF:
 * gx holds what assimp does not pass on, or the file has a base colour or a metallic factor)
 * with its base colour, metallic-roughness and emission images, or OBJ/MTL's Kd, Ns, Ke, Ni
 * and d with map_Kd. used[N]: embedded image N is used. false: out of memory. */
bool sr_mesh_file_material(const struct aiScene *sc, const struct aiMaterial *mat, const char *mesh_path,
                           bool is_gltf, const sr_gltf_material *gx, unsigned char *used, sr_file_material *out);

/* One line into buf listing what the file (at mesh_path) holds that is not used, and the
 * image files an OBJ's materials name that do not exist. */
void sr_mesh_unused_notice(const struct aiScene *sc, const sr_mesh_opts *o, const char *mesh_path, bool used_normals,
                           bool used_uv, const unsigned char *used_images, const sr_gltf_materials *gm, char *buf,
                           size_t cap);

#endif
