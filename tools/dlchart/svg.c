// SPDX-License-Identifier: GPL-2.0
/*
 * The chart.  All geometry is fixed but the width, chosen so that a
 * second of 3-4 tasks on 2 CPUs reads at a glance: text widths are
 * estimated (SVG cannot measure them) and text is cut to fit, ticks
 * stand at least TICK_GAP px apart, arrows stand above and below the
 * bars rather than on them, so a release and the previous deadline at
 * the same instant stay two arrows.
 */
#include <stdarg.h>
#include <string.h>

#include "svg.h"

#define LEFT 150		/* lane labels */
#define RIGHT 30		/* room for half the last tick label */
#define TOP 64			/* title and subtitle */
#define CPU_H 24
#define TASK_H 60		/* a task with jobs: arrows, bars, arrows */
#define SHORT_H 32		/* one without: the run bar alone */
#define LANE_GAP 6
#define GROUP_GAP 16
#define TICK_GAP 80
#define LEGEND_ROW 22
#define LEGEND_Y 52		/* below the axis */
#define CPU_LABEL_MIN 9		/* px a digit needs in a run bar */

/* A task lane, from its top: arrows, run bar, job bar, arrows. */
#define REL_TIP 3
#define BAR_Y 18
#define SHORT_BAR_Y 7
#define BAR_H 18
#define JOB_Y 39
#define JOB_H 5
#define DL_TIP 57

#define GREY "#c4c4c4"
#define RED "#d62728"
#define INK "#333333"
#define FAINT "#777777"
#define FONTS "DejaVu Sans, Helvetica, Arial, sans-serif"

#define BOLD " font-weight=\"bold\""
#define FAINTLY " fill=\"" FAINT "\""
#define REDLY " fill=\"" RED "\""
#define CENTRED " text-anchor=\"middle\""

static const char *const palette[DLCHART_COLOURS] = {
	"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
	"#17becf", "#8c564b", "#e377c2", "#bcbd22",
};

static const char hatch[] =
	"<defs><pattern id=\"hatch\" width=\"6\" height=\"6\"\n"
	" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\n"
	"<rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>\n"
	"<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8c8c8c\"\n"
	" stroke-width=\"2.5\"/></pattern></defs>\n";
#define HATCHED "fill=\"url(#hatch)\" stroke=\"#8c8c8c\" stroke-width=\"0.5\""

struct ticks {
	int64_t step, minor;	/* ns */
	int decimals;		/* of the labels, in ms */
};

struct ctx {
	FILE *f;
	const struct dlchart_chart *c;
	const struct dlchart_task *tasks;
	double x0, x1;		/* the plot, px */
	double scale;		/* px per ns */
	struct ticks ticks;
	int tasks_y;		/* top of the first task lane */
	int axis_y;
	int height;
};

/* An estimate of the width of @n characters at @size px, sans-serif. */
static double text_w(size_t n, int size)
{
	return (double)n * size * 0.6;
}

/* @s as XML text, @max characters of it, then an ellipsis if cut. */
static void put_escaped(FILE *f, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++, n++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
	if (*s)
		fputs("\xe2\x80\xa6", f);
}

/* A <text> of @size px with @attr at @x, @y: @s, cut to @w px. */
static void put_text(FILE *f, double x, double y, int size, const char *attr,
		     const char *s, double w)
{
	size_t max = (size_t)(w / text_w(1, size));

	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%d\"%s>", x, y,
		size, attr);
	put_escaped(f, s, strlen(s) <= max ? max : (max ? max - 1 : 0));
	fputs("</text>\n", f);
}

static void put_box(FILE *f, double x, double y, double w, double h)
{
	fprintf(f, " x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
		x, y, w, h);
}

/* Opens <@el class="@cls" data-pid=... data-@key=...; attributes follow. */
static void open_item(FILE *f, const char *el, const char *cls, pid_t pid,
		      const char *key, long long val)
{
	fprintf(f, "<%s class=\"%s\" data-pid=\"%d\" data-%s=\"%lld\"", el, cls,
		(int)pid, key, val);
}

/* Closes the start tag of @el with a tooltip: @task's name, then @fmt. */
static void put_tip(const struct ctx *k, int task, const char *el,
		    const char *fmt, ...)
{
	va_list ap;

	fputs("><title>", k->f);
	put_escaped(k->f, k->tasks[task].name, DLCHART_NAME_LEN);
	va_start(ap, fmt);
	vfprintf(k->f, fmt, ap);
	va_end(ap);
	fprintf(k->f, "</title></%s>\n", el);
}

