// RIGHT: the grid-stride loop takes two of the work-item's elements (i and i + G) per step, the second guarded inside the loop, so it covers exactly i = g, g + G, ...; then the usual tree.
__kernel void group_max(__global const float *src,
                        __global float *partial,
                        const uint n,
                        __local float *scratch)
{
    const uint lid = get_local_id(0);
    const size_t G = get_global_size(0);
    float m = -INFINITY;
    for (size_t i = get_global_id(0); i < n; i += 2 * G) {
        const float u = src[i];
        const float w = (i + G < n) ? src[i + G] : -INFINITY;
        m = fmax(m, fmax(u, w));
    }
    scratch[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
