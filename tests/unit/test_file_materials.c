/* test_file_materials.c: "material": "file" on meshes. OBJ/MTL's Kd, map_Kd, Ns, Ke, Ni and d
 * and glTF's pbrMetallicRoughness factors become project materials on the right triangles; a
 * missing map_Kd image stops with exit 2 naming it and the scene's line:column; what a file
 * holds that is not used (a camera, a light, vertex colours, materials without "file") is
 * listed in one notice on stderr, and so are a missing MTL file and missing unused images. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb_image_write.h>

/* Four quads side by side, one per material, with UVs and normals. */
static void write_obj(const char *dir, const char *mtl_body, const char *obj_name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.mtl", dir, obj_name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(mtl_body, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.obj", dir, obj_name);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "mtllib %s.mtl\nvn 0 0 1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n", obj_name);
    static const char *const mats[] = { "red", "tex", "lamp", "clear" };
    for (int q = 0; q < 4; q++) {
        fprintf(f, "v %d 0 0\nv %d 0 0\nv %d 1 0\nv %d 1 0\n", q, q + 1, q + 1, q);
        fprintf(f, "usemtl %s\nf %d/1/1 %d/2/1 %d/3/1 %d/4/1\n", mats[q], 4 * q + 1, 4 * q + 2, 4 * q + 3, 4 * q + 4);
    }
    fclose(f);
}

static const char *mtl_ok =
    "newmtl red\nKd 0.8 0.1 0.1\nNs 100\n"
    "newmtl tex\nKd 0.5 0.5 0.5\nmap_Kd checker.png\n"
    "newmtl lamp\nKd 0 0 0\nKe 5 4 3\n"
    "newmtl clear\nKd 0.9 1 0.9\nd 0.2\nNi 1.33\n";

static void scene_json(char *buf, size_t cap, const char *obj)
{
    snprintf(buf, cap,
             "{\"camera\":{\"position\":[2,0.5,4],\"look_at\":[2,0.5,0]},\n"
             " \"image\":{\"width\":32,\"height\":16,\"spp\":1},\n"
             " \"materials\":{\"grey\":{\"type\":\"diffuse\"}},\n"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}",
             obj);
}

static void test_obj_mtl(void **state)
{
    (void)state;
    char dir[512], png[600], obj[600], json[2048];
    sr_test_tmp_path(dir, sizeof dir, "");
    snprintf(png, sizeof png, "%s/checker.png", dir);
    const unsigned char px[12] = { 255, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 255 };
    assert_true(stbi_write_png(png, 2, 2, 3, px, 6) != 0);
    write_obj(dir, mtl_ok, "fm_quads");
    snprintf(obj, sizeof obj, "%s/fm_quads.obj", dir);
    scene_json(json, sizeof json, obj);
    sr_scene s;
    sr_test_parse("fm.json", json, &s);
    assert_true(s.material_count >= 1 + 4);   /* assimp may add its DefaultMaterial */
    assert_int_equal(s.prim_count, 8);
    /* the triangles of quad q use the file's material q (after the scene's own "grey") */
    for (uint32_t i = 0; i < 8; i++) {
        const sr_prim *p = &s.prims[i];
        const float cx = (p->a.x + p->b.x + p->c.x) / 3.0f;
        const uint32_t q = (uint32_t)cx;
        const sr_material *m = &s.materials[p->material];
        const char *name = s.material_names[p->material];
        switch (q) {
        case 0:
            assert_non_null(strstr(name, ":red"));
            assert_int_equal(m->kind, SR_MAT_PBR);
            assert_float_equal(m->color.x, 0.8f, 1e-6);
            assert_float_equal(m->color.y, 0.1f, 1e-6);
            assert_float_equal(m->roughness, sqrt(sqrt(2.0 / 102.0)), 1e-6);
            assert_int_equal(m->color_tex, 0);
            break;
        case 1:
            assert_int_equal(m->kind, SR_MAT_PBR);
            assert_true(m->color_tex > 0);
            assert_float_equal(m->color.x, 1.0f, 0.0f);   /* map_Kd replaces Kd */
            assert_int_equal(s.tex.items[m->color_tex - 1].width, 2);
            break;
        case 2:
            assert_float_equal(m->color2.x, 5.0f, 1e-6);
            assert_float_equal(m->color2.z, 3.0f, 1e-6);
            break;
        default:
            assert_int_equal(m->kind, SR_MAT_GLASS);
            assert_float_equal(m->ior, 1.33f, 1e-6);
            break;
        }
    }
    assert_non_null(s.attrs);   /* UVs kept for the textured one */
    /* it renders, and the lamp quad shows its emission */
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    free(img);
    sr_scene_free(&s);
}

