# shellcheck shell=bash
# Shared by tests/kbuild/test_*: their packages and the room their trees
# need. Sourced after tests/lib.sh.

# Whether the kernel tier was asked for: MMBENCH_KBUILD_TEST 1 (make
# check), all (make check-kbuild) or prepare (tests/prepare builds a pair).
kbuild_tier() {
	case "${MMBENCH_KBUILD_TEST:-0}" in 1|all|prepare) return 0 ;; esac
	return 1
}

# kbuild_deps NAME GROUP: tools/deps.sh GROUP (kbuild or kbuild-test).
# 0 when the packages are there. Else 1, after a FAIL naming deps.sh's
# message when the kernel tier was asked for (a machine that should run
# it could not install what it needs: CI must not pass by skipping), a
# SKIP with it outside the tier (make check-quick, a test run by hand),
# and in prepare mode the message and exit 1 (tests/prepare counts no
# lines, only the exit status).
kbuild_deps() {
	local out
	out=$("$TOP/tools/deps.sh" "$2" 2>&1) && return 0
	out="tools/deps.sh $2 could not install the kernel build packages: $(tail -n 4 <<<"$out" | paste -sd'|')"
	case "${MMBENCH_KBUILD_TEST:-0}" in
	prepare) echo "$1: $out" >&2; exit 1 ;;
	1|all) fail "$1" "$out" ;;
	*) skip "$1" "$out (outside the kernel tier; a FAIL in make check)" ;;
	esac
	return 1
}

# kbuild_room NAME DIR: a cold build of one pair's trees (the base and the
# patched tree with their objects: 3.2 GiB for 6.1 and 3.6 GiB for 6.12
# measured) needs about 4 GiB free where the cache DIR lies. 0 when there
# is room, or DONE (a built pair, given as a third argument, that exists)
# needs none; else a SKIP naming the free space (the machine cannot run
# it) and 1.
KBUILD_NEED_MB=${KBUILD_NEED_MB:-4096}
kbuild_room() {
	local d=$2 free
	[ -n "${3:-}" ] && [ -e "$3" ] && return 0
	until [ -d "$d" ]; do d=$(dirname -- "$d"); done
	free=$(df -Pm -- "$d" | awk 'NR == 2 { print $4 }')
	[[ $free =~ ^[0-9]+$ ]] && [ "$free" -lt "$KBUILD_NEED_MB" ] || return 0
	skip "$1" "only $free MiB free on the file system of $d; a cold kernel pair needs about $KBUILD_NEED_MB MiB"
	return 1
}

# kbuild_pair_setup NAME KEY TREE PATCH: what each pair test does first.
# Outside the kernel tier a SKIP and exit 4; then the packages
# (kbuild_deps) and the room (kbuild_room), finishing the test when either
# is missing; sets kout to the pair's directory in the cache, one per KEY
# and version of tools/kbuild (test runs of other checkouts share the
# cache and must not rebuild a pair under a running guest), removing that
# KEY's pairs of older versions after two days. In prepare mode it builds
# the pair and exits with tools/kbuild's status (tests/prepare).
kbuild_pair_setup() {
	local name=$1 key=$2 tree=$3 patch=$4 home cache

	kbuild_tier || {
		skip "$name" "a kernel pair build (minutes on 2 CPUs): make check or make check-kbuild, not make check-quick"
		exit 4
	}
	kbuild_deps "$name" kbuild-test || finish
	home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
	cache=${MMBENCH_KBUILD_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/mmbench/kbuild}
	kout=$cache/tests/pair-$key-$(sha256sum <"$TOP/tools/kbuild" | cut -c1-12)
	find "$cache/tests" -maxdepth 1 -name "pair-$key-*" ! -path "$kout" -mtime +2 \
		-exec rm -rf {} + 2>/dev/null
	kbuild_room "$name" "$cache" "$kout/patched/bzImage" || finish
	if [ "$MMBENCH_KBUILD_TEST" = prepare ]; then
		"$TOP/tools/kbuild" --tree "$tree" --patch "$patch" --jobs "$(nproc)" --out "$kout"
		exit
	fi
}

# kbuild_pair_run TREE PATCH SUITE_FILE [OPTION...]: boot the pair in $kout
# in the VM lab with the suite and compare (tools/kbuild-pair, given the
# OPTIONs too, e.g. --runs 2), output in $t/pair.out; sets rc, bdirs and
# pdirs (each side's run directories, in order), bdir and pdir (the first
# of each) and report (report.md).
kbuild_pair_run() {
	local start=$SECONDS

	"$TOP/tools/kbuild-pair" --vm-build "$1" --patch "$2" --kbuild-out "$kout" \
		--suite "$3" --out "$t/results" "${@:4}" >"$t/pair.out" 2>&1
	rc=$?
	echo "# timing: kbuild-pair (reused build, guests, comparison) $((SECONDS - start))s"
	mapfile -t bdirs < <(sed -n 's/^base run: *//p' "$t/pair.out")
	mapfile -t pdirs < <(sed -n 's/^patched run: *//p' "$t/pair.out")
	bdir=${bdirs[0]:-} pdir=${pdirs[0]:-}
	report=$(sed -n 's/^report: *//p' "$t/pair.out" | tail -n1)
}
