// Demo of notebook 03: erosion of an image through an image object and a sampler.
//
// The sampler clamps coordinates outside the image to its edge: the window reads the border
// pixel again instead of leaving the image, which does not change a minimum. So the window needs
// no clipping at all, and the device's texture path does the addressing.

__constant sampler_t clamped = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                               CLK_FILTER_NEAREST;

__kernel void erosion_image(__read_only image2d_t in, __write_only image2d_t out, const int radius)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= get_image_width(in) || y >= get_image_height(in))
        return;
    float m = INFINITY;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            m = fmin(m, read_imagef(in, clamped, (int2)(x + dx, y + dy)).x);
    write_imagef(out, (int2)(x, y), (float4)(m, 0.0f, 0.0f, 1.0f));
}
