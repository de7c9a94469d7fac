// SPDX-License-Identifier: GPL-2.0
/*
 * JSON reader: recursive descent over the text, one node per value.
 * Positions count lines from 1 and columns in bytes from 1, as editors
 * and compilers show them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Deeper than any task file; keeps a hostile file off the stack's end. */
#define MAX_DEPTH 64

struct parser {
	const char *p, *end;
	const char *line_start;
	int line;
	int depth;
	char *err;
	size_t errlen;
};

static int col_of(const struct parser *ps, const char *at)
{
	return (int)(at - ps->line_start) + 1;
}

static int fail_at(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	int n = snprintf(ps->err, ps->errlen, "%d:%d: ", ps->line,
			 col_of(ps, at));
	va_list ap;

	if (n < 0 || (size_t)n >= ps->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int fail(struct parser *ps, const char *what)
{
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "unexpected end of input, %s", what);
	return fail_at(ps, ps->p, "%s", what);
}

static void newline(struct parser *ps, const char *nl)
{
	ps->line++;
	ps->line_start = nl + 1;
}

/*
 * A comment, from its first '/'; 0, or -1 when it does not end, told at
 * its start (the line it starts on, not the last one it reached).
 */
static int skip_comment(struct parser *ps)
{
	const char *start = ps->p, *start_line = ps->line_start;
	int line = ps->line;

	if (ps->p + 1 < ps->end && ps->p[1] == '/') {
		while (ps->p < ps->end && *ps->p != '\n')
			ps->p++;
		return 0;
	}
	if (ps->p + 1 >= ps->end || ps->p[1] != '*')
		return fail(ps, "unexpected '/'");
	for (ps->p += 2; ps->p + 1 < ps->end; ps->p++) {
		if (*ps->p == '*' && ps->p[1] == '/') {
			ps->p += 2;
			return 0;
		}
		if (*ps->p == '\n')
			newline(ps, ps->p);
	}
	ps->p = ps->end;
	ps->line = line;
	ps->line_start = start_line;
	return fail_at(ps, start, "comment does not end");
}

static int skip_space(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '/') {
			if (skip_comment(ps))
				return -1;
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
			return 0;
		if (c == '\n')
			newline(ps, ps->p);
		ps->p++;
	}
	return 0;
}

static struct dlgen_json *node_new(struct parser *ps, enum dlgen_json_type t)
{
	struct dlgen_json *v = calloc(1, sizeof(*v));

	if (!v) {
		fail(ps, "out of memory");
		return NULL;
	}
	v->type = t;
	v->line = ps->line;
	v->col = col_of(ps, ps->p);
	return v;
}

