// WRONG: the technique is missing: a chunk of ceil(n / size) neighbouring elements per work-item, the way a CPU
// likes it. Right values, and fast on a CPU; but at a step the work-items of a warp are a chunk
// apart, so each touches a 32-byte sector of its own.
__kernel void strided_fix(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint size = get_global_size(0);
    const uint chunk = (n + size - 1) / size;
    const uint first = get_global_id(0) * chunk;
    const uint last = min(first + chunk, n);
    for (uint i = first; i < last; ++i)
        y[i] = a * x[i] + y[i];
}
