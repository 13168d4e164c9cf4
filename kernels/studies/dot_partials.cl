// The former exercise dot_partials' solution (a grid-stride loop, one chain), kept as the H100
// measured it (results/history/warp-truth-nvidia-h100.json, "dot_partials (model case)";
// tools/cuda_twins.py). Notebook 05's exercise is now dot_chains: four chains a work-item.
__kernel void dot_partials(__global const float *x,
                           __global const float *y,
                           __global float *partial,
                           const uint n)
{
    const uint g = get_global_id(0);
    const uint size = get_global_size(0);
    float sum = 0.0f;
    for (uint i = g; i < n; i += size)
        sum += x[i] * y[i];
    partial[g] = sum;
}
