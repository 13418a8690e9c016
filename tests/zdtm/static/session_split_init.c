/* session_dead_split's tree (two sessions whose leaders are gone, each with a member under the same two
 * session leaders P and Q: the shape of CRIU's session02) with the test as PID 1 of its own PID namespace
 * and no subreaper: Q, born in one of the dead sessions below P, was adopted by the init when its parent
 * exited. The restore makes Q the same way (its helper's orphan goes to the init: no adopter flag), P a
 * subreaper only for the time its orphan of the other session needs. */
#define SPLIT_FLAGS TREE_PIDNS
#include "session_dead_split.c"
