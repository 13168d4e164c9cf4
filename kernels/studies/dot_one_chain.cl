// dot_chains' contract with one chain at a time (notebook 05, beside the learner's kernel): the
// same four partial sums, each from a loop of its own, so every step waits on the step before
// (one multiply-add chain, one load of x and y in flight). Named like the exercise, so that
// bench.time_exercise builds it and checks its results against the same reference.
__kernel void dot_chains(__global const float *x,
                         __global const float *y,
                         __global float *partial,
                         const uint n)
{
    const uint g = get_global_id(0);
    const uint G = get_global_size(0);
    for (uint k = 0; k < 4; ++k) {
        float sum = 0.0f;
        for (uint i = g + k * G; i < n; i += 4 * G)
            sum += x[i] * y[i];
        partial[4 * g + k] = sum;
    }
}
