/* zombie_leader inside a PID namespace: the test is its init, which adopts the orphans. A group leader that
 * exited with a live member in its group and a session leader that exited with a member: zombies again with
 * the same PIDs inside the namespace, members in the dead leaders' group and session, exit statuses kept. */
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	return tree_zombie_leaders(argc, argv, TREE_PIDNS, 31);
}
