/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rnic_json: a minimal streaming JSON writer for the rnic tools.
 *
 * Values are written as they come; the writer only tracks nesting to place
 * commas, newlines and indentation. Inside an object every value must be
 * preceded by rnic_json_key(). When the outermost value is complete a
 * newline is written. Output errors are left to the stream (check
 * ferror() on it). Strings are escaped per RFC 8259; bytes that are not
 * valid UTF-8 are written as U+FFFD.
 */
#ifndef RNIC_JSON_H
#define RNIC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rnic_json;

/**
 * rnic_json_new() - start a writer on @f
 * @f: output stream, not owned
 * @pretty: indent by two spaces per level, one member per line
 *
 * Return: a new writer owned by the caller (rnic_json_free()), or NULL
 * with errno set.
 */
struct rnic_json *rnic_json_new(FILE *f, bool pretty);

/**
 * rnic_json_free() - free the writer; does not close the stream nor any
 * open container
 * @j: writer or NULL
 */
void rnic_json_free(struct rnic_json *j);

/**
 * rnic_json_depth() - how many containers are open
 * @j: writer
 */
unsigned int rnic_json_depth(const struct rnic_json *j);

void rnic_json_start_object(struct rnic_json *j);
void rnic_json_end_object(struct rnic_json *j);
void rnic_json_start_array(struct rnic_json *j);
void rnic_json_end_array(struct rnic_json *j);

/* Member name inside an object; the value written next belongs to it. */
void rnic_json_key(struct rnic_json *j, const char *key);

void rnic_json_string(struct rnic_json *j, const char *s);
void rnic_json_uint(struct rnic_json *j, uint64_t v);
void rnic_json_int(struct rnic_json *j, int64_t v);
/* @v with @decimals digits after the point; NaN and infinities as null. */
void rnic_json_double(struct rnic_json *j, double v, int decimals);
void rnic_json_bool(struct rnic_json *j, bool v);
void rnic_json_null(struct rnic_json *j);

/**
 * rnic_json_write_string() - write @s as a quoted, escaped JSON string
 * @f: output stream
 * @s: NUL-terminated bytes, any encoding
 */
void rnic_json_write_string(FILE *f, const char *s);

#endif /* RNIC_JSON_H */
