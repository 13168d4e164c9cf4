/* WRONG: each work-item's share is n / global size rounded down, so the last n mod global-size elements are never added.
 * Mistake: `per = n / get_global_size(0)` (floor) with contiguous chunks [gid*per, gid*per + per); the
 *   chunks cover only [0, per * global size) and c[per * global size .. n) is never written.
 * Shows: whenever n is not a multiple of the global size (e.g. n = 1000 with 96 work-items: the last
 *   40 elements). Right when the global size divides n.
 * A good checker's first sentence: "the last <n mod global size> elements of c were never written: the
 *   share per work-item is rounded down; round it up (and stop at n), or use a grid-stride loop."
 */
__kernel void sum_ints_multi(__global const int *a,
                             __global const int *b,
                             __global int *c,
                             const uint n)
{
    const uint per = n / get_global_size(0);
    const uint first = get_global_id(0) * per;
    for (uint i = first; i < first + per; ++i)
        c[i] = a[i] + b[i];
}
