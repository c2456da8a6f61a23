/* For a release without an OpenMP device runtime for NVPTX (Debian's LLVM
 * 22): the two entry points a target region references, so that the NVPTX
 * image links (with LLVM's wrapper as with offlink).  No GPU here runs
 * it: the program runs its regions on the x86_64 device. */
int __kmpc_target_init(void *kernel_environment, void *launch_environment)
{
	(void)kernel_environment;
	(void)launch_environment;
	return -1;
}

void __kmpc_target_deinit(void)
{
}
