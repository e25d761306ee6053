#version 330 core
// One triangle that covers the screen, made from gl_VertexID: no vertex buffer (an empty VAO
// is bound). Vertices (-1,-1), (3,-1), (-1,3); the part outside the viewport is clipped.
void main()
{
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
