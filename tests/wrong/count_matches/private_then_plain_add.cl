// WRONG: the matches counted in a register, the right idea, but added to the counter with a plain
// +=: work-items that add at the same time still lose each other's counts.
__kernel void count_matches(__global const int *data, const uint n, const int key,
                            __global uint *count)
{
    uint mine = 0;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        mine += data[i] == key;
    count[0] += mine;
}
