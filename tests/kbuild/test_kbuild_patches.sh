#!/usr/bin/env bash
# tools/kbuild without compiling: input checks (exit 2 naming the input),
# series application (mbox split, cover letters skipped, git am on a git
# work tree, patch -p1 on a plain tree or a tarball, --reverse), a patch
# that does not apply (exit 1, the hunk shown, nothing left looking good)
# and the resync of the cached patched tree when the series changes.
# The trees are small stand-ins with the files tools/kbuild looks for; the
# real kernel tree is exercised by test_kbuild_config.sh and
# test_kbuild_pair.sh.
{
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
K=$TOP/tools/kbuild

kbuild_deps kbuild_patches kbuild || finish
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
export MMBENCH_KBUILD_CACHE=$t/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
cd "$t" || exit 1

# A stand-in tree: "make kernelversion" works, the kconfig script exists.
mkdir -p tree/scripts/kconfig tree/mm tree/include/linux
printf 'kernelversion:\n\t@echo 9.9.9-test\n' >tree/Makefile
echo 'mainmenu "test"' >tree/Kconfig
printf '#!/bin/sh\nexit 1\n' >tree/scripts/kconfig/merge_config.sh
chmod +x tree/scripts/kconfig/merge_config.sh
printf 'int a(void)\n{\n\treturn 1;\n}\n' >tree/mm/a.c
printf 'static inline int b(void)\n{\n\treturn 2;\n}\n' >tree/include/linux/b.h
touch -d '2020-01-01 00:00' tree/mm/a.c tree/include/linux/b.h
# The same tree under git, with a two-patch series on top.
cp -a tree repo
(cd repo && git init -q && git add -A && git commit -qm base &&
	sed -i 's/return 1/return 10/' mm/a.c && git commit -qam "mm: a returns 10" &&
	sed -i 's/return 2/return 20/' include/linux/b.h && git commit -qam "b: returns 20" &&
	git format-patch -q --cover-letter -o ../series HEAD~2 &&
	git format-patch -q --stdout HEAD~2 >../series.mbox &&
	git format-patch -q --stdout HEAD~1 >../only-b.mbox &&
	git diff HEAD~2 HEAD~1 >../a.diff) || { fail setup "cannot make the test series"; finish; }
cat series/*.patch >cover.mbox
git clone -q repo repo-old && git -C repo-old checkout -q HEAD~2
P=  # the patched tree of the last run, from its "patched tree:" line
run() { out=$("$K" "$@" 2>&1); rc=$?; P=$(sed -n 's/^patched tree: //p' <<<"$out"); }
expect_rc() { # NAME WANT: the last run's exit status
	if [ "$rc" = "$2" ]; then pass "$1"; else fail "$1" "exit $rc, want $2; output: $(tail -n 3 <<<"$out" | tr '\n' '|')"; fi
}
has() { # NAME REGEX: the last run's output matches
	if grep -qE -- "$2" <<<"$out"; then pass "$1"; else fail "$1" "no /$2/ in: $(tail -n 5 <<<"$out" | tr '\n' '|')"; fi
}

# ---------------------------------------------------------------- usage
run --patch series.mbox --out o; expect_rc usage_no_tree 2; has usage_no_tree_msg 'no tree'
run --tree tree --out o; expect_rc usage_no_patch 2
run --tree tree --patch nonexistent.patch --out o; expect_rc usage_missing_patch 2
has usage_missing_patch_named 'nonexistent.patch'
echo "just words" >words.txt
run --tree tree --patch words.txt --out o; expect_rc usage_not_a_patch 2; has usage_not_a_patch_named "words.txt.*no diff"
run --tree nowhere --patch series.mbox --out o; expect_rc usage_missing_tree 2; has usage_missing_tree_named "'nowhere'"
mkdir notkernel
run --tree notkernel --patch series.mbox --out o; expect_rc usage_not_kernel_tree 2; has usage_not_kernel_tree_named 'not a kernel source tree'
run --tree tree --patch series.mbox --jobs 0 --out o; expect_rc usage_bad_jobs 2; has usage_bad_jobs_named "--jobs '0'"
printf 'CONFIG_A=y\nthis is not kconfig\n' >bad.config
run --tree tree --patch series.mbox --config-fragment bad.config --out o
expect_rc usage_bad_fragment 2; has usage_bad_fragment_line 'bad.config:2'
cp -a tree dirty && touch dirty/.config
run --tree dirty --patch series.mbox --out o; expect_rc usage_unclean_tree 2; has usage_unclean_tree_msg 'mrproper'
cp -a repo-old repo-dirty && echo "// local" >>repo-dirty/mm/a.c
run --tree repo-dirty --patch series.mbox --out o; expect_rc usage_dirty_git 2; has usage_dirty_git_msg 'uncommitted changes'

# ---------------------------------------------------------------- patch -p1
run --tree tree --patch cover.mbox --patch-only
expect_rc p1_series_applies 0
has p1_cover_skipped "skipping .*0/2.*cover letter"
has p1_method 'patch-p1'
if [ -n "$P" ] && grep -q 'return 10' "$P/mm/a.c" && grep -q 'return 20' "$P/include/linux/b.h"; then
	pass p1_content
else
	fail p1_content "patched tree '$P' lacks the series"
fi
check p1_base_untouched grep -q 'return 1;' tree/mm/a.c
run --tree tree --patch cover.mbox --patch-only
expect_rc p1_again 0; has p1_again_reused 'patched tree up to date'
# A shorter series: a.c goes back to the base content, with a new mtime,
# so objects built from the patched a.c would be rebuilt.
# The old mtime is set to the past rather than waited out (a test that
# sleeps past a second boundary depends on the clock).
touch -d '2021-01-01 00:00' "$P/mm/a.c"
old_mtime=$(stat -c %Y "$P/mm/a.c")
run --tree tree --patch only-b.mbox --patch-only
expect_rc p1_resync 0
if grep -q 'return 1;' "$P/mm/a.c" && grep -q 'return 20' "$P/include/linux/b.h" &&
	[ "$(stat -c %Y "$P/mm/a.c")" -gt "$old_mtime" ]; then
	pass p1_resync_restores_with_new_mtime
else
	fail p1_resync_restores_with_new_mtime "a.c: $(grep return "$P/mm/a.c"), mtime $(stat -c %Y "$P/mm/a.c") vs $old_mtime"
fi
# A plain diff and --reverse on a tree that carries the change.
cp -a tree carrying && sed -i 's/return 1/return 10/' carrying/mm/a.c
run --tree carrying --patch a.diff --reverse --patch-only
expect_rc p1_reverse 0
if [ -n "$P" ] && grep -q 'return 1;' "$P/mm/a.c"; then pass p1_reverse_content; else fail p1_reverse_content "a.c not reverted in '$P'"; fi

# A gzip'd mailbox (as lore serves a thread) is read as the mailbox.
gzip -c cover.mbox >cover.mbox.gz
run --tree tree --patch cover.mbox.gz --patch-only
expect_rc gzip_mbox_applies 0
has gzip_mbox_cover_skipped "skipping .*0/2.*cover letter"

# ---------------------------------------------------------------- git am
run --tree repo-old --patch cover.mbox --patch-only
expect_rc git_series_applies 0
has git_method 'git-am'
subjects=$(git -C "$P" log --format=%s -2 2>/dev/null | paste -sd'|')
if [ "$subjects" = "b: returns 20|mm: a returns 10" ]; then pass git_am_commits; else fail git_am_commits "log: '$subjects'"; fi
run --tree repo --patch series.mbox --reverse --patch-only
expect_rc git_reverse 0
if [ -n "$P" ] && grep -q 'return 1;' "$P/mm/a.c" && grep -q 'return 2;' "$P/include/linux/b.h"; then
	pass git_reverse_content
else
	fail git_reverse_content "series not reverted in '$P'"
fi

# ---------------------------------------------------------------- tarball, .deb
tar -czf linux-9.9.tar.gz --transform 's,^tree,linux-9.9,' tree
run --tree linux-9.9.tar.gz --patch series.mbox --patch-only
expect_rc tarball_tree 0
if [ -n "$P" ] && grep -q 'return 10' "$P/mm/a.c"; then pass tarball_content; else fail tarball_content "no patched a.c in '$P'"; fi
mkdir -p deb/DEBIAN deb/usr/src
printf 'Package: linux-source-9.9\nVersion: 9.9.9-1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: test\n' >deb/DEBIAN/control
tar -cJf deb/usr/src/linux-source-9.9.tar.xz --transform 's,^tree,linux-source-9.9,' tree
if dpkg-deb -b deb linux-source-9.9.deb >/dev/null 2>&1; then
	run --tree linux-source-9.9.deb --patch series.mbox --patch-only
	expect_rc deb_tree 0
	if [ -n "$P" ] && grep -q 'return 20' "$P/include/linux/b.h"; then pass deb_content; else fail deb_content "no patched b.h in '$P'"; fi
else
	fail deb_tree "dpkg-deb -b failed"
fi

# ---------------------------------------------------------------- failures
# The series is already in repo: git am stops at its first patch.
run --tree repo --patch series.mbox --patch-only
expect_rc git_fail_exit1 1
has git_fail_names_patch "patch 1/2 .*mm: a returns 10.*does not apply"
has git_fail_shows_hunk '^  \| [-]	return 1;'
run --tree carrying --patch a.diff --patch-only
expect_rc p1_fail_exit1 1
has p1_fail_shows_hunk '^  \| [+]	return 10;'
# A build into an output directory that held a good pair: after the
# failure it says so, and neither manifest nor image is left behind.
mkdir -p o/base o/patched
echo ok >o/status
echo "key,value" >o/manifest.csv
echo fake >o/base/bzImage
run --tree carrying --patch a.diff --out o
expect_rc out_fail_exit1 1
if grep -q '^failed: .*does not apply' o/status && [ ! -e o/manifest.csv ] &&
	[ ! -e o/base/bzImage ] && [ ! -e o/patched/bzImage ]; then
	pass out_fail_nothing_good_left
else
	fail out_fail_nothing_good_left "status '$(cat o/status 2>/dev/null)'; left: $(cd o && find . -type f | tr '\n' ' ')"
fi
finish
}
