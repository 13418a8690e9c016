/* sk_unix_peercred_nestconn with a connection not accepted yet in the test's listener (NC_QUEUE). */
#define NC_QUEUE 1
#include "sk_unix_peercred_nestconn.c"
