// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite dl_rcu_reader: a deadline task whose budget runs out inside
 * an RCU read-side section, and the grace period that waits for it.
 *
 * Built out of tree against each kernel (tests/modules), so that the
 * tree's class runs exactly the tests ours does.  A kthread with a
 * reservation of 2 ms every second spins until its budget is nearly
 * spent, enters rcu_read_lock() and starts a grace period, and stays in
 * the section until its budget runs out (it reads its own dl.runtime) or
 * it is throttled there; then it leaves the section and spins on until it
 * is throttled.  With preemptible RCU the grace period cannot end before
 * the task leaves the section: if the class throttles it inside, the
 * grace period waits for the task's next period, about a second here.
 * That is what the tree's class does to a task of small bandwidth whose
 * budget happens to run out in a system call's short read-side section.
 *
 * The charges the class makes are seen as changes of the task's
 * sum_exec_runtime, its budget as dl.runtime: both classes keep them.  A
 * time off the CPU counts as a throttle only if the task was switched
 * out, so that a host that stops the virtual CPU is not taken for one.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

/*
 * CLASSIC: the kernel runs the tree's implementation, with its known
 * defects: not ours, nor the tree's with its fixes (patches/classic-fixes:
 * DLK_CLASSIC_FIXED, set by tests/modules/Kbuild).
 */
#if defined(CONFIG_SCHED_DL_EDF_CBS) || defined(DLK_CLASSIC_FIXED)
#define CLASSIC false
#else
#define CLASSIC true
#endif

#define MS		((u64)NSEC_PER_MSEC)
#define Q		(2 * MS)
#define P		(1000 * MS)
#define LONG_READER	(20 * MS)
/* Switched out this long: throttled (the next period is far). */
#define THROTTLE_GAP	(50 * MS)
#define SPIN_LIMIT	(5000 * MS)
/* The grace period, against about a second if the reader is throttled. */
#define GP_BOUND	(400 * MS)

#define DLK_DEFECT_CLASSIC CLASSIC
#define DLK_DEFECT_VAR "DL"
#include "dlk_defect.h"

/*
 * overrun_us: the value the runner put in the EDF-CBS sysctl
 * kernel.sched_deadline_rcu_overrun_us (tests/guest/kunit.c -w), the
 * overrun L a task may run up inside a reader before it is throttled
 * there; -1 (the default) leaves the sysctl at its default, a tick.  The
 * sysctl is EDF-CBS's, and the tree's with patches/classic-fixes (0017):
 * where it is absent the cases that set it are skipped.
 */
static int overrun_us = -1;
module_param(overrun_us, int, 0444);
MODULE_PARM_DESC(overrun_us, "kernel.sched_deadline_rcu_overrun_us set by the runner, -1: left at its default");

#define OVERRUN_SYSCTL "/proc/sys/kernel/sched_deadline_rcu_overrun_us"

/* Whether the kernel has the sysctl: ours, and the tree's with its fix. */
static bool knob_present(void)
{
	struct file *f = filp_open(OVERRUN_SYSCTL, O_RDONLY, 0);

	if (IS_ERR(f))
		return false;
	filp_close(f, NULL);
	return true;
}

static void skip_without_knob(struct kunit *test)
{
	if (overrun_us >= 0 && !knob_present())
		kunit_skip(test, "no kernel.sched_deadline_rcu_overrun_us (the classic implementation)");
}

enum reader_mode {
	READER_AT_EXHAUSTION,	/* in a reader when the budget runs out */
	READER_LONG,		/* spins LONG_READER inside a reader */
};

/* What one spin saw. */
struct spin {
	bool throttled;		/* switched out for THROTTLE_GAP or more */
	u64 t_resume;		/* ktime_get_ns() when back */
	s64 dl_resume;		/* deadline ahead, when back */
	s64 runtime_resume;	/* budget, when back */
	s64 last_debt;		/* last budget seen at or below zero */
	s64 debt_before_last;	/* the one before it, if there were two */
	u64 t_last_debt;	/* ktime_get_ns() when each was seen */
	u64 t_debt_before_last;
	int charges_in_debt;	/* charges seen while out of budget */
	s64 end_budget;		/* budget when the spin ended running */
};

