// RIGHT: unusual: a grid-stride loop over float4s (vload4/vstore4), then the last n % 4 elements by
// the first work-items. At every step a warp's lanes touch neighbouring float4s: 16 sectors of 32
// bytes a request, all of them needed (coalesced for 16-byte lanes).
__kernel void strided_fix(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint g = get_global_id(0), size = get_global_size(0);
    const uint quads = n / 4;
    for (uint q = g; q < quads; q += size)
        vstore4(a * vload4(q, x) + vload4(q, y), q, y);
    const uint i = 4 * quads + g;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
