#!/bin/sh
# guest.sh: the userspace people use with SCHED_DEADLINE, run as Debian 12
# packages it (copied in by harness/compat.sh, libraries and loader kept
# at their paths): chrt from util-linux, cyclicdeadline and deadline_test
# from rt-tests, rt-app, stress-ng.  Each test asserts what a user of the
# program relies on, from its exit status, its output and what the kernel
# shows in /proc.  Prints TAP; exits 1 if a test failed.  Timing is never
# asserted: this runs on SMP=2 under TCG.

CHRT=/usr/bin/chrt
CYCLIC=/usr/bin/cyclicdeadline
DLTEST=/usr/bin/deadline_test
RTAPP=/usr/bin/rt-app
STRESS=/usr/bin/stress-ng
W=/tmp/compat
SD=6		# SCHED_DEADLINE, as /proc/PID/sched shows the policy

n=0
failed=0
mkdir -p "$W"

# bad WHY: say why a test fails, and fail; 'bad ... || return' ends it.
bad() {
	echo "FAIL: $*"
	return 1
}

# note TEXT: a line shown as a diagnostic even when the test passes
note() {
	echo "note: $*"
}

# field NAME FILE: the value of NAME in FILE, a /proc/PID/sched
field() {
	sed -n "s/^$1[[:space:]]*:[[:space:]]*//p" "$2" 2>/dev/null
}

# policy_of DIR: the policy number in DIR/sched (DIR: /proc/PID or a task)
policy_of() {
	field policy "$1/sched"
}

# wait_policy PID POLICY: wait up to 5 s for PID to run under POLICY
# (a program started in the background sets its policy when it gets to).
wait_policy() {
	i=0
	while [ "$(policy_of "/proc/$1")" != "$2" ]; do
		i=$((i + 1))
		[ $i -le 50 ] || return 1
		sleep 0.1
	done
}

# dl_tasks PID: "TID NAME" of each thread of PID and of PID's children
# that runs under SCHED_DEADLINE
dl_tasks() {
	top=$1
	for d in /proc/[0-9]*; do
		read -r st 2>/dev/null <"$d/stat" || continue
		# pid (name) state ppid ...: the name may hold spaces.
		rest=${st##*) }
		ppid=${rest#* }
		ppid=${ppid%% *}
		[ "${d#/proc/}" = "$top" ] || [ "$ppid" = "$top" ] || continue
		for t in "$d"/task/*; do
			[ "$(policy_of "$t")" = $SD ] || continue
			read -r c 2>/dev/null <"$t/comm" && echo "${t##*/} $c"
		done
	done
}

# has_dl_tasks PID NAME...: threads called each NAME are among them
has_dl_tasks() {
	have=$(dl_tasks "$1")
	shift
	for name; do
		echo "$have" | grep -q " $name$" || return 1
	done
}

# wait_dl_tasks PID NAME...: wait up to 5 s for has_dl_tasks
wait_dl_tasks() {
	i=0
	until has_dl_tasks "$@"; do
		i=$((i + 1))
		[ $i -le 50 ] || return 1
		sleep 0.1
	done
}

# held_bw: the bandwidth allocated in CPU 0's root domain beyond the fair
# servers' (units of 2^-20 CPU), from debugfs
held_bw() {
	# Read as SCHED_FIFO: see dl_debug_open() in tools/lib/dlbw.h.
	total=$($CHRT -f 99 cat /sys/kernel/debug/sched/debug |
		awk '/^dl_rq\[0\]:/ { on = 1; next } /^dl_rq\[/ { on = 0 }
		on && /\.dl_bw->total_bw / { print $NF; exit }')
	servers=0
	for d in /sys/kernel/debug/sched/fair_server/cpu*; do
		r=$(cat "$d/runtime")
		p=$(cat "$d/period")
		servers=$((servers + (r << 20) / p))
	done
	echo $((total - servers))
}

# settle: wait up to 3 s for the bandwidth of the tasks killed before to
# come back (at their 0-lag time, up to a relative deadline after they
# died), so that a test starts with all of it free
settle() {
	i=0
	until [ "$(held_bw)" -le 0 ]; do
		i=$((i + 1))
		if [ $i -gt 30 ]; then
			note "bandwidth still held after 3 s: $(held_bw)"
			return
		fi
		sleep 0.1
	done
}

# params PID: the "runtime/deadline/period" chrt -p shows for PID
params() {
	$CHRT -p "$1" | sed -n 's/.*runtime\/deadline\/period parameters: //p'
}

# t NAME FUNCTION: run one test, its output kept for the diagnostics.
# The diagnostics come before the result, as KUnit and tests/lib print
# them: ktapsum names a failure by the lines that precede it, the last
# of which is the FAIL line saying why.
t() {
	n=$((n + 1))
	log=$W/$n.log
	read -r t0 _ </proc/uptime
	"$2" >"$log" 2>&1
	rc=$?
	read -r t1 _ </proc/uptime
	echo "# took $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s"
	if [ $rc = 0 ]; then
		sed -n 's/^note: /# /p' "$log"
		echo "ok $n - $1"
	else
		sed 's/^/# /' "$log"
		echo "not ok $n - $1"
		failed=$((failed + 1))
	fi
}

chrt_knows_deadline() {
	out=$($CHRT --version 2>&1)
	echo "$out"
	case $out in
	*util-linux*) ;;
	*) bad "not util-linux's chrt" || return ;;
	esac
	out=$($CHRT -m 2>&1)
	echo "$out"
	echo "$out" |
		grep -Eq '^SCHED_DEADLINE min/max priority[[:space:]]*: 0/0$' ||
		bad "chrt -m has no SCHED_DEADLINE 0/0"
}