struct reader {
	enum reader_mode mode;
	struct completion in_reader, done;
	unsigned long gp_cookie;
	u64 t_lock, t_unlock;	/* ktime_get_ns() */
	s64 dl_unlock;		/* deadline ahead, at the unlock */
	struct spin inside, after;
};

/* The running task's deadline, ahead of its CPU's clock. */
static s64 deadline_ahead(void)
{
	return (s64)(READ_ONCE(current->dl.deadline) - local_clock());
}

static s64 budget(void)
{
	return READ_ONCE(current->dl.runtime);
}

/*
 * Spins until the budget is at most @until (if @stop_at_budget), @limit
 * of wall time went by, or the task was throttled, recording in @s.
 */
/* The budget a spin ended on (the last debt it saw, if throttled). */
static s64 budget_at(struct spin *s)
{
	return s->throttled ? s->last_debt : s->end_budget;
}

static void spin(struct spin *s, bool stop_at_budget, s64 until, u64 limit)
{
	u64 start = ktime_get_ns(), prev = start, now;
	u64 charged = READ_ONCE(current->se.sum_exec_runtime), c;
	unsigned long nivcsw = current->nivcsw;
	s64 left;

	memset(s, 0, sizeof(*s));
	for (;;) {
		now = ktime_get_ns();
		if (now - prev >= THROTTLE_GAP && current->nivcsw != nivcsw) {
			s->throttled = true;
			s->t_resume = now;
			s->dl_resume = deadline_ahead();
			s->runtime_resume = budget();
			return;
		}
		prev = now;
		left = budget();
		c = READ_ONCE(current->se.sum_exec_runtime);
		if (c != charged && left <= 0) {
			if (s->charges_in_debt++) {
				s->debt_before_last = s->last_debt;
				s->t_debt_before_last = s->t_last_debt;
			}
			s->last_debt = left;
			s->t_last_debt = now;
		}
		charged = c;
		if ((stop_at_budget && left <= until) || now - start > limit) {
			s->end_budget = left;
			return;
		}
	}
}

static void reader_enter(struct reader *r)
{
	rcu_read_lock();
	r->t_lock = ktime_get_ns();
	r->gp_cookie = start_poll_synchronize_rcu();
	complete(&r->in_reader);
}

static void reader_leave(struct reader *r)
{
	r->dl_unlock = deadline_ahead();
	r->t_unlock = ktime_get_ns();
	rcu_read_unlock();
}

