// SPDX-License-Identifier: GPL-2.0
/*
 * The one save/restore facility for sysfs/procfs knobs. Before a knob is
 * changed, its original value is appended to RUN_DIR/settings.journal and
 * fsync'd; restoring writes the originals back (newest change first) and
 * appends a "done" record. The journal is append-only CSV:
 *   save,PATH,ORIGINAL   before the first change of PATH
 *   done,PATH,           after PATH was restored
 * so after a SIGKILL or a panic `mmbench restore DIR` finds every knob whose
 * last record is "save" and puts it back.
 *
 * Only knobs are written: a path whose real location is a regular file
 * under /sys on sysfs, or under /proc/sys on procfs. The check runs on the
 * path (realpath + statfs) and again on the opened file (fstatfs), so a
 * symlink or a rename cannot turn a knob write into a write elsewhere. A
 * journal is read the same way: every record is checked, a record that is
 * not a valid knob record is named (FILE:LINE) and never acted on, and a
 * journal that is not a regular file owned by us, writable by no one else,
 * is not read at all.
 *
 * RUN_DIR/settings.lock: a case child holds it (flock) from before its
 * first change until its last process is gone (the case's tasks inherit
 * it); a restore takes it first, so no knob can change after a restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core.h"

#define JOURNAL "settings.journal"
#define LOCKFILE "settings.lock"
#define MAX_KNOBS 128
#define PATH_LEN 512
#define VALUE_LEN 4096
/* How long a restore waits for the processes of a case to end. */
#define LOCK_WAIT_TENTHS 300

struct knob {
	char path[PATH_LEN];
	char orig[VALUE_LEN];
	bool open;	/* saved and not yet restored */
};

struct journal {
	struct knob k[MAX_KNOBS];
	int n;
	int bad;	/* invalid records (named on stderr) */
	/* parser state */
	char field[3][VALUE_LEN];
	int nf;
	bool toolong;
};

static char journal_dir[4096];
/* Unit tests only: a directory whose regular files stand in for knobs. */
const char *mm_settings_test_root;

