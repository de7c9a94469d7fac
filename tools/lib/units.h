/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Durations on the command line and in files: a number with an optional
 * unit (ns, us, ms, s), as users of chrt and rt-app write them.
 */
#ifndef DLK_UNITS_H
#define DLK_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The unit a bare number is in: ns for chrt's habits, us for rt-app's. */
#define UNIT_NS 1ULL
#define UNIT_US 1000ULL
#define UNIT_MS 1000000ULL
#define UNIT_S 1000000000ULL

/*
 * Parses "10ms", "2.5ms", "100000" (in @bare units) into *@ns.  Returns 0,
 * or -1 with errno EINVAL (not a duration) or ERANGE (beyond 2^63 ns).
 */
int parse_duration(const char *s, uint64_t bare, uint64_t *ns);

/* Writes @ns in the largest unit that shows it exactly ("10ms", "1500us"). */
const char *format_duration(uint64_t ns, char *buf, size_t len);

#endif
