#!/usr/bin/env bash
# A real kernel pair, end to end: Debian's linux-source-6.12 as the base and
# the same tree with tests/kbuild/swapops-no-ad.patch (migration entries
# never keep the young/dirty bits: the series of EXPERIMENTS.md section 2
# switched off) as the patched side. Checks the images and manifests, that
# a second build reuses the pair, then boots both in the VM lab and
# asserts migrate_ad's referenced_after_migrate_pct: >= 95 on the base
# (with the series), <= 5 on the patched side (without), and that
# mmcompare, with three iterations per side and no spread, marks that
# metric as significantly changed.
#
# The first run compiles a kernel and a rebuild after the one-line header
# change (both are slow: minutes on 2 CPUs); the tree, the objects and the
# pair stay under ${XDG_CACHE_HOME:-~/.cache}/mmbench/kbuild, so a later
# run rebuilds nothing.
# One compound command: bash parses it all first, so editing the file
# cannot derail a run in progress.
{
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
K=$TOP/tools/kbuild
PATCH=$TOP/tests/kbuild/swapops-no-ad.patch

# Minutes of compiling on a fresh machine: `make check` and `make
# check-kbuild` run it (MMBENCH_KBUILD_TEST=1); `make check-quick` leaves
# it out (a skip). MMBENCH_KBUILD_TEST=prepare only builds the pair and
# exits with tools/kbuild's status (tests/prepare, in the background of
# `make check`'s light tests; the test then finds the pair up to date).
kbuild_pair_setup kbuild_pair 6.12-ad linux-source-6.12 "$PATCH"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
now() { date +%s; }
mget() { meta_get "$1" "$2"; }

# ---------------------------------------------------------------- build
start=$(now)
"$K" --tree linux-source-6.12 --patch "$PATCH" --jobs "$(nproc)" --out "$kout" >"$t/build.out" 2>&1
rc=$?
build_s=$(($(now) - start))
sed -n 's/^kbuild: \(.*\(done in\|build,\|up to date\).*\)/# \1/p' "$t/build.out"
echo "# timing: kbuild ${build_s}s"
if [ $rc -ne 0 ]; then
	fail kbuild_pair_builds "tools/kbuild exited $rc: $(tail -n 8 "$t/build.out" | tr '\n' '|')"
	finish
fi
pass kbuild_pair_builds

# The release string in the bzImage's setup header (boot protocol: "HdrS"
# at 0x202, the version string's offset - 0x200 at 0x20e).
bz_release()
{
	local off

	[ "$(dd if="$1" bs=1 skip=514 count=4 status=none)" = HdrS ] || return 1
	off=$(od -An -tu2 -j 526 -N2 "$1" | tr -d ' ')
	dd if="$1" bs=1 skip=$((off + 512)) count=100 status=none | tr '\0' '\n' | head -n1 | cut -d' ' -f1
}
for side in base patched; do
	rel=$(bz_release "$kout/$side/bzImage")
	case "$rel" in
	6.12.*-mmb-$side) pass "kbuild_${side}_is_a_6.12_bzimage" ;;
	*) fail "kbuild_${side}_is_a_6.12_bzimage" "release '$rel' in $kout/$side/bzImage" ;;
	esac
	m=$kout/$side/manifest.csv
	if [ "$(mget "$m" kbuild_image_sha256)" = "$(sha256sum <"$kout/$side/bzImage" | cut -d' ' -f1)" ] &&
		[ "$(mget "$m" kbuild_config_sha256)" = "$(sha256sum <"$kout/$side/config" | cut -d' ' -f1)" ] &&
		[ "$(mget "$m" kbuild_compiler)" = "$(gcc --version | head -n1)" ] &&
		[[ $(mget "$m" kbuild_build_s) =~ ^[0-9]+(\.[0-9]+)?$ ]] &&
		[ "$(mget "$m" kbuild_tree_kind)" = tarball ] &&
		[[ $(mget "$m" kbuild_tree_package) == "linux-source-6.12 "* ]] &&
		[[ $(mget "$m" kbuild_kernel_version) == 6.12.* ]]; then
		pass "kbuild_${side}_manifest"
	else
		fail "kbuild_${side}_manifest" "$(tr '\n' '|' <"$m")"
	fi
	if grep -qE '=m$' "$kout/$side/config"; then
		fail "kbuild_${side}_no_modules" "modules in $kout/$side/config"
	else
		pass "kbuild_${side}_no_modules"
	fi
done
psha=$(sha256sum <"$PATCH" | cut -d' ' -f1)
if [ "$(mget "$kout/patched/manifest.csv" kbuild_patches)" = "swapops-no-ad.patch:$psha" ] &&
	[ "$(mget "$kout/base/manifest.csv" kbuild_patches)" = none ] &&
	[ "$(mget "$kout/patched/manifest.csv" kbuild_patch_method)" = patch-p1 ]; then
	pass kbuild_manifest_patches
else
	fail kbuild_manifest_patches "patched: $(mget "$kout/patched/manifest.csv" kbuild_patches), base: $(mget "$kout/base/manifest.csv" kbuild_patches)"