/* The d of a vertical arrow at @x from @base to its head at @tip. */
static void put_arrow_path(FILE *f, double x, int base, int tip,
			   const char *colour)
{
	int dir = tip < base ? 1 : -1;

	fprintf(f, " d=\"M%.2f %dV%d", x, base, tip + 6 * dir);
	fprintf(f, " M%.2f %d L%.2f %d L%.2f %dZ\"", x - 4, tip + 7 * dir,
		x, tip, x + 4, tip + 7 * dir);
	fprintf(f, " stroke=\"%s\" stroke-width=\"1.5\" fill=\"%s\"", colour,
		colour);
}

static double x_at(const struct ctx *k, int64_t t)
{
	return k->x0 + (double)(t - k->c->from) * k->scale;
}

/*
 * [t0, t1) clipped to the window, as x and width; false if nothing is
 * left.  What is left is drawn at least a pixel wide, inside the plot.
 */
static bool clip(const struct ctx *k, int64_t t0, int64_t t1, double *x,
		 double *w)
{
	if (t0 < k->c->from)
		t0 = k->c->from;
	if (t1 > k->c->to)
		t1 = k->c->to;
	if (t1 <= t0)
		return false;
	*x = x_at(k, t0);
	*w = x_at(k, t1) - *x;
	if (*w < 1) {
		*w = 1;
		if (*x > k->x1 - 1)
			*x = k->x1 - 1;
	}
	return true;
}

static bool in_window(const struct ctx *k, int64_t t)
{
	return t >= k->c->from && t <= k->c->to;
}

static const char *colour_of(const struct ctx *k, int task)
{
	int c = k->tasks[task].colour;

	return c < 0 ? GREY : palette[c % DLCHART_COLOURS];
}

/* Black or white, whichever reads on @hex. */
static const char *ink_on(const char *hex)
{
	unsigned int r, g, b;

	if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return "#000000";
	return 299 * r + 587 * g + 114 * b > 150000 ? "#000000" : "#ffffff";
}

/* @t as ms since the origin, to @dec decimals; never "-0". */
static const char *ms(const struct ctx *k, int64_t t, int dec, char *buf,
		      size_t len)
{
	int64_t d = t - k->c->origin;
	int n = snprintf(buf + 1, len - 1, "%.*f", dec,
			 (double)(d < 0 ? -d : d) / 1e6);

	buf[0] = '-';
	return d < 0 && strspn(buf + 1, "0.") != (size_t)n ? buf : buf + 1;
}

/* 1, 2 or 5 times a power of ten ns, the least at least TICK_GAP px. */
static struct ticks ticks_for(double scale)
{
	static const int mant[] = { 1, 2, 5 };
	struct ticks t = { 1, 1, 0 };
	int64_t p = 1, q;
	int i;

	for (;;) {
		for (i = 0; i < 3; i++) {
			t.step = mant[i] * p;
			t.minor = t.step / (mant[i] == 2 ? 4 : 5);
			if ((double)t.step * scale >= TICK_GAP)
				goto found;
		}
		p *= 10;
	}
found:
	for (q = 1000000; q > 1 && t.step % q; q /= 10)
		t.decimals++;
	if (!t.minor)
		t.minor = t.step;
	return t;
}

/* The first multiple of @step after @origin at or after @from. */
static int64_t first_tick(int64_t from, int64_t origin, int64_t step)
{
	int64_t d = from - origin, k = d / step;

	if (k * step < d)
		k++;
	return origin + k * step;
}

static int cpu_y(int cpu)
{
	return TOP + cpu * (CPU_H + LANE_GAP);
}

/* A task with jobs has arrows above and below its bar; others, none. */
static bool tall(const struct ctx *k, size_t lane)
{
	return k->c->jobs && k->tasks[k->c->lanes[lane]].in_jobs;
}

static int lane_h(const struct ctx *k, size_t lane)
{
	return tall(k, lane) ? TASK_H : SHORT_H;
}

static int task_y(const struct ctx *k, size_t lane)
{
	int y = k->tasks_y;
	size_t i;

	for (i = 0; i < lane; i++)
		y += lane_h(k, i) + LANE_GAP;
	return y;
}

