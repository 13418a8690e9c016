/* sk_unix_pair_dgram with a seqpacket socketpair: messages of different sizes queued both ways come back
 * once, in order, with their boundaries; new messages flow. */
#define PAIR_TYPE SOCK_SEQPACKET
#define PAIR_NAME "seqpacket"
#include "sk_unix_pair_dgram.c"