static void test_missing_map(void **state)
{
    (void)state;
    char dir[512], obj[600], json[2048], scene[600], err[8192], out[600];
    sr_test_tmp_path(dir, sizeof dir, "");
    write_obj(dir, "newmtl red\nKd 1 0 0\nnewmtl tex\nmap_Kd gone.png\nnewmtl lamp\nnewmtl clear\n", "fm_missing");
    snprintf(obj, sizeof obj, "%s/fm_missing.obj", dir);
    scene_json(json, sizeof json, obj);
    sr_test_write_file(scene, sizeof scene, "fm_missing.json", json);
    sr_test_tmp_path(out, sizeof out, "fm_never.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    if (!strstr(err, "fm_missing.json:4:35:") || !strstr(err, "gone.png") || !strstr(err, "\"tex\" of mesh file") ||
        !strstr(err, "fm_missing.obj"))
        fail_msg("%s", err);
    assert_false(sr_test_file_exists(out));
}

/* A missing MTL file (the model renders in the default material) and missing images the MTL
 * names that are not used (a bump map) are named in the notice, with their paths; a file
 * that is there is not. */
static void test_missing_files_named(void **state)
{
    (void)state;
    char dir[512], obj[600], json[2048], mtl[700], want[800];
    sr_test_tmp_path(dir, sizeof dir, "");
    write_obj(dir, "newmtl red\nKd 1 0 0\nmap_Bump fm_bump_gone.png\nnewmtl tex\nnewmtl lamp\nnewmtl clear\n",
              "fm_refs");
    snprintf(obj, sizeof obj, "%s/fm_refs.obj", dir);
    scene_json(json, sizeof json, obj);
    sr_scene s;
    sr_test_parse("fm_refs.json", json, &s);
    assert_non_null(s.notices);
    snprintf(want, sizeof want, "texture file %s/fm_bump_gone.png (not found)", dir);
    if (!strstr(s.notices, want)) fail_msg("expected \"%s\" in:\n%s", want, s.notices);
    assert_null(strstr(s.notices, "material file"));   /* the MTL is there */
    sr_scene_free(&s);
    /* without its MTL: the notice names the file the OBJ's mtllib gives */
    snprintf(mtl, sizeof mtl, "%s/fm_refs.mtl", dir);
    assert_int_equal(remove(mtl), 0);
    sr_test_parse("fm_refs.json", json, &s);
    assert_non_null(s.notices);
    snprintf(want, sizeof want, "material file %s (not found: the default material instead)", mtl);
    if (!strstr(s.notices, want)) fail_msg("expected \"%s\" in:\n%s", want, s.notices);
    sr_scene_free(&s);
}

/* One OBJ as two objects, with its own materials and with the scene's: the notice names the
 * object whose use leaves the file's materials out. */
static void test_notice_names_object(void **state)
{
    (void)state;
    char dir[512], obj[600], json[2048];
    sr_test_tmp_path(dir, sizeof dir, "");
    write_obj(dir, "newmtl red\nKd 1 0 0\nnewmtl tex\nnewmtl lamp\nnewmtl clear\n", "fm_twice");
    snprintf(obj, sizeof obj, "%s/fm_twice.obj", dir);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[2,0.5,4],\"look_at\":[2,0.5,0]},\n"
             " \"materials\":{\"grey\":{\"type\":\"diffuse\"}},\n"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"},\n"
             "            {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"grey\"}]}", obj, obj);
    sr_scene s;
    sr_test_parse("fm_twice.json", json, &s);
    assert_non_null(s.notices);
    char want[800];
    snprintf(want, sizeof want, "notice: mesh file %s (objects[1]): not used: ", obj);
    const char *line = strstr(s.notices, want);
    if (!line || !strstr(line, "materials (\"material\": \"file\" uses them)"))
        fail_msg("expected \"%s\" naming the materials in:\n%s", want, s.notices);
    sr_scene_free(&s);
}