static void put_run(const struct ctx *k, const struct dlchart_span *s, int y,
		    int h, const char *fill)
{
	char a[32], b[32];
	double x, w;

	if (!clip(k, s->t0, s->t1, &x, &w))
		return;
	open_item(k->f, "rect", "run", k->tasks[s->task].pid, "cpu", s->cpu);
	put_box(k->f, x, y, w, h);
	fprintf(k->f, " fill=\"%s\"", fill);
	put_tip(k, s->task, "rect", " (pid %d) on CPU %d: %s to %s ms",
		(int)k->tasks[s->task].pid, s->cpu,
		ms(k, s->t0, 3, a, sizeof(a)), ms(k, s->t1, 3, b, sizeof(b)));
}

static void put_lane_band(const struct ctx *k, int y, int h)
{
	fputs("<rect", k->f);
	put_box(k->f, k->x0, y, k->x1 - k->x0, h);
	fputs(" fill=\"#f4f4f4\"/>\n", k->f);
}

static void put_cpu_lane(const struct ctx *k, int cpu)
{
	const struct dlchart_trace *tr = k->c->tr;
	int y = cpu_y(cpu);
	char name[16];
	size_t i;

	fprintf(k->f, "<g class=\"lane cpu\" id=\"cpu-%d\" data-cpu=\"%d\">\n",
		cpu, cpu);
	snprintf(name, sizeof(name), "CPU %d", cpu);
	put_text(k->f, 10, y + 16, 12, BOLD, name, LEFT - 16);
	put_lane_band(k, y, CPU_H);
	for (i = 0; i < tr->nruns; i++)
		if (tr->runs[i].cpu == cpu)
			put_run(k, &tr->runs[i], y, CPU_H,
				colour_of(k, tr->runs[i].task));
	fputs("</g>\n", k->f);
}

/*
 * A job's bar runs from its start to its end, not from its release: the
 * bars of a job that ends late and of the next one must not overlap.
 */
static void put_job_bar(const struct ctx *k, const struct dlchart_job *j,
			int y)
{
	char a[32], s[32], e[32], d[32];
	double x, w;

	if (!clip(k, j->start, j->end, &x, &w))
		return;
	/* A pixel of gap keeps back-to-back jobs two bars. */
	if (w >= 3)
		w -= 1;
	open_item(k->f, "rect", j->miss ? "job miss" : "job",
		  k->tasks[j->task].pid, "job", j->job);
	put_box(k->f, x, y + JOB_Y, w, JOB_H);
	if (j->miss)
		fputs(" fill=\"" RED "\"", k->f);
	else
		fprintf(k->f, " fill=\"%s\" fill-opacity=\"0.45\"",
			colour_of(k, j->task));
	put_tip(k, j->task, "rect",
		" job %lld: released %s, started %s, ended %s, deadline %s ms%s",
		j->job, ms(k, j->release, 3, a, sizeof(a)),
		ms(k, j->start, 3, s, sizeof(s)),
		ms(k, j->end, 3, e, sizeof(e)),
		ms(k, j->deadline, 3, d, sizeof(d)), j->miss ? ", missed" : "");
}

static void put_job(const struct ctx *k, const struct dlchart_job *j, int y)
{
	pid_t pid = k->tasks[j->task].pid;
	const char *ink = j->miss ? RED : INK;

	put_job_bar(k, j, y);
	if (in_window(k, j->release)) {
		open_item(k->f, "path", "release", pid, "job", j->job);
		put_arrow_path(k->f, x_at(k, j->release), y + BAR_Y - 1,
			       y + REL_TIP, INK);
		put_tip(k, j->task, "path", " job %lld: release", j->job);
	}
	/* A job log gives no deadline (0) for a task of another policy. */
	if (j->deadline && in_window(k, j->deadline)) {
		open_item(k->f, "path", j->miss ? "deadline miss" : "deadline",
			  pid, "job", j->job);
		put_arrow_path(k->f, x_at(k, j->deadline), y + JOB_Y - 1,
			       y + DL_TIP, ink);
		put_tip(k, j->task, "path", " job %lld: absolute deadline%s",
			j->job, j->miss ? ", missed" : "");
	}
}

