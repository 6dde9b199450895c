/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Minimal TAP producer for librnic's unit tests: "ok N - name" or
 * "not ok N - name" per check, diagnostics as "# ..." lines, the plan
 * "1..N" at the end; tap_done() is the exit status (1 if anything failed).
 */
#ifndef RNIC_TESTS_TAP_H
#define RNIC_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_num;
static int tap_failed;

static inline int __attribute__((format(printf, 2, 3)))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define diag(...)                        \
	do {                             \
		printf("# " __VA_ARGS__); \
		putchar('\n');           \
	} while (0)

/* is_int(got, expected, name...): integers equal; prints both if not. */
#define is_int(got, exp, ...)                                           \
	do {                                                            \
		long long _g = (long long)(got), _e = (long long)(exp); \
		if (!ok(_g == _e, __VA_ARGS__))                         \
			diag("  got %lld, expected %lld", _g, _e);      \
	} while (0)

/* is_str(got, expected, name...): strings equal (NULL-safe). */
#define is_str(got, exp, ...)                                             \
	do {                                                              \
		const char *_g = (got), *_e = (exp);                      \
		if (!ok(_g && _e ? !strcmp(_g, _e) : _g == _e, __VA_ARGS__)) \
			diag("  got \"%s\", expected \"%s\"",             \
			     _g ? _g : "(null)", _e ? _e : "(null)");     \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_num);
	if (tap_failed)
		diag("%d of %d checks failed", tap_failed, tap_num);
	return tap_failed ? 1 : 0;
}

#endif /* RNIC_TESTS_TAP_H */
