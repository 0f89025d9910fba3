// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel profiles (--profile), the reading side: the symbols of a case,
 * `perf script` parsed into the iterations' windows, kallsyms, and the
 * rows of profile.csv and profile_iterations.csv. The recording side and
 * the life of a profile: profile.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "core.h"
#include "driver.h"
#include "profile.h"
#include "profile_int.h"

/* ---------------------------------------------------------------- symbols */

static unsigned long hash_key(const char *k, size_t n)
{
	unsigned long h = 14695981039346656037ul;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ul;
	return h;
}

static int sym_rehash(int cap)
{
	int *t = calloc((size_t)cap, sizeof(*t));

	if (!t)
		return -1;
	for (int i = 0; i < pf.nsyms; i++) {
		size_t h = pf.syms[i].hash & (size_t)(cap - 1);

		while (t[h])
			h = (h + 1) & (size_t)(cap - 1);
		t[h] = i + 1;
	}
	free(pf.htab);
	pf.htab = t;
	pf.hcap = cap;
	return 0;
}

/* The id of symbol+dso, added when new; -1 out of memory. */
static int sym_id(const char *sym, size_t sl, const char *dso, size_t dl)
{
	char key[1024];
	size_t n, h;
	unsigned long hv;

	sl = sl > 600 ? 600 : sl;
	dl = dl > 400 ? 400 : dl;
	memcpy(key, sym, sl);
	key[sl] = '\0';
	memcpy(key + sl + 1, dso, dl);
	n = sl + 1 + dl;
	hv = hash_key(key, n);
	if (pf.hcap == 0 && sym_rehash(1024) < 0)
		return -1;
	for (h = hv & (size_t)(pf.hcap - 1); pf.htab[h]; h = (h + 1) & (size_t)(pf.hcap - 1)) {
		struct sym *s = &pf.syms[pf.htab[h] - 1];

		if (s->hash == hv && s->klen == n && !memcmp(s->key, key, n))
			return pf.htab[h] - 1;
	}
	if (pf.nsyms == pf.capsyms) {
		int cap = pf.capsyms ? pf.capsyms * 2 : 256;
		struct sym *s = realloc(pf.syms, (size_t)cap * sizeof(*s));

		if (!s)
			return -1;
		pf.syms = s;
		pf.capsyms = cap;
	}
	pf.syms[pf.nsyms].key = malloc(n + 1);
	if (!pf.syms[pf.nsyms].key)
		return -1;
	memcpy(pf.syms[pf.nsyms].key, key, n);
	pf.syms[pf.nsyms].key[n] = '\0';
	pf.syms[pf.nsyms].klen = n;
	pf.syms[pf.nsyms].hash = hv;
	pf.htab[h] = ++pf.nsyms;
	if (pf.nsyms * 2 > pf.hcap && sym_rehash(pf.hcap * 2) < 0)
		return -1;
	return pf.nsyms - 1;
}

static int iter_count(struct piter *p, int id, bool self, bool child)
{
	if (id >= p->nalloc) {
		int n = id + 256;
		long long *a = realloc(p->self, (size_t)n * sizeof(*a));
		long long *b;

		if (!a)
			return -1;
		p->self = a;
		b = realloc(p->child, (size_t)n * sizeof(*b));
		if (!b)
			return -1;
		p->child = b;
		memset(p->self + p->nalloc, 0, (size_t)(n - p->nalloc) * sizeof(*a));
		memset(p->child + p->nalloc, 0, (size_t)(n - p->nalloc) * sizeof(*b));
		p->nalloc = n;
	}
	p->self[id] += self;
	p->child[id] += child;
	return 0;
}

/* ---------------------------------------------------------------- perf script */

struct sample {
	long pid;
	uint64_t t;
	int frames[MAX_FRAMES];
	int nframes;
	bool active;
};

/* The window holding time t (windows are in time order), or NULL. */
static struct window *window_at(uint64_t t)
{
	int lo = 0, hi = pf.nw - 1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (pf.w[mid].t0 <= t) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best >= 0 && t <= pf.w[best].t1 ? &pf.w[best] : NULL;
}

