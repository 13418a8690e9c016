/* sk_unix_memcg with a memory limit 4 MiB above the usage: crshim stays out of that cgroup (see there). */
#define SKMEM_TIGHT 1
#include "sk_unix_memcg.c"
