// Solution of softmax_group: one work-group per row. Work-item lid visits columns lid,
// lid + L, ... (neighbours read neighbours: coalesced); the maximum and then the sum are
// combined by trees in local memory, as in group_max and parallel_sum.

__kernel void softmax_group(__global const float *x,
                            __global float *y,
                            const uint rows,
                            const uint cols,
                            __local float *scratch)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const size_t start = (size_t)get_group_id(0) * cols;

    float m = -INFINITY;
    for (uint c = lid; c < cols; c += size)
        m = fmax(m, x[start + c]);
    scratch[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);   // outside the if: every work-item reaches it
    }
    m = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);   // everyone has read the maximum before scratch is reused

    float sum = 0.0f;
    for (uint c = lid; c < cols; c += size)
        sum += exp(x[start + c] - m);
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    sum = scratch[0];

    for (uint c = lid; c < cols; c += size)
        y[start + c] = exp(x[start + c] - m) / sum;
}
