// WRONG twice: a fixed 16x16 tile that work-groups of 32x32 overflow (the contract allows them), and
// an endless loop at 64x64. The device hangs in its widest case without crashing first; the
// diagnosis must still lead with the write outside the tile, which Oclgrind sees at 32x32.
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *unused)
{
    __local float tile[16][17];
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;
    volatile uint spin = 0;
    if (t >= 64) while (spin < 1u) { spin = 0; }
    if (bx + lx < width && by + ly < height)
        tile[ly][lx] = in[(by + ly) * width + bx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (by + lx < height && bx + ly < width)
        out[(bx + ly) * height + by + lx] = tile[lx][ly];
}