/* Objects after a mesh with file materials look their material up among the scene's own
 * names only: the file's materials, appended to the table, are not in the sorted names (the
 * lookup used to search past the end of them; ASan catches that read). */
static void test_lookup_after_file_materials(void **state)
{
    (void)state;
    char dir[512], obj[600], json[2048], scene[600], err[8192], out[600];
    sr_test_tmp_path(dir, sizeof dir, "");
    write_obj(dir, "newmtl red\nKd 1 0 0\nnewmtl tex\nKd 0 1 0\nnewmtl lamp\nnewmtl clear\n", "fm_lookup");
    snprintf(obj, sizeof obj, "%s/fm_lookup.obj", dir);
    const char *fmt =
        "{\"camera\":{\"position\":[2,0.5,4],\"look_at\":[2,0.5,0]},\n"
        " \"image\":{\"width\":32,\"height\":16,\"spp\":1},\n"
        " \"materials\":{\"grey\":{\"type\":\"diffuse\"}},\n"
        " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"},\n"
        "  {\"type\":\"sphere\",\"center\":[0,0,-5],\"radius\":1,\"material\":\"%s\"}]}";
    snprintf(json, sizeof json, fmt, obj, "grey");
    sr_scene s;
    sr_test_parse("fm_lookup.json", json, &s);
    assert_int_equal(s.prims[s.prim_count - 1].material, 0);   /* the sphere: "grey" */
    sr_scene_free(&s);
    snprintf(json, sizeof json, fmt, obj, "zzz");
    sr_test_write_file(scene, sizeof scene, "fm_lookup.json", json);
    sr_test_tmp_path(out, sizeof out, "fm_lookup.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    if (!strstr(err, "unknown material \"zzz\"") || !strstr(err, "defined materials: grey\n")) fail_msg("%s", err);
    assert_false(sr_test_file_exists(out));
}

/* A one-triangle glTF (external .bin) with vertex colours, a camera and a KHR light. */
static void write_gltf(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/fm_tri.bin", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    const float col[12] = { 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1 };
    fwrite(pos, sizeof pos, 1, f);
    fwrite(col, sizeof col, 1, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/fm_tri.gltf", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_lights_punctual\"],"
          "\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"point\",\"intensity\":10}]}},"
          "\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2]}],"
          "\"nodes\":[{\"mesh\":0},{\"camera\":0,\"translation\":[0,0,3]},"
          "{\"translation\":[0,2,0],\"extensions\":{\"KHR_lights_punctual\":{\"light\":0}}}],"
          "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":0.7,\"znear\":0.1}}],"
          "\"materials\":[{\"name\":\"gold\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0.8,0.3,1],"
          "\"metallicFactor\":1,\"roughnessFactor\":0.25},\"emissiveFactor\":[0,0,0]}],"
          "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"COLOR_0\":1},\"material\":0}]}],"
          "\"buffers\":[{\"uri\":\"fm_tri.bin\",\"byteLength\":84}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":48}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
          "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}]}\n", f);
    fclose(f);
}

