// RIGHT: the four sums in a private array and a loop over k inside each step, every load guarded
// by its own index: the compiler unrolls the loop of four and keeps the sums in registers, so a
// step still issues four independent loads and multiply-adds; stores in a loop too.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (uint base = g; base < n; base += 4 * G) {
        for (uint k = 0; k < 4; ++k) {
            const uint i = base + k * G;
            if (i < n)
                s[k] += x[i] * y[i];
        }
    }
    for (uint k = 0; k < 4; ++k)
        partial[4 * g + k] = s[k];
}
