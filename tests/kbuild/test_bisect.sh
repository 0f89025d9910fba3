#!/usr/bin/env bash
# test-timeout: 5400
# tools/bisect on a real history: linux-source-6.12 as a git commit, then
# 15 commits (tests/kbuild/bisect-history.sh): 14 comment lines in
# compiled files and, 10th, workloads/patches/6.12-drain-every-migrated-page.patch
# (the LRU drain for every migrated page, as before Linux 6.7). Each step
# is a kernel build (incremental, in one cached build directory), a boot in
# the VM lab and a comparison with both ends on mlock_mix's evidence
# calls_per_migrated_page:lru_add_drain (an exact count under TCG: 0.5 at
# mlock_pct=50 with the patch's parent, 1.0 from the patch on).
#
# Scenarios (MMBENCH_BISECT_TEST, default "broken-sigint" in make check,
# all four in make check-kbuild):
#   clean    names the patch's commit in at most ceil(log2 15) + 1 = 5
#            steps, every step's answer true, the tree's HEAD as before and
#            no bisect left in it; refusals exit 2 with the reason
#   broken   the history whose commit git bisect tests first (the 7th)
#            does not build (fixed in the next): still the patch's commit,
#            that commit answered skip
#   sigint   SIGINT to the bisect's process group during a step, then
#            --resume: the same answer, no step answered twice, HEAD as
#            before
#   broken-sigint  both at once, on the broken history: the signal lands
#            in the step after the unbuildable commit's skip; the resumed
#            bisect keeps that skip and names the patch's commit (what
#            clean checks, but for one more step per skip)
#   refusals only the refusals, which every run checks first (seconds)
# The history (a git repository of 1.5 GB, 1.5 to 4 minutes to make) is
# cached beside the pair tests' trees, keyed by the tarball, the history
# script and the patch; the first build starts from the objects of the
# tarball's own kbuild tree (tools/kbuild --seed-objects). make check makes
# it in its background: tests/prepare runs this test with
# MMBENCH_KBUILD_TEST=prepare, which makes the seed and the history and
# exits 0 before bisecting.
{
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
PATCH=$TOP/workloads/patches/6.12-drain-every-migrated-page.patch
METRIC=calls_per_migrated_page:lru_add_drain

kbuild_tier || {
	skip bisect "kernel builds and guests (minutes on 2 CPUs): make check or make check-kbuild, not make check-quick"
	exit 4
}
kbuild_deps bisect kbuild-test || finish
need_lab bisect
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
cache=${MMBENCH_KBUILD_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/mmbench/kbuild}
kbuild_room bisect "$cache" || finish
scen=${MMBENCH_BISECT_TEST:-}
[ -n "$scen" ] || { scen=broken-sigint; [ "$MMBENCH_KBUILD_TEST" = all ] && scen="clean broken sigint broken-sigint"; }
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
make -s -C "$TOP" bench/mmbench >/dev/null 2>&1 || { fail bisect "bench/mmbench does not build"; finish; }

# ---------------------------------------------------------------- the seed
# The tarball's kbuild tree (the pair tests build it; built here as one
# kernel when they have not, installing linux-source-6.12 if need be): its
# objects seed the history's first build.
seed_tree()
{
	local tarball

	tarball=$(dpkg -L linux-source-6.12 2>/dev/null | grep -E '^/usr/src/linux-source-[^/]*\.tar\.[a-z0-9]+$' | head -n1)
	[ -n "$tarball" ] || return 1
	tsum=$(sha256sum <"$tarball" | cut -c1-16)
	seed=$cache/trees/tar-$tsum/base
	[ -f "$seed/.mmbench-obj/vmlinux" ]
}
if ! seed_tree; then
	start=$SECONDS
	"$TOP/tools/kbuild" --tree linux-source-6.12 --single --out "$cache/tests/bisect-seed" \
		>"$t/seed.out" 2>&1 && seed_tree || { fail bisect_seed "$(tail -n 5 "$t/seed.out" | tr '\n' '|')"; finish; }
	echo "# timing: the seed kernel (tools/kbuild --single on the tarball) $((SECONDS - start))s"
fi

# ---------------------------------------------------------------- the history
# One path per tarball (tools/kbuild keeps one clone and one object
# directory per tree path: a new history at the same path reuses them);
# remade when the history script or the patch changed.
hkey=$(cat "$TOP/tests/kbuild/bisect-history.sh" "$PATCH" | sha256sum | cut -c1-16)
hist=$cache/tests/bisect-history-$tsum
if [ "$(cat "$hist.id" 2>/dev/null)" != "$hkey" ] || [ ! -d "$hist/.git" ]; then
	start=$SECONDS
	rm -rf "$hist" "$hist.tmp" "$hist.id"
	"$TOP/tests/kbuild/bisect-history.sh" "$seed" "$hist.tmp" "$PATCH" >"$t/hist.out" 2>&1 &&
		mv "$hist.tmp" "$hist" && echo "$hkey" >"$hist.id" ||
		{ fail bisect_history "$(tail -n 5 "$t/hist.out" | tr '\n' '|')"; finish; }
	echo "# timing: the test history made in $((SECONDS - start))s"
fi
git -C "$hist" rev-parse -q --verify clean >/dev/null && git -C "$hist" rev-parse -q --verify broken >/dev/null &&
	pass bisect_history || { fail bisect_history "no clean or broken branch in $hist"; finish; }
# tests/prepare (MMBENCH_KBUILD_TEST=prepare) makes the seed and the
# history in make check's background; the bisect itself waits for the test.
[ "$MMBENCH_KBUILD_TEST" = prepare ] && exit 0
# The truth: the patch's commit on each branch, and which commits are bad.
culprit_of() { git -C "$hist" log --format=%H --grep='drain the LRU for every migrated page' "good..$1"; }
is_bad() { git -C "$hist" merge-base --is-ancestor "$(culprit_of "$2")" "$1"; }

cat >"$t/suite" <<'EOF'
# One case of exp-mlock-drain: at mlock_pct=50 the drain count per migrated
# page is 0.5 with the 6.7 patch and 1.0 without it, exact under TCG.
mlock_mix -p threads=1 -p size_mb=8 -p mlock_pct=50 -p rounds=1 -i 3 -w 0
EOF
B=$TOP/tools/bisect
head_before=$(git -C "$hist" rev-parse HEAD)

# tree_as_found NAME: HEAD as before, no bisect state, no changes.
tree_as_found()
{
	if [ "$(git -C "$hist" rev-parse HEAD)" = "$head_before" ] &&
		[ ! -e "$hist/.git/BISECT_START" ] && [ ! -e "$hist/.git/BISECT_LOG" ] &&
		[ -z "$(git -C "$hist" status --porcelain --untracked-files=no)" ]; then
		pass "$1"
	else
		fail "$1" "HEAD $(git -C "$hist" rev-parse HEAD), want $head_before; $(ls "$hist/.git" | grep BISECT | paste -sd' ')"
	fi
}
# check_bisect NAME BRANCH DIR RC OUTFILE: the answer, the steps, the tree.
check_bisect()
{
	local name=$1 br=$2 d=$3 rc=$4 o=$5 want steps bad_steps sha ans most

	want=$(culprit_of "$br")
	if [ "$rc" = 0 ] && grep -q "^First bad commit: $want " "$o"; then
		pass "${name}_names_the_patch"
	else
		fail "${name}_names_the_patch" "exit $rc, want $want: $(tail -n 6 "$o" | tr '\n' '|')"
	fi
	# ceil(log2 15) + 1, and one more per skipped (unbuildable) commit.
	most=$((5 + $(cat "$d"/steps/*/answer 2>/dev/null | grep -cx skip)))
	steps=$(sort -u "$d/answered" 2>/dev/null | grep -c .)
	if [ "$steps" -ge 1 ] && [ "$steps" -le "$most" ] && [ "$steps" = "$(grep -c . "$d/answered")" ]; then
		pass "${name}_at_most_${most}_steps_none_twice"
	else
		fail "${name}_at_most_${most}_steps_none_twice" "$steps distinct steps, $(grep -c . "$d/answered" 2>/dev/null) answers"
	fi
	bad_steps=
	while read -r sha; do
		ans=$(cat "$d/steps/$sha/answer")
		case "$ans" in
		skip) [ "$br" = broken ] && git -C "$hist" log -1 --format=%s "$sha" | grep -q 'syntax error' ||
			bad_steps+=" ${sha:0:12}:skip" ;;
		bad) is_bad "$sha" "$br" || bad_steps+=" ${sha:0:12}:bad" ;;
		good) is_bad "$sha" "$br" && bad_steps+=" ${sha:0:12}:good" ;;
		*) bad_steps+=" ${sha:0:12}:$ans" ;;
		esac
	done <"$d/answered"
	[ -z "$bad_steps" ] && pass "${name}_no_false_step" || fail "${name}_no_false_step" "wrong answers:$bad_steps"
	if [ -s "$d/bisect.log" ] && [ -f "$d/report.md" ] && grep -q '^tools/vm/lab ' "$d/report.md" &&
		[ "$("$MMBENCH" field "$d/steps.csv" commit | grep -c .)" = "$steps" ]; then
		pass "${name}_report"
	else
		fail "${name}_report" "bisect.log, report.md (with the commands) and steps.csv ($steps rows) in $d"
	fi
	tree_as_found "${name}_tree_as_found"
}
run_bisect() # NAME BRANCH [ARGS]: tools/bisect good..BRANCH into $t/NAME
{
	local name=$1 br=$2 start=$SECONDS

	"$B" --tree "$hist" --good good --bad "$br" --suite "$t/suite" --metric "$METRIC" \
		--seed-objects "$seed" --out "$t/$name" "${@:3}" >"$t/$name.out" 2>"$t/$name.err"
	rc=$?
	echo "# timing: bisect $name $((SECONDS - start))s (load $(cut -d' ' -f1-3 /proc/loadavg))"
	sed -n 's/^bisect: \(step .*\|  built .*\|  VM lab .*\|  answer.*\)/# \1/p' "$t/$name.err"
}

# ---------------------------------------------------------------- refusals
refused() # NAME WANT_RE COMMAND ARGS...
{
	local name=$1 re=$2 rc

	shift 2
	"$@" >"$t/ref.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -qE -- "$re" "$t/ref.out"; then
		pass "$name"
	else
		fail "$name" "exit $rc, want 2 and /$re/: $(head -c 300 "$t/ref.out" | tr '\n' '|')"
	fi
}
A=(--suite "$t/suite" --metric "$METRIC")
refused bisect_refuses_not_git "not the top of a git work tree" "$B" --tree "$t" --good a --bad b "${A[@]}"
refused bisect_refuses_unknown_commit "--good 'nosuch': no such commit" "$B" --tree "$hist" --good nosuch --bad clean "${A[@]}"
refused bisect_refuses_not_ancestor "is not an ancestor of --bad" "$B" --tree "$hist" --good clean --bad broken "${A[@]}"
refused bisect_refuses_unknown_metric "--metric 'no_such_metric': no workload of suite" "$B" \
	--tree "$hist" --good good --bad clean --suite "$t/suite" --metric no_such_metric
refused bisect_refuses_no_decider "give --metric NAME or --any-worse" "$B" --tree "$hist" --good good --bad clean --suite "$t/suite"
echo "/* dirty */" >>"$hist/mm/util.c"
refused bisect_refuses_dirty_tree "uncommitted changes" "$B" --tree "$hist" --good good --bad clean "${A[@]}"
git -C "$hist" checkout -q -- mm/util.c
tree_as_found bisect_refusals_leave_tree
# tools/kbuild's one-kernel options, as the bisect uses them.
refused kbuild_single_takes_no_patch "--single builds the tree as given: no --patch" "$TOP/tools/kbuild" \
	--tree "$hist" --single --patch "$PATCH" --out "$t/kb"
refused kbuild_commit_unknown "--commit 'nosuch': no such commit" "$TOP/tools/kbuild" --tree "$hist" --single --commit nosuch --out "$t/kb"
refused kbuild_commit_needs_git "--commit: '$seed' is not a git work tree" "$TOP/tools/kbuild" --tree "$seed" --single --commit good --out "$t/kb"
refused kbuild_seed_not_a_tree "--seed-objects '$t': not a kbuild tree side" "$TOP/tools/kbuild" --tree "$hist" --single --seed-objects "$t" --out "$t/kb"

# broken_skipped NAME DIR: the unbuildable commit was answered skip.
broken_skipped()
{
	local brk

	brk=$(git -C "$hist" log --format=%H --grep='a syntax error' good..broken)
	if [ -n "$brk" ] && [ "$(cat "$2/steps/$brk/answer" 2>/dev/null)" = skip ]; then
		pass "$1"
	else
		fail "$1" "the broken commit ${brk:0:12}: answer '$(cat "$2/steps/$brk/answer" 2>/dev/null)', want skip"
	fi
}
# interrupted NAME BRANCH: SIGINT in the second step, then --resume.
interrupted()
{
	local name=$1 br=$2 pid

	# As a terminal's foreground job: the signal reaches the whole
	# process group, the bisect, git, the oracle, make and QEMU.
	set -m	# its own process group, and SIGINT not ignored
	"$B" --tree "$hist" --good good --bad "$br" --suite "$t/suite" --metric "$METRIC" \
		--seed-objects "$seed" --out "$t/$name" >"$t/$name.out" 2>"$t/$name.err" &
	pid=$!
	set +m
	# The signal lands during the second step (the first answered).
	step2() { [ "$(grep -c . "$t/$name/answered" 2>/dev/null)" = 1 ] && ls -d "$t/$name/steps/"*.tmp >/dev/null 2>&1; }
	if ! wait_until 3600 step2; then
		kill -INT -- -"$pid" 2>/dev/null
		wait "$pid"
		fail "bisect_$name" "the second step never started: $(tail -n 5 "$t/$name.err" | tr '\n' '|')"
		return
	fi
	kill -INT -- -"$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 130 ] && pass "bisect_${name}_exits_130" || fail "bisect_${name}_exits_130" "exit $rc: $(tail -n 3 "$t/$name.err" | tr '\n' '|')"
	tree_as_found "bisect_${name}_tree_as_found"
	cp "$t/$name/answered" "$t/$name.answered-before"
	"$B" --resume "$t/$name" >"$t/$name.resume.out" 2>"$t/$name.resume.err"
	rc=$?
	check_bisect "bisect_${name}_resumed" "$br" "$t/$name" "$rc" "$t/$name.resume.out"
	if grep -qF "answered before" "$t/$name.resume.err" || [ "$(grep -c . "$t/$name.answered-before")" -ge 1 ]; then
		pass "bisect_${name}_resume_reuses_answers"
	else
		fail "bisect_${name}_resume_reuses_answers" "$(head -n 5 "$t/$name.resume.err" | tr '\n' '|')"
	fi
}

# ---------------------------------------------------------------- scenarios
for s in $scen; do
	case "$s" in
	clean|broken)
		run_bisect "$s" "$s"
		check_bisect "bisect_$s" "$s" "$t/$s" "$rc" "$t/$s.out"
		[ "$s" = clean ] || broken_skipped bisect_broken_commit_skipped "$t/broken" ;;
	sigint) interrupted sigint clean ;;
	broken-sigint)
		interrupted broken-sigint broken
		broken_skipped bisect_broken-sigint_commit_skipped "$t/broken-sigint" ;;
	refusals) ;;	# the refusals alone (they run first in every scenario)
	*) fail bisect "MMBENCH_BISECT_TEST: unknown scenario '$s' (clean, broken, sigint, broken-sigint, refusals)" ;;
	esac
done
finish
}
