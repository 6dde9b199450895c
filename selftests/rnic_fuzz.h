/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzers (fuzz.c, cm_fuzz.c, cm_wire.c's mutation mode) share:
 * their random numbers (splitmix64: a seed replays a run exactly), their
 * counts from the environment, and the kernel log: chunk markers written
 * to it and the lines that mean the kernel went wrong.
 */
#ifndef RNIC_FUZZ_H
#define RNIC_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static inline uint64_t fuzz_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The next 32 random bits of the stream @s. */
static inline uint32_t fuzz_rand(uint64_t *s)
{
	*s = fuzz_mix(*s);
	return *s >> 32;
}

/* True @n times in @d. */
static inline bool fuzz_chance(uint64_t *s, unsigned int n, unsigned int d)
{
	return fuzz_rand(s) % d < n;
}

/* A number from the environment variable @name, or @def. */
static inline unsigned long fuzz_env(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* Write a line to the kernel log (a chunk marker): 0 or -errno. */
static inline int fuzz_kmsg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, n);
	close(fd);
	return n < 0 ? -errno : 0;
}

/* The kernel log, read from its end on: a fd, or -1. */
static inline int fuzz_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* What in a kernel log line means the kernel went wrong */
static const char *const fuzz_bad_words[] = {
	"WARNING:", "BUG:", "Oops", "general protection", "refcount_t",
	"list_add corruption", "list_del corruption", "Kernel panic",
	"rnic: leak", "UBSAN", "KASAN", "Call Trace:", "allocation failure",
	"vmalloc error", "soft lockup", "blocked for more than",
};

/*
 * Read the new kernel log lines of @fd; print the bad ones and, with
 * @print_markers, the chunk markers before them (lines starting with
 * @marker, written by fuzz_kmsg(); printed as "@replay_env=ARGS", what
 * replays that chunk). Markers seen are added to *@markers if not NULL.
 * Return: the number of bad lines.
 */
static inline int fuzz_kmsg_scan(int fd, const char *marker,
				 const char *replay_env, bool print_markers,
				 unsigned int *markers)
{
	char line[1024], last[8][128];
	size_t mlen = strlen(marker);
	unsigned int nlast = 0, i;
	int bad = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = read(fd, line, sizeof(line) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		const char *msg;

		if (n <= 0)
			continue;
		line[n] = '\0';
		msg = strchr(line, ';');
		msg = msg ? msg + 1 : line;
		if (!strncmp(msg, marker, mlen)) {
			snprintf(last[nlast++ % 8], sizeof(last[0]), "%.*s",
				 (int)strcspn(msg + mlen, "\n"), msg + mlen);
			if (markers)
				(*markers)++;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(fuzz_bad_words); i++)
			if (strstr(msg, fuzz_bad_words[i]))
				break;
		if (i == ARRAY_SIZE(fuzz_bad_words))
			continue;
		bad++;
		printf("# kernel: %.*s\n", (int)strcspn(msg, "\n"), msg);
		if (!print_markers)
			continue;
		for (i = nlast > 8 ? nlast - 8 : 0; i < nlast; i++)
			printf("#   after chunk %s=%s\n", replay_env,
			       last[i % 8]);
	}
	return bad;
}

/*
 * Wait for the @nprocs worker processes @pids, watching the kernel log
 * @kfd (chunk markers @marker, replayed with @replay_env, as for
 * fuzz_kmsg_scan()): a worker that fails, a bad kernel line, or no new
 * chunk marker for @hang_s seconds (a hang: every worker is killed) fails
 * the run. Return: 1 if it failed, else 0.
 */
static inline int fuzz_supervise(const pid_t *pids, int nprocs, int kfd,
				 const char *marker, const char *replay_env,
				 int hang_s)
{
	int p, st, idle = 0, failed = 0;
	unsigned int markers;

	for (p = 0; p < nprocs;) {
		pid_t pid = waitpid(-1, &st, WNOHANG);

		if (pid > 0) {
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				printf("# process %d ended with status 0x%x\n",
				       (int)pid, st);
				failed = 1;
			}
			p++;
			continue;
		}
		markers = 0;
		if (fuzz_kmsg_scan(kfd, marker, replay_env, true, &markers))
			failed = 1;
		idle = markers ? 0 : idle + 1;
		if (idle == hang_s) {
			printf("# no chunk started for %d s: hung\n", hang_s);
			failed = 1;
			for (p = 0; p < nprocs; p++)
				kill(pids[p], SIGKILL);
		}
		sleep(1);
	}
	return failed;
}

#endif /* RNIC_FUZZ_H */
