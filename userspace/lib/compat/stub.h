/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Stubs of the compat libraries (libibverbs.so.1, librdmacm.so.1): exported
 * functions for what rnic does not do, so that binaries linked against
 * rdma-core load, and fail only if they call one.
 *
 * A stub takes no parameters: it never reads its arguments, and the SysV
 * and AAPCS64 calling conventions let a caller pass arguments to a
 * function that ignores them. So a stub must not see a declaration of its
 * name with the real prototype: the files that define stubs include no
 * verbs header, or give the stub a name of rnic's own (provider.c). What
 * must match is the kind of return value, which each macro names.
 */
#ifndef RNIC_COMPAT_STUB_H
#define RNIC_COMPAT_STUB_H

#include <errno.h>
#include <stddef.h>

/* int function that returns an errno value (the verbs' convention). */
#define STUB_ERRNO(name, err)                                            \
	int name(void);                                                  \
	int name(void)                                                   \
	{                                                                \
		errno = (err);                                           \
		return (err);                                            \
	}

/*
 * Function returning -1 and setting errno (librdmacm's and the socket
 * calls' convention); long, so that callers of int, ssize_t and off_t
 * functions all read -1.
 */
#define STUB_MINUS1(name, err)                                           \
	long name(void);                                                 \
	long name(void)                                                  \
	{                                                                \
		errno = (err);                                           \
		return -1;                                               \
	}

/* Function returning a pointer: NULL with errno set. */
#define STUB_NULL(name, err)                                             \
	void *name(void);                                                \
	void *name(void)                                                 \
	{                                                                \
		errno = (err);                                           \
		return NULL;                                             \
	}

/* Function returning nothing: nothing to fail with, so it does nothing. */
#define STUB_VOID(name)                                                  \
	void name(void);                                                 \
	void name(void)                                                  \
	{                                                                \
	}

#endif /* RNIC_COMPAT_STUB_H */
