// Notebook 10, synchronization: the training's hotspot example. A chip's temperature on a
// width x height grid (row-major) is stepped forward in time; each step needs every neighbour's
// value from the step before, so a step must finish everywhere before the next one starts.
//
// One step, for the cell (x, y) with temperature t and power p:
//     t' = t + CX * (west + east - 2 t) + CY * (north + south - 2 t) + CP * p
// where a neighbour outside the grid is the cell itself (an insulated edge).

#define CX 0.1f
#define CY 0.1f
#define CP 0.05f

inline float step(float t, float w, float e, float n, float s, float p)
{
    return t + CX * (w + e - 2.0f * t) + CY * (n + s - 2.0f * t) + CP * p;
}

// One step per launch: the end of the launch is the global synchronization, and every step reads
// and writes the whole grid in global memory. 2-D range, dimension 0 = column x.
__kernel void hotspot_step(__global const float *t_in, __global const float *power,
                           __global float *t_out, const uint width, const uint height)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const uint i = y * width + x;
    const float t = t_in[i];
    const float w = x > 0 ? t_in[i - 1] : t, e = x + 1 < width ? t_in[i + 1] : t;
    const float n = y > 0 ? t_in[i - width] : t, s = y + 1 < height ? t_in[i + width] : t;
    t_out[i] = step(t, w, e, n, s, power[i]);
}

// STEPS steps per launch ("exchange computation for data access"): a work-group of B x B
// work-items loads a B x B block with a halo of STEPS cells on every side, and steps it STEPS
// times in local memory. After each step the ring of cells next to the block's edge is wrong
// (its outside neighbours were not updated), so the part still correct shrinks by one cell a
// side; after STEPS steps the inner (B - 2 STEPS) x (B - 2 STEPS) cells are written back. The
// blocks overlap by 2 STEPS cells: that redundant work buys STEPS - 1 fewer launches.
// Work-groups are B x B with B = get_local_size(0) = get_local_size(1) <= 32.
__kernel void hotspot_tiled(__global const float *t_in, __global const float *power,
                            __global float *t_out, const uint width, const uint height)
{
    __local float tile[2][32][32];
    const int b = (int)get_local_size(0);
    const int inner = b - 2 * STEPS;
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    // the cell this work-item holds: blocks start every `inner` cells, STEPS before their part
    const int x = (int)get_group_id(0) * inner - STEPS + lx;
    const int y = (int)get_group_id(1) * inner - STEPS + ly;
    const int cx = clamp(x, 0, (int)width - 1), cy = clamp(y, 0, (int)height - 1);
    const bool inside = x == cx && y == cy;
    const float p = power[cy * (int)width + cx];
    tile[0][ly][lx] = t_in[cy * (int)width + cx];
    barrier(CLK_LOCAL_MEM_FENCE);

    // A neighbour outside the grid is the cell itself; one outside the tile is never needed by
    // a cell that is still correct.
    const int wx = x > 0 ? max(lx - 1, 0) : lx, ex = x + 1 < (int)width ? min(lx + 1, b - 1) : lx;
    const int ny = y > 0 ? max(ly - 1, 0) : ly, sy = y + 1 < (int)height ? min(ly + 1, b - 1) : ly;
    int cur = 0;
    for (int k = 0; k < STEPS; ++k) {
        const float t = tile[cur][ly][lx];
        tile[1 - cur][ly][lx] = step(t, tile[cur][ly][wx], tile[cur][ly][ex],
                                     tile[cur][ny][lx], tile[cur][sy][lx], p);
        barrier(CLK_LOCAL_MEM_FENCE);
        cur = 1 - cur;
    }
    if (inside && lx >= STEPS && lx < STEPS + inner && ly >= STEPS && ly < STEPS + inner)
        t_out[y * (int)width + x] = tile[cur][ly][lx];
}
