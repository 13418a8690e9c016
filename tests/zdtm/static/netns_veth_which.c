/* --external veth[IFNAME]:OUTNAME names the end outside of veth IFNAME; with two network namespaces in the
 * tree, each with a veth ve0 whose other end is the host's (the test's own namespace, and a second one that
 * an open /proc/self/ns/net file keeps; the host's ends named after the test's namespace inode, made by the
 * runner's host agent: netns_which.h), veth[ve0] does not say which: the dump must refuse it with one line
 * asking for veth[INO/ve0] (.desc dump-expect), the test left running with both. Before: both outer ends
 * were given that one name (the second made at restore could not be). */
#include "netns_which.h"

int main(int argc, char **argv)
{
	return nsw_which_main(argc, argv);
}
