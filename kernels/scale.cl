// Demo kernel of notebook 00: y = a * x, one work-item per element.
// (A complete kernel to read, not an exercise: it has no skeleton to fill in.)

__kernel void scale(__global const float *x,
                    __global float *y,
                    const float a,
                    const uint n)
{
    const uint i = get_global_id(0);   // this work-item's element
    if (i < n)                         // the range may be rounded up past n
        y[i] = a * x[i];
}
