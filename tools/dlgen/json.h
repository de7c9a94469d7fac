/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for dlgen's task files.  It keeps what rt-app's
 * files rely on and a strict reader would lose: the members of an object
 * in their order, with repeated keys kept (rt-app's events are ordered and
 * a key may repeat), and the position of every value for error messages.
 * Like json-c, which rt-app uses, it also takes C comments and a trailing
 * comma, so rt-app's own example files read unchanged.
 */
#ifndef DLK_DLGEN_JSON_H
#define DLK_DLGEN_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum dlgen_json_type {
	DLGEN_JSON_NULL,
	DLGEN_JSON_BOOL,
	DLGEN_JSON_NUMBER,
	DLGEN_JSON_STRING,
	DLGEN_JSON_ARRAY,
	DLGEN_JSON_OBJECT,
};

struct dlgen_json {
	enum dlgen_json_type type;
	int line, col;			/* where the value starts, from 1 */
	char *key;			/* its name, as a member of an object */
	/*
	 * A string's value, or a number's text as written: durations are
	 * parsed from the digits, never through a double.
	 */
	char *str;
	bool boolean;
	struct dlgen_json *child;	/* first element or member */
	struct dlgen_json *next;	/* next sibling */
};

/*
 * Parses @len bytes of @text.  Returns the tree, or NULL with a message
 * "LINE:COL: what" in @err (out of memory is reported the same way).
 */
struct dlgen_json *dlgen_json_parse(const char *text, size_t len, char *err,
				    size_t errlen);
void dlgen_json_free(struct dlgen_json *v);

/* "an object", "a number"...: for messages about a value of the wrong type */
const char *dlgen_json_type_name(enum dlgen_json_type type);

#endif
