// RIGHT: the first ceil(n / 2) work-items each copy two elements, i and i + ceil(n / 2) (the second guarded), and the other work-items do nothing.
__kernel void float_copy(__global const float *src,
                         __global float *dst,
                         const uint n)
{
    const uint i = get_global_id(0);
    const uint half_n = n / 2 + n % 2;
    if (i < half_n) {
        dst[i] = src[i];
        if (i + half_n < n)
            dst[i + half_n] = src[i + half_n];
    }
}