fi
# The patch touches no Kconfig: both kernels have the same configuration.
if cmp -s "$kout/base/config" "$kout/patched/config"; then
	pass kbuild_same_config_both_sides
else
	fail kbuild_same_config_both_sides "configs differ"
fi
if ! cmp -s "$kout/base/bzImage" "$kout/patched/bzImage"; then
	pass kbuild_images_differ
else
	fail kbuild_images_differ "base and patched bzImage are identical"
fi

# ---------------------------------------------------------------- reuse
start=$(now)
"$K" --tree linux-source-6.12 --patch "$PATCH" --out "$kout" >"$t/again.out" 2>&1
rc=$?
again_s=$(($(now) - start))
echo "# timing: kbuild again ${again_s}s"
# Reuse is what tools/kbuild says and what it did not do (no make), not
# how long it took: the time depends on the machine's load.
if [ $rc -eq 0 ] && grep -q 'up to date' "$t/again.out" && ! grep -q 'make -j' "$t/again.out"; then
	pass kbuild_second_run_reuses
else
	fail kbuild_second_run_reuses "exit $rc after ${again_s}s: $(tail -n 3 "$t/again.out" | tr '\n' '|')"
fi

# ---------------------------------------------------------------- in the VM lab
why=""
if [ ! -x "$TOP/tools/vm/lab" ]; then
	why="the VM lab (tools/vm/lab, issue 3) has not landed"
elif [ ! -x "$TOP/tools/compare-report" ]; then
	why="tools/compare-report (issue 6) has not landed"
elif ! make -s -C "$TOP" bench/mmbench >/dev/null 2>&1; then
	why="bench/mmbench does not build"
elif ! "$MMBENCH" list 2>/dev/null | grep -q '^ *migrate_ad'; then
	why="the migrate_ad workload (issue 4) has not landed"
fi
if [ -n "$why" ]; then
	skip kbuild_pair_in_vm "$why"
	finish
fi
cat >"$t/suite" <<'EOF'
# Two iterations per boot; the Referenced share does not depend on size.
migrate_ad -p size_mb=64 -i 2 -w 0
EOF
# Two boots of each kernel (--runs 2, interleaved), pooled per side.
kbuild_pair_run linux-source-6.12 "$PATCH" "$t/suite" --runs 2
if [ $rc -eq 0 ] && [ ${#bdirs[@]} = 2 ] && [ ${#pdirs[@]} = 2 ] &&
	[ -f "${bdirs[1]}/results.csv" ] && [ -f "${pdirs[1]}/results.csv" ] && [ -f "$report" ]; then
	pass "kbuild_pair_runs_and_reports: --runs 2 gave 2 run directories per side"
else
	fail kbuild_pair_runs_and_reports "exit $rc: $(tail -n 12 "$t/pair.out" | tr '\n' '|')"
	finish
fi
# All values of the metric on a side (its two runs) must pass the bound,
# and there are 4.
bound() { # NAME "DIR DIR" OP LIMIT
	local vals n bad d

	vals=$(for d in $2; do metric_vals "$d/results.csv" referenced_after_migrate_pct; done)
	n=$(grep -c . <<<"$vals")
	bad=$(awk -v op="$3" -v lim="$4" '(op == "ge" && $1 < lim) || (op == "le" && $1 > lim)' <<<"$vals")
	if [ "$n" = 4 ] && [ -z "$bad" ]; then
		pass "$1"
	else
		fail "$1" "$n values, want 4 all $3 $4: $(echo $vals)"
	fi
}
bound referenced_after_migrate_with_series_ge_95 "${bdirs[*]}" ge 95
bound referenced_after_migrate_without_series_le_5 "${pdirs[*]}" le 5
for d in "${bdirs[@]}" "${pdirs[@]}"; do
	side=base
	[[ " ${pdirs[*]} " == *" $d "* ]] && side=patched
	if [ "$(meta_get "$d/meta.csv" kbuild_side)" = $side ] &&
		[ "$(meta_get "$d/meta.csv" kbuild_request)" = "$(mget "$kout/manifest.csv" kbuild_request)" ]; then
		pass "meta_${side}_has_kbuild_manifest"
	else
		fail "meta_${side}_has_kbuild_manifest" "no kbuild_side=$side in $d/meta.csv"
	fi
done
# compare.csv: the patched side's row of the metric's mean, pooled over
# its two runs (4 iterations).
row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["metric"] == "referenced_after_migrate_pct" && $c["side"] != "base" && $c["side"] != 0 {
		print $c["n"], $c["runs"], $c["p_value"], $c["significant"], $c["verdict"], $c["decided_by"]; exit }' \
	"$(dirname "$report")/compare.csv")
read -r n runs p sig verdict _ <<<"$row"
if [ "$sig" = 1 ] && [ "$n" = 4 ] && [ "$runs" = 2 ] && [ "$verdict" = worse ] && [[ $p =~ ^[0-9.e+-]+$ ]]; then
	pass "mmcompare_marks_significant ($row)"
else
	fail mmcompare_marks_significant "compare.csv row (n runs p significant verdict decided_by): '${row}' (want n=4, runs=2, a numeric p, significant=1, worse)"
fi
finish
}
