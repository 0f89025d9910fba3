#!/usr/bin/env bash
# bisect-history.sh SRC DEST PATCH: the git history tests/kbuild/test_bisect.sh
# bisects, made from the kernel source directory SRC (the unpacked
# linux-source-6.12 tarball) in DEST (created; must not exist).
#
#   tag good       the tree as unpacked (one commit)
#   branch clean   good + 15 commits: each appends one comment line to one
#                  compiled file (a one-file rebuild), except the 10th,
#                  which applies PATCH (the LRU drain for every migrated page)
#   branch broken  the same, except that the commit git bisect tests first
#                  (git rev-list --bisect: the 7th of 15 in a line) also
#                  leaves a syntax error in mm/util.c and the next one
#                  removes it (from there on, each tree equals the clean
#                  branch's tree)
#
# Author, committer and dates are fixed, so the same SRC and PATCH give the
# same commit ids on every machine and run. (git add -f: the Debian
# tarball's .gitignore ignores everything at the top level.)
# Exit 0 done, 1 failed.
{
set -u
export LC_ALL=C
src=$1 dest=$2 patch=$(realpath -- "$3")
export GIT_AUTHOR_NAME="mmbench test" GIT_AUTHOR_EMAIL=test@mmbench.invalid
export GIT_COMMITTER_NAME="mmbench test" GIT_COMMITTER_EMAIL=test@mmbench.invalid
n=0
commit()
{
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-01-01T00:00:$(printf '%02d' "$n")Z"
	export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	git -C "$dest" add -A -f && git -C "$dest" commit -q -m "$1" || exit 1
}
# The harmless files: each compiled into the lab kernel (tinyconfig plus
# tools/kbuild.config), none of them the patch's mm/migrate.c.
files=(mm/mlock.c mm/swap.c mm/vmscan.c mm/page_alloc.c mm/memory.c mm/mmap.c
	mm/rmap.c mm/filemap.c mm/compaction.c mm/mempolicy.c kernel/fork.c
	kernel/exit.c fs/exec.c lib/string.c)
harmless()
{
	echo "/* mmbench bisect test history: step $1 */" >>"$dest/$2"
	commit "$2: a comment (step $1 of the test history)"
}
drain()
{
	git -C "$dest" apply "$patch" || exit 1
	commit "mm: migrate: drain the LRU for every migrated page (step $1, $(basename "$patch"))"
}

[ ! -e "$dest" ] || { echo "$dest exists" >&2; exit 1; }
mkdir -p "$dest" || exit 1
rsync -a --exclude='/.mmbench-*' --exclude=/.git "$src/" "$dest/" || exit 1
git -C "$dest" init -q -b clean || exit 1
# Loose objects uncompressed: git add of 1.5 GB is minutes less.
git -C "$dest" config core.looseCompression 0
git -C "$dest" config gc.auto 0
commit "linux-source-6.12 as unpacked (the good end of the test history)"
git -C "$dest" tag good
for i in $(seq 1 15); do
	if [ "$i" = 10 ]; then
		drain "$i"
	else
		harmless "$i" "${files[$((i > 10 ? i - 2 : i - 1))]}"
	fi
done
# The broken branch: the same steps, with the first one a bisect tests
# not building.
broken=$(git -C "$dest" rev-list --count "good..$(git -C "$dest" rev-list --bisect clean ^good)")
[ "$broken" -lt 10 ] || { echo "git bisect would test step $broken first, not one before the patch" >&2; exit 1; }
git -C "$dest" checkout -q -b broken good || exit 1
n=1
for i in $(seq 1 15); do
	if [ "$i" = "$broken" ]; then
		echo "/* mmbench bisect test history: step $i */" >>"$dest/${files[$((i - 1))]}"
		echo "int mmbench_bisect_broken = ; /* step $i: does not build */" >>"$dest/mm/util.c"
		commit "${files[$((i - 1))]}: a comment, and a syntax error in mm/util.c (step $i)"
	elif [ "$i" = $((broken + 1)) ]; then
		sed -i '/mmbench_bisect_broken/d' "$dest/mm/util.c"
		harmless "$i" "${files[$((i - 1))]}"
	elif [ "$i" = 10 ]; then
		drain "$i"
	else
		harmless "$i" "${files[$((i > 10 ? i - 2 : i - 1))]}"
	fi
done
git -C "$dest" checkout -q clean || exit 1
exit 0
}
