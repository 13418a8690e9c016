#include "sk_inet_tcp_established.c"