int mm_settings_init(const char *run_dir)
{
	char path[4200];
	int fd;

	snprintf(journal_dir, sizeof(journal_dir), "%s", run_dir);
	/* Created here, so a case child only has to open it. */
	snprintf(path, sizeof(path), "%s/" LOCKFILE, run_dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static bool knob_fs(const struct statfs *sf)
{
	return sf->f_type == SYSFS_MAGIC || sf->f_type == PROC_SUPER_MAGIC;
}

static bool test_file(const char *real)
{
	size_t n = mm_settings_test_root ? strlen(mm_settings_test_root) : 0;

	return n && !strncmp(real, mm_settings_test_root, n) && real[n] == '/';
}

/* A "", "." or ".." component ("//", "/./", "/.." at the end, ...). */
static bool dot_component(const char *path)
{
	for (const char *c = path; *c; c++) {
		size_t n;

		if (*c != '/')
			continue;
		n = strcspn(c + 1, "/");
		if (n == 0 || (n == 1 && c[1] == '.') ||
		    (n == 2 && c[1] == '.' && c[2] == '.'))
			return true;
	}
	return false;
}

int mm_setting_path_check(const char *path, char *why, size_t len)
{
	char real[PATH_MAX];
	struct statfs sf;
	struct stat st;

	if (path[0] != '/') {
		snprintf(why, len, "'%s' is not an absolute path", path);
		return -EINVAL;
	}
	if (strlen(path) >= PATH_LEN) {
		snprintf(why, len, "path longer than %d bytes", PATH_LEN - 1);
		return -ENAMETOOLONG;
	}
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(why, len, "control character in the path");
			return -EINVAL;
		}
	/*
	 * Named under /sys or /proc/sys, without "." or ".." components:
	 * every directory on the way belongs to the kernel, so nobody can
	 * swap one for a symlink between this check and the open().
	 */
	if (strncmp(path, "/sys/", 5) && strncmp(path, "/proc/sys/", 10) &&
	    !test_file(path)) {
		snprintf(why, len, "%s is not a path under /sys or /proc/sys", path);
		return -EPERM;
	}
	if (dot_component(path)) {
		snprintf(why, len, "%s has an empty, '.' or '..' component", path);
		return -EPERM;
	}
	if (!realpath(path, real) || statfs(real, &sf) < 0 || stat(real, &st) < 0) {
		int e = errno;

		snprintf(why, len, "%s: %s", path, strerror(e));
		return -e;
	}
	if (test_file(real) && S_ISREG(st.st_mode))
		return 0;
	if (!((sf.f_type == SYSFS_MAGIC && !strncmp(real, "/sys/", 5)) ||
	      (sf.f_type == PROC_SUPER_MAGIC && !strncmp(real, "/proc/sys/", 10)))) {
		snprintf(why, len, "%s%s%s is not a sysfs or /proc/sys knob", path,
			 strcmp(real, path) ? " -> " : "", strcmp(real, path) ? real : "");
		return -EPERM;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s is not a knob file", path);
		return -EINVAL;
	}
	return 0;
}

static struct knob *find_knob(struct journal *j, const char *path)
{
	for (int i = 0; i < j->n; i++)
		if (strcmp(j->k[i].path, path) == 0)
			return &j->k[i];
	return NULL;
}

/* Why a parsed record is not a valid journal record, or NULL. */
static const char *record_invalid(struct journal *j, char *why, size_t len)
{
	const char *op = j->field[0], *val = j->field[2];

	if (j->nf != 3)
		return snprintf(why, len, "%d fields, expected 3", j->nf), why;
	if (j->toolong)
		return "a field is too long";
	if (strcmp(op, "save") && strcmp(op, "done"))
		return snprintf(why, len, "unknown record '%.40s'", op), why;
	for (const char *c = val; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			return "control character in the value";
	if (!strcmp(op, "done") && *val)
		return "a done record has no value";
	if (mm_setting_path_check(j->field[1], why, len) < 0)
		return why;
	if (!strcmp(op, "save") && !find_knob(j, j->field[1]) && j->n == MAX_KNOBS)
		return snprintf(why, len, "more than %d knobs", MAX_KNOBS), why;
	return NULL;
}

static void jr_apply(struct journal *j)
{
	struct knob *k = find_knob(j, j->field[1]);

	if (strcmp(j->field[0], "save") == 0) {
		if (!k) {
			k = &j->k[j->n++];
			snprintf(k->path, sizeof(k->path), "%s", j->field[1]);
		}
		/* The first save after a restore holds the original. */
		if (!k->open) {
			snprintf(k->orig, sizeof(k->orig), "%s", j->field[2]);
			k->open = true;
		}
	} else if (k) {
		k->open = false;
	}
}

/* Parse one journal line (without its newline) as one record. */
static void journal_line(struct journal *j, const char *path, long lineno,
			 const char *line, size_t len)
{
	struct mm_csv_in in = { .max_field = sizeof(j->field[0]) - 1 };
	char why[600];
	const char *bad;

	j->nf = 0;
	j->toolong = false;
	if (memchr(line, '\0', len)) {
		bad = "NUL byte";
	} else if (mm_csv_record(&in, line, len) < 0) {
		bad = in.oom ? "out of memory" : "not a CSV record";
	} else {
		j->nf = in.nf;
		j->toolong = in.toolong;
		for (int i = 0; i < 3 && i < in.nf; i++)
			snprintf(j->field[i], sizeof(j->field[0]), "%s", in.f[i]);
		bad = record_invalid(j, why, sizeof(why));
	}
	mm_csv_free(&in);
	if (bad) {
		fprintf(stderr, "mmbench: %s:%ld: %s; record ignored\n", path, lineno, bad);
		j->bad++;
		return;
	}
	jr_apply(j);
}

/*
 * Read and check the journal. A torn last line (a kill mid-write) is
 * ignored; every other invalid line is named and counted in j->bad.
 * 0, or -errno when the journal cannot be read or is not trusted.
 */
static int journal_read(const char *dir, struct journal *j)
{
	char path[4200], *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	struct stat st;
	ssize_t n;
	FILE *f;
	int fd;

	memset(j, 0, sizeof(*j));
	snprintf(path, sizeof(path), "%s/" JOURNAL, dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		fprintf(stderr, "mmbench: %s: not a regular file owned by uid %d and "
			"writable only by it; not trusted\n", path, (int)geteuid());
		close(fd);
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[n - 1] != '\n')
			break;	/* torn by a kill: never acted on */
		journal_line(j, path, lineno, line, (size_t)n - 1);
	}
	free(line);
	fclose(f);
	return 0;
}

/*
 * A record torn by a kill mid-write (no newline at the end of the file)
 * is cut off before a new one is added: it was never acted on, and a
 * record that ends in the middle cannot be told from a forged one.
 */
static int cut_torn_record(int fd)
{
	char buf[512];
	off_t end = lseek(fd, 0, SEEK_END), pos = end;

	while (pos > 0) {
		size_t n = pos < (off_t)sizeof(buf) ? (size_t)pos : sizeof(buf);

		if (pread(fd, buf, n, pos - (off_t)n) != (ssize_t)n)
			return -EIO;
		for (size_t i = n; i > 0; i--, pos--)
			if (buf[i - 1] == '\n')
				goto found;
	}
found:
	if (pos < end && ftruncate(fd, pos) < 0)
		return -errno;
	return 0;
}

static int journal_append(const char *dir, const char *op, const char *path,
			  const char *val)
{
	const char *f[3] = { op, path, val };
	char jpath[4200], line[PATH_LEN + VALUE_LEN + 64];
	int fd, n, ret = 0;

	n = mm_csv_line(line, sizeof(line), f, 3);
	if (n < 0)
		return n;
	snprintf(jpath, sizeof(jpath), "%s/" JOURNAL, dir);
	fd = open(jpath, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = cut_torn_record(fd);
	if (ret == 0 && (write(fd, line, (size_t)n) != n || fsync(fd) < 0))
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * Write a knob: the path is checked, then the opened file again (it must
 * still be a regular file on sysfs/procfs), so nothing else is written.
 * No O_TRUNC: a knob takes the value as written.
 */
static int write_knob(const char *path, const char *value)
{
	size_t len = strlen(value);
	struct statfs sf;
	struct stat st;
	char why[600];
	int fd, ret;

	ret = mm_setting_path_check(path, why, sizeof(why));
	if (ret < 0) {
		mm_logf("mmbench: not writing '%s': %s", path, why);
		return ret;
	}
	fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (!knob_fs(&sf) && !mm_settings_test_root)) {
		mm_logf("mmbench: not writing '%s': it changed into something else", path);
		close(fd);
		return -EPERM;
	}
	ret = 0;
	/* A unit test's stand-in file takes the value alone, as a knob does. */
	if (!knob_fs(&sf) && ftruncate(fd, 0) < 0)
		ret = -errno;
	if (ret == 0 && write(fd, value, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

int mm_trigger(const char *path, const char *value)
{
	return write_knob(path, value);
}

int mm_setting_set(const char *path, const char *value)
{
	struct journal *j;
	char orig[VALUE_LEN + 1], why[600];
	int ret;

	if (!journal_dir[0])
		return -EINVAL;	/* only inside a run */
	ret = mm_setting_path_check(path, why, sizeof(why));
	if (ret < 0) {
		mm_logf("mmbench: not changing '%s': %s", path, why);
		return ret;
	}
	ret = mm_setting_get(path, orig, sizeof(orig));
	if (ret < 0)
		return ret;
	/* A value the journal cannot hold whole could not be restored. */
	if (strlen(orig) >= VALUE_LEN || strchr(orig, '\n')) {
		mm_logf("mmbench: not changing '%s': its value is too long or has "
			"several lines, and could not be restored", path);
		return -EFBIG;
	}
	j = malloc(sizeof(*j));
	if (!j)
		return -ENOMEM;
	ret = journal_read(journal_dir, j);
	if (ret == 0 && j->bad)
		ret = -EBADMSG;
	if (ret == 0) {
		struct knob *k = find_knob(j, path);

		/* Already changed in this run: the journal has the original. */
		if (!k || !k->open)
			ret = k || j->n < MAX_KNOBS ?
			      journal_append(journal_dir, "save", path, orig) : -ENOSPC;
	}
	free(j);
	if (ret < 0)
		return ret;
	mm_stop_point("set-saved");
	ret = write_knob(path, value);
	mm_stop_point("set-written");
	return ret;
}

int mm_settings_case_lock(void)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/" LOCKFILE, journal_dir);
	/* Held until the last process of the case exits: never closed. */
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int e = errno;

			close(fd);
			return -e;
		}
	return 0;
}

/*
 * Wait until no process of a case of this run holds the lock (a killed
 * driver's case dies by PR_SET_PDEATHSIG; its tasks follow). Returns the
 * held lock's fd, -1 for a run without a lock file (nothing to wait for),
 * or -2 when processes still hold it after the wait.
 */
static int wait_for_cases(const char *dir)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/" LOCKFILE, dir);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; i++) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return fd;	/* no locking here: go on */
		if (i == 0)
			fprintf(stderr, "mmbench: waiting for the processes of a case "
				"in %s to end\n", dir);
		if (i == LOCK_WAIT_TENTHS) {
			fprintf(stderr, "mmbench: processes of a case in %s are still "
				"running (they hold %s): not restoring under them\n",
				dir, path);
			close(fd);
			return -2;
		}
		usleep(100000);
	}
	return fd;
}

int mm_settings_restore(const char *run_dir, bool verbose)
{
	struct journal *j = malloc(sizeof(*j));
	int fails = 0, ret, lock;

	if (!j)
		return MM_FAIL;
	lock = wait_for_cases(run_dir);
	if (lock == -2) {
		free(j);
		return MM_FAIL;
	}
	mm_stop_point("restore-start");
	ret = journal_read(run_dir, j);
	if (ret < 0) {
		fprintf(stderr, "mmbench: cannot read %s/%s: %s\n", run_dir,
			JOURNAL, strerror(-ret));
		free(j);
		if (lock >= 0)
			close(lock);
		return ret == -EPERM || ret == -ELOOP ? MM_USAGE : MM_FAIL;
	}
	for (int i = j->n - 1; i >= 0; i--) {
		struct knob *k = &j->k[i];

		if (!k->open)
			continue;
		ret = write_knob(k->path, k->orig);
		if (ret < 0) {
			fprintf(stderr, "mmbench: restore %s to '%s' failed: %s\n",
				k->path, k->orig, strerror(-ret));
			fails++;
			continue;
		}
		mm_stop_point("restore-write");
		journal_append(run_dir, "done", k->path, "");
		if (verbose)
			fprintf(stderr, "mmbench: restored %s to '%s'\n", k->path,
				k->orig);
	}
	ret = j->bad ? MM_USAGE : fails ? MM_FAIL : MM_PASS;
	free(j);
	if (lock >= 0)
		close(lock);
	return ret;
}