static int reader_fn(void *arg)
{
	struct reader *r = arg;
	struct spin before;

	if (r->mode == READER_AT_EXHAUSTION) {
		/* Outside any reader, to the last half of the budget. */
		spin(&before, true, Q / 2, SPIN_LIMIT);
		reader_enter(r);
		spin(&r->inside, true, 0, SPIN_LIMIT);
		reader_leave(r);
		spin(&r->after, false, 0, SPIN_LIMIT);
	} else {
		reader_enter(r);
		spin(&r->inside, false, 0, LONG_READER);
		reader_leave(r);
	}
	/* Out of the class, so that kthread_stop() need not wait a period. */
	sched_set_normal(current, 0);
	complete(&r->done);

	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * Runs a reader in @mode and returns it, with how long the grace period
 * it started inside its section took to end, from the rcu_read_lock(), in
 * @gp (U64_MAX: not in 5 s).
 */
static struct reader *run_reader(struct kunit *test, enum reader_mode mode,
				 u64 *gp)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = Q,
		.sched_deadline = P,
		.sched_period = P,
	};
	struct task_struct *p;
	struct reader *r;
	bool started, done;
	u64 t;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->mode = mode;
	init_completion(&r->in_reader);
	init_completion(&r->done);
	p = kthread_create(reader_fn, r, "dl_rcu_reader");
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	get_task_struct(p);
	if (sched_setattr_nocheck(p, &attr)) {
		kthread_stop(p);
		put_task_struct(p);
		KUNIT_FAIL_AND_ABORT(test, "no reservation of 2 ms / 1 s");
	}
	wake_up_process(p);

	*gp = U64_MAX;
	started = wait_for_completion_timeout(&r->in_reader, 10 * HZ);
	while (started && ktime_get_ns() - r->t_lock < SPIN_LIMIT) {
		t = ktime_get_ns();
		if (poll_state_synchronize_rcu(r->gp_cookie)) {
			*gp = t - r->t_lock;
			break;
		}
		usleep_range(200, 400);
	}
	/* The kthread's loops all end within SPIN_LIMIT. */
	done = wait_for_completion_timeout(&r->done, 20 * HZ);
	kthread_stop(p);
	put_task_struct(p);
	KUNIT_ASSERT_TRUE_MSG(test, started && done, "the reader did not run");

	kunit_info(test, "reader: %llu us, %s, budget %lld us, %d charges out of budget; grace period %lld us from the lock\n",
		   (r->t_unlock - r->t_lock) / 1000,
		   r->inside.throttled ? "throttled inside" : "not throttled",
		   budget_at(&r->inside) / 1000, r->inside.charges_in_debt,
		   *gp == U64_MAX ? -1LL : (s64)(*gp / 1000));
	if (mode == READER_AT_EXHAUSTION)
		kunit_info(test, "after: %d charges out of budget, back %lld us after the unlock (deadline %lld us ahead then), budget %lld us, deadline %lld us ahead\n",
			   r->after.charges_in_debt,
			   r->after.throttled ?
			   (s64)(r->after.t_resume - r->t_unlock) / 1000 : -1LL,
			   r->dl_unlock / 1000, r->after.runtime_resume / 1000,
			   r->after.dl_resume / 1000);
	return r;
}

/*
 * No grace period waits for a deadline task's next period: a task whose
 * budget runs out inside a short reader leaves it before it is throttled.
 */
static void grace_period_not_held_by_budget(struct kunit *test)
{
	struct reader *r;
	u64 gp;

	skip_without_knob(test);
	r = run_reader(test, READER_AT_EXHAUSTION, &gp);
	/* L = 0: throttled at once, as the classic class does. */
	if (overrun_us == 0) {
		KUNIT_EXPECT_TRUE_MSG(test, r->inside.throttled && gp > GP_BOUND,
				      "with no overrun allowed: %s inside the reader, a grace period waited %lld ms",
				      r->inside.throttled ? "throttled" : "not throttled",
				      gp == U64_MAX ? -1LL : (s64)(gp / MS));
		return;
	}
	/*
	 * The one defect, its cause and its effect: the reader, throttled
	 * inside, leaves its section only at its next period.  What the
	 * reader holds of a grace period ends at its unlock; the rest is
	 * the grace-period kthread's, a fair task that the deadline load
	 * can keep waiting for the fair server's deferral (near a second,
	 * seen on a debug kernel under load, the reader out at 4 ms).
	 */
	DEFECT_EXPECT(test, !r->inside.throttled &&
		      r->t_unlock - r->t_lock <= GP_BOUND,
		      "throttled in an RCU reader, it holds grace periods",
		      "%s inside the reader, in it for %llu ms (at most %llu); "
		      "a grace period waited %lld ms",
		      r->inside.throttled ? "throttled" : "not throttled",
		      (r->t_unlock - r->t_lock) / MS, GP_BOUND / MS,
		      gp == U64_MAX ? -1LL : (s64)(gp / MS));
}

/*
 * However the task gets out of the section, its overrun is repaid: the
 * first charge out of the section throttles it, until the deadline it
 * has, and its deadline moves on by a period for each budget the debt
 * takes.
 */
