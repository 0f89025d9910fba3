#!/usr/bin/env bash
# The compaction experiment (EXPERIMENTS.md section 4) on a same-version
# pair, so the verdict cannot come from other differences of 6.1 and
# 6.12: Debian's linux-source-6.12 as the base and the same tree with
# workloads/patches/6.12-compaction-skips-large-folios.patch (compaction
# isolates no large folio outside alloc_contig, the rule before 6.9) as
# the patched side. Both boot in the VM lab and run compact_folio on
# anonymous mTHP (the lab kernels have no modules, so no xfs):
#  - every iteration on both kernels reached folios (folios_scanned > 0);
#  - the base (6.12 as released) isolated every scanned folio and moved
#    some whole in each iteration, the patched side stepped over every
#    one (untouched) in each;
#  - the pair's comparison names moved_whole_pct worse (base -> patched)
#    and significant.
# `make check` and `make check-kbuild` run it (MMBENCH_KBUILD_TEST=1 or
# all); MMBENCH_KBUILD_TEST=prepare only builds the pair (tests/prepare, in
# the background of the light tests). It shares its base tree and objects
# with test_kbuild_pair.sh (both linux-source-6.12 with the lab's default
# configuration): one cold kernel build serves both pairs, each patched
# side recompiles only what its patch touches. The trees, objects and the
# pairs stay in the kbuild cache.
# test-timeout: 5400
# One compound command: bash parses it all first, so editing the file
# cannot derail a run in progress.
{
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
K=$TOP/tools/kbuild
PATCH=$TOP/workloads/patches/6.12-compaction-skips-large-folios.patch

kbuild_pair_setup kbuild_compaction 6.12-compaction linux-source-6.12 "$PATCH"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
now() { date +%s; }

start=$(now)
"$K" --tree linux-source-6.12 --patch "$PATCH" --jobs "$(nproc)" --out "$kout" >"$t/build.out" 2>&1
rc=$?
echo "# timing: kbuild $(($(now) - start))s"
if [ $rc -ne 0 ]; then
	fail kbuild_compaction_builds "tools/kbuild exited $rc: $(tail -n 8 "$t/build.out" | tr '\n' '|')"
	finish
fi
pass kbuild_compaction_builds
psha=$(sha256sum <"$PATCH" | cut -d' ' -f1)
[ "$(meta_get "$kout/patched/manifest.csv" kbuild_patches)" = "6.12-compaction-skips-large-folios.patch:$psha" ] &&
	[[ $(meta_get "$kout/base/manifest.csv" kbuild_kernel_version) == 6.12.* ]] &&
	pass kbuild_compaction_manifest ||
	fail kbuild_compaction_manifest "$(tr '\n' '|' <"$kout/patched/manifest.csv")"
grep -q '^CONFIG_TRANSPARENT_HUGEPAGE=y' "$kout/base/config" &&
	grep -q '^CONFIG_PROC_PAGE_MONITOR=y' "$kout/base/config" &&
	pass "kbuild_compaction: THP (mTHP sizes) and kpageflags built in" ||
	fail kbuild_compaction_config "no THP or no PROC_PAGE_MONITOR in $kout/base/config"

if ! [ -x "$TOP/tools/kbuild-pair" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	skip kbuild_compaction_in_vm "no tools/kbuild-pair or qemu-system-x86_64"
	finish
fi
cat >"$t/suite" <<'EOF'
compact_folio -p source=anon -p size_mb=16 -i 4 -w 1
EOF
kbuild_pair_run linux-source-6.12 "$PATCH" "$t/suite"
if [ -f "$bdir/results.csv" ] && [ -f "$pdir/results.csv" ] && [ -f "$report" ]; then
	pass "kbuild_compaction: both kernels ran, report written (exit $rc)"
else
	fail kbuild_compaction_runs "exit $rc: $(tail -n 12 "$t/pair.out" | tr '\n' '|')"
	finish
fi
for d in "$bdir" "$pdir"; do
	sc=$(metric_vals "$d/results.csv" folios_scanned)
	check "kbuild_compaction: $(meta_get "$d/meta.csv" kbuild_side): 4 iterations, each reached folios ($(echo $sc))" \
		eval '[ "$(grep -c . <<<"$sc")" = 4 ] && awk "\$1 <= 0 { exit 1 }" <<<"$sc"'
done
# What the series changed, per iteration and exactly: 6.12 isolates every
# scanned folio (none left untouched) and moves some whole; the pre-6.9
# rule steps over every one (all untouched, none moved). How many of the
# isolated ones 6.12 moves whole depends on the free pages of their order
# that the free scanner finds (migrate_pages splits a folio it cannot
# allocate a destination of its order for: folios_split = mthp_split);
# measured here 27-100% per iteration, 39% in all four of one boot, so no
# bound on the share is the kernel's property.
# per_iter DIR METRIC...: "iteration v1 v2 ..." lines, one per iteration.
per_iter() {
	local d=$1 m
	shift
	for m in "$@"; do
		"$MMBENCH" field --where metric="$m" "$d/results.csv" iteration value 2>/dev/null |
			sort -n | cut -f2 >"$t/col.$m"
	done
	(cd "$t" && paste -d' ' $(printf 'col.%s ' "$@"))
}
rows=$(per_iter "$bdir" folios_scanned folios_untouched folios_moved_whole moved_whole_pct)
check "kbuild_compaction: 6.12 isolated every scanned folio and moved some whole, in each of 4 iterations (scanned untouched moved pct: $(paste -sd'|' <<<"$rows"))" \
	eval 'awk "\$1 > 0 && \$2 == 0 && \$3 >= 1 { n++ } END { exit n != 4 }" <<<"$rows"'
rows=$(per_iter "$pdir" folios_scanned folios_untouched folios_moved_whole moved_whole_pct)
check "kbuild_compaction: 6.12 with the pre-6.9 rule stepped over every scanned folio, in each of 4 iterations (scanned untouched moved pct: $(paste -sd'|' <<<"$rows"))" \
	eval 'awk "\$1 > 0 && \$2 == \$1 && \$3 == 0 && \$4 == 0 { n++ } END { exit n != 4 }" <<<"$rows"'
row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["metric"] == "moved_whole_pct" && $c["side"] != "base" && $c["side"] != 0 {
		print $c["significant"], $c["verdict"]; exit }' "$(dirname "$report")/compare.csv")
read -r sig verdict <<<"$row"
check "kbuild_compaction: the comparison names moved_whole_pct worse (the patch undoes the series), significant ($row)" \
	eval '[ "$sig" = 1 ] && [ "$verdict" = worse ]'
finish
}
