// RIGHT: no tree: work-item 0 combines the L slots of scratch in a loop while the others wait
// at the barrier (slower for large groups, but correct), and every work-item keeps the results
// in private variables before scratch is reused.
__kernel void softmax_group(__global const float *x, __global float *y, const uint rows,
                            const uint cols, __local float *scratch)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    __global const float *in = x + (size_t)get_group_id(0) * cols;
    __global float *out = y + (size_t)get_group_id(0) * cols;
    float m = -INFINITY;
    for (uint c = lid; c < cols; c += size)
        m = fmax(m, in[c]);
    scratch[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        for (uint k = 1; k < size; ++k)
            m = fmax(m, scratch[k]);
        scratch[0] = m;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    m = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (uint c = lid; c < cols; c += size)
        sum += exp(in[c] - m);
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        for (uint k = 1; k < size; ++k)
            sum += scratch[k];
        scratch[0] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float inv = 1.0f / scratch[0];
    for (uint c = lid; c < cols; c += size)
        out[c] = exp(in[c] - m) * inv;
}
