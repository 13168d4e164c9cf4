// Debugging output left in: every work-item prints its index and value a thousand times. The copy
// is right; the output (megabytes) is what the check must stop.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        for (int r = 0; r < 1000; r++)
            printf("work-item %u of %u copies %f (pass %d)\n", i, n, src[i], r);
        dst[i] = src[i];
    }
}
