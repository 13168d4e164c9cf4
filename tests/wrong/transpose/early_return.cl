// Wrong: work-items outside the matrix return before the barrier the others wait at.
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *tile)
{
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;
    if (bx + lx >= width || by + ly >= height)
        return;
    tile[ly * (t + 1) + lx] = in[(by + ly) * width + bx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ox = by + lx, oy = bx + ly;
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * (t + 1) + ly];
}
