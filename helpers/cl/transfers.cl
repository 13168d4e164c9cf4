// Notebook 07, transfers and overlap: some work per element, so that a chunk's kernel takes
// about as long as its copies. x[i] goes `rounds` times through v = 0.999 v + 0.001.
__kernel void polish(__global float *x, const uint n, const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = 0.999f * v + 0.001f;
    x[i] = v;
}
