/* SPDX-License-Identifier: MIT */
/*
 * A tiny JSON writer into a caller-provided buffer (portable).
 *
 * Every value call takes the member name as `key`; pass NULL inside arrays
 * (and for the top-level object). Commas are inserted automatically. Strings
 * are escaped so that the output is pure printable ASCII: '"' and '\\' are
 * backslash-escaped, \n \r \t use their short forms, every other byte below
 * 0x20 or above 0x7e becomes \u00XX. If the buffer is too small the writer
 * stops writing and json_finish() returns NULL; it never writes past cap.
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 16

struct json {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, char *buf, size_t cap);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
/* val == NULL writes null. */
void json_str(struct json *j, const char *key, const char *val);
/* A string of exactly n bytes (may contain NULs, escaped as \u0000). */
void json_strn(struct json *j, const char *key, const char *val, size_t n);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* A number with two decimals, from hundredths: 157 -> 1.57, 5 -> 0.05. */
void json_x100(struct json *j, const char *key, uint64_t hundredths);
/* Hex string "0x..." for addresses and registers. */
void json_hex(struct json *j, const char *key, uint64_t val);
/*
 * NUL-terminates and returns the buffer; NULL if anything overflowed or the
 * nesting is unbalanced (every begin needs its end).
 */
const char *json_finish(struct json *j);

#endif