# chrt_runs EXPECTED ARGS...: chrt -d ARGS 0 sleep runs sleep under
# SCHED_DEADLINE with the parameters EXPECTED (runtime/deadline/period)
chrt_runs() {
	want=$1
	shift
	$CHRT -d "$@" 0 sleep 10 &
	pid=$!
	wait_policy $pid $SD || bad "policy $(policy_of /proc/$pid), not $SD" ||
		{ kill $pid; wait $pid; return 1; }
	$CHRT -p $pid
	got=$(params $pid)
	rt=$(field 'dl\.runtime' /proc/$pid/sched)
	kill $pid
	wait $pid
	[ "$got" = "$want" ] || bad "chrt -p shows '$got', not '$want'" ||
		return
	# The budget left can never be more than the budget.
	if [ -z "$rt" ] || [ "$rt" -gt "${want%%/*}" ]; then
		bad "/proc/PID/sched: dl.runtime '$rt' over ${want%%/*}"
	fi
}

chrt_run() {
	chrt_runs 10000000/30000000/100000000 \
		-T 10000000 -D 30000000 -P 100000000
}

chrt_no_period() {
	chrt_runs 1000000/2000000/2000000 -T 1000000 -D 2000000
}

chrt_no_deadline() {
	chrt_runs 1000000/3000000/3000000 -T 1000000 -P 3000000
}

chrt_pid() {
	sleep 10 &
	pid=$!
	$CHRT -v -d -T 5000000 -D 20000000 -P 20000000 -p 0 $pid
	rc=$?
	got=$(params $pid)
	pol=$(policy_of /proc/$pid)
	$CHRT -o -p 0 $pid
	rc2=$?
	$CHRT -p $pid
	pol2=$(policy_of /proc/$pid)
	kill $pid
	wait $pid
	[ $rc = 0 ] || bad "chrt -d -p exited with $rc" || return
	[ "$pol" = $SD ] || bad "policy $pol after chrt -d -p" || return
	[ "$got" = 5000000/20000000/20000000 ] ||
		bad "chrt -p shows '$got'" || return
	[ $rc2 = 0 ] || bad "chrt -o -p exited with $rc2" || return
	[ "$pol2" = 0 ] || bad "policy $pol2 after chrt -o -p, not 0"
}

