// Exercise horner: evaluate a polynomial at every x.
//
// For i < n (the global size may exceed n):
//     y[i] = coef[0] + coef[1] x[i] + coef[2] x[i]^2 + ... + coef[degree] x[i]^degree
// Horner's rule computes it with one multiply and one add per coefficient, no powers:
//     c0 + x (c1 + x (c2 + ... + x (c_degree)))
// The degree + 1 coefficients are in __constant memory: every work-item reads the same
// coefficient at the same step, which a GPU's constant cache serves to a whole warp at once.
//
// Check it from the notebook with check("horner"), or from a shell:
//     python -m helpers check horner

__kernel void horner(__global const float *x,
                     __global float *y,
                     __constant float *coef,
                     const uint degree,
                     const uint n)
{
    // TODO: for a work-item with an element, start from the highest coefficient and apply
    //       Horner's rule down to coef[0]; store the result in y.
}
