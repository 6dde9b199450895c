/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * A fake /sys/class/rnic and /dev/infiniband in a temporary directory,
 * pointed to by RNIC_SYSFS_DIR and RNIC_DEV_DIR.
 */
#ifndef RNIC_TESTS_FAKE_SYSFS_H
#define RNIC_TESTS_FAKE_SYSFS_H

#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

struct fake {
	char root[256];
	char class_dir[300];
	char dev_dir[300];
};

static inline void fake_die(const char *what, const char *path)
{
	fprintf(stderr, "Bail out! %s %s: %s\n", what, path, strerror(errno));
	printf("Bail out! %s %s\n", what, path);
	exit(1);
}

static inline void fake_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		fake_die("cannot write", path);
}

static inline void fake_mkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		fake_die("cannot mkdir", path);
}

/* Make the temporary root and point librnic at it; no class dir yet. */
static inline void fake_init(struct fake *f)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(f->root, sizeof(f->root), "%s/librnic-test.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->root))
		fake_die("cannot mkdtemp", f->root);
	snprintf(f->class_dir, sizeof(f->class_dir), "%s/class", f->root);
	snprintf(f->dev_dir, sizeof(f->dev_dir), "%s/dev", f->root);
	fake_mkdir(f->dev_dir);
	setenv("RNIC_SYSFS_DIR", f->class_dir, 1);
	setenv("RNIC_DEV_DIR", f->dev_dir, 1);
}

/*
 * Add device @name; a NULL attribute is left out, the others are written
 * with a trailing newline as sysfs does.
 */
static inline void fake_add(struct fake *f, const char *name, const char *abi,
		     const char *uverbs, const char *guid, const char *dev)
{
	const char *attr[] = { "abi_version", "uverbs", "node_guid", "dev" };
	const char *val[] = { abi, uverbs, guid, dev };
	char path[1024], text[256];
	size_t i;

	fake_mkdir(f->class_dir);
	snprintf(path, sizeof(path), "%s/%s", f->class_dir, name);
	fake_mkdir(path);
	for (i = 0; i < 4; i++) {
		if (!val[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", f->class_dir, name,
			 attr[i]);
		snprintf(text, sizeof(text), "%s\n", val[i]);
		fake_write(path, text);
	}
}

/* A valid device with ABI version 1. */
static inline void fake_add_ok(struct fake *f, const char *name, const char *uverbs,
			const char *guid)
{
	fake_add(f, name, "1", uverbs, guid, "231:1024");
}

static inline int fake_rm_one(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the class directory (devices), keep the root. */
static inline void fake_clear(struct fake *f)
{
	if (nftw(f->class_dir, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS) &&
	    errno != ENOENT)
		fake_die("cannot remove", f->class_dir);
}

static inline void fake_fini(struct fake *f)
{
	if (nftw(f->root, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fake_die("cannot remove", f->root);
}

#endif /* RNIC_TESTS_FAKE_SYSFS_H */
