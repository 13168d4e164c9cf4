// Wrong: copies in to out instead of transposing it.
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *tile)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height)
        out[y * width + x] = in[y * width + x];
}
