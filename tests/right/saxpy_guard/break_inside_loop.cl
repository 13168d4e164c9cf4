// RIGHT: a grid-stride loop with no condition whose guard is a break inside the body; with at least n work-items each runs it at most once.
__kernel void saxpy_guard(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    for (uint i = get_global_id(0);; i += get_global_size(0)) {
        if (i >= n)
            break;
        y[i] = a * x[i] + y[i];
    }
}
