/* WRONG: the kernel does not compile: it names a loop variable `half`, which is a built-in type name in OpenCL C.
 * Mistake: `for (uint half = get_local_size(0) / 2; half > 0; half /= 2)` in the helper: `half` is the
 *   16-bit float type of OpenCL C (a reserved type name even where cl_khr_fp16 is absent), so the
 *   build fails ("cannot combine with previous 'type-name' declaration specifier" in clang-based
 *   compilers). Everything else (helper with barriers, grid-stride loop, tree) is right: renamed, the
 *   variable gives a correct kernel.
 * Shows: always, at build time, on every device; no launch happens.
 * A good checker's first sentence: "the kernel does not compile: `half` is a type in OpenCL C and
 *   cannot name a variable (line 16); rename it", followed by the compiler's own message.
 */
int group_sum(__local int *scratch, const int mine)
{
    const uint lid = get_local_id(0);
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint half = get_local_size(0) / 2; half > 0; half /= 2) {
        if (lid < half)
            scratch[lid] += scratch[lid + half];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}

__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    const size_t stride = get_global_size(0);
    size_t i = get_global_id(0);
    int mine = 0;
    while (i < (size_t)n) {
        mine += src[i];
        i += stride;
    }

    const int total = group_sum(scratch, mine);
    if (get_local_id(0) == 0)
        partial[get_group_id(0)] = total;
}