static void overrun_in_reader_is_repaid(struct kunit *test)
{
	struct reader *r;
	s64 moved, want;
	u64 gp;

	skip_without_knob(test);
	r = run_reader(test, READER_AT_EXHAUSTION, &gp);
	KUNIT_EXPECT_LE(test, r->inside.charges_in_debt, 1);
	KUNIT_EXPECT_EQ(test, r->after.charges_in_debt, 0);
	KUNIT_ASSERT_TRUE(test, r->after.throttled);
	/* D = P: throttled until the deadline it has at the unlock. */
	KUNIT_EXPECT_GE_MSG(test, (s64)(r->after.t_resume - r->t_unlock),
			    r->dl_unlock - 2 * (s64)MS,
			    "back %lld ms after the unlock, deadline %lld ms ahead",
			    (s64)(r->after.t_resume - r->t_unlock) / (s64)MS,
			    r->dl_unlock / (s64)MS);
	/* The debt seen, and more, repaid: a period per budget. */
	moved = (s64)(r->after.t_resume - r->t_unlock) + r->after.dl_resume -
		r->dl_unlock;
	want = (-r->inside.last_debt / (s64)Q + 1) * (s64)P - 2 * (s64)MS;
	KUNIT_EXPECT_GE_MSG(test, moved, want,
			    "a debt of %lld us moved the deadline on by %lld ms",
			    -r->inside.last_debt / 1000, moved / (s64)MS);
	KUNIT_EXPECT_GT(test, r->after.runtime_resume, 0LL);
}

/*
 * The throttle waits for a tick of debt at most: a task that stays inside
 * a reader is throttled there, at the first charge made with a tick or
 * more of debt.  So every charge seen in debt after the first was made
 * with less than a tick of it.  How many there are depends on the
 * charges that are not ticks (a wakeup, an interrupt's accounting), a
 * few on a debug kernel; the classic class lets none through.
 */
static void long_reader_still_throttled(struct kunit *test)
{
	s64 limit = overrun_us >= 0 ? (s64)overrun_us * NSEC_PER_USEC :
				      (s64)TICK_NSEC;
	struct reader *r;
	u64 gp;

	skip_without_knob(test);
	r = run_reader(test, READER_LONG, &gp);
	KUNIT_EXPECT_TRUE(test, r->inside.throttled);
	if (r->inside.charges_in_debt >= 2)
		KUNIT_EXPECT_GT_MSG(test, r->inside.debt_before_last, -limit,
				    "a charge let through with %lld us of debt",
				    -r->inside.debt_before_last / 1000);
	/*
	 * The bound on the overrun: the throttle comes at the first charge
	 * made with L or more of debt, so the last debt seen before it is
	 * between L less the one charge that may have gone unseen (a tick)
	 * and L plus the last charge.  A charge is the time since the one
	 * before, a tick unless the tick came late (a host that kept the
	 * virtual CPU from running): that time as seen, and 2 ms for where
	 * in it the charges fell.  Only where L spans several ticks, so that
	 * the charges in between show.
	 */
	if (overrun_us >= 2 * (int)(TICK_NSEC / NSEC_PER_USEC)) {
		s64 last_charge = (s64)TICK_NSEC;

		if (r->inside.charges_in_debt >= 2)
			last_charge = max_t(s64, last_charge,
					    r->inside.t_last_debt -
					    r->inside.t_debt_before_last);
		kunit_info(test, "overrun allowed %d us: the last debt seen %lld us, %d charges in debt, the last %lld us after the one before\n",
			   overrun_us, -r->inside.last_debt / 1000,
			   r->inside.charges_in_debt, last_charge / 1000);
		KUNIT_EXPECT_GE(test, -r->inside.last_debt,
				limit - (s64)TICK_NSEC);
		KUNIT_EXPECT_LE(test, -r->inside.last_debt,
				limit + last_charge + 2 * (s64)MS);
	}
}

static struct kunit_case dl_rcu_cases[] = {
	KUNIT_CASE(grace_period_not_held_by_budget),
	KUNIT_CASE(overrun_in_reader_is_repaid),
	KUNIT_CASE(long_reader_still_throttled),
	{}
};

static struct kunit_suite dl_rcu_suite = {
	.name = "dl_rcu_reader",
	.test_cases = dl_rcu_cases,
};

kunit_test_suite(dl_rcu_suite);

MODULE_DESCRIPTION("A deadline task out of budget inside an RCU reader");
MODULE_LICENSE("GPL");
