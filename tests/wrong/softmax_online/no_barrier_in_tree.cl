// WRONG: the tree's steps follow each other without a barrier: a work-item may merge a pair
// that its owner is still writing.
__kernel void softmax_online(__global const float *x,
                             __global float *y,
                             const uint rows,
                             const uint cols,
                             __local float *maxes,
                             __local float *sums)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const size_t start = (size_t)get_group_id(0) * cols;

    float m = -INFINITY, s = 0.0f;
    for (uint c = lid; c < cols; c += size) {
        const float v = x[start + c];
        const float m2 = fmax(m, v);
        s = s * exp(m - m2) + exp(v - m2);   // exp(-INFINITY) = 0 on the first element
        m = m2;
    }
    maxes[lid] = m;
    sums[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = size / 2; k > 0; k /= 2) {
        if (lid < k) {
            const float a = maxes[lid], b = maxes[lid + k];
            const float m2 = fmax(a, b);
            // two work-items with no column: -INFINITY - -INFINITY would be NaN
            if (m2 != -INFINITY)
                sums[lid] = sums[lid] * exp(a - m2) + sums[lid + k] * exp(b - m2);
            maxes[lid] = m2;
        }
    }
    m = maxes[0];
    s = sums[0];

    for (uint c = lid; c < cols; c += size)
        y[start + c] = exp(x[start + c] - m) / s;
}
