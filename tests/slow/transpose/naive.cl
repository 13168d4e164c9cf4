// Correct but slow on a GPU: no tile, so neighbouring work-items write addresses `height` floats
// apart. It must pass the check (correctness decides), with its speed reported.
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *tile)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}
