// SPDX-License-Identifier: GPL-2.0
/*
 * Duration parsing and printing for the tools.  Fractions are taken
 * digit by digit rather than through a double, so "0.1ms" is exactly
 * 100000 ns.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", UNIT_NS }, { "us", UNIT_US }, { "ms", UNIT_MS }, { "s", UNIT_S },
};

static int unit_of(const char *s, uint64_t bare, uint64_t *ns)
{
	size_t i;

	if (!*s) {
		*ns = bare;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(s, units[i].name)) {
			*ns = units[i].ns;
			return 0;
		}
	}
	return -1;
}

int parse_duration(const char *s, uint64_t bare, uint64_t *ns)
{
	const uint64_t max = (uint64_t)1 << 63;
	uint64_t whole = 0, frac = 0, scale = 1, unit;
	const char *p = s;
	bool over = false;

	if (!isdigit((unsigned char)*p))
		goto invalid;
	/* Read to the end first: "99999999999999999999x" is no duration. */
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > (max - (*p - '0')) / 10)
			over = true;
		else
			whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			goto invalid;
		for (; isdigit((unsigned char)*p); p++) {
			/* Digits below a nanosecond of any unit are dropped. */
			if (scale < UNIT_S) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
		}
	}
	if (unit_of(p, bare, &unit))
		goto invalid;
	if (over || whole > max / unit)
		goto range;
	whole *= unit;
	frac = frac * unit / scale;
	if (whole + frac > max)
		goto range;
	*ns = whole + frac;
	return 0;
invalid:
	errno = EINVAL;
	return -1;
range:
	errno = ERANGE;
	return -1;
}

const char *format_duration(uint64_t ns, char *buf, size_t len)
{
	size_t i = sizeof(units) / sizeof(units[0]);

	while (--i > 0 && (ns == 0 || ns % units[i].ns))
		;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[i].ns),
		 units[i].name);
	return buf;
}
