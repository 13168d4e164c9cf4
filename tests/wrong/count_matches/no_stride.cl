// WRONG: atomic, but one element per work-item, as if the range always covered the data.
__kernel void count_matches(__global const int *data, const uint n, const int key,
                            __global uint *count)
{
    const uint i = get_global_id(0);
    if (i < n && data[i] == key)
        atomic_inc(count);
}
