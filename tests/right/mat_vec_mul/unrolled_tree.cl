/* RIGHT: two private accumulators per work-item, then a tree whose last six steps are unrolled inside `if (local size > S)` blocks that contain barriers.
 * Unusual: (1) the dot-product share is split over two accumulators, columns x and x + local size per
 *   iteration, with a one-column tail; (2) the tree loops while the step is > 32 and then runs
 *   STEP(32) .. STEP(1), each a barrier inside an `if`; (3) there is no barrier at the end of a row.
 * Why correct: (1) the columns lid, lid + L, lid + 2L, ... < width are each added once (the float sum
 *   is reordered, as in any parallel reduction). (2) the condition of each STEP depends only on
 *   get_local_size(0), the same for every work-item of the group, so the whole group enters or skips
 *   the block and every barrier is reached by all; for a power-of-two L, STEP(S) runs iff L >= 2S,
 *   which continues the loop's halving exactly, for any L from 1 up (even 2048 or 4096 on CPU
 *   devices). (3) after the last barrier only work-item 0 reads partial[0], and in the next row the
 *   only work-item that writes partial[0] is work-item 0 itself, after its read; other slots are
 *   read only after the next barrier, so no barrier is needed there.
 */
#define STEP(S)                                              \
    if (lsize > (S)) {                                       \
        if (lid < (S))                                       \
            partial[lid] += partial[lid + (S)];              \
        barrier(CLK_LOCAL_MEM_FENCE);                        \
    }

__kernel void mat_vec_mul(__global const float *m,
                          __global const float *v,
                          const uint width,
                          const uint height,
                          __global float *w,
                          __local float *partial)
{
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);

    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        __global const float *row = m + (size_t)y * width;
        float s0 = 0.0f, s1 = 0.0f;
        uint x = lid;
        for (; x + lsize < width; x += 2 * lsize) {
            s0 += row[x] * v[x];
            s1 += row[x + lsize] * v[x + lsize];
        }
        if (x < width)
            s0 += row[x] * v[x];
        partial[lid] = s0 + s1;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint s = lsize >> 1; s > 32; s >>= 1) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        STEP(32) STEP(16) STEP(8) STEP(4) STEP(2) STEP(1)

        if (lid == 0)
            w[y] = partial[0];
    }
}