static void put_throttle(const struct ctx *k, const struct dlchart_span *s,
			 int by)
{
	char a[32], b[32];
	double x, w;

	if (!clip(k, s->t0, s->t1, &x, &w))
		return;
	open_item(k->f, "rect", "throttled", k->tasks[s->task].pid, "cpu",
		  s->cpu);
	put_box(k->f, x, by + 3, w, BAR_H - 6);
	fputs(" " HATCHED, k->f);
	put_tip(k, s->task, "rect", " throttled (inferred): %s to %s ms",
		ms(k, s->t0, 3, a, sizeof(a)), ms(k, s->t1, 3, b, sizeof(b)));
}

/* The CPU a run bar is on, written in it where it fits. */
static void put_cpu_number(const struct ctx *k, const struct dlchart_span *s,
			   int by)
{
	char attr[64], num[16];
	double x, w;

	if (!clip(k, s->t0, s->t1, &x, &w) ||
	    w < CPU_LABEL_MIN * (s->cpu < 10 ? 1 : 2))
		return;
	snprintf(attr, sizeof(attr), CENTRED " fill=\"%s\"",
		 ink_on(colour_of(k, s->task)));
	snprintf(num, sizeof(num), "%d", s->cpu);
	put_text(k->f, x + w / 2, by + 13, 11, attr, num, w);
}

static void count_jobs(const struct ctx *k, int task, size_t *n,
		       size_t *miss)
{
	const struct dlchart_jobs *js = k->c->jobs;
	size_t i;

	*n = *miss = 0;
	for (i = 0; js && i < js->n; i++) {
		if (js->v[i].task != task ||
		    !dlchart_job_shown(k->c, &js->v[i]))
			continue;
		(*n)++;
		*miss += js->v[i].miss;
	}
}

static void put_task_label(const struct ctx *k, size_t lane, int y)
{
	const struct dlchart_task *t = &k->tasks[k->c->lanes[lane]];
	char line[64];
	size_t n, miss;

	if (!tall(k, lane))
		y -= 4;
	put_text(k->f, 10, y + 18, 12, BOLD, t->name, LEFT - 16);
	snprintf(line, sizeof(line), "pid %d%s", (int)t->pid,
		 t->deadline ? ", SCHED_DEADLINE" : "");
	put_text(k->f, 10, y + 32, 10, FAINTLY, line, LEFT - 10);
	if (!tall(k, lane))
		return;
	count_jobs(k, k->c->lanes[lane], &n, &miss);
	snprintf(line, sizeof(line), "%zu jobs, %zu missed", n, miss);
	put_text(k->f, 10, y + 46, 10, miss ? REDLY : FAINTLY, line, LEFT - 10);
}

static void put_task_lane(const struct ctx *k, size_t lane)
{
	const struct dlchart_trace *tr = k->c->tr;
	const struct dlchart_jobs *js = k->c->jobs;
	int task = k->c->lanes[lane], y = task_y(k, lane);
	int by = y + (tall(k, lane) ? BAR_Y : SHORT_BAR_Y);
	size_t i;

	fprintf(k->f,
		"<g class=\"lane task\" id=\"task-%d\" data-pid=\"%d\">\n",
		(int)k->tasks[task].pid, (int)k->tasks[task].pid);
	put_task_label(k, lane, y);
	put_lane_band(k, y, lane_h(k, lane));
	for (i = 0; i < tr->nthrottles; i++)
		if (tr->throttles[i].task == task)
			put_throttle(k, &tr->throttles[i], by);
	for (i = 0; i < tr->nruns; i++) {
		if (tr->runs[i].task != task)
			continue;
		put_run(k, &tr->runs[i], by, BAR_H, colour_of(k, task));
		put_cpu_number(k, &tr->runs[i], by);
	}
	for (i = 0; js && i < js->n; i++)
		if (js->v[i].task == task)
			put_job(k, &js->v[i], y);
	fputs("</g>\n", k->f);
}

static void put_line(FILE *f, double x1, int y1, double x2, int y2,
		     const char *colour)
{
	fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"", x1, y1,
		x2, y2);
	fprintf(f, " stroke=\"%s\"/>\n", colour);
}

static void put_grid(const struct ctx *k)
{
	const struct dlchart_chart *c = k->c;
	int64_t t;

	for (t = first_tick(c->from, c->origin, k->ticks.step); t <= c->to;
	     t += k->ticks.step)
		put_line(k->f, x_at(k, t), TOP, x_at(k, t), k->axis_y,
			 "#dddddd");
}

