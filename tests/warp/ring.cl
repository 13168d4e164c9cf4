// a private array indexed at run time in a loop: it stays in (private) memory
__kernel void ring(__global const float *in, __global float *out, int n)
{
    size_t i = get_global_id(0);
    float h[8];
    for (int k = 0; k < 8; k++)
        h[k] = 0.0f;
    float s = 0.0f;
    for (int k = 0; k < n; k++) {
        float v = in[(i + k) % get_global_size(0)];
        s += h[k % 8];
        h[k % 8] = v;
    }
    out[i] = s;
}
