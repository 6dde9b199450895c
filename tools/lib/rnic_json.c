// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic_json: minimal streaming JSON writer (see rnic_json.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "rnic_json.h"

/* Deeper nesting still produces valid JSON, only commas are then guessed
 * from the innermost tracked level; the tools never nest more than 4. */
#define RNIC_JSON_MAX_DEPTH 64

struct rnic_json {
	FILE *f;
	bool pretty;
	bool after_key;		/* a key was written, its value comes next */
	unsigned int depth;
	uint64_t has_members;	/* bit d: container at depth d is not empty */
};

struct rnic_json *rnic_json_new(FILE *f, bool pretty)
{
	struct rnic_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->f = f;
	j->pretty = pretty;
	return j;
}

void rnic_json_free(struct rnic_json *j)
{
	free(j);
}

unsigned int rnic_json_depth(const struct rnic_json *j)
{
	return j->depth;
}

static uint64_t level_bit(unsigned int depth)
{
	return UINT64_C(1) << (depth < RNIC_JSON_MAX_DEPTH ? depth :
			       RNIC_JSON_MAX_DEPTH - 1);
}

static void indent(struct rnic_json *j)
{
	unsigned int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator before a key, or before a value that has no key. */
static void before_member(struct rnic_json *j)
{
	if (!j->depth)
		return;
	if (j->has_members & level_bit(j->depth))
		fputc(',', j->f);
	j->has_members |= level_bit(j->depth);
	if (j->pretty)
		indent(j);
}

static void before_value(struct rnic_json *j)
{
	if (j->after_key)
		j->after_key = false;
	else
		before_member(j);
}

static void after_value(struct rnic_json *j)
{
	if (!j->depth)
		fputc('\n', j->f);
}

static void start(struct rnic_json *j, char c)
{
	before_value(j);
	fputc(c, j->f);
	j->depth++;
	j->has_members &= ~level_bit(j->depth);
}

static void end(struct rnic_json *j, char c)
{
	if (!j->depth)
		return;
	if (j->pretty && (j->has_members & level_bit(j->depth))) {
		j->depth--;
		indent(j);
	} else {
		j->depth--;
	}
	fputc(c, j->f);
	after_value(j);
}

void rnic_json_start_object(struct rnic_json *j)
{
	start(j, '{');
}

void rnic_json_end_object(struct rnic_json *j)
{
	end(j, '}');
}

void rnic_json_start_array(struct rnic_json *j)
{
	start(j, '[');
}

void rnic_json_end_array(struct rnic_json *j)
{
	end(j, ']');
}

void rnic_json_key(struct rnic_json *j, const char *key)
{
	before_member(j);
	rnic_json_write_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void rnic_json_string(struct rnic_json *j, const char *s)
{
	before_value(j);
	rnic_json_write_string(j->f, s);
	after_value(j);
}

void rnic_json_uint(struct rnic_json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
	after_value(j);
}

void rnic_json_int(struct rnic_json *j, int64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRId64, v);
	after_value(j);
}

void rnic_json_double(struct rnic_json *j, double v, int decimals)
{
	before_value(j);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
	after_value(j);
}

void rnic_json_bool(struct rnic_json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
	after_value(j);
}

void rnic_json_null(struct rnic_json *j)
{
	before_value(j);
	fputs("null", j->f);
	after_value(j);
}

static bool cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Length of the valid UTF-8 sequence at @s (1-4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return cont(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		/* no overlong forms (E0 80-9F), no surrogates (ED A0-BF) */
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0;
		return cont(s[1]) && cont(s[2]) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		/* no overlong forms (F0 80-8F), nothing past U+10FFFF */
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0;
		return cont(s[1]) && cont(s[2]) && cont(s[3]) ? 4 : 0;
	}
	return 0;
}

void rnic_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			/* A NUL ends a truncated sequence: cont() fails on it. */
			n = utf8_len(s);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', f);
}
