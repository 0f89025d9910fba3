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
