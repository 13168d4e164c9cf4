/* WRONG: the element index is taken from get_local_id(0), so every work-group adds the same first elements.
 * Mistake: `i = get_local_id(0)` where get_global_id(0) is meant; all work-groups write c[0 .. local size)
 *   (the same values, a harmless duplicate) and c[local size .. n) is never written.
 * Shows: whenever n > the work-group size (more than one work-group is needed to cover the data). It is
 *   right only when a single work-group covers all of n (global size == local size >= n).
 * A good checker's first sentence: "c[i] was never written from i = <local size> on: the index comes
 *   from get_local_id(0), which restarts at 0 in every work-group; use get_global_id(0)."
 */
__kernel void sum_ints(__global const int *a,
                       __global const int *b,
                       __global int *c,
                       const uint n)
{
    const uint i = get_local_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
