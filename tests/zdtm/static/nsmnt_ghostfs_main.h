/* The main of an nsmnt_child_ghostfs test (nsmnt.h nsmnt_ghostfs): its tmpfs at GHOSTFS_TOP, the child's
 * setup() and check(), whose exit bits GHOSTFS_BITS names. Define them, then include this at the end. */
int main(int argc, char **argv)
{
	nsmnt_ghostfs(argc, argv, GHOSTFS_TOP, setup, check, GHOSTFS_BITS);
	return test_pass();
}