# chrt_refuses ARGS...: chrt -d ARGS fails with EINVAL and runs nothing
chrt_refuses() {
	rm -f $W/ran
	out=$(timeout 10 $CHRT -d "$@" 0 touch $W/ran 2>&1)
	rc=$?
	echo "$out"
	[ $rc != 0 ] || bad "chrt exited 0" || return
	[ ! -e $W/ran ] || bad "the command ran" || return
	case $out in
	*"Invalid argument"*) ;;
	*) bad "no 'Invalid argument' from chrt" ;;
	esac
}

chrt_runtime_over_deadline() {
	chrt_refuses -T 40000000 -D 30000000 -P 100000000
}

chrt_deadline_over_period() {
	chrt_refuses -T 1000000 -D 2000000 -P 1000000
}

chrt_tiny_runtime() {
	chrt_refuses -T 1000 -D 2000000 -P 2000000
}

# Two tasks of 80% fit in 2 CPUs; a third does not, until they are gone.
chrt_admission() {
	settle
	hog="-T 800000000 -D 1000000000 -P 1000000000"
	# Not through a function: $! must be the task itself.
	# shellcheck disable=SC2086
	$CHRT -d $hog 0 sleep 30 &
	a=$!
	# shellcheck disable=SC2086
	$CHRT -d $hog 0 sleep 30 &
	b=$!
	ok=1
	wait_policy $a $SD && wait_policy $b $SD ||
		bad "two 80% tasks not both admitted: policies" \
		"$(policy_of /proc/$a) $(policy_of /proc/$b)" || ok=0
	rm -f $W/ran
	# shellcheck disable=SC2086
	out=$(timeout 10 $CHRT -d $hog 0 touch $W/ran 2>&1)
	rc=$?
	echo "third: $out (exit $rc)"
	kill $a $b
	wait $a $b
	[ $ok = 1 ] || return 1
	[ $rc != 0 ] || bad "the third was admitted" || return
	[ ! -e $W/ran ] || bad "the refused command ran" || return
	case $out in
	*"Device or resource busy"*) ;;
	*) bad "no 'Device or resource busy' from chrt" || return ;;
	esac
	# The bandwidth comes back when a task is gone; its last switch may
	# come just after its parent has reaped it: give it a second.
	i=0
	# shellcheck disable=SC2086
	until timeout 10 $CHRT -d $hog 0 true; do
		i=$((i + 1))
		[ $i -lt 10 ] || bad "still refused 1 s after the two exited" ||
			return
		sleep 0.1
	done
	note "third refused (EBUSY), admitted after the two exited ($i retries)"
}

chrt_reset_on_fork() {
	# ':' last, so that the shell forks cat rather than exec it
	out=$(timeout 10 $CHRT -R -d -T 10000000 -D 30000000 -P 100000000 0 \
		sh -c '/usr/bin/chrt -p $$; cat /proc/self/sched; :' 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 0 ] || bad "exit status $rc" || return
	echo "$out" | grep -q "policy: SCHED_DEADLINE|SCHED_RESET_ON_FORK$" ||
		bad "the shell is not SCHED_DEADLINE|SCHED_RESET_ON_FORK" ||
		return
	echo "$out" >$W/child
	[ "$(field policy $W/child)" = 0 ] || bad "its child is not SCHED_OTHER"
}

chrt_no_fork() {
	out=$(timeout 10 $CHRT -d -T 10000000 -D 30000000 -P 100000000 0 \
		sh -c '/usr/bin/chrt -p $$; echo forked' 2>&1)
	rc=$?
	echo "$out (exit $rc)"
	[ $rc != 0 ] || bad "the shell exited 0" || return
	case $out in
	*forked* | *"current scheduling"*) bad "the shell forked" || return ;;
	esac
	case $out in
	*"Resource temporarily unavailable"*) ;;
	*) bad "no EAGAIN from fork" ;;
	esac
}

