// Exercise leaky_relu: y[i] = x[i] where x[i] > 0, and 0.01f * x[i] elsewhere, for i < n
// (the global size may exceed n).
//
// The kernel below is correct, but it branches on the sign of x[i]: the signs are random, so
// in nearly every warp some work-items take the if and the others the else, and as written the
// warp runs both paths (a GPU compiler may turn so short a branch into a select; the check
// counts branches in an unoptimized build). Compute the same result without a branch that
// splits a warp (the bounds guard may stay: only the last warp splits there).
//
// Check it from the notebook with check("leaky_relu"), or from a shell:
//     python -m helpers check leaky_relu

__kernel void leaky_relu(__global const float *x,
                         __global float *y,
                         const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    if (v > 0.0f)
        y[i] = v;
    else
        y[i] = 0.01f * v;
}