static void put_axis(const struct ctx *k)
{
	const struct dlchart_chart *c = k->c;
	int y = k->axis_y;
	char buf[32];
	int64_t t;

	fputs("<g class=\"axis\" fill=\"" INK "\">\n", k->f);
	put_line(k->f, k->x0, y, k->x1, y, INK);
	for (t = first_tick(c->from, c->origin, k->ticks.minor); t <= c->to;
	     t += k->ticks.minor) {
		bool major = (t - c->origin) % k->ticks.step == 0;

		put_line(k->f, x_at(k, t), y, x_at(k, t), y + (major ? 6 : 3),
			 INK);
		if (major)
			put_text(k->f, x_at(k, t), y + 19, 11, CENTRED,
				 ms(k, t, k->ticks.decimals, buf, sizeof(buf)),
				 TICK_GAP);
	}
	put_text(k->f, (k->x0 + k->x1) / 2, y + 36, 11, CENTRED,
		 "time since t = 0 (ms)", k->x1 - k->x0);
	fputs("</g>\n", k->f);
}

enum swatch { SW_FILL, SW_HATCH, SW_JOB, SW_UP, SW_DOWN, SW_MISS, SW_CPU };

struct entry {
	enum swatch sw;
	const char *colour, *label;
};

static double entry_w(const struct entry *e)
{
	return 28 + text_w(strlen(e->label), 11) + 18;
}

static void put_swatch(FILE *f, double x, int y, const struct entry *e)
{
	if (e->sw == SW_FILL || e->sw == SW_CPU) {
		fputs("<rect", f);
		put_box(f, x, y, 20, 14);
		fprintf(f, " fill=\"%s\"/>\n", e->colour);
	}
	if (e->sw == SW_CPU)
		put_text(f, x + 10, y + 11, 11,
			 CENTRED " fill=\"#ffffff\"", "1", 20);
	if (e->sw == SW_HATCH) {
		fputs("<rect", f);
		put_box(f, x, y, 20, 14);
		fputs(" " HATCHED "/>\n", f);
	}
	if (e->sw == SW_JOB || e->sw == SW_MISS) {
		fputs("<rect", f);
		put_box(f, x, y + 5, 20, JOB_H);
		fprintf(f, " fill=\"%s\"%s/>\n", e->colour,
			e->sw == SW_JOB ? " fill-opacity=\"0.45\"" : "");
	}
	if (e->sw == SW_UP || e->sw == SW_DOWN || e->sw == SW_MISS) {
		double ax = x + (e->sw == SW_MISS ? 14 : 10);

		fputs("<path", f);
		if (e->sw == SW_UP)
			put_arrow_path(f, ax, y + 14, y, e->colour);
		else
			put_arrow_path(f, ax, y, y + 14, e->colour);
		fputs("/>\n", f);
	}
}

/* Whether the CPU lanes show a task that has no colour of its own. */
static bool others_shown(const struct ctx *k)
{
	const struct dlchart_trace *tr = k->c->tr;
	double x, w;
	size_t i;

	for (i = 0; i < tr->nruns; i++)
		if (k->tasks[tr->runs[i].task].colour < 0 &&
		    clip(k, tr->runs[i].t0, tr->runs[i].t1, &x, &w))
			return true;
	return false;
}

/* The legend's @i-th entry; false if it has none to show. */
static bool legend_entry(const struct ctx *k, size_t i, struct entry *e)
{
	static const struct entry fixed[] = {
		{ SW_FILL, GREY, "other tasks" },
		{ SW_CPU, FAINT, "CPU it ran on" },
		{ SW_HATCH, NULL, "throttled (inferred)" },
		{ SW_JOB, FAINT, "job: start to end" },
		{ SW_UP, INK, "release" },
		{ SW_DOWN, INK, "absolute deadline" },
		{ SW_MISS, RED, "missed deadline" },
	};
	size_t n = k->c->nlanes;

	if (i < n) {
		int task = k->c->lanes[i];

		*e = (struct entry){ SW_FILL, colour_of(k, task),
				     k->tasks[task].name };
		return k->tasks[task].colour >= 0;
	}
	*e = fixed[i - n];
	return e->sw != SW_FILL || others_shown(k);
}

