/* sk_unix_listen_gone_client dumped with --ext-unix-sk (see there) */
#define GONE_EXT
#include "sk_unix_listen_gone_client.c"
