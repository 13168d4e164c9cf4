// RIGHT: four elements a work-item where it can (vload4, then vstore_half4, which rounds each of
// the four to the nearest even), and the last n % 4 elements one by one by the first work-items;
// the work-items past n / 4 quads and the tail do nothing.
__kernel void to_half(__global const float *in, __global half *out, const uint n)
{
    const uint g = get_global_id(0);
    const uint quads = n / 4;
    if (g < quads)
        vstore_half4(vload4(g, in), g, out);
    const uint i = 4 * quads + g;
    if (i < n)
        vstore_half_rte(in[i], i, out);
}
