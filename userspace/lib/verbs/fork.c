// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librnic: fork() support.
 *
 * rdma-core's ibv_fork_init() marks registered memory MADV_DONTFORK so that
 * copy-on-write after fork() cannot move the parent's pages away from under
 * the HCA's DMA. rnic never DMAs: the kernel module reaches registered
 * memory through pages pinned with pin_user_pages(FOLL_LONGTERM), and the
 * kernels rnic supports copy pinned anonymous pages for the child at fork()
 * time ("early COW", Linux 5.9; ib_uverbs advertises the same guarantee to
 * rdma-core since 5.13), so the parent keeps exactly the pages it pinned.
 * Nothing is left to prepare, which is what rdma-core reports as
 * IBV_FORK_UNNEEDED; its man page gives that value precedence whether
 * ibv_fork_init() was called or not, and ibv_fork_init() then succeeds
 * without doing anything.
 *
 * This makes the parent's registrations safe across fork(); as with
 * rdma-core, the child must not use verbs objects it inherited.
 */
#include "internal.h"

int ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}
