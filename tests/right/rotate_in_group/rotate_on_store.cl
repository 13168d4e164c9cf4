// RIGHT: the rotation done on the way in: each work-item stores its element one place to the left
// (wrapping to the block's end), and after the barrier reads its own slot back. The same result,
// the movement on the store instead of the load.
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const uint l = get_local_id(0);
    const uint L = get_local_size(0);
    tile[l == 0 ? L - 1 : l - 1] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[l];
}
