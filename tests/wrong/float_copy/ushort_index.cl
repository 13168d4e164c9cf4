/* WRONG: the element index is kept in a ushort, so it wraps at 65536 and later elements are never copied.
 * Mistake: `ushort i = get_global_id(0)` truncates the index modulo 65536. Work-items 65536, 65537, ...
 *   copy elements 0, 1, ... again (the same value, so harmless), and dst[65536 .. n) is never written.
 * Shows: only when n > 65536 (the global size is then > 65536 as well); for n <= 65536 every launch is
 *   correct, whatever the global and work-group sizes.
 * A good checker's first sentence: "dst[65536] and later were never written: the index is held in a
 *   ushort, which wraps around at 65536; keep get_global_id(0) in a uint or size_t."
 */
__kernel void float_copy(__global const float *src,
                         __global float *dst,
                         const uint n)
{
    const ushort i = get_global_id(0);   /* small arrays in the notebook, so a short is enough */
    if (i < n)
        dst[i] = src[i];
}
