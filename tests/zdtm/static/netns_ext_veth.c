/* The test's network namespace is the caller's (a keeper outside the tree holds it: the dump gets
 * --external net[INO]:extnet, the restore --inherit-fd of it, as runc gives a container's namespace by path),
 * and a veth joins it (vc) to its child's network namespace (vn, 10.94.0.2/24, up). After C/R the child has
 * vn as before and its other end is vc in the test's namespace (the caller's, kept) again with its ifindex.
 * Before: the dump took vc for an end outside the tree and the restore made it in crshim's own network
 * namespace (as veth0). The rest as netns_empty_veth. */
#define NSW_EXT_NET 1
#include "netns_empty_veth.c"
