// WRONG: slow; right values, but the maximum and the sum still come from two passes over the
// row (softmax_group's kernel with a tree over both arrays): x is read three times.
__kernel void softmax_online(__global const float *x, __global float *y, const uint rows,
                             const uint cols, __local float *maxes, __local float *sums)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const size_t start = (size_t)get_group_id(0) * cols;
    float m = -INFINITY;
    for (uint c = lid; c < cols; c += size)
        m = fmax(m, x[start + c]);
    maxes[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = size / 2; k > 0; k /= 2) {
        if (lid < k)
            maxes[lid] = fmax(maxes[lid], maxes[lid + k]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = maxes[0];
    float s = 0.0f;
    for (uint c = lid; c < cols; c += size)
        s += exp(x[start + c] - m);
    sums[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = size / 2; k > 0; k /= 2) {
        if (lid < k)
            sums[lid] += sums[lid + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    s = sums[0];
    for (uint c = lid; c < cols; c += size)
        y[start + c] = exp(x[start + c] - m) / s;
}
