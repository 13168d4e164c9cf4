// RIGHT: vload4/vstore4 on a shifted pointer (offset 0 of x + 4i); the tail is a fall-through switch on the count of floats left, which is 1..3 only for the crossing work-item.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    if (i >= (n + 3u) / 4u)
        return;
    const uint first = 4u * i;
    __global const float *xp = x + first;
    __global float *yp = y + first;
    switch (n - first) {           /* first < n here, so no underflow */
    case 1: yp[0] = a * xp[0] + yp[0]; break;
    case 2: yp[1] = a * xp[1] + yp[1];
            yp[0] = a * xp[0] + yp[0]; break;
    case 3: yp[2] = a * xp[2] + yp[2];
            yp[1] = a * xp[1] + yp[1];
            yp[0] = a * xp[0] + yp[0]; break;
    default:
        vstore4(a * vload4(0, xp) + vload4(0, yp), 0, yp);
    }
}
