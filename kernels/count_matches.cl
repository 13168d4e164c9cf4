// Exercise count_matches: count the elements of data[0..n) equal to key, and ADD that number
// to count[0] (count arrives holding a count already).
//
// The range may have fewer work-items than n, or more: each work-item looks at i =
// get_global_id(0), i + get_global_size(0), ... while i < n.
//
// The kernel below gives the right count when the work-items run one after the other, but they
// do not: count[0]++ reads the counter, adds one and writes it back, and two work-items that do
// that at the same time lose one of their additions. Make the update safe.
//
// Check it from the notebook with check("count_matches"), or from a shell:
//     python -m helpers check count_matches

__kernel void count_matches(__global const int *data,
                            const uint n,
                            const int key,
                            __global uint *count)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        if (data[i] == key)
            count[0]++;
}
