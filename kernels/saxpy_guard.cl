// Exercise saxpy_guard: y = a * x + y, one work-item per element.
//
// Every work-item updates one element: y[i] = a * x[i] + y[i] for its own index i.
// The host rounds the global size up to a multiple of the work-group size, so the
// launch may have more work-items than there are elements (n). The body below is
// right for the work-items that have an element; the others read and write past the
// end of x and y.
//
// Check it from the notebook with check("saxpy_guard"), or from a shell:
//     python -m helpers check saxpy_guard

__kernel void saxpy_guard(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    const uint i = get_global_id(0);
    // TODO: only the work-items that have an element may do the update.
    y[i] = a * x[i] + y[i];
}