static void sample_done(struct sample *s, long long *outside)
{
	struct window *w;
	struct piter *p;

	if (!s->active)
		return;
	s->active = false;
	w = window_at(s->t);
	if (!w) {
		++*outside;
		return;
	}
	p = &pf.it[w->it];
	if (s->pid == 0) {
		p->idle++;
		return;
	}
	if (s->nframes == 0)
		return;
	p->total++;
	iter_count(p, s->frames[0], true, false);
	if (!pf.callgraph)
		return;
	for (int i = 0; i < s->nframes; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = s->frames[j] == s->frames[i];
		if (!seen)
			iter_count(p, s->frames[i], false, true);
	}
}

/* "ffffffff81234567 sym (dso)": the symbol's id, -1 if not a frame. */
static int parse_frame(char *s)
{
	char *sym, *end, *open;
	int depth = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	if (end == s || end[-1] != ')')
		return -1;
	sym = s + strspn(s, "0123456789abcdef");
	if (sym == s || *sym != ' ')
		return -1;
	while (*sym == ' ')
		sym++;
	/* the dso is the balanced (...) group that ends the line */
	for (open = end - 1; open >= sym; open--) {
		depth += *open == ')';
		depth -= *open == '(';
		if (depth == 0)
			break;
	}
	if (open < sym)
		return -1;
	end[-1] = '\0';
	{
		char *se = open;

		while (se > sym && se[-1] == ' ')
			se--;
		if (se == sym)
			return sym_id("[unknown]", 9, open + 1, strlen(open + 1));
		return sym_id(sym, (size_t)(se - sym), open + 1, strlen(open + 1));
	}
}

/* "  PID  SECONDS.NANOSECONDS: [frame]": true for a sample's first line. */
static bool parse_header(char *line, long *pid, uint64_t *t, char **rest)
{
	char *p = line, *end;
	unsigned long long sec, ns = 0;
	int digits = 0;

	errno = 0;
	*pid = strtol(p, &end, 10);
	if (end == p || errno)
		return false;
	p = end;
	while (*p == ' ')
		p++;
	sec = strtoull(p, &end, 10);
	if (end == p || *end != '.')
		return false;
	for (p = end + 1; *p >= '0' && *p <= '9'; p++, digits++)
		if (digits < 9)
			ns = ns * 10 + (unsigned long long)(*p - '0');
	if (*p != ':')
		return false;
	for (; digits < 9; digits++)
		ns *= 10;
	*t = sec * 1000000000ull + ns;
	*rest = p + 1;
	return true;
}

static int read_script(FILE *f, long long *outside)
{
	struct sample *s = calloc(1, sizeof(*s));
	char *line = NULL, *rest;
	size_t cap = 0;
	uint64_t t;
	ssize_t n;
	long pid;
	int id;

	if (!s)
		return -ENOMEM;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[0] == '\n') {
			sample_done(s, outside);
		} else if (line[0] == '\t') {
			id = parse_frame(line);
			if (s->active && id >= 0 && s->nframes < MAX_FRAMES)
				s->frames[s->nframes++] = id;
		} else if (parse_header(line, &pid, &t, &rest)) {
			/* the previous sample ends here (flat samples have no blank line) */
			sample_done(s, outside);
			s->pid = pid;
			s->t = t;
			s->active = true;
			s->nframes = 0;
			id = parse_frame(rest);
			if (id >= 0)
				s->frames[s->nframes++] = id;
		}
	}
	sample_done(s, outside);
	free(line);
	free(s);
	return 0;
}

