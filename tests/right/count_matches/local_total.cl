// RIGHT: the work-group's matches gathered in a local counter (zeroed by work-item 0, atomics on
// local memory), then one atomic_add on count per work-group.
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
    if (get_local_id(0) == 0 && group_count)
        atomic_add(count, group_count);
}
