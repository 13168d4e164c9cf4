// Solution of matrix_vector: one element per work-item, the repeats on a private copy.

__kernel void matrix_vector(__global float *a,
                            __global const float *b,
                            const uint rows,
                            const uint cols,
                            const uint repeat)
{
    const uint j = get_global_id(0);
    const uint i = get_global_id(1);
    if (i >= rows || j >= cols)
        return;
    const size_t at = (size_t)i * cols + j;
    // One read and one write of global memory whatever repeat is: the loop runs in registers,
    // so repeat sets the work per byte (2 flops, a multiply and an add, per round).
    float x = a[at];
    const float f = b[j];
    for (uint r = 0; r < repeat; ++r)
        x = x + x * f;
    a[at] = x;
}
