/* WRONG: the loop steps by get_local_size(0) instead of get_global_size(0), so every work-group walks over the same elements and most elements are updated several times.
 * Mistake: `i += get_local_size(0)`. Element e is updated by every work-item gid <= e with
 *   gid = e mod local size, i.e. min(e / L, groups - 1) + 1 times, and y[i] = a*x[i] + y[i] is not
 *   idempotent (and the repeated updates race with each other).
 * Shows: whenever there is more than one work-group: every element from index L (the local size) on
 *   gets a*x added more than once. With a single work-group (global size == local size) it is right.
 * A good checker's first sentence: "y[i] for i >= <L> received a*x[i] several times: the loop steps by
 *   get_local_size(0), so the work-groups overlap; step by get_global_size(0)."
 */
__kernel void strided_fix(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    for (uint i = get_global_id(0); i < n; i += get_local_size(0))
        y[i] = a * x[i] + y[i];
}
