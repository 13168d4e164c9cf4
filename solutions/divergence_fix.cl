// Solution of divergence_fix: static thread reordering. Work-item g takes element 2g while
// g < ceil(n / 2) (the even elements), and element 2(g - ceil(n / 2)) + 1 after that (the odd
// ones): the work-items of a warp agree on the branch, except in the one warp at the seam.

__kernel void divergence_fix(__global const float *x,
                             __global float *y,
                             const uint n,
                             const uint rounds)
{
    const uint g = get_global_id(0);
    if (g >= n)
        return;
    const uint evens = (n + 1) / 2;
    const bool even = g < evens;
    const uint i = even ? 2 * g : 2 * (g - evens) + 1;
    float v = x[i];
    if (even)
        for (uint r = 0; r < rounds; ++r)
            v = 0.9f * v + 0.1f;
    else
        for (uint r = 0; r < rounds; ++r)
            v = 0.25f * v * v - 0.5f;
    y[i] = v;
}
