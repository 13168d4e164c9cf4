/* RIGHT: a work-group with no row returns at once, before any barrier, and the others walk their rows with a do-while loop in size_t.
 * Unusual: an early return placed before the barriers; a do-while row loop; a row pointer computed in
 *   size_t; a #define for the row step.
 * Why correct: the early-return condition get_group_id(0) >= height is the same for every work-item of
 *   a work-group, so a group either returns whole or not at all and no barrier is split; a group that
 *   stays has at least its first row (y < height), and the loop steps by the number of work-groups, so
 *   every row is done by exactly one group; within a row all work-items reach every barrier (the trip
 *   counts of the tree and row loops are the same for the whole group); partial holds one float per
 *   work-item, a power of two, as the contract says; the trailing barrier keeps the next row's stores
 *   after work-item 0 has read partial[0].
 */
#define ROW_STEP get_num_groups(0)

__kernel void mat_vec_mul(__global const float *m,
                          __global const float *v,
                          const uint width,
                          const uint height,
                          __global float *w,
                          __local float *partial)
{
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);

    if (get_group_id(0) >= height)          /* the whole work-group leaves together */
        return;

    size_t y = get_group_id(0);
    do {
        __global const float *row = m + y * width;
        float sum = 0.0f;
        for (uint x = lid; x < width; x += lsize)
            sum += row[x] * v[x];
        partial[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint s = lsize >> 1; s != 0; s >>= 1) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            w[y] = partial[0];
        barrier(CLK_LOCAL_MEM_FENCE);

        y += ROW_STEP;
    } while (y < height);
}
