/* mesh_materials.c: a mesh file's materials as the renderer's (through assimp, with what
 * gltf_materials.h reads that assimp does not pass on), and the notice of what a file holds
 * that is not used (mesh_materials.h). */
#include "mesh_materials.h"

#include <sys/stat.h>
#include <assimp/GltfMaterial.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *plural(unsigned n) { return n == 1 ? "" : "s"; }
static const char *plural_es(unsigned n) { return n == 1 ? "" : "es"; }

static bool mat_color(const struct aiMaterial *mat, const char *key, unsigned type, unsigned index, sr_vec3 *out)
{
    struct aiColor4D c;
    if (aiGetMaterialColor(mat, key, type, index, &c) != aiReturn_SUCCESS) return false;
    if (!isfinite(c.r) || !isfinite(c.g) || !isfinite(c.b)) return false;
    *out = sr_v3(fmaxf(c.r, 0.0f), fmaxf(c.g, 0.0f), fmaxf(c.b, 0.0f));
    return true;
}

static bool mat_float(const struct aiMaterial *mat, const char *key, unsigned type, unsigned index, float *out)
{
    ai_real v = 0;
    unsigned int n = 1;
    if (aiGetMaterialFloatArray(mat, key, type, index, &v, &n) != aiReturn_SUCCESS || n < 1 || !isfinite(v)) return false;
    *out = (float)v;
    return true;
}

/* A texture's name resolved against the mesh file's folder, as long as it is: on the heap
 * (free it), NULL when out of memory. */
static char *texture_path(const char *mesh_path, const struct aiString *tex)
{
    const char *slash = strrchr(mesh_path, '/');
    const size_t dir = (tex->data[0] == '/' || !slash) ? 0 : (size_t)(slash - mesh_path) + 1;
    char *path = malloc(dir + tex->length + 1);
    if (!path) return NULL;
    memcpy(path, mesh_path, dir);
    memcpy(path + dir, tex->data, tex->length);
    path[dir + tex->length] = '\0';
    return path;
}

/* A glTF sampler's filter (assimp passes its magFilter and minFilter): the image has one
 * level and one filter, so magFilter decides, NEAREST (9728) being nearest; without one,
 * minFilter's filter within a level does (NEAREST, NEAREST_MIPMAP_NEAREST 9984,
 * NEAREST_MIPMAP_LINEAR 9986: nearest); else bilinear. */
static uint32_t sampler_filter(const struct aiMaterial *mat, enum aiTextureType type)
{
    int mag = 0, min = 0;
    unsigned one = 1;
    const bool has_mag = aiGetMaterialIntegerArray(mat, AI_MATKEY_GLTF_MAPPINGFILTER_MAG(type, 0), &mag, &one) ==
                         aiReturn_SUCCESS;
    one = 1;
    const bool has_min = aiGetMaterialIntegerArray(mat, AI_MATKEY_GLTF_MAPPINGFILTER_MIN(type, 0), &min, &one) ==
                         aiReturn_SUCCESS;
    if (has_mag) return mag == 9728 ? SR_FILTER_NEAREST : SR_FILTER_BILINEAR;
    if (has_min && (min == 9728 || min == 9984 || min == 9986)) return SR_FILTER_NEAREST;
    return SR_FILTER_BILINEAR;
}

/* An image of type `type` that the material names, into *out: a file beside the mesh, or an
 * image embedded in the file ("*N": assimp's aiScene::mTextures[N], compressed bytes) copied
 * out of the import and marked in used[N]; with its wrap mode (assimp passes a glTF sampler's
 * wrapS and wrapT, and MTL's -clamp, as its U and V mapping modes). A reference to no embedded
 * image is left out. false: out of memory. */
