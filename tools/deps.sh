#!/usr/bin/env bash
# Install the Debian packages mmbench needs, quietly, only those missing.
# Usage: tools/deps.sh [--check] [GROUP...]
#   groups: build (default), test, vm, kbuild, kbuild-test, profile, lava,
#   browser, all
#   (lava: tools/lava/instance; not part of all: `make check` installs it
#   in the background of its light tests, tests/prepare; `make
#   check-quick` never needs it)
#   --check  only report; exit 1 and print the apt-get command if any is missing
# One compound command: bash reads it whole before running it, so a
# checkout updated under a long install cannot derail it.
{
set -u
front_prog=deps.sh
. "$(cd "$(dirname "$0")" && pwd)/lib/front.sh"	# msg, die, show_help
build_pkgs="gcc make pkg-config libnuma-dev libhwloc-dev libcsv-dev libgsl-dev gnuplot-nox"
# man, groff and mandoc: tests/core/test_install.sh reads and lints the
# installed manual pages.
test_pkgs="clang libclang-rt-14-dev man-db groff-base mandoc"
vm_pkgs="qemu-system-x86 busybox-static cpio zstd xz-utils kmod e2fsprogs xfsprogs debian-archive-keyring"
# tools/kbuild: what a kernel build needs (libelf for objtool, libssl for
# the signing tools), patch/git for the series, rsync for the cached trees;
# its tests build from Debian's linux-source-6.12 (both kernel pairs share one tree).
kbuild_pkgs="gcc make bc bison flex libelf-dev libssl-dev cpio xz-utils zstd bzip2 rsync patch git"
kbuild_test_pkgs="linux-source-6.12"
# --profile: perf record/script (Debian's linux-perf; the VM lab carries the
# host's perf into the guest). Optional: without it a profile is a skip.
profile_pkgs="linux-perf"
# tools/lava: a local LAVA instance (server with PostgreSQL, a dispatcher
# worker, lavacli) and its QEMU devices; curl polls the server's API.
# tests/compare/test_report_html.sh: report.html opened in headless Chromium
# (not part of all: only that test needs it)
browser_pkgs="chromium"
lava_pkgs="lava-server lava-dispatcher lavacli postgresql curl $vm_pkgs"

check=0
groups=()
for a in "$@"; do
	case "$a" in
	--check) check=1 ;;
	-h|--help) show_help; exit 0 ;;
	build|test|vm|kbuild|kbuild-test|profile|lava|browser|all) groups+=("$a") ;;
	*) usage_die "unknown argument '$a'" ;;
	esac
done
[ ${#groups[@]} -eq 0 ] && groups=(build)

want=""
for g in "${groups[@]}"; do
	case "$g" in
	build) want="$want $build_pkgs" ;;
	test) want="$want $build_pkgs $test_pkgs" ;;
	vm) want="$want $vm_pkgs" ;;
	kbuild) want="$want $kbuild_pkgs" ;;
	kbuild-test) want="$want $kbuild_pkgs $kbuild_test_pkgs" ;;
	profile) want="$want $profile_pkgs" ;;
	lava) want="$want $lava_pkgs" ;;
	browser) want="$want $browser_pkgs" ;;
	all) want="$want $build_pkgs $test_pkgs $vm_pkgs $kbuild_pkgs $kbuild_test_pkgs $profile_pkgs" ;;
	esac
done

missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y -q --no-install-recommends$missing"
if [ "$check" = 1 ]; then
	echo "missing packages:$missing" >&2
	echo "install them with: $cmd" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	msg "missing packages:$missing"
	die "run as root: $cmd"
fi
msg "installing$missing"
export DEBIAN_FRONTEND=noninteractive
# apt-get's output goes to a new file (mktemp: O_EXCL, mode 600), never to a
# fixed name in /tmp that another user could have planted as a link.
log=$(mktemp "${TMPDIR:-/tmp}/mmbench-apt.XXXXXX") ||
	die "cannot create a temporary file for apt-get's log"
# Another install (make check's preparation beside a test that installs
# its own group) holds dpkg's lock for a while: wait for it, up to 10 min.
lockwait="-o DPkg::Lock::Timeout=600"
# The package lists may be absent on a fresh machine: update once, quietly.
if ! apt-get install $lockwait -y -qq --no-install-recommends $missing >"$log" 2>&1; then
	apt-get update $lockwait -qq >>"$log" 2>&1
	if ! apt-get install $lockwait -y -qq --no-install-recommends $missing >>"$log" 2>&1; then
		msg "apt-get failed, see $log:"
		tail -n 5 "$log" >&2
		exit 1
	fi
fi
rm -f "$log"
exit 0
}
