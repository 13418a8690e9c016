/* Zombies that still lead (the test is a child subreaper, so the members stay in its tree): a child that made
 * its own process group, forked a member into it and exited (a zombie group leader with a live member), and a
 * child that made its own session with a member and exited (a zombie session leader). After restore both are
 * zombies again with the same ids, the members still in the dead leaders' group and session, and waitpid
 * returns the leaders' exit statuses. */
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	return tree_zombie_leaders(argc, argv, TREE_SUBREAPER, 21);
}