# rt-tests run with deadlines of 100 ms and more: before turning to
# SCHED_DEADLINE they check, outside it, that a period's work fits its
# runtime, and under TCG a vCPU the host preempts for a few ms fails that.

# cyclic_figures OUTPUT JSON THREADS: cyclicdeadline's summary lines and
# its JSON file give cycles and latencies for each of THREADS threads
cyclic_figures() {
	re='^T: *[0-9]+ \( *[0-9]+\) I:[0-9]+ C: *[1-9][0-9]* Min: *[0-9]+ '
	re="${re}Act: *[0-9]+ Avg: *[0-9]+ Max: *[0-9]+$"
	lines=$(echo "$1" | grep -Ec "$re")
	[ "$lines" = "$3" ] ||
		bad "$lines thread summaries with cycles, not $3" || return
	grep -q '"return_code": 0,' "$2" || bad "JSON: no return_code 0" ||
		return
	cycles=$(grep -Ec '"cycles": [1-9][0-9]*,' "$2")
	[ "$cycles" = "$3" ] || bad "JSON: $cycles threads with cycles"
	echo "$1" | grep '^T:' | while read -r l; do note "$l"; done
}

cyclic_all() {
	settle
	rm -f $W/cd.json
	out=$(timeout 30 $CYCLIC -t 2 -i 100000 -D 1 -q --json=$W/cd.json 2>&1)
	rc=$?
	echo "$out"
	cat $W/cd.json
	[ $rc = 0 ] || bad "exit status $rc" || return
	cyclic_figures "$out" $W/cd.json 2
}

# cyclicdeadline -a makes an exclusive cpuset (cgroup v1, which it mounts
# under a tmpfs /sys/fs/cgroup, as on the systems it was written for) and
# moves its deadline threads into it.
cyclic_cpuset() {
	settle
	cg=/sys/fs/cgroup
	grep -q " $cg tmpfs " /proc/mounts || mount -t tmpfs cgroup_root $cg ||
		bad "cannot mount a tmpfs on $cg" || return
	rm -f $W/cd.json
	out=$(timeout 30 $CYCLIC -a 1 -i 100000 -D 1 -q --json=$W/cd.json 2>&1)
	rc=$?
	echo "$out"
	cat $W/cd.json
	left=$(ls -d $cg/cpuset/my_cpuset* 2>/dev/null)
	# Leave the machine as it was: one root domain, no cpuset mounted.
	echo 1 >$cg/cpuset/cpuset.sched_load_balance
	umount $cg/cpuset
	umount $cg
	[ $rc = 0 ] || bad "exit status $rc" || return
	echo "$out" | grep -q "^Creating cpuset 'my_cpuset'$" ||
		bad "no cpuset created" || return
	[ -z "$left" ] || bad "cpusets left behind: $left" || return
	cyclic_figures "$out" $W/cd.json 2
}

# deadline_test first times an 80 ms loop at SCHED_FIFO priority 99 and
# exits 255 with "Run time too short" when it took longer than the
# runtime it will ask for: a host that stops the vCPU for 100 ms does
# that (seen under CI's load, on both kernels).  Nothing of the deadline
# class has run yet, so such a run is tried again, up to 10 times.
deadline_test_runs() {
	try=1
	while :; do
		settle
		out=$(timeout 60 $DLTEST -t 2 -i 100000 2>&1)
		rc=$?
		[ $rc = 255 ] && [ $try -lt 10 ] &&
			echo "$out" | grep -q '^Run time too short' || break
		note "try $try: its timing loop overran (the host), tried again"
		try=$((try + 1))
	done
	echo "$out"
	[ $rc = 0 ] || bad "exit status $rc" || return
	# Its threads end with a reason when sched_setattr or getattr fails.
	! echo "$out" | grep -Eq 'Thread [0-9]+ failed|sched_[gs]etattr:' ||
		bad "a thread failed" || return
	periods=$(echo "$out" | grep -Ec '^nr_periods : [1-9][0-9]*$')
	[ "$periods" = 2 ] || bad "$periods threads with periods, not 2" ||
		return
	echo "$out" | grep -E '^(missed deadlines|nr_periods)' |
		while read -r l; do note "$l"; done
}