static int hex4(const char *s, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* \uXXXX at ps->p (past the 'u'), with a surrogate pair's second half. */
static int unicode_escape(struct parser *ps, char **o)
{
	const char *at = ps->p - 2;
	unsigned int cp, lo;

	if (ps->end - ps->p < 4 || hex4(ps->p, &cp))
		return fail_at(ps, at, "bad \\u escape");
	ps->p += 4;
	/* Strings are C strings here: a NUL would cut a key or a name short. */
	if (!cp)
		return fail_at(ps, at,
			       "\\u0000 is not supported (a string cannot hold NUL)");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail_at(ps, at, "lone low surrogate in \\u escape");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
		    hex4(ps->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return fail_at(ps, at, "high surrogate without its pair");
		ps->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	*o = put_utf8(*o, cp);
	return 0;
}

static int parse_escape(struct parser *ps, char **o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at = ps->p - 1, *c;

	if (ps->p >= ps->end)
		return fail(ps, "string does not end");
	if (*ps->p == 'u') {
		ps->p++;
		return unicode_escape(ps, o);
	}
	c = strchr(from, *ps->p);
	if (!c || !*ps->p)
		return fail_at(ps, at, "bad escape '\\%c'", *ps->p);
	*(*o)++ = to[c - from];
	ps->p++;
	return 0;
}

/* The closing quote of the string at ps->p, or NULL if it has none. */
static const char *string_end(const struct parser *ps)
{
	const char *p = ps->p + 1;

	while (p < ps->end && *p != '"')
		p += *p == '\\' ? 2 : 1;
	return p < ps->end ? p : NULL;
}

/*
 * A string from its opening quote into a new buffer.  Decoding never
 * makes it longer (an escape of 6 bytes gives 3 at most), so its raw
 * length bounds the buffer.
 */
static int parse_string(struct parser *ps, char **out)
{
	const char *start = ps->p, *end = string_end(ps);
	char *buf, *o;

	if (!end)
		return fail_at(ps, start, "string does not end");
	buf = malloc(end - start);
	if (!buf)
		return fail(ps, "out of memory");
	o = buf;
	for (ps->p++; ps->p < end;) {
		unsigned char c = (unsigned char)*ps->p++;

		if (c < 0x20) {
			free(buf);
			return fail_at(ps, ps->p - 1,
				       "control character in a string");
		}
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		if (parse_escape(ps, &o)) {
			free(buf);
			return -1;
		}
	}
	ps->p = end + 1;
	*o = '\0';
	*out = buf;
	return 0;
}

static bool is_digit(const struct parser *ps, const char *p)
{
	return p < ps->end && *p >= '0' && *p <= '9';
}

static const char *digits(const struct parser *ps, const char *p)
{
	while (is_digit(ps, p))
		p++;
	return p;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *ps, struct dlgen_json *v)
{
	const char *p = ps->p;

	if (*p == '-')
		p++;
	if (!is_digit(ps, p))
		return fail(ps, "bad number");
	p = *p == '0' ? p + 1 : digits(ps, p);
	if (p < ps->end && *p == '.') {
		if (!is_digit(ps, ++p))
			return fail_at(ps, p, "digits expected after '.'");
		p = digits(ps, p);
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(ps, p))
			return fail_at(ps, p, "digits expected in the exponent");
		p = digits(ps, p);
	}
	v->str = strndup(ps->p, p - ps->p);
	if (!v->str)
		return fail(ps, "out of memory");
	ps->p = p;
	return 0;
}

static int parse_literal(struct parser *ps, struct dlgen_json *v)
{
	static const struct {
		const char *word;
		enum dlgen_json_type type;
		bool value;
	} words[] = {
		{ "true", DLGEN_JSON_BOOL, true },
		{ "false", DLGEN_JSON_BOOL, false },
		{ "null", DLGEN_JSON_NULL, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		size_t n = strlen(words[i].word);

		if ((size_t)(ps->end - ps->p) >= n &&
		    !memcmp(ps->p, words[i].word, n)) {
			v->type = words[i].type;
			v->boolean = words[i].value;
			ps->p += n;
			return 0;
		}
	}
	return fail(ps, "value expected");
}

static struct dlgen_json *parse_value(struct parser *ps);

/*
 * The elements of an array or the members of an object, from the
 * character after its opening bracket to its closing one.
 */
static int elements(struct parser *ps, struct dlgen_json *v, char close)
{
	struct dlgen_json **tail = &v->child;
	const char *what = close == ']' ? "',' or ']' expected" :
					  "',' or '}' expected";

	for (;;) {
		char *key = NULL;

		if (skip_space(ps))
			return -1;
		if (ps->p < ps->end && *ps->p == close)
			break;
		if (close == '}') {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "member name (a string) expected");
			if (parse_string(ps, &key) || skip_space(ps)) {
				free(key);
				return -1;
			}
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return fail(ps, "':' expected");
			}
			ps->p++;
			if (skip_space(ps)) {
				free(key);
				return -1;
			}
		}
		*tail = parse_value(ps);
		if (!*tail) {
			free(key);
			return -1;
		}
		(*tail)->key = key;
		tail = &(*tail)->next;
		if (skip_space(ps))
			return -1;
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p >= ps->end || *ps->p != close)
			return fail(ps, what);
		break;
	}
	ps->p++;
	return 0;
}

static struct dlgen_json *parse_value(struct parser *ps)
{
	struct dlgen_json *v = node_new(ps, DLGEN_JSON_NULL);
	int r;

	if (!v)
		return NULL;
	if (ps->p >= ps->end) {
		fail(ps, "value expected");
		free(v);
		return NULL;
	}
	switch (*ps->p) {
	case '{':
	case '[':
		v->type = *ps->p == '{' ? DLGEN_JSON_OBJECT : DLGEN_JSON_ARRAY;
		if (++ps->depth > MAX_DEPTH) {
			fail(ps, "nested too deeply");
			free(v);
			return NULL;
		}
		ps->p++;
		r = elements(ps, v, v->type == DLGEN_JSON_OBJECT ? '}' : ']');
		ps->depth--;
		break;
	case '"':
		v->type = DLGEN_JSON_STRING;
		r = parse_string(ps, &v->str);
		break;
	case '-':
	case '0' ... '9':
		v->type = DLGEN_JSON_NUMBER;
		r = parse_number(ps, v);
		break;
	default:
		r = parse_literal(ps, v);
		break;
	}
	if (r) {
		dlgen_json_free(v);
		return NULL;
	}
	return v;
}

struct dlgen_json *dlgen_json_parse(const char *text, size_t len, char *err,
				    size_t errlen)
{
	struct parser ps = {
		.p = text, .end = text + len, .line_start = text, .line = 1,
		.err = err, .errlen = errlen,
	};
	struct dlgen_json *v;

	if (skip_space(&ps))
		return NULL;
	v = parse_value(&ps);
	if (!v)
		return NULL;
	if (skip_space(&ps) || (ps.p < ps.end &&
				fail(&ps, "text after the end of the value"))) {
		dlgen_json_free(v);
		return NULL;
	}
	return v;
}

void dlgen_json_free(struct dlgen_json *v)
{
	while (v) {
		struct dlgen_json *next = v->next;

		dlgen_json_free(v->child);
		free(v->key);
		free(v->str);
		free(v);
		v = next;
	}
}

const char *dlgen_json_type_name(enum dlgen_json_type type)
{
	static const char *const names[] = {
		[DLGEN_JSON_NULL] = "null",
		[DLGEN_JSON_BOOL] = "a boolean",
		[DLGEN_JSON_NUMBER] = "a number",
		[DLGEN_JSON_STRING] = "a string",
		[DLGEN_JSON_ARRAY] = "an array",
		[DLGEN_JSON_OBJECT] = "an object",
	};

	return names[type];
}
