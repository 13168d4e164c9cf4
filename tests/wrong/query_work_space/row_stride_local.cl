// WRONG: the row stride is get_local_size(0) where get_global_size(0) is meant: rows overlap
// (and the last ones fall short of the end) wherever the grid is wider than one work-group.
__kernel void query_work_space(__global int *out, const int query)
{
    int v;
    switch (query) {
    case 0: v = get_global_id(0); break;   case 1: v = get_global_id(1); break;
    case 2: v = get_global_size(0); break; case 3: v = get_global_size(1); break;
    case 4: v = get_group_id(0); break;    case 5: v = get_group_id(1); break;
    case 6: v = get_local_id(0); break;    case 7: v = get_local_id(1); break;
    case 8: v = get_local_size(0); break;  case 9: v = get_local_size(1); break;
    case 10: v = get_num_groups(0); break; case 11: v = get_num_groups(1); break;
    default: v = get_work_dim();
    }
    out[get_global_id(1) * get_local_size(0) + get_global_id(0)] = v;
}
