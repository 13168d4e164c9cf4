// Two mistakes at once: each work-item writes the element after its own (the last one past the
// end of dst), then waits in a loop that never ends (k never reaches n + 1). Oclgrind sees the
// write only in the check's first small case (n = 1), where work-item 0 itself writes dst[1]
// before it starts looping.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        dst[i + 1] = src[i];
    uint k = i;
    while (k < n + 1)
        k = (k * 7u) % (n + 1u);
}
