// WRONG: each chain starts at g + kG but steps by G, as the one-chain grid-stride loop did: the
// chains overlap, so chain k adds every element chain k - 1 adds but the first.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    for (uint k = 0; k < 4; ++k) {
        float sum = 0.0f;
        for (uint i = g + k * G; i < n; i += G)
            sum += x[i] * y[i];
        partial[4 * g + k] = sum;
    }
}
