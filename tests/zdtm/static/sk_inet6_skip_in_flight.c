/* sk_inet_skip_in_flight over IPv6. */
#define FAMILY AF_INET6
#include "sk_inet_skip_in_flight.c"