static void test_gltf_and_notice(void **state)
{
    (void)state;
    char dir[512], gltf[600], json[2048], scene[600], err[8192], out[600];
    sr_test_tmp_path(dir, sizeof dir, "");
    write_gltf(dir);
    snprintf(gltf, sizeof gltf, "%s/fm_tri.gltf", dir);
    scene_json(json, sizeof json, gltf);
    sr_scene s;
    sr_test_parse("fm_gltf.json", json, &s);
    assert_true(s.material_count >= 2);
    const sr_material *m = &s.materials[s.prims[0].material];
    assert_int_equal(m->kind, SR_MAT_PBR);
    assert_float_equal(m->color.y, 0.8f, 1e-6);
    assert_float_equal(m->metallic, 1.0f, 0.0f);
    assert_float_equal(m->roughness, 0.25f, 1e-6);
    assert_non_null(s.notices);
    sr_scene_free(&s);

    /* through the CLI: one notice line naming what is not used */
    sr_test_write_file(scene, sizeof scene, "fm_gltf.json", json);
    sr_test_tmp_path(out, sizeof out, "fm_gltf.png");
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code) fail_msg("exit %d: %s", code, err);
    const char *line = strstr(err, "notice: mesh file");
    if (!line || !strstr(line, "vertex colours") || !strstr(line, "1 light") || !strstr(line, "1 camera"))
        fail_msg("%s", err);
    assert_null(strstr(line + 1, "notice: mesh file"));   /* once */

    /* without "file", the file's material is reported as unused too */
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]}, \"image\":{\"width\":16,\"height\":16,\"spp\":1},"
             " \"materials\":{\"grey\":{\"type\":\"diffuse\"}},"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"grey\"}]}", gltf);
    sr_test_write_file(scene, sizeof scene, "fm_gltf2.json", json);
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 0);
    if (!strstr(err, "1 material (\"material\": \"file\" uses them)")) fail_msg("%s", err);
    /* -q keeps it quiet */
    const char *quiet[] = { "render", scene, "--backend", "cpu", "-o", out, "-q", NULL };
    assert_int_equal(sr_test_run_cli(quiet, err, sizeof err), 0);
    assert_null(strstr(err, "notice"));
}

/* The shipped showcase uses everything: the vase's two file materials (one textured), smooth
 * normals and UVs, a textured floor, the sky; and its files hold nothing left unused. */
static void test_showcase(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_load_shipped("scenes/showcase.json", &s);
    assert_true(s.env_tex > 0);
    assert_non_null(s.attrs);
    assert_null(s.notices);
    int glaze = 0, rim = 0;
    for (uint32_t k = 0; k < s.material_count; k++) {
        glaze |= strstr(s.material_names[k], "vase.obj:glaze") && s.materials[k].color_tex > 0;
        rim |= strstr(s.material_names[k], "vase.obj:rim") && s.materials[k].kind == SR_MAT_PBR;
    }
    assert_true(glaze && rim);
    s.width = 64;
    s.height = 36;
    s.spp = 2;
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_WAVE, 0.5f, 1, NULL);
    double sum = 0;
    for (int i = 0; i < 64 * 36 * 3; i++) {
        assert_true(isfinite(img[i]) && img[i] >= 0.0f);
        sum += img[i];
    }
    assert_true(sum > 64 * 36 * 3 * 0.1);   /* lit by the sky */
    free(img);
    sr_scene_free(&s);
}

/* A map_Kd path resolved to more than 1023 bytes (a mesh deep in folders, under PATH_MAX)
 * loads that file: it was cut to 1023 bytes, and a different image at the cut path was
 * loaded in its place. A path of more than 1023 bytes in the MTL itself is refused with its
 * line (assimp dropped it). When the file is missing, the message keeps its end: the file's
 * name and the reason (it was cut before both). */
