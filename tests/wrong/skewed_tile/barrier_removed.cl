// WRONG: skewed rightly, but the learner took the barrier out along the way ("each work-item
// wrote its own float"): the float it reads was written by another work-item.
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * T + (lx + ly) % T] = in[row * n + col];
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly + lx) % T];
}
