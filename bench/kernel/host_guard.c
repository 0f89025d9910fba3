// SPDX-License-Identifier: GPL-2.0
/* The host's hand in a measurement: host_guard.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "host_guard.h"
#include "mmbench.h"

#define PR_DIR "/sys/module/page_reporting/parameters"

long long mm_host_reported_kib(void)
{
	char buf[64];

	if (mm_read_file(PR_DIR "/reported_kib", buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * Is free page reporting active? CONFIG_PAGE_REPORTING gives the module
 * parameter; a device has to register for anything to be reported: a
 * virtio balloon with VIRTIO_BALLOON_F_REPORTING (feature bit 5), or
 * Hyper-V's balloon. A kernel that counts reported memory (reported_kib)
 * and has reported some is taken at its word.
 */
bool mm_host_reporting(char *why, size_t len)
{
	char buf[256], path[300];
	long long rep;
	int order;
	DIR *d;
	struct dirent *de;

	if (mm_read_file(PR_DIR "/page_reporting_order", buf, sizeof(buf)) < 0) {
		snprintf(why, len, "no %s/page_reporting_order: no free page reporting", PR_DIR);
		return false;
	}
	order = atoi(buf);
	d = opendir("/sys/bus/virtio/devices");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", de->d_name);
		if (mm_read_file(path, buf, sizeof(buf)) < 0 || strtol(buf, NULL, 0) != 5)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/features", de->d_name);
		if (mm_read_file(path, buf, sizeof(buf)) == 0 && strlen(buf) > 5 &&
		    buf[5] == '1') {
			closedir(d);
			snprintf(why, len, "virtio balloon with free page reporting, page_reporting_order %d",
				 order);
			return true;
		}
	}
	if (d)
		closedir(d);
	if (access("/sys/module/hv_balloon", F_OK) == 0) {
		snprintf(why, len, "Hyper-V balloon (hv_balloon) loaded, page_reporting_order %d", order);
		return true;
	}
	if (mm_read_file(PR_DIR "/reported_kib", buf, sizeof(buf)) == 0 &&
	    (rep = strtoll(buf, NULL, 10)) > 0) {
		snprintf(why, len, "reported_kib %lld, page_reporting_order %d", rep, order);
		return true;
	}
	snprintf(why, len, "page_reporting_order %d but no reporting device (virtio balloon REPORTING, hv_balloon)",
		 order);
	return false;
}

/* Sum of "managed" over /proc/zoneinfo: moves when memory is added or taken. */
static long long managed_pages(void)
{
	char line[256];
	long long sum = 0, v;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " managed %lld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

/* The 8th value of /proc/stat's "cpu" line. */
long long mm_host_steal_ticks(void)
{
	unsigned long long v[8];
	char line[512];
	FILE *f = fopen("/proc/stat", "re");
	int n = 0;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 ? (long long)v[7] : -1;
}

static long long balloon_moves(void)
{
	long long a = mm_vmstat_get("balloon_inflate"), b = mm_vmstat_get("balloon_deflate");

	return a < 0 && b < 0 ? -1 : (a > 0 ? a : 0) + (b > 0 ? b : 0);
}

void mm_host_snap(struct mm_host_snap *s)
{
	s->rep = mm_host_reported_kib();
	s->man = managed_pages();
	s->bal = balloon_moves();
	s->steal = mm_host_steal_ticks();
}

void mm_host_window_open(struct mm_host_window *w, int i, uint64_t t0,
			 const struct mm_host_snap *s)
{
	if (i == 0) {
		memset(w, 0, sizeof(*w));
		w->t0 = t0;
		w->s0 = *s;
	}
	if (t0 < w->t0)
		w->t0 = t0;
	/* reported_kib and steal only grow: the first reading is the least */
	if (s->rep < w->s0.rep)
		w->s0.rep = s->rep;
	if (s->steal < w->s0.steal)
		w->s0.steal = s->steal;
	/* managed pages and the balloon: any difference is a move */
	if (s->man != w->s0.man)
		w->man_moved = true;
	if (s->bal != w->s0.bal)
		w->bal_moved = true;
}

bool mm_host_window_close(struct mm_host_window *w, size_t page,
			  double steal_max_pct, char *why, size_t len)
{
	const struct mm_host_snap *a = &w->s0, *b = &w->s1;
	double secs, steal_pct = 0;
	long tck = sysconf(_SC_CLK_TCK);

	w->t1 = mm_now_ns();
	mm_host_snap(&w->s1);
	secs = (double)(w->t1 - w->t0) / 1e9;
	if (a->steal >= 0 && b->steal >= a->steal && tck > 0 && secs > 0)
		steal_pct = 100.0 * (double)(b->steal - a->steal) / (double)tck /
			    (secs * (double)mm_ncpus());
	why[0] = '\0';
	if (a->rep >= 0 && b->rep > a->rep)
		snprintf(why, len, "the host took back %lld KiB (reported_kib) during the storm",
			 b->rep - a->rep);
	else if (w->man_moved || (a->man >= 0 && b->man != a->man))
		snprintf(why, len, "the zones' managed memory changed by %lld KiB during the storm",
			 (b->man - a->man) * (long long)(page >> 10));
	else if (w->bal_moved || (a->bal >= 0 && b->bal != a->bal))
		snprintf(why, len, "the balloon moved %lld pages during the storm",
			 b->bal - a->bal);
	else if (steal_pct > steal_max_pct)
		snprintf(why, len, "steal time was %.1f%% of the CPUs' time during the storm (limit %.0f%%)",
			 steal_pct, steal_max_pct);
	return why[0] != '\0';
}

double mm_witness_median(const struct mm_witness *w)
{
	double *v;
	double m;

	if (!w->n || !(v = malloc(w->n * sizeof(*v))))
		return 0;
	memcpy(v, w->v, w->n * sizeof(*v));
	gsl_sort(v, 1, w->n);
	m = gsl_stats_median_from_sorted_data(v, 1, w->n);
	free(v);
	return m;
}

void mm_witness_keep(struct mm_witness *w, double x)
{
	double *v;

	if (x <= 0)
		return;
	if (w->n == w->cap) {
		v = realloc(w->v, (w->cap * 2 + 8) * sizeof(*v));
		if (!v)
			return;
		w->v = v;
		w->cap = w->cap * 2 + 8;
	}
	w->v[w->n++] = x;
}

void mm_witness_free(struct mm_witness *w)
{
	free(w->v);
	memset(w, 0, sizeof(*w));
}
