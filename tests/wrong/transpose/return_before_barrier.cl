// WRONG: work-items outside the matrix return before the barrier (the store itself is guarded):
// a divergent barrier whenever the matrix is not a multiple of T.
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
    if (by + lx < height && bx + ly < width)
        out[(bx + ly) * height + by + lx] = tile[lx * (t + 1) + ly];
}