/* perf script over the raw data; 0, or -1 with the reason. */
int pf_perf_script(char *why, size_t len, long long *outside)
{
	char *argv[16];
	int p[2], n = 0, st, ret;
	pid_t pid;
	FILE *f;

	argv[n++] = pf.perf;
	argv[n++] = "script";
	argv[n++] = "-i";
	argv[n++] = pf.tmp;
	argv[n++] = "-F";
	argv[n++] = "pid,time,ip,sym,dso";
	argv[n++] = "--ns";
	if (pf.kallsyms[0]) {
		argv[n++] = "--kallsyms";
		argv[n++] = pf.kallsyms;
	}
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int log = open(pf.log, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(p[1], STDOUT_FILENO);
		if (log >= 0)
			dup2(log, STDERR_FILENO);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	f = fdopen(p[0], "r");
	ret = f ? read_script(f, outside) : -errno;
	if (f)
		fclose(f);
	else
		close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (ret < 0) {
		snprintf(why, len, "reading perf script: %s", strerror(-ret));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char tail[600];

		pf_perf_log_tail(tail, sizeof(tail));
		snprintf(why, len, "perf script failed (%s %d)%s%s",
			 WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			 tail[0] ? ": " : "", tail);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- kallsyms */

/*
 * The kernel symbols the profile hit, for reading the raw data elsewhere
 * (a guest's kernel on the host: perf report --kallsyms FILE). Every hit
 * symbol's line of /proc/kallsyms (or --profile-kallsyms), the line after
 * it in address order (perf ends a symbol where the next begins) and
 * _text/_stext (perf relocates by them): a few hundred lines, not the
 * whole table.
 */
struct kline {
	unsigned long long addr;
	char *text;		/* the line as read, without its newline */
	const char *name, *mod;	/* inside a copy of text */
	char *copy;
};

static int by_addr(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "name\tmodule" (module "" for the kernel) of every kernel symbol hit. */
static char **hit_names(int *n)
{
	char **v = malloc((size_t)(pf.nsyms ? pf.nsyms : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (int i = 0; i < pf.nsyms; i++) {
		const char *sym = pf.syms[i].key, *dso = sym + strlen(sym) + 1;
		size_t dl = strlen(dso);
		char *e;

		if (dso[0] != '[' || dso[dl - 1] != ']' || !strcmp(dso, "[unknown]") ||
		    !strcmp(dso, "[vdso]") || !strcmp(dso, "[vsyscall]") || sym[0] == '[')
			continue;
		if (asprintf(&e, "%s\t%.*s", sym, strcmp(dso, "[kernel.kallsyms]") ?
			     (int)dl - 2 : 0, dso + 1) < 0)
			continue;
		v[(*n)++] = e;
	}
	qsort(v, (size_t)*n, sizeof(*v), by_str);
	return v;
}

static void free_lines(struct kline *k, int n)
{
	for (int i = 0; i < n; i++) {
		free(k[i].text);
		free(k[i].copy);
	}
	free(k);
}

/* The kallsyms lines (addresses not hidden by kptr_restrict); NULL if none. */
static struct kline *read_kallsyms(const char *path, int *n)
{
	struct kline *k = NULL;
	char *line = NULL;
	size_t cap = 0;
	int nk = 0, capk = 0;
	bool nonzero = false;
	ssize_t len;
	FILE *f = fopen(path, "re");

	*n = 0;
	if (!f)
		return NULL;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct kline *e;
		char *sp, *tab;

		line[strcspn(line, "\n")] = '\0';
		if (nk == capk) {
			struct kline *t = realloc(k, (size_t)(capk = capk * 2 + 4096) * sizeof(*k));

			if (!t)
				break;
			k = t;
		}
		e = &k[nk];
		e->addr = strtoull(line, &sp, 16);
		if (sp == line || sp[0] != ' ' || !sp[1] || sp[2] != ' ')
			continue;
		e->text = strdup(line);
		e->copy = strdup(sp + 3);
		if (!e->text || !e->copy) {
			free(e->text);
			free(e->copy);
			break;
		}
		e->name = e->copy;
		tab = strchr(e->copy, '\t');
		e->mod = "";
		if (tab) {
			*tab = '\0';
			e->mod = tab + 1;
			if (e->mod[0] == '[') {
				e->mod++;
				if (strchr(e->mod, ']'))
					*strchr(e->mod, ']') = '\0';
			}
		}
		nonzero |= e->addr != 0;
		nk++;
	}
	free(line);
	fclose(f);
	if (!nonzero) {
		free_lines(k, nk);
		return NULL;
	}
	qsort(k, (size_t)nk, sizeof(*k), by_addr);
	*n = nk;
	return k;
}

/* profile/<name>.kallsyms, temp name then rename; 0 or -1. */
int pf_write_kallsyms(char *out, size_t outlen)
{
	char **hits, key[1024], tmp[4500];
	struct kline *k;
	int nh, nk, ret = -1;
	bool *keep;
	FILE *f;

	hits = hit_names(&nh);
	if (!hits || nh == 0) {
		free(hits);
		return -1;
	}
	k = read_kallsyms(pf.kallsyms[0] ? pf.kallsyms : "/proc/kallsyms", &nk);
	keep = k ? calloc((size_t)nk + 1, sizeof(*keep)) : NULL;
	if (!keep)
		goto out;
	for (int i = 0; i < nk; i++) {
		char *kp = key;

		snprintf(key, sizeof(key), "%s\t%s", k[i].name, k[i].mod);
		if (bsearch(&kp, hits, (size_t)nh, sizeof(*hits), by_str)) {
			keep[i] = true;
			keep[i + 1] = true;
		}
		if (!strcmp(k[i].name, "_text") || !strcmp(k[i].name, "_stext"))
			keep[i] = true;
	}
	snprintf(out, outlen, "%s/profile/%s.kallsyms", mm_run.dir, pf.name);
	snprintf(tmp, sizeof(tmp), "%s/profile/.%s.kallsyms.tmp", mm_run.dir, pf.name);
	f = fopen(tmp, "we");
	if (!f)
		goto out;
	for (int i = 0; i < nk; i++)
		if (keep[i])
			fprintf(f, "%s\n", k[i].text);
	if (fflush(f) == 0 && fsync(fileno(f)) == 0 && fclose(f) == 0)
		ret = rename(tmp, out) < 0 ? -1 : 0;
	else
		fclose(f);
	if (ret < 0)
		unlink(tmp);
out:
	free(keep);
	if (k)
		free_lines(k, nk);
	for (int i = 0; i < nh; i++)
		free(hits[i]);
	free(hits);
	return ret;
}

/*
 * profile/kernel_functions.fnv32, once per run: the FNV-1a hashes (mm_fnv32,
 * results.h; 32 bit,
 * little endian, sorted, unique) of every text symbol name of the kernel.
 * A comparison needs to know whether a function that vanished from one
 * side's profile still exists in the other side's kernel (no longer run:
 * the point of many patches) or not (renamed, inlined, removed); the whole
 * name table would cost ~20 s over the VM lab's serial port, this ~5 s.
 */
static int by_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

void pf_write_function_hashes(void)
{
	char path[4400], tmp[4500], line[1024], name[512], type;
	unsigned int *h = NULL;
	unsigned long long addr;
	size_t n = 0, cap = 0, u = 0;
	bool nonzero = false;
	FILE *f, *o;

	snprintf(path, sizeof(path), "%s/profile/kernel_functions.fnv32", mm_run.dir);
	if (access(path, F_OK) == 0)
		return;
	f = fopen(pf.kallsyms[0] ? pf.kallsyms : "/proc/kallsyms", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 ||
		    !strchr("tTwW", type))
			continue;
		nonzero |= addr != 0;
		if (n == cap) {
			unsigned int *t = realloc(h, (cap = cap * 2 + 65536) * sizeof(*h));

			if (!t)
				break;
			h = t;
		}
		h[n++] = mm_fnv32(name);
	}
	fclose(f);
	if (n == 0) {
		free(h);
		return;
	}
	qsort(h, n, sizeof(*h), by_u32);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || h[i] != h[i - 1])
			h[u++] = h[i];
	snprintf(tmp, sizeof(tmp), "%s/profile/.kernel_functions.fnv32.tmp", mm_run.dir);
	o = fopen(tmp, "we");
	if (o) {
		bool ok = true;

		for (size_t i = 0; i < u && ok; i++) {
			unsigned char b[4] = { h[i] & 255, h[i] >> 8 & 255, h[i] >> 16 & 255,
					       h[i] >> 24 };

			ok = fwrite(b, 1, 4, o) == 4;
		}
		ok = ok && fflush(o) == 0 && fsync(fileno(o)) == 0;
		fclose(o);
		if (ok && rename(tmp, path) == 0)
			pf_mirror_raw(path, "kernel_functions.fnv32");
		else
			unlink(tmp);
	}
	(void)nonzero;
	free(h);
}

/* ---------------------------------------------------------------- rows */

static struct piter *cmp_it;

static int by_weight(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	long long wx = cmp_it->self[x] > cmp_it->child[x] ? cmp_it->self[x] : cmp_it->child[x];
	long long wy = cmp_it->self[y] > cmp_it->child[y] ? cmp_it->self[y] : cmp_it->child[y];

	if (wx != wy)
		return wx < wy ? 1 : -1;
	return strcmp(pf.syms[x].key, pf.syms[y].key);
}

static void pct(char *buf, size_t len, long long n, long long total)
{
	snprintf(buf, len, "%.4f", total > 0 ? 100.0 * (double)n / (double)total : 0.0);
}

int pf_symbol_rows(struct mm_ctx *ctx, struct piter *p)
{
	char iter[16], self[32], child[32], samples[32], total[32];
	const char *f[15];
	long long other = 0;
	int *ids, n = 0, ret = 0;

	ids = malloc((size_t)(p->nalloc ? p->nalloc : 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (int i = 0; i < p->nalloc && i < pf.nsyms; i++)
		if (p->self[i] || p->child[i])
			ids[n++] = i;
	cmp_it = p;
	qsort(ids, (size_t)n, sizeof(*ids), by_weight);
	snprintf(iter, sizeof(iter), "%d", p->iteration);
	snprintf(total, sizeof(total), "%lld", p->total);
	mm_row_ident(f, ctx->wl, ctx->c);
	f[6] = pf.name;
	f[7] = iter;
	f[8] = pf.event;
	f[13] = samples;
	f[14] = total;
	for (int k = 0; k < n && ret == 0; k++) {
		int id = ids[k];

		if (k >= TOP_SYMBOLS) {
			other += p->self[id];
			continue;
		}
		f[9] = pf.syms[id].key;
		f[10] = pf.syms[id].key + strlen(pf.syms[id].key) + 1;
		pct(self, sizeof(self), p->self[id], p->total);
		pct(child, sizeof(child), p->child[id], p->total);
		f[11] = self;
		f[12] = pf.callgraph ? child : "";
		snprintf(samples, sizeof(samples), "%lld", p->self[id]);
		ret = mm_csv_append_fields("profile.csv", MM_PROFILE_HEADER, f, 15);
	}
	if (ret == 0 && other > 0) {
		f[9] = "[other]";
		f[10] = "";
		pct(self, sizeof(self), other, p->total);
		f[11] = self;
		f[12] = "";
		snprintf(samples, sizeof(samples), "%lld", other);
		ret = mm_csv_append_fields("profile.csv", MM_PROFILE_HEADER, f, 15);
	}
	free(ids);
	return ret;
}

int pf_iteration_row(struct mm_ctx *ctx, struct piter *p, const char *perf_data)
{
	char iter[16], freq[16], t0[32], t1[32], total[32], idle[32];
	const char *f[18];

	snprintf(iter, sizeof(iter), "%d", p->iteration);
	snprintf(freq, sizeof(freq), "%d", pf.freq);
	t0[0] = t1[0] = total[0] = idle[0] = '\0';
	if (p->windowed) {
		snprintf(t0, sizeof(t0), "%llu.%09llu", (unsigned long long)(p->t0 / 1000000000ull),
			 (unsigned long long)(p->t0 % 1000000000ull));
		snprintf(t1, sizeof(t1), "%llu.%09llu", (unsigned long long)(p->t1 / 1000000000ull),
			 (unsigned long long)(p->t1 % 1000000000ull));
	}
	if (p->status == ST_OK) {
		snprintf(total, sizeof(total), "%lld", p->total);
		snprintf(idle, sizeof(idle), "%lld", p->idle);
	}
	mm_row_ident(f, ctx->wl, ctx->c);
	f[6] = pf.name;
	f[7] = iter;
	f[8] = pf.event;
	f[9] = freq;
	f[10] = pf.callgraph ? "1" : "0";
	f[11] = stat_name[p->status];
	f[12] = p->reason;
	f[13] = t0;
	f[14] = t1;
	f[15] = total;
	f[16] = idle;
	f[17] = perf_data;
	return mm_csv_append_fields("profile_iterations.csv", MM_PROFILE_ITER_HEADER, f, 18);
}

