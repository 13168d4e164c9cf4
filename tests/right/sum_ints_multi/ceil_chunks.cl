/* RIGHT: each work-item adds one contiguous chunk of ceil(n / global size) elements, chunks clipped at n.
 * Unusual: contiguous chunks instead of a grid-stride loop (neighbouring work-items touch addresses a
 *   chunk apart: slow on a GPU, but this exercise asks only for the result); bounds in size_t, with the
 *   chunk start clipped to n so that late work-items get an empty chunk.
 * Why correct: per * global size >= n, so the chunks [g*per, min(g*per + per, n)) tile [0, n) exactly
 *   once; nothing outside [0, n) is touched; works for any n (even n < global size, or 0) and any
 *   work-group size.
 */
__kernel void sum_ints_multi(__global const int *a,
                             __global const int *b,
                             __global int *c,
                             const uint n)
{
    const size_t items = get_global_size(0);
    const size_t per = ((size_t)n + items - 1) / items;
    const size_t first = min((size_t)get_global_id(0) * per, (size_t)n);
    const size_t last = min(first + per, (size_t)n);

    for (size_t i = first; i < last; ++i)
        c[i] = a[i] + b[i];
}
