// Solution of count_matches: each work-item counts its own matches in a register, then adds
// them to the counter with one atomic (none when it found nothing).
__kernel void count_matches(__global const int *data,
                            const uint n,
                            const int key,
                            __global uint *count)
{
    uint mine = 0;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        mine += data[i] == key;
    if (mine)
        atomic_add(count, mine);
}
