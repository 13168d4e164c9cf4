// Exercise erosion_2d: erosion of an image.
//
// The image is width x height floats, row-major: pixel (x, y) is in[y * width + x].
// The range is 2-D: get_global_id(0) is the column x, get_global_id(1) the row y,
// each rounded up past the image. out(x, y) is the minimum over the square window
// of (2 * radius + 1) x (2 * radius + 1) pixels centred on (x, y), clipped to the image.
//
// Check it with check("erosion_2d").

__kernel void erosion_2d(__global const float *in,
                         __global float *out,
                         const uint width,
                         const uint height,
                         const uint radius)
{
    // TODO: this work-item's pixel; the window clipped to the image; the minimum.
}