/* Lays the legend out from @y in rows; returns the rows it took. */
static int put_legend(const struct ctx *k, int y, bool draw)
{
	size_t i, n = k->c->nlanes + (k->c->jobs ? 7 : 3);
	double x = 10;
	int rows = 1;

	if (draw)
		fputs("<g class=\"legend\">\n", k->f);
	for (i = 0; i < n; i++) {
		struct entry e;
		int ey;

		if (!legend_entry(k, i, &e))
			continue;
		if (x > 10 && x + entry_w(&e) > k->x1 + RIGHT) {
			x = 10;
			rows++;
		}
		ey = y + (rows - 1) * LEGEND_ROW;
		if (draw) {
			put_swatch(k->f, x, ey, &e);
			put_text(k->f, x + 28, ey + 11, 11, "", e.label,
				 text_w(strlen(e.label), 11));
		}
		x += entry_w(&e);
	}
	if (draw)
		fputs("</g>\n", k->f);
	return rows;
}

static void put_titles(const struct ctx *k)
{
	const struct dlchart_chart *c = k->c;
	char sub[256], a[32], b[32];
	size_t n = 0, miss = 0, i, jn, jm;
	int len;

	put_text(k->f, 10, 24, 16, BOLD, c->title, c->width - 20);
	len = snprintf(sub, sizeof(sub),
		       "t = 0 at %lld.%09lld s (CLOCK_MONOTONIC); %s to %s ms; %d CPUs",
		       (long long)(c->origin / 1000000000),
		       (long long)(c->origin % 1000000000),
		       ms(k, c->from, k->ticks.decimals, a, sizeof(a)),
		       ms(k, c->to, k->ticks.decimals, b, sizeof(b)),
		       c->tr->ncpus);
	for (i = 0; i < c->nlanes; i++) {
		count_jobs(k, c->lanes[i], &jn, &jm);
		n += jn;
		miss += jm;
	}
	if (c->jobs && len > 0 && (size_t)len < sizeof(sub))
		snprintf(sub + len, sizeof(sub) - len, "; %zu jobs, %zu missed",
			 n, miss);
	put_text(k->f, 10, 44, 11, " fill=\"#555555\"", sub, c->width - 20);
}

static void put_head(const struct ctx *k)
{
	const struct dlchart_chart *c = k->c;
	FILE *f = k->f;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	fprintf(f, " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"",
		c->width, k->height, c->width, k->height);
	fprintf(f, " font-family=\"%s\"", FONTS);
	fprintf(f, " data-from-ns=\"%lld\" data-to-ns=\"%lld\"",
		(long long)c->from, (long long)c->to);
	fprintf(f, " data-origin-ns=\"%lld\"", (long long)c->origin);
	fprintf(f, " data-plot-x0=\"%.2f\" data-plot-x1=\"%.2f\">\n<title>",
		k->x0, k->x1);
	put_escaped(f, c->title, strlen(c->title));
	fputs("</title>\n", f);
	fputs(hatch, f);
	fputs("<rect", f);
	put_box(f, 0, 0, c->width, k->height);
	fputs(" fill=\"#ffffff\"/>\n", f);
}

bool dlchart_job_shown(const struct dlchart_chart *c,
		       const struct dlchart_job *j)
{
	int64_t last = j->end > j->deadline ? j->end : j->deadline;

	return j->release <= c->to && last >= c->from;
}

static void layout(struct ctx *k)
{
	const struct dlchart_chart *c = k->c;
	int lanes_end;

	k->x0 = LEFT;
	k->x1 = c->width - RIGHT;
	k->scale = (k->x1 - k->x0) / (double)(c->to - c->from);
	k->ticks = ticks_for(k->scale);
	k->tasks_y = cpu_y(c->tr->ncpus) - LANE_GAP + GROUP_GAP;
	lanes_end = c->nlanes ? task_y(k, c->nlanes) - LANE_GAP :
		k->tasks_y - GROUP_GAP;
	k->axis_y = lanes_end + 8;
	k->height = k->axis_y + LEGEND_Y + put_legend(k, 0, false) * LEGEND_ROW;
}

int dlchart_svg_write(FILE *f, const struct dlchart_chart *c)
{
	struct ctx k = { .f = f, .c = c, .tasks = c->tr->tasks };
	size_t i;
	int cpu;

	layout(&k);
	put_head(&k);
	put_titles(&k);
	put_grid(&k);
	for (cpu = 0; cpu < c->tr->ncpus; cpu++)
		put_cpu_lane(&k, cpu);
	for (i = 0; i < c->nlanes; i++)
		put_task_lane(&k, i);
	put_axis(&k);
	put_legend(&k, k.axis_y + LEGEND_Y, true);
	fputs("</svg>\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