# rt_app_json NAME RUNTIME DEADLINE: a JSON of two deadline tasks, the
# first with RUNTIME and DEADLINE (us, period 100 ms), for 2 s.  The
# calibration is given: rt-app's own takes 20 s under TCG.
rt_app_json() {
	cat <<EOF
{
	"tasks" : {
		"dl0" : {
			"policy" : "SCHED_DEADLINE",
			"dl-runtime" : $2,
			"dl-deadline" : $3,
			"dl-period" : 100000,
			"run" : 5000,
			"timer" : { "ref" : "unique", "period" : 100000 }
		},
		"dl1" : {
			"policy" : "SCHED_DEADLINE",
			"dl-runtime" : 20000,
			"dl-deadline" : 50000,
			"dl-period" : 50000,
			"run" : 10000,
			"timer" : { "ref" : "unique", "period" : 50000 }
		}
	},
	"global" : {
		"duration" : 2,
		"calibration" : 700,
		"logdir" : "$W/rt-app",
		"log_basename" : "$1"
	}
}
EOF
}

# rt_app_log FILE: the job log has SCHED_DEADLINE's header and 5 jobs
rt_app_log() {
	[ -f "$1" ] || bad "no log $1" || return
	head -1 "$1" | grep -q '^# Policy : SCHED_DEADLINE' ||
		bad "$1 is not a SCHED_DEADLINE log" || return
	jobs=$(grep -Ec '^ *[0-9]+ +[0-9]+ +[1-9][0-9]* ' "$1")
	[ "$jobs" -ge 5 ] || bad "$1 has $jobs jobs that ran" || return
	note "${1##*/}: $jobs jobs"
}

rt_app_runs() {
	settle
	rm -rf $W/rt-app
	mkdir -p $W/rt-app
	rt_app_json dl 10000 100000 >$W/rt-app/dl.json
	timeout 30 $RTAPP $W/rt-app/dl.json >$W/rt-app/out 2>&1 &
	pid=$!
	# A thread for each task, named after it.
	wait_dl_tasks $pid dl0 dl1
	seen=$?
	dl_tasks $pid | while read -r l; do note "SCHED_DEADLINE: $l"; done
	wait $pid
	rc=$?
	cat $W/rt-app/out
	[ $rc = 0 ] || bad "exit status $rc" || return
	[ $seen = 0 ] || bad "threads dl0 and dl1 not both SCHED_DEADLINE" ||
		return
	grep -q 'period: 100000000, exec: 10000000, deadline: 100000000' \
		$W/rt-app/out || bad "dl0's parameters not reported" || return
	rt_app_log $W/rt-app/dl-dl0-0.log || return
	rt_app_log $W/rt-app/dl-dl1-1.log
}

rt_app_refused() {
	rm -rf $W/rt-app
	mkdir -p $W/rt-app
	rt_app_json bad 60000 50000 >$W/rt-app/bad.json
	out=$(timeout 30 $RTAPP $W/rt-app/bad.json 2>&1)
	rc=$?
	echo "$out"
	[ $rc != 0 ] || bad "rt-app exited 0" || return
	case $out in
	*"sched_setattr: Invalid argument"*) ;;
	*) bad "no 'sched_setattr: Invalid argument'" ;;
	esac
}

# stress_ok OUTPUT STRESSOR: stress-ng completed and STRESSOR did work
stress_ok() {
	echo "$1" | grep -q 'info: .* successful run completed' ||
		bad "no 'successful run completed'" || return
	ops=$(echo "$1" |
		sed -n "s/^stress-ng: metrc: \[[0-9]*\] $2 *\([0-9]*\) .*/\1/p")
	[ "${ops:-0}" -gt 0 ] || bad "$2 did no bogo ops" || return
	note "$2: $ops bogo ops"
}

