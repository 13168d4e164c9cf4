/* RIGHT: every work-item computes all thirteen query values into a private array and stores the one asked for.
 * Unusual: no switch; a private int[13] initialised with non-constant expressions (legal C99 for an
 *   automatic array), indexed by query; the output index is computed in size_t.
 * Why correct: entry q of the table is exactly query function number q of the contract, the store goes
 *   to out[gid1 * gsize0 + gid0] as required, and a query outside 0..12 (which the contract never sends)
 *   stores 0 instead of reading past the table.
 */
__kernel void query_work_space(__global int *out, const int query)
{
    const int table[13] = {
        (int)get_global_id(0),  (int)get_global_id(1),
        (int)get_global_size(0), (int)get_global_size(1),
        (int)get_group_id(0),   (int)get_group_id(1),
        (int)get_local_id(0),   (int)get_local_id(1),
        (int)get_local_size(0), (int)get_local_size(1),
        (int)get_num_groups(0), (int)get_num_groups(1),
        (int)get_work_dim()
    };
    const size_t where = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[where] = (query >= 0 && query < 13) ? table[query] : 0;
}
