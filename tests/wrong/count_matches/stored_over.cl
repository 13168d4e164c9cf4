// WRONG: an atomic count in a local counter, then work-item 0 stores it at count[0]: the count the
// buffer arrived with is lost, and every work-group overwrites the others'.
__kernel void count_matches(__global const int *data, const uint n, const int key,
                            __global uint *count)
{
    __local uint group_count;
    if (get_local_id(0) == 0)
        group_count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        if (data[i] == key)
            atomic_inc(&group_count);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        count[0] = group_count;
}
