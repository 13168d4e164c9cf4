// RIGHT: the running pair updated with one exp per element (a larger value rescales the sum and
// adds exp(0) = 1; a smaller one adds its own term), the maximum started from -FLT_MAX so that
// empty work-items merge as 0 * exp(0) with no NaN, and y scaled by the reciprocal of the sum.
__kernel void softmax_online(__global const float *x, __global float *y, const uint rows,
                             const uint cols, __local float *maxes, __local float *sums)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    __global const float *in = x + (size_t)get_group_id(0) * cols;
    __global float *out = y + (size_t)get_group_id(0) * cols;
    float m = -FLT_MAX, s = 0.0f;
    for (uint c = lid; c < cols; c += size) {
        const float v = in[c];
        if (v > m) {
            s = s * exp(m - v) + 1.0f;
            m = v;
        } else {
            s += exp(v - m);
        }
    }
    maxes[lid] = m;
    sums[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = size / 2; k > 0; k /= 2) {
        if (lid < k) {
            const float a = maxes[lid], b = maxes[lid + k], top = fmax(a, b);
            sums[lid] = sums[lid] * exp(a - top) + sums[lid + k] * exp(b - top);
            maxes[lid] = top;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float mm = maxes[0], inv = 1.0f / sums[0];
    for (uint c = lid; c < cols; c += size)
        out[c] = exp(in[c] - mm) * inv;
}