static bool file_texture(const struct aiScene *sc, const struct aiMaterial *mat, enum aiTextureType type,
                         const char *mesh_path, unsigned char *used, sr_file_texture *out)
{
    struct aiString tex;
    enum aiTextureMapMode mode[2] = { aiTextureMapMode_Wrap, aiTextureMapMode_Wrap };
    if (aiGetMaterialTextureCount(mat, type) == 0) return true;
    if (aiGetMaterialTexture(mat, type, 0, &tex, NULL, NULL, NULL, NULL, mode, NULL) != aiReturn_SUCCESS) return true;
    const char *t = tex.data;
    if (!t[0]) return true;
    out->filter = sampler_filter(mat, type);
    if (mode[0] == aiTextureMapMode_Clamp && mode[1] == aiTextureMapMode_Clamp) out->wrap = SR_WRAP_CLAMP;
    else if (mode[0] != aiTextureMapMode_Wrap || mode[1] != aiTextureMapMode_Wrap) out->odd_wrap = 1;
    if (t[0] == '*') {
        char *end = NULL;
        const unsigned long k = strtoul(t + 1, &end, 10);
        if (!end || *end || end == t + 1 || k >= sc->mNumTextures || !sc->mTextures[k]) return true;
        const struct aiTexture *et = sc->mTextures[k];
        /* glTF images are PNG or JPEG bytes (mHeight 0: mWidth bytes of a compressed image) */
        if (et->mHeight != 0 || !et->pcData || et->mWidth == 0) return true;
        out->bytes = malloc(et->mWidth);
        if (!out->bytes) return false;
        memcpy(out->bytes, et->pcData, et->mWidth);
        out->len = et->mWidth;
        snprintf(out->name, sizeof out->name, "embedded image %lu", k);
        used[k] = 1;
        return true;
    }
    out->path = texture_path(mesh_path, &tex);
    return out->path != NULL;
}

