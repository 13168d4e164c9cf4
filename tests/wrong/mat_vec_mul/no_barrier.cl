// Solution of mat_vec_mul: a work-group per row, coalesced reads, a tree in local memory.

__kernel void mat_vec_mul(__global const float *m,
                          __global const float *v,
                          const uint width,
                          const uint height,
                          __global float *w,
                          __local float *partial)
{
    const uint lid = get_local_id(0);
    // the same number of rows for every work-item of the group: the barriers are reached by all
    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        __global const float *row = m + (size_t)y * width;
        float sum = 0.0f;
        for (uint x = lid; x < width; x += get_local_size(0))
            sum += row[x] * v[x];
        partial[lid] = sum;
        for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        // After the last barrier only work-item 0 reads partial, and only partial[0], which no
        // other work-item writes: the next row may start without another barrier.
        if (lid == 0)
            w[y] = partial[0];
    }
}
