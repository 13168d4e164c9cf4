// RIGHT: every work-item loads the tile from coordinates clamped into the matrix (edge work-items load a duplicate they never read back), a barrier, then the guarded transposed store.
__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;
    const uint x = min(bx + lx, width - 1);
    const uint y = min(by + ly, height - 1);
    tile[ly * (t + 1) + lx] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ox = by + lx, oy = bx + ly;
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * (t + 1) + ly];
}
