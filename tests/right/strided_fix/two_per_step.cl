/* RIGHT: a grid-stride loop unrolled by two: each iteration updates i and i + global size, then a single tail element.
 * Unusual: two elements a global size apart per iteration (stride 2 * global size), with the one
 *   possible leftover handled after the loop; indices in size_t.
 * Why correct: work-item g updates g, g + G, g + 2G, ... < n (G = global size), each exactly once: the
 *   loop takes pairs while the second of the pair is < n, and then at most one element (i < n) is left;
 *   at every step work-items g and g + 1 touch elements i and i + 1 (and i + G, i + G + 1), so
 *   neighbours touch neighbours as the contract requires; any n, global size and work-group size.
 */
__kernel void strided_fix(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    const size_t G = get_global_size(0);
    size_t i = get_global_id(0);

    for (; i + G < (size_t)n; i += 2 * G) {
        y[i] = a * x[i] + y[i];
        y[i + G] = a * x[i + G] + y[i + G];
    }
    if (i < (size_t)n)
        y[i] = a * x[i] + y[i];
}
