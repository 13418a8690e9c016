#define FAMILY AF_INET6
#define V6ONLY 1
#include "sk_inet_tcp_listen.c"
