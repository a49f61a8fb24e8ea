// SPDX-License-Identifier: MIT
/* The names of the result roles and flush kinds (bench/role.h). */
#include "bench/role.h"

#define ROLE_NAME(id, name) name,
static const char *const role_names[ROLE_COUNT] = {RESULT_ROLES(ROLE_NAME)};
static const char *const kind_names[FK_COUNT] = {FLUSH_KINDS(ROLE_NAME)};
#undef ROLE_NAME

const char *result_role_name(enum result_role r)
{
	return (unsigned)r < ROLE_COUNT ? role_names[r] : "?";
}

const char *flush_kind_name(enum flush_kind k)
{
	return (unsigned)k < FK_COUNT ? kind_names[k] : "?";
}