stress_cpu_deadline() {
	settle
	timeout 30 $STRESS --cpu 1 --sched deadline \
		--sched-runtime 10000000 --sched-deadline 50000000 \
		--sched-period 100000000 -t 2 --metrics-brief >$W/stress 2>&1 &
	pid=$!
	# The stressor is a child process.
	wait_dl_tasks $pid stress-ng-cpu
	seen=$?
	dl_tasks $pid | while read -r l; do note "SCHED_DEADLINE: $l"; done
	wait $pid
	rc=$?
	out=$(cat $W/stress)
	echo "$out"
	[ $rc = 0 ] || bad "exit status $rc" || return
	[ $seen = 0 ] || bad "the cpu stressor never ran as SCHED_DEADLINE" ||
		return
	stress_ok "$out" cpu
}

stress_refused() {
	out=$(timeout 30 $STRESS --cpu 1 --sched deadline \
		--sched-runtime 60000000 --sched-deadline 50000000 \
		--sched-period 100000000 -t 1 2>&1)
	rc=$?
	echo "$out"
	[ $rc != 0 ] || bad "stress-ng exited 0" || return
	case $out in
	*"cannot set scheduler 'deadline'"*"Invalid argument"*) ;;
	*) bad "no 'cannot set scheduler' with EINVAL" ;;
	esac
}

stress_schedpolicy() {
	settle
	out=$(timeout 30 $STRESS --schedpolicy 1 -t 1 --verify \
		--metrics-brief 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 0 ] || bad "exit status $rc" || return
	stress_ok "$out" schedpolicy
}

plan=19
echo "TAP version 13"
echo "1..$plan"
t "chrt is util-linux's and knows SCHED_DEADLINE (chrt -m: 0/0)" \
	chrt_knows_deadline
t "chrt -d runs a command under SCHED_DEADLINE with its parameters" chrt_run
t "chrt -d without --sched-period: the period is the deadline" \
	chrt_no_period
t "chrt -d without --sched-deadline: the deadline is the period" \
	chrt_no_deadline
t "chrt -d refuses runtime > deadline (EINVAL), runs nothing" \
	chrt_runtime_over_deadline
t "chrt -d refuses deadline > period (EINVAL), runs nothing" \
	chrt_deadline_over_period
t "chrt -d refuses a runtime under 1024 ns (EINVAL)" chrt_tiny_runtime
t "chrt -d: two 80% tasks admitted, a third refused (EBUSY) until they exit" \
	chrt_admission
t "chrt -R -d: the shell forks, its child is SCHED_OTHER" chrt_reset_on_fork
t "chrt -d without -R: the shell cannot fork (EAGAIN)" chrt_no_fork
t "cyclicdeadline -t 2 on all CPUs: exit 0, latencies of both threads" \
	cyclic_all
t "deadline_test -t 2: exit 0, periods run by both threads" \
	deadline_test_runs
t "rt-app: two SCHED_DEADLINE tasks for 2 s, exit 0, their job logs" \
	rt_app_runs
t "rt-app: runtime > deadline refused by sched_setattr, exit non-zero" \
	rt_app_refused
t "stress-ng --cpu with --sched deadline: runs as SCHED_DEADLINE, completes" \
	stress_cpu_deadline
t "stress-ng --sched deadline with runtime > deadline: refused" \
	stress_refused
t "stress-ng --schedpolicy --verify: completes" stress_schedpolicy
t "cyclicdeadline -a 1 in an exclusive cpuset: exit 0, latencies, cleaned up" \
	cyclic_cpuset
# Last: the classic implementation keeps the bandwidth of a sleeping task
# that leaves SCHED_DEADLINE (tests/guest/admission.c), for good.
t "chrt -d -p sets a running process, chrt -o -p sets it back" chrt_pid
echo "# $((n - failed)) passed, $failed failed"
[ $n = $plan ] || echo "# ran $n tests for a plan of $plan"
[ $failed = 0 ] && [ $n = $plan ]