static void test_long_texture_path(void **state)
{
    (void)state;
    char dir[4200], path[4400], json[4800];
    sr_test_tmp_path(dir, sizeof dir, "long_tex");
    mkdir(dir, 0755);
    /* folders of up to 200 bytes until dir + "/" is 1016 bytes: "cut.png" then ends at byte 1023 */
    while (strlen(dir) + 1 < 1016) {
        size_t n = strlen(dir), part = 1016 - 1 - n - 1;
        if (part > 200) part = 200;
        dir[n] = '/';
        memset(dir + n + 1, 'd', part);
        dir[n + 1 + part] = '\0';
        mkdir(dir, 0755);
    }
    assert_int_equal(strlen(dir) + 1, 1016);
    const unsigned char right[12] = { 255, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0 }, wrong[27] = { 0 };
    snprintf(path, sizeof path, "%s/cut.png-full.png", dir);   /* 1032 bytes */
    assert_int_equal(strlen(path), 1032);
    assert_true(stbi_write_png(path, 2, 2, 3, right, 6) != 0);
    snprintf(path, sizeof path, "%s/cut.png", dir);            /* its first 1023 bytes */
    assert_int_equal(strlen(path), 1023);
    assert_true(stbi_write_png(path, 3, 3, 3, wrong, 9) != 0);
    write_obj(dir, "newmtl red\nKd 1 0 0\nnewmtl tex\nmap_Kd cut.png-full.png\nnewmtl lamp\nnewmtl clear\n", "q");
    char obj[4400];
    snprintf(obj, sizeof obj, "%s/q.obj", dir);
    scene_json(json, sizeof json, obj);
    sr_scene s;
    sr_test_parse("long_tex.json", json, &s);
    uint32_t textured = 0;
    for (uint32_t i = 0; i < s.prim_count; i++) {
        const sr_material *m = &s.materials[s.prims[i].material];
        if (!m->color_tex) continue;
        textured++;
        const sr_texture *t = &s.tex.items[m->color_tex - 1];
        if (t->width != 2 || t->height != 2)
            fail_msg("the texture loaded is %ux%u: the image at the path cut to 1023 bytes, not the 2x2 one named",
                     t->width, t->height);
    }
    assert_int_equal(textured, 2);
    sr_scene_free(&s);

    /* the same file as "./././.../cut.png-full.png" in the MTL: 1106 bytes, more than the
     * importer's strings hold (it dropped the texture without a word): refused with the line */
    char mtl[1400] = "newmtl red\nnewmtl tex\nmap_Kd ";
    for (int k = 0; k < 545; k++) strcat(mtl, "./");
    strcat(mtl, "cut.png-full.png\nnewmtl lamp\nnewmtl clear\n");
    write_obj(dir, mtl, "q");
    sr_error err = { SR_OK, "" };
    memset(&s, 0, sizeof s);
    sr_status st = sr_scene_parse("long_tex.json", json, strlen(json), &s, &err);
    if (st == SR_OK) sr_scene_free(&s);
    if (st != SR_ERR_INPUT || !strstr(err.msg, "q.mtl:3: a texture path of 1106 bytes; the importer keeps at most 1023"))
        fail_msg("status %d, expected %d and the MTL line; the message:\n%s", st, SR_ERR_INPUT, err.msg);
    write_obj(dir, "newmtl red\nKd 1 0 0\nnewmtl tex\nmap_Kd cut.png-full.png\nnewmtl lamp\nnewmtl clear\n", "q");

    /* missing: the message ends with the file's name and the reason */
    snprintf(path, sizeof path, "%s/cut.png-full.png", dir);
    assert_int_equal(remove(path), 0);
    for (int pass = 0; pass < 2; pass++) {   /* with and without an image at the cut path */
        memset(&err, 0, sizeof err);
        memset(&s, 0, sizeof s);
        st = sr_scene_parse("long_tex.json", json, strlen(json), &s, &err);
        if (st == SR_OK) sr_scene_free(&s);
        if (st != SR_ERR_INPUT || !strstr(err.msg, "cut.png-full.png: No such file or directory") ||
            !strstr(err.msg, "long_tex.json:4:35:"))
            fail_msg("status %d, expected %d and the file's name and reason; the message:\n%s", st, SR_ERR_INPUT, err.msg);
        snprintf(path, sizeof path, "%s/cut.png", dir);
        remove(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_mtl),
        cmocka_unit_test(test_missing_map),
        cmocka_unit_test(test_long_texture_path),
        cmocka_unit_test(test_lookup_after_file_materials),
        cmocka_unit_test(test_gltf_and_notice),
        cmocka_unit_test(test_missing_files_named),
        cmocka_unit_test(test_notice_names_object),
        cmocka_unit_test(test_showcase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
