/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's own account of a run: sched_switch and sched_wakeup
 * events from tracefs, on the CLOCK_MONOTONIC timebase (trace_clock mono)
 * so that they line up with the times the tasks themselves record.
 */
#ifndef DLK_TRACE_H
#define DLK_TRACE_H

#include <stdint.h>
#include <sys/types.h>

enum trace_kind {
	TR_WAKEUP,
	TR_SWITCH,
	TR_DL_TIMER_ARM,	/* a deadline entity's replenishment timer set */
	TR_DL_TIMER_FIRE,	/* and its callback about to run */
	TR_MIGRATE,		/* a task moved to another CPU's queue */
	TR_TICK,		/* the scheduler tick ran on ->cpu */
};

struct trace_ev {
	int64_t t;		/* ns, CLOCK_MONOTONIC */
	int cpu;
	enum trace_kind kind;
	pid_t pid;		/* wakeup: the woken; switch: next; timer:
				 * the task the CPU ran (current) */
	pid_t prev;		/* switch: the task switched out */
	char prev_state;	/* switch: 'R' if prev stays runnable */
	uint64_t timer;		/* timer: the hrtimer's (hashed) address */
	int target;		/* wakeup: the CPU queued on; migrate: the
				 * CPU moved to */
};

/* Clears the buffer, sets the clock and starts the two events; 0 or -1. */
int trace_start(void);

/*
 * What trace_start_with() adds to trace_start()'s events:
 * TRACE_DL_TIMERS, the hrtimer events of the deadline class's
 * replenishment timer (TR_DL_TIMER_*): a task's timer is set as its
 * budget runs out, in its own context (the throttle), and fires at its
 * next period (the replenishment); the fair servers' timers have the
 * same callback, tell them apart by the hrtimer address.
 * TRACE_MIGRATIONS, sched_migrate_task (TR_MIGRATE): with the wakeups'
 * target CPU, which CPU's queue a task that does not run waits on.
 * TRACE_TICKS, the tick's hrtimer callback (TR_TICK), when the tick is
 * an hrtimer (high resolution mode): with a periodic tick every CPU has
 * one each jiffy, idle or not, so a longer gap is time the host did not
 * run that vCPU.
 */
#define TRACE_DL_TIMERS		0x1
#define TRACE_MIGRATIONS	0x2
#define TRACE_TICKS		0x4
int trace_start_with(unsigned int what);

/* Stops tracing and reads the events in time order; count or -1. */
int trace_stop_read(struct trace_ev **evs);

#endif
