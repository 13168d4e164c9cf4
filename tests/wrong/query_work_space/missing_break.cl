/* WRONG: two cases of the switch lack a break, so queries 4 and 10 fall through and return the dimension-1 value.
 * Mistake: no `break` after case 4 (get_group_id(0)) and after case 10 (get_num_groups(0)): query 4
 *   returns get_group_id(1) and query 10 returns get_num_groups(1). All other queries are right.
 * Shows: query 4 whenever some work-item has get_group_id(0) != get_group_id(1) (any launch with more
 *   than one work-group in either dimension); query 10 whenever num_groups(0) != num_groups(1). A launch
 *   with a single work-group, or a square grid of groups for query 10 alone, hides it.
 * A good checker's first sentence: "query 4 (get_group_id(0)) returned get_group_id(1)'s values: the
 *   case falls through into the next one; add a break (same for query 10)."
 */
__kernel void query_work_space(__global int *out, const int query)
{
    int value = 0;
    switch (query) {
    case 0:  value = get_global_id(0);   break;
    case 1:  value = get_global_id(1);   break;
    case 2:  value = get_global_size(0); break;
    case 3:  value = get_global_size(1); break;
    case 4:  value = get_group_id(0);
    case 5:  value = get_group_id(1);    break;
    case 6:  value = get_local_id(0);    break;
    case 7:  value = get_local_id(1);    break;
    case 8:  value = get_local_size(0);  break;
    case 9:  value = get_local_size(1);  break;
    case 10: value = get_num_groups(0);
    case 11: value = get_num_groups(1);  break;
    case 12: value = get_work_dim();     break;
    }
    out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = value;
}