bool sr_mesh_file_material(const struct aiScene *sc, const struct aiMaterial *mat, const char *mesh_path,
                           bool is_gltf, const sr_gltf_material *gx, unsigned char *used, sr_file_material *out)
{
    memset(out, 0, sizeof *out);
    sr_material *m = &out->m;
    m->kind = SR_MAT_PBR;
    m->color = sr_v3s(0.8f);
    m->roughness = 0.5f;
    m->ior = 1.5f;
    m->spec_f0 = sr_pbr_f0(m->ior);
    if (!mat) return true;
    struct aiString name;
    if (aiGetMaterialString(mat, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS) {
        /* the file's words reach messages and the material table: no control bytes */
        char raw[sizeof out->name];
        snprintf(raw, sizeof raw, "%.*s", (int)name.length, name.data);
        sr_sanitize(out->name, sizeof out->name, raw);
    }
    sr_vec3 c;
    float f;
    const bool gltf = is_gltf || mat_color(mat, AI_MATKEY_BASE_COLOR, &c) || mat_float(mat, AI_MATKEY_METALLIC_FACTOR, &f);
    if (gltf) {
        m->color = sr_v3s(1.0f);   /* glTF's defaults */
        m->metallic = 1.0f;
        m->roughness = 1.0f;
        if (mat_color(mat, AI_MATKEY_BASE_COLOR, &c)) m->color = c;
        if (mat_float(mat, AI_MATKEY_METALLIC_FACTOR, &f)) m->metallic = fminf(fmaxf(f, 0.0f), 1.0f);
        if (mat_float(mat, AI_MATKEY_ROUGHNESS_FACTOR, &f)) m->roughness = fminf(fmaxf(f, 0.0f), 1.0f);
        float tr = 0.0f;
        if (mat_float(mat, AI_MATKEY_TRANSMISSION_FACTOR, &tr) && tr >= 0.5f) m->kind = SR_MAT_GLASS;
    } else {
        if (mat_color(mat, AI_MATKEY_COLOR_DIFFUSE, &c)) m->color = c;
        /* Phong exponent to roughness: Beckmann alpha = sqrt(2 / (Ns + 2)), roughness = sqrt(alpha) */
        if (mat_float(mat, AI_MATKEY_SHININESS, &f) && f >= 0.0f) m->roughness = sqrtf(sqrtf(2.0f / (f + 2.0f)));
        float d = 1.0f;
        if (mat_float(mat, AI_MATKEY_OPACITY, &d) && d < 0.5f) m->kind = SR_MAT_GLASS;
    }
    if (mat_float(mat, AI_MATKEY_REFRACTI, &f) && f >= 1.0f && f < 10.0f) m->ior = f;
    if (gltf && gx) m->ior = gx->ior;   /* KHR_materials_ior, from the JSON */
    if (gltf) m->spec_f0 = sr_pbr_f0(m->ior);   /* (an MTL's Ni is its glass's only: 0.04 stays) */
    if (mat_color(mat, AI_MATKEY_COLOR_EMISSIVE, &c) && m->kind == SR_MAT_PBR) {
        /* glTF: KHR_materials_emissive_strength from the JSON (assimp 5.2 drops it) */
        float k = gx ? gx->emissive_strength : 1.0f;
        if (!gltf && mat_float(mat, AI_MATKEY_EMISSIVE_INTENSITY, &f) && f >= 0.0f) k = f;
        m->color2 = sr_scale(c, k);
    }
    if (m->kind == SR_MAT_GLASS) return true;   /* glass takes no texture: the tint is the colour */
    sr_file_texture *base = &out->tex[SR_FTEX_BASE];
    if (!file_texture(sc, mat, aiTextureType_BASE_COLOR, mesh_path, used, base)) return false;
    if (!base->path && !base->bytes && !file_texture(sc, mat, aiTextureType_DIFFUSE, mesh_path, used, base)) return false;
    if ((base->path || base->bytes) && !gltf) m->color = sr_v3s(1.0f);   /* MTL: map_Kd replaces Kd (glTF multiplies) */
    if (gltf) {
        sr_file_texture *mr = &out->tex[SR_FTEX_MR];
        if (!file_texture(sc, mat, aiTextureType_UNKNOWN, mesh_path, used, mr)) return false;
        if (!mr->path && !mr->bytes && !file_texture(sc, mat, aiTextureType_METALNESS, mesh_path, used, mr)) return false;
        if (sr_max3(m->color2) > 0.0f &&
            !file_texture(sc, mat, aiTextureType_EMISSIVE, mesh_path, used, &out->tex[SR_FTEX_EMIT]))
            return false;
        if (!file_texture(sc, mat, aiTextureType_NORMALS, mesh_path, used, &out->tex[SR_FTEX_NORMAL])) return false;
        m->normal_scale = gx ? gx->normal_scale : 1.0f;
        /* each texture's own KHR_texture_transform (the base colour's is in the UVs) */
        static const int slot[3] = { [SR_GLTF_XF_MR] = SR_FTEX_MR, [SR_GLTF_XF_NORMAL] = SR_FTEX_NORMAL,
                                     [SR_GLTF_XF_EMIT] = SR_FTEX_EMIT };
        for (int k = 0; gx && k < 3; k++) {
            out->tex[slot[k]].has_xf = gx->has_tex_xf[k];
            memcpy(out->tex[slot[k]].xf, gx->tex_xf[k], sizeof gx->tex_xf[k]);
        }
        /* alphaMode: alpha is the base colour factor's times its image's alpha channel */
        struct aiColor4D bc;
        m->alpha = 1.0f;
        if (aiGetMaterialColor(mat, AI_MATKEY_BASE_COLOR, &bc) == aiReturn_SUCCESS && isfinite(bc.a))
            m->alpha = fminf(fmaxf(bc.a, 0.0f), 1.0f);
        m->alpha_mode = gx ? (uint32_t)gx->alpha_mode : SR_ALPHA_OPAQUE;
        m->alpha_cutoff = gx ? gx->alpha_cutoff : 0.5f;
        if (m->alpha_mode != SR_ALPHA_OPAQUE && (base->path || base->bytes)) {
            sr_file_texture *al = &out->tex[SR_FTEX_ALPHA];
            if (base->path && !(al->path = strdup(base->path))) return false;
            if (base->bytes) {
                if (!(al->bytes = malloc(base->len))) return false;
                memcpy(al->bytes, base->bytes, base->len);
                al->len = base->len;
                memcpy(al->name, base->name, sizeof al->name);
            }
            al->wrap = base->wrap;
            al->filter = base->filter;
        }
    }
    return true;
}

void sr_file_materials_free(sr_file_material *fm, uint32_t n)
{
    for (uint32_t k = 0; fm && k < n; k++)
        for (int t = 0; t < SR_FTEX_COUNT; t++) {
            free(fm[k].tex[t].path);
            free(fm[k].tex[t].bytes);
        }
    free(fm);
}

/* Every image file the materials name (of any kind) that does not exist beside the mesh, once
 * each, as notice items. */
static void missing_textures(const struct aiScene *sc, const char *mesh_path, char *buf, size_t cap)
{
    for (unsigned k = 0; k < sc->mNumMaterials; k++)
        for (int type = aiTextureType_NONE + 1; type <= AI_TEXTURE_TYPE_MAX; type++) {
            const unsigned n = aiGetMaterialTextureCount(sc->mMaterials[k], (enum aiTextureType)type);
            for (unsigned i = 0; i < n; i++) {
                struct aiString tex;
                if (aiGetMaterialTexture(sc->mMaterials[k], (enum aiTextureType)type, i, &tex, NULL, NULL, NULL, NULL,
                                         NULL, NULL) != aiReturn_SUCCESS || !tex.data[0] || tex.data[0] == '*')
                    continue;
                char *path = texture_path(mesh_path, &tex), clean[512], item[600];
                struct stat st;
                if (!path || stat(path, &st) == 0) {
                    free(path);
                    continue;
                }
                sr_sanitize(clean, sizeof clean, path);
                free(path);
                snprintf(item, sizeof item, "texture file %s (not found)", clean);
                if (!strstr(buf, item)) sr_list_append(buf, cap, "%s", item);
            }
        }
}

void sr_mesh_unused_notice(const struct aiScene *sc, const sr_mesh_opts *o, const char *mesh_path, bool used_normals,
                           bool used_uv, const unsigned char *used_images, const sr_gltf_materials *gm, char *buf,
                           size_t cap)
{
    buf[0] = '\0';
    unsigned colours = 0, uv2 = 0, uvs = 0, normals = 0, bones = 0, morphs = 0;
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        if (!mesh) continue;
        colours += mesh->mColors[0] != NULL;
        uv2 += mesh->mTextureCoords[1] != NULL;
        uvs += mesh->mTextureCoords[0] != NULL;
        normals += mesh->mNormals != NULL;
        bones += mesh->mNumBones;
        morphs += mesh->mNumAnimMeshes;
    }
    if (colours) sr_list_append(buf, cap, "vertex colours (%u mesh%s)", colours, plural_es(colours));
    if (uvs && !used_uv) sr_list_append(buf, cap, "texture coordinates (%u mesh%s; no textured material)", uvs, plural_es(uvs));
    if (uv2) sr_list_append(buf, cap, "second texture coordinate sets (%u mesh%s)", uv2, plural_es(uv2));
    if (normals && !used_normals && o->normals == SR_NORMALS_FLAT)
        sr_list_append(buf, cap, "vertex normals (%u mesh%s; \"normals\": \"flat\")", normals, plural_es(normals));
    if (bones) sr_list_append(buf, cap, "%u bone%s", bones, plural(bones));
    if (morphs) sr_list_append(buf, cap, "%u morph target%s", morphs, plural(morphs));
    if (sc->mNumLights && !o->scene_read) sr_list_append(buf, cap, "%u light%s", sc->mNumLights, plural(sc->mNumLights));
    if (sc->mNumCameras && !o->scene_read) sr_list_append(buf, cap, "%u camera%s", sc->mNumCameras, plural(sc->mNumCameras));
    if (sc->mNumAnimations && !o->scene_read)
        sr_list_append(buf, cap, "%u animation%s", sc->mNumAnimations, plural(sc->mNumAnimations));
    unsigned images = 0;
    for (unsigned k = 0; k < sc->mNumTextures; k++) images += !used_images[k];
    if (images) sr_list_append(buf, cap, "%u embedded texture%s", images, plural(images));
    unsigned named = 0;
    for (unsigned k = 0; k < sc->mNumMaterials; k++) {
        struct aiString name;
        if (aiGetMaterialString(sc->mMaterials[k], AI_MATKEY_NAME, &name) == aiReturn_SUCCESS &&
            strcmp(name.data, "DefaultMaterial") != 0)
            named++;
    }
    if (gm->unsupported[0]) sr_list_append(buf, cap, "glTF extensions %s", gm->unsupported);
    if (!o->file_mats) {
        if (named) sr_list_append(buf, cap, "%u material%s (\"material\": \"file\" uses them)", named, plural(named));
        return;
    }
    /* with the file's materials: the maps and factors that have no counterpart here. A glTF's
     * metallic-roughness image (assimp: UNKNOWN, METALNESS, DIFFUSE_ROUGHNESS) and emission
     * image are used; an OBJ's are not. */
    const bool gltf = gm->is_gltf;
    static const struct { enum aiTextureType type; const char *what; int gltf_used; } maps[] = {
        { aiTextureType_NORMALS, "normal map", 1 }, { aiTextureType_EMISSIVE, "emission map", 1 },
        { aiTextureType_METALNESS, "metallic map", 1 }, { aiTextureType_DIFFUSE_ROUGHNESS, "roughness map", 1 },
        { aiTextureType_LIGHTMAP, "occlusion map", 0 }, { aiTextureType_SPECULAR, "specular map", 0 },
        { aiTextureType_OPACITY, "opacity map", 0 }, { aiTextureType_HEIGHT, "bump map", 0 },
        { aiTextureType_UNKNOWN, "other map", 1 },
    };
    for (size_t t = 0; t < sizeof maps / sizeof maps[0]; t++) {
        if (gltf && maps[t].gltf_used) continue;
        unsigned n = 0;
        for (unsigned k = 0; k < sc->mNumMaterials; k++) n += aiGetMaterialTextureCount(sc->mMaterials[k], maps[t].type) > 0;
        if (n) sr_list_append(buf, cap, "%s%s (%u material%s)", maps[t].what, plural(n), n, plural(n));
    }
    unsigned ks = 0, texcoord = 0, other_xf = 0, odd_wrap = 0, bad_ior = 0, thin = 0, partial = 0;
    float thin_t = 0.0f, partial_t = 0.0f;   /* one of each, to name */
    for (uint32_t k = 0; o->file_mat_count && *o->file_mats && k < *o->file_mat_count; k++) {
        int odd = 0;
        for (int t = 0; t < SR_FTEX_COUNT; t++) odd |= (*o->file_mats)[k].tex[t].odd_wrap;
        odd_wrap += odd != 0;
    }
    for (unsigned k = 0; !gltf && k < sc->mNumMaterials; k++) {
        sr_vec3 c;
        ks += mat_color(sc->mMaterials[k], AI_MATKEY_COLOR_SPECULAR, &c) && sr_max3(c) > 0.0f;
    }
    for (uint32_t k = 0; k < gm->count; k++) {
        texcoord += gm->mats[k].other_texcoord != 0;
        other_xf += gm->mats[k].other_xf != 0;
        bad_ior += gm->mats[k].bad_ior != 0;
        const float t = gm->mats[k].transmission;
        if (t > 0.0f && t < 0.5f) thin++, thin_t = t;
        if (t >= 0.5f && t < 1.0f) partial++, partial_t = t;
    }
    if (ks) sr_list_append(buf, cap, "specular colour Ks (%u material%s; the specular lobe follows Ns)", ks, plural(ks));
    if (texcoord) sr_list_append(buf, cap, "texture coordinate sets other than TEXCOORD_0 (%u material%s)", texcoord, plural(texcoord));
    if (other_xf)
        sr_list_append(buf, cap, "texture transforms beside a base colour transform that scales a UV axis to zero (%u material%s; "
             "the base colour's is used)",
             other_xf, plural(other_xf));
    if (thin)
        sr_list_append(buf, cap, "KHR_materials_transmission under 0.5 (%u material%s, e.g. %g: rendered opaque)", thin,
                       plural(thin), thin_t);
    if (partial)
        sr_list_append(buf, cap, "KHR_materials_transmission between 0.5 and 1 (%u material%s, e.g. %g: rendered as "
                       "glass, all of it transmitted)", partial, plural(partial), partial_t);
    if (bad_ior)
        sr_list_append(buf, cap, "KHR_materials_ior below 1 (%u material%s; 1.5 is used)", bad_ior, plural(bad_ior));
    if (odd_wrap)
        sr_list_append(buf, cap, "texture wrap modes other than repeat or clamp on both axes (%u material%s; they repeat)",
             odd_wrap, plural(odd_wrap));
    if (!gltf) missing_textures(sc, mesh_path, buf, cap);
}
