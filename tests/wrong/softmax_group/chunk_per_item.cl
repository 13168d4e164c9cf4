// WRONG: slow; each work-item takes a contiguous chunk of the row, as a CPU would: right
// values, but at each step the lanes of a warp read floats a chunk apart (not coalesced).
__kernel void softmax_group(__global const float *x,
                            __global float *y,
                            const uint rows,
                            const uint cols,
                            __local float *scratch)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const size_t start = (size_t)get_group_id(0) * cols;
    const uint chunk = (cols + size - 1) / size;
    const uint lo = min(lid * chunk, cols), hi = min(lo + chunk, cols);

    float m = -INFINITY;
    for (uint c = lo; c < hi; ++c)
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
    for (uint c = lo; c < hi; ++c)
        sum += exp(x[start + c] - m);
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    sum = scratch[0];

    for (uint c = lo; c < hi; ++c)
        y[start + c] = exp(x[start + c] - m) / sum;
}
