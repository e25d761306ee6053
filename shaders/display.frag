#version 330 core
// The film (mean linear radiance, row 0 = top of the image) to 8-bit sRGB on screen. The
// tonemap and the sRGB curve are kernels/core/tonemap.h written again in GLSL: keep them in step,
// so that a viewer screenshot matches `stencilray render`'s PNG (the Xvfb test checks it).
uniform sampler2D u_film;
uniform vec2 u_viewport;   // framebuffer size in pixels
uniform float u_exposure;
uniform int u_tonemap;     // sr_tonemap: 0 clamp, 1 reinhard, 2 aces
uniform int u_encoded;     // 1: the texture holds display values already (RGBA8 written by the
                           // CUDA kernel with kernels/core/tonemap.h): shown as they are; 2: so do
                           // u_rows, read straight from the memory CUDA shares with GL
uniform samplerBuffer u_rows;   // RGBA8 texels, row 0 = top, u_rows_size.x to a row (u_encoded 2)
uniform ivec2 u_rows_size;

out vec4 o_color;

float sr_tonemap_channel(float x)
{
    if (!(x > 0.0)) return 0.0;   // also maps NaN to 0 where the GPU keeps NaN semantics
    x = min(x, 1e8);              // every curve is 1 by then; keeps inf/inf out of ACES
    if (u_tonemap == 1) x = x / (1.0 + x);
    else if (u_tonemap == 2) x = (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14);
    return clamp(x, 0.0, 1.0);
}

float sr_srgb_encode(float x)
{
    return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
}

void main()
{
    if (u_encoded == 2) {   // the same mapping as below, from rows that start at the top
        ivec2 r = ivec2(gl_FragCoord.xy * vec2(u_rows_size) / u_viewport);
        r = clamp(r, ivec2(0), u_rows_size - 1);
        o_color = vec4(texelFetch(u_rows, (u_rows_size.y - 1 - r.y) * u_rows_size.x + r.x).rgb, 1.0);
        return;
    }
    // texelFetch, not filtering: at the film's own size each fragment reads exactly its pixel;
    // while a resize is pending the old film is stretched, nearest texel.
    ivec2 size = textureSize(u_film, 0);
    ivec2 t = ivec2(gl_FragCoord.xy * vec2(size) / u_viewport);
    t = clamp(t, ivec2(0), size - 1);
    t.y = size.y - 1 - t.y;   // GL's rows go up, the film's go down
    if (u_encoded != 0) {   // unorm8 -> float -> unorm8 gives back the same code
        o_color = vec4(texelFetch(u_film, t, 0).rgb, 1.0);
        return;
    }
    vec3 c = texelFetch(u_film, t, 0).rgb * u_exposure;
    o_color = vec4(sr_srgb_encode(sr_tonemap_channel(c.r)), sr_srgb_encode(sr_tonemap_channel(c.g)),
                   sr_srgb_encode(sr_tonemap_channel(c.b)), 1.0);
}
