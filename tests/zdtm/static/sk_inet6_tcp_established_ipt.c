#define FAMILY AF_INET6
#include "sk_inet_tcp_established.c"
