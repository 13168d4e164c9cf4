// WRONG: each chain's sum is stored only if the chain has an element (g + kG < n): when G exceeds
// n / 4 the chains past the data leave their partials unwritten, where the contract asks for 0.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    for (uint k = 0; k < 4; ++k) {
        float sum = 0.0f;
        for (uint i = g + k * G; i < n; i += 4 * G)
            sum += x[i] * y[i];
        if (g + k * G < n)
            partial[4 * g + k] = sum;
    }
}
