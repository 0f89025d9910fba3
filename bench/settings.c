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
 */
#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

#define JOURNAL "settings.journal"
#define MAX_KNOBS 128

struct knob {
	char path[512];
	char orig[256];
	bool open;	/* saved and not yet restored */
};

struct journal {
	struct knob k[MAX_KNOBS];
	int n;
	/* parser state */
	char field[3][512];
	int nf;
	int bad;
};

static char journal_dir[4096];

int mm_settings_init(const char *run_dir)
{
	snprintf(journal_dir, sizeof(journal_dir), "%s", run_dir);
	return 0;
}

static void jr_field(void *s, size_t len, void *data)
{
	struct journal *j = data;

	if (j->nf < 3)
		snprintf(j->field[j->nf], sizeof(j->field[0]), "%.*s", (int)len,
			 (const char *)s);
	j->nf++;
}

static struct knob *find_knob(struct journal *j, const char *path)
{
	for (int i = 0; i < j->n; i++)
		if (strcmp(j->k[i].path, path) == 0)
			return &j->k[i];
	return NULL;
}

static void jr_row(int c, void *data)
{
	struct journal *j = data;
	struct knob *k;

	(void)c;
	if (j->nf < 2) {
		j->bad++;
		goto out;
	}
	k = find_knob(j, j->field[1]);
	if (strcmp(j->field[0], "save") == 0 && j->nf >= 3) {
		if (!k && j->n < MAX_KNOBS) {
			k = &j->k[j->n++];
			snprintf(k->path, sizeof(k->path), "%s", j->field[1]);
		}
		/* The first save after a restore holds the original. */
		if (k && !k->open) {
			snprintf(k->orig, sizeof(k->orig), "%s", j->field[2]);
			k->open = true;
		}
	} else if (strcmp(j->field[0], "done") == 0) {
		if (k)
			k->open = false;
	} else {
		j->bad++;
	}
out:
	j->nf = 0;
}

/* Read the journal; a torn last line (a kill mid-write) is ignored. */
static int journal_read(const char *dir, struct journal *j)
{
	char path[4200], buf[4096];
	struct csv_parser p;
	size_t n;
	FILE *f;

	memset(j, 0, sizeof(*j));
	snprintf(path, sizeof(path), "%s/" JOURNAL, dir);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (csv_init(&p, CSV_APPEND_NULL) != 0) {
		fclose(f);
		return -ENOMEM;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		csv_parse(&p, buf, n, jr_field, jr_row, j);
	fclose(f);
	csv_free(&p);	/* an unterminated last record is dropped */
	return 0;
}

static int journal_append(const char *dir, const char *op, const char *path,
			  const char *val)
{
	const char *f[3] = { op, path, val };
	char jpath[4200], line[2048];
	int fd, n, ret = 0;

	n = mm_csv_line(line, sizeof(line), f, 3);
	if (n < 0)
		return n;
	snprintf(jpath, sizeof(jpath), "%s/" JOURNAL, dir);
	fd = open(jpath, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* After a kill mid-write, end the torn record before adding ours. */
	if (lseek(fd, -1, SEEK_END) >= 0) {
		char last = '\n';

		if (read(fd, &last, 1) == 1 && last != '\n' && write(fd, "\n", 1) != 1)
			ret = -EIO;
	}
	if (write(fd, line, (size_t)n) != n || fsync(fd) < 0)
		ret = -EIO;
	close(fd);
	return ret;
}

static int write_knob(const char *path, const char *value)
{
	/* O_TRUNC: sysfs ignores it; a plain file must not keep old bytes. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0;
	size_t len = strlen(value);

	if (fd < 0)
		return -errno;
	if (write(fd, value, len) != (ssize_t)len)
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
	char orig[256];
	int ret;

	if (!journal_dir[0])
		return -EINVAL;	/* only inside a run */
	ret = mm_setting_get(path, orig, sizeof(orig));
	if (ret < 0)
		return ret;
	j = malloc(sizeof(*j));
	if (!j)
		return -ENOMEM;
	ret = journal_read(journal_dir, j);
	if (ret == 0) {
		struct knob *k = find_knob(j, path);

		/* Already changed in this run: the journal has the original. */
		if (!k || !k->open)
			ret = journal_append(journal_dir, "save", path, orig);
	}
	free(j);
	if (ret < 0)
		return ret;
	return write_knob(path, value);
}

int mm_settings_restore(const char *run_dir, bool verbose)
{
	struct journal *j = malloc(sizeof(*j));
	int fails = 0, ret;

	if (!j)
		return 1;
	ret = journal_read(run_dir, j);
	if (ret < 0) {
		fprintf(stderr, "mmbench: cannot read %s/%s: %s\n", run_dir,
			JOURNAL, strerror(-ret));
		free(j);
		return 1;
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
		journal_append(run_dir, "done", k->path, "");
		if (verbose)
			fprintf(stderr, "mmbench: restored %s to '%s'\n", k->path,
				k->orig);
	}
	free(j);
	return fails;
}
