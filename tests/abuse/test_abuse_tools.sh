#!/usr/bin/env bash
# Abuse suite, tools part: hostile input to tools/nightly (configs: unknown
# keys, values with $(...), backticks, ; | &&, control characters, '..',
# the lock set to the config itself, huge and binary files, missing keys),
# to tools/kbuild and tools/kbuild-pair (argument checks; nothing is
# built) and to tools/deps.sh (apt-get replaced by a stub that fails), and
# links planted in /tmp and /run/lock where these tools used to write.
# Every input must give its documented exit code with a message naming it,
# run no command (a canary file that any $(...) or backtick would create),
# and change nothing outside the places it may write (the config's
# directory, the kbuild cache and output directory): files outside them
# and the targets of planted links are compared before and after.
# Each PASS/FAIL line names the input.
. "$(dirname "$0")/../lib.sh"
S=$(tmpdir)
saved_lock=
cleanup() {
	rm -f /tmp/mmbench-apt.log.abuse-victim
	[ -n "$planted_apt" ] && rm -f /tmp/mmbench-apt.log
	[ -n "$planted_run_lock" ] && rm -f /run/lock/mmbench-nightly.lock
	if [ -n "$saved_lock" ]; then
		rm -f /run/mmbench-nightly
		mv "$saved_lock" /run/mmbench-nightly
	fi
	rm -rf "$S"
}
planted_apt= planted_run_lock=
trap cleanup EXIT
NIGHTLY=$TOP/tools/nightly
KBUILD=$TOP/tools/kbuild
KPAIR=$TOP/tools/kbuild-pair
DEPS=$TOP/tools/deps.sh
export MMBENCH=$TOP/tests/nightly/fake-mmbench NIGHTLY_NO_BUILD=1
export FAKE_LINES="pageout instances=1 loops_per_s loops/s higher 100 1"
export MMBENCH_KBUILD_CACHE=$S/c/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
for t in mmhistory mmtrend mmsynth; do
	[ -x "$TOP/tools/mmtrend/$t" ] || { skip abuse_tools "tools/mmtrend/$t is not built (make)"; exit 4; }
done

# The sandbox: c/ is where the tools may write (config, results, lock,
# kbuild cache and output); work/ is the current directory (a relative
# canary lands there); outside/ and the victims must not change.
mkdir -p "$S/c" "$S/work" "$S/outside/sub" "$S/victim-dir"
echo "precious" >"$S/victim"
echo "keep me" >"$S/outside/file"
echo "keep me too" >"$S/victim-dir/file"
chmod 700 "$S/c"

# Canaries: any of these strings that reaches a shell creates a file.
C=$S/CANARY
HOSTILE=("\$(touch $C-dollar)" "\`touch $C-backtick\`" "; touch $C-semicolon" "| touch $C-pipe"
	"&& touch $C-and" "\$(touch\${IFS}$C-ifs)" "\$(touch work-CANARY)" "'\$(touch $C-quoted)'")

snapshot() {
	(cd "$S" && find . -path ./c -prune -o -path ./work -prune -o -printf '%p %y %s %m %T@\n' | sort)
	for f in /tmp/mmbench-apt.log /tmp/mmbench-apt.log.abuse-victim /run/lock/mmbench-nightly.lock; do
		[ -e "$f" ] && stat -c '%n %s %Y' "$f"
	done
	true
}

n_inputs=0
# judge NAME RC MSG CMD...: CMD (run in work/) must exit RC, print a line
# matching the ERE MSG (none when MSG is empty), create no canary and
# change nothing outside c/ and work/.
judge() {
	local name=$1 want=$2 msg=$3 out rc before after why='' canaries
	shift 3
	n_inputs=$((n_inputs + 1))
	before=$(snapshot)
	out=$(cd "$S/work" && "$@" 2>&1 </dev/null)
	rc=$?
	after=$(snapshot)
	[ "$rc" = "$want" ] || why+="exit $rc, want $want; "
	[ -z "$msg" ] || grep -qE -- "$msg" <<<"$out" || why+="no /$msg/ in the output; "
	canaries=$(find "$S" -maxdepth 1 -name 'CANARY*'; find "$S/work" -name '*CANARY*')
	if [ -n "$canaries" ]; then
		why+="a command ran: $(echo $canaries); "
		rm -rf $canaries
	fi
	[ "$before" = "$after" ] ||
		why+="changed outside: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -n 3 | tr '\n' ' '); "
	[ "$(cat "$S/victim")" = precious ] || { why+="the victim file was written; "; echo precious >"$S/victim"; }
	# Printed as plain ASCII: the runner greps these lines.
	name=$(printf '%s' "$name" | LC_ALL=C tr -c '[:print:]' '?' | head -c 300)
	if [ -z "$why" ]; then
		pass "$name: exit $rc$([ -n "$msg" ] && echo ", '$(grep -aE -m1 -- "$msg" <<<"$out" | cut -c1-150 | LC_ALL=C tr -c '[:print:]\n' '?')'")"
	else
		fail "$name" "${why}output: $(head -c 400 <<<"$out" | LC_ALL=C tr '\n' '|' | LC_ALL=C tr -c '[:print:]' '?')"
	fi
}

# ---------------------------------------------------------------- nightly

# mkconf LINE...: the given lines, then a default for every key they do
# not set: a valid config whose night is refused at once (need_mem_mb).
mkconf() {
	local l k given=' '
	for l in "$@"; do
		printf '%s\n' "$l"
		[[ $l =~ ^[[:space:]]*([a-z_]+)[[:space:]]*= ]] && given+="${BASH_REMATCH[1]} "
	done
	for l in "suite = quick" "results = res" "lock = nightly.lock" "need_disk_mb = 1" \
		"need_mem_mb = 999999999" "trends = no"; do
		k=${l%% *}
		[[ $given == *" $k "* ]] || printf '%s\n' "$l"
	done
}
# nconf NAME RC MSG [--check] [--] LINE...: a config of those lines.
nconf() {
	local name=$1 want=$2 msg=$3 chk=()
	shift 3
	[ "${1:-}" = --check ] && { chk=(--check); shift; }
	[ "${1:-}" = -- ] && shift
	mkconf "$@" >"$S/c/n.conf"
	chmod 644 "$S/c/n.conf"
	judge "nightly: $name" "$want" "$msg" "$NIGHTLY" "${chk[@]}" "$S/c/n.conf"
}
F="$S/c/n.conf"

nconf "a valid config (the baseline of this suite): refused on memory" 1 "REFUSED"
nconf "--check of a valid config" 0 "config $F is valid" --check
# Unknown keys, malformed lines.
nconf "unknown key suit" 2 "n.conf:1: unknown key 'suit'" "suit = quick"
nconf "unknown key on_success" 2 "n.conf:1: unknown key 'on_success'" "on_success = touch $C-x"
nconf "unknown key lock_file" 2 "n.conf:1: unknown key 'lock_file'" "lock_file = /tmp/x"
nconf "upper-case key" 2 "n.conf:1: expected 'key = value', got 'Suite = quick'" "Suite = quick"
nconf "key with a dash" 2 "n.conf:1: expected 'key = value'" "need-mem-mb = 1"
nconf "no key" 2 "n.conf:1: expected 'key = value', got '= quick'" "= quick"
nconf "no '='" 2 "n.conf:1: expected 'key = value', got 'suite quick'" "suite quick"
nconf "a shell line" 2 "n.conf:1: expected 'key = value'" "touch $C-line"
nconf "a key given twice" 2 "n.conf:2: 'iterations' given twice \(first on line 1\)" "iterations = 3" "iterations = 4"
nconf "a byte-order mark" 2 "n.conf:1: expected 'key = value'" $'\xef\xbb\xbfsuite = quick'
nconf "a carriage return inside a value" 2 "n.conf:1: a control character in 'label = a\?b'" $'label = a\rb'
nconf "an escape sequence in a line" 2 "n.conf:1: a control character" $'label = \e[31mred'
nconf "a form feed in a line" 2 "n.conf:1: a control character" $'suite = quick\f'
nconf "CRLF line ends are fine" 0 "is valid" --check $'suite = quick\r' $'results = res\r'
# Missing sections.
printf '' >"$F"
judge "nightly: an empty config" 2 "n.conf: 'suite' is required" "$NIGHTLY" "$F"
printf '# only a comment\n\n   \n' >"$F"
judge "nightly: a config of comments" 2 "'suite' is required" "$NIGHTLY" "$F"
printf 'results = res\nlock = nightly.lock\n' >"$F"
judge "nightly: no suite" 2 "n.conf: 'suite' is required" "$NIGHTLY" "$F"
judge "nightly: the config is a directory" 2 "config '$S/c': no such readable file" "$NIGHTLY" "$S/c"
judge "nightly: the config is /dev/null" 2 "config '/dev/null': no such readable file" "$NIGHTLY" /dev/null
mkfifo "$S/c/fifo"
judge "nightly: the config is a FIFO" 2 "config '$S/c/fifo': no such readable file" "$NIGHTLY" "$S/c/fifo"
judge "nightly: no config" 2 "" "$NIGHTLY"
judge "nightly: two configs" 2 "" "$NIGHTLY" "$F" "$F"
judge "nightly: an option as the config" 2 "config '--frobnicate': no such readable file" "$NIGHTLY" --frobnicate
# Huge and binary files.
{ mkconf; head -c 200000 /dev/zero | tr '\0' '#'; echo; } >"$F"
judge "nightly: a 200 KB config" 2 "n.conf: [0-9]+ bytes: not a nightly config" "$NIGHTLY" "$F"
cp /bin/true "$F"
judge "nightly: a binary (an ELF file)" 2 "n.conf: (holds NUL bytes|[0-9]+ bytes: not a nightly config)" "$NIGHTLY" "$F"
{ mkconf; printf 'label = a\0b\n'; } >"$F"
judge "nightly: a NUL byte in a value" 2 "n.conf: holds NUL bytes" "$NIGHTLY" "$F"
head -c 3000 /dev/urandom | tr -d '\0' >"$F"
judge "nightly: random bytes" 2 "n.conf(:[0-9]+:| )" "$NIGHTLY" "$F"
nconf "a 100 KB line" 2 "n.conf: [0-9]+ bytes: not a nightly config" "label = $(head -c 100000 /dev/zero | tr '\0' a)"
nconf "a 10 KB label" 2 "n.conf:1: label = 'aaaa.*\.\.\.': use letters" "label = $(head -c 10000 /dev/zero | tr '\0' a)"
# Who may write the config: its on_* commands run as this user.
mkconf "on_failure = touch $C-mode" >"$F"
chmod 666 "$F"
judge "nightly: a config every user may write" 2 "config '$F': mode 666: others may write it" "$NIGHTLY" "$F"
chmod 664 "$F"
judge "nightly: a config its group may write" 2 "mode 664: others may write it" "$NIGHTLY" "$F"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chmod 644 "$F"
	chown nobody "$F"
	judge "nightly: a config another user owns" 2 "config '$F': owned by uid $(id -u nobody)" "$NIGHTLY" "$F"
	chown 0 "$F"
else
	skip "nightly: a config another user owns" "needs root and a user nobody to own it"
fi
# Hostile values: every string that a shell would run, in every key.
for h in "${HOSTILE[@]}"; do
	nconf "label = $h" 2 "n.conf:1: label = '.*': use letters" "label = $h"
	nconf "suite = $h" 2 "n.conf:1: suite = '.*': (no such file|a '\.\.' in the path)" "suite = $h"
	nconf "judge = $h" 2 "n.conf:1: judge = '.*': fnmatch patterns" "judge = $h"
	nconf "iterations = $h" 2 "n.conf:1: iterations = '.*': want a whole number" "iterations = $h"
	nconf "baseline = $h" 2 "n.conf:1: baseline = '.*': (not a run directory|a '\.\.' in the path)" "baseline = $h"
	nconf "vm = $h" 2 "n.conf:1: vm = '.*': (want a kernel image|a '\.\.' in the path)" "vm = $h"
	nconf "vm_args = $h" 2 "n.conf:1: vm_args = '.*': want lab options" "vm_args = $h"
done
for h in "${HOSTILE[@]:0:4}"; do
	nconf "time_limit = $h" 2 "n.conf:1: time_limit = '.*': want a duration" "time_limit = $h"
	nconf "alpha = $h" 2 "n.conf:1: alpha = '.*': want a decimal number between 0 and 1" "alpha = $h"
	nconf "lock = $h" 2 "n.conf:1: lock = '.*': .*(does not exist|a '\.\.' in the path)" "lock = $h"
	# A results root named like a command is a directory of that name in
	# the config's directory: made, never run.
	nconf "results = $h" 1 "REFUSED" "results = $h"
done
# Numbers: decimal, no leading zero, bounded.
nconf "iterations = 010 (octal in shell arithmetic)" 2 "n.conf:1: iterations = '010': want a whole number" "iterations = 010"
nconf "retention_days = 08" 2 "retention_days = '08': want a whole number" "retention_days = 08"
nconf "iterations = 0x10" 2 "iterations = '0x10': want a whole number" "iterations = 0x10"
nconf "iterations = 1e3" 2 "iterations = '1e3': want a whole number" "iterations = 1e3"
nconf "iterations = -1" 2 "iterations = '-1': want a whole number" "iterations = -1"
nconf "iterations = 0" 2 "iterations = '0': want a whole number from 1" "iterations = 0"
nconf "need_mem_mb = 99999999999999999999" 2 "need_mem_mb = '9+': want a whole number" "need_mem_mb = 99999999999999999999"
nconf "retention_days = 999999 (past any date)" 2 "retention_days = '999999': want a whole number from 0 to 36500" "retention_days = 999999"
nconf "busy_cpu_pct = 101" 2 "busy_cpu_pct = '101'" "busy_cpu_pct = 101"
nconf "notify_timeout = 0" 2 "notify_timeout = '0'" "notify_timeout = 0"
nconf "time_limit = 08h" 2 "time_limit = '08h': want a duration" "time_limit = 08h"
nconf "time_limit = 9999999h" 2 "time_limit = '9999999h': want a duration" "time_limit = 9999999h"
nconf "time_limit = 5s (under 10 s)" 2 "time_limit = '5s': want a duration from 10 s" "time_limit = 5s"
nconf "time_limit = 1d" 2 "time_limit = '1d'" "time_limit = 1d"
nconf "alpha = 1" 2 "alpha = '1': want a decimal number between 0 and 1" "alpha = 1"
nconf "alpha = 0" 2 "alpha = '0'" "alpha = 0"
nconf "alpha = 0x0.1" 2 "alpha = '0x0.1'" "alpha = 0x0.1"
nconf "alpha = 5%" 2 "alpha = '5%'" "alpha = 5%"
nconf "min_change_pct = -1" 2 "min_change_pct = '-1'" "min_change_pct = -1"
nconf "min_change_pct = 1e9" 2 "min_change_pct = '1e9'" "min_change_pct = 1e9"
nconf "change_min_sd = 0.4 (under 0.5)" 2 "change_min_sd = '0.4': want a number of sd from 0.5 to 20" "change_min_sd = 0.4"
nconf "change_min_sd = 21" 2 "change_min_sd = '21': want a number of sd" "change_min_sd = 21"
nconf "change_min_sd = 2e0" 2 "change_min_sd = '2e0'" "change_min_sd = 2e0"
nconf "change_min_sd = -2" 2 "change_min_sd = '-2'" "change_min_sd = -2"
nconf "change_min_sd empty" 2 "change_min_sd = ''" "change_min_sd ="
nconf "change_t_alpha = 0.1" 2 "change_t_alpha = '0.1': want a p value from 0.000001 to 0.05" "change_t_alpha = 0.1"
nconf "change_t_alpha = 0" 2 "change_t_alpha = '0'" "change_t_alpha = 0"
nconf "change_t_alpha = 1e-4" 2 "change_t_alpha = '1e-4'" "change_t_alpha = 1e-4"
nconf "change_t_alpha = .001" 2 "change_t_alpha = '.001'" "change_t_alpha = .001"
nconf "change_min_sd = 1.5, change_t_alpha = 0.001: valid" 0 "is valid" --check "change_min_sd = 1.5" "change_t_alpha = 0.001"
nconf "trends = true" 2 "trends = 'true': want yes or no" "trends = true"
# Labels and paths.
nconf "label = ../x" 2 "label = '../x': use letters" "label = ../x"
nconf "label = a..b" 2 "label = 'a..b': use letters, digits and \. _ \+ - only \(1 to 100, the first a letter or a digit, no '\.\.'" "label = a..b"
nconf "label = a/b" 2 "label = 'a/b'" "label = a/b"
nconf "label = .hidden" 2 "label = '.hidden'" "label = .hidden"
nconf "label with a quote" 2 "label = 'it\"s'" 'label = it"s'
nconf "label with a blank" 2 "label = 'a b'" "label = a b"
nconf "results = ../outside" 2 "results = '../outside': a '\.\.' in the path" "results = ../outside"
nconf "results = res/../../outside" 2 "results = 'res/../../outside': a '\.\.' in the path" "results = res/../../outside"
nconf "results = an existing file" 2 "results = '$S/victim': cannot create or write it" "results = $S/victim"
nconf "results = /proc/self" 2 "results = '/proc/self'" "results = /proc/self"
mkdir -m 1777 "$S/c/public"
nconf "results = a directory every user may write" 2 "results = 'public': .* every user may write it" "results = public"
nconf "suite = ../../../../../etc/passwd" 2 "suite = '.*passwd': a '\.\.' in the path" "suite = ../../../../../etc/passwd"
mkconf "suite = /etc/passwd" >"$F"
judge "nightly: suite = /etc/passwd (--check, the real driver parses it)" 2 "suite = '/etc/passwd': not a suite: .*unknown workload" \
	env MMBENCH="$TOP/bench/mmbench" "$NIGHTLY" --check "$F"
nconf "suite = a directory" 2 "suite = '$S/c': no such file" "suite = $S/c"
nconf "baseline = ../outside" 2 "baseline = '../outside': a '\.\.' in the path" "baseline = ../outside"
nconf "vm = ../../boot/vmlinuz" 2 "vm = '../../boot/vmlinuz': a '\.\.' in the path" "vm = ../../boot/vmlinuz"
nconf "vm = Bookworm!" 2 "vm = 'Bookworm!': want a kernel image" "vm = Bookworm!"
# The lock: never the config, never through a link, never another's.
cp "$F" "$S/c/n.conf.keep" 2>/dev/null
nconf "lock = the config itself" 2 "n.conf:1: lock = 'n.conf': $S/c/n.conf: not a directory" "lock = n.conf"
check "nightly: lock = the config itself: the config is intact" grep -qx "lock = n.conf" "$F"
nconf "lock = ./n.conf" 2 "lock = './n.conf': .*not a directory" "lock = ./n.conf"
nconf "lock = the config by its absolute name" 2 "not a directory" "lock = $F"
nconf "lock = /etc/passwd" 2 "lock = '/etc/passwd': /etc/passwd: not a directory" "lock = /etc/passwd"
nconf "lock = /etc (others can open it)" 2 "lock = '/etc': /etc: mode 755" "lock = /etc"
nconf "lock = ../victim" 2 "lock = '../victim': a '\.\.' in the path" "lock = ../victim"
ln -s "$S/victim" "$S/c/planted.lock"
nconf "lock = a planted link to a file" 2 "lock = 'planted.lock': .*: a symbolic link" "lock = planted.lock"
ln -s "$S/victim-dir" "$S/c/planted-dir.lock"
nconf "lock = a planted link to a directory" 2 "lock = 'planted-dir.lock': .*: a symbolic link" "lock = planted-dir.lock"
ln -s "$S/nowhere" "$S/c/dangling.lock"
nconf "lock = a dangling link" 2 "a symbolic link" "lock = dangling.lock"
check "nightly: a dangling lock link: nothing made at its target" test ! -e "$S/nowhere"
rm -rf "$S/c/res/.nightly"
ln -s "$S/victim-dir" "$S/c/res/.nightly"
nconf "a planted link as RESULTS/.nightly" 2 "results = 'res': .*\.nightly is not a directory of this user" "results = res"
rm -f "$S/c/res/.nightly"

# ---------------------------------------------------------------- planted links in /run/lock and /tmp
# The old default lock /run/lock/mmbench-nightly.lock (root wrote and
# truncated it through any link): a night with the default lock must not
# touch it, and its lock is the directory /run/mmbench-nightly.
if [ "$(id -u)" = 0 ] && [ -d /run/lock ]; then
	echo "precious" >/tmp/mmbench-apt.log.abuse-victim
	if [ ! -e /run/lock/mmbench-nightly.lock ] && [ ! -L /run/lock/mmbench-nightly.lock ]; then
		ln -s /tmp/mmbench-apt.log.abuse-victim /run/lock/mmbench-nightly.lock && planted_run_lock=1
	fi
	mkconf "lock = x" | grep -v '^lock' >"$F"
	judge "planted link /run/lock/mmbench-nightly.lock: a night with the default lock (refused)" 1 "REFUSED" \
		"$NIGHTLY" "$F"
	if [ "${planted_run_lock:-}" = 1 ]; then
		check "planted /run/lock link: its target is untouched" \
			test "$(cat /tmp/mmbench-apt.log.abuse-victim)" = precious
		check "planted /run/lock link: still the link" test -L /run/lock/mmbench-nightly.lock
	else
		skip "planted /run/lock link: its target" "/run/lock/mmbench-nightly.lock exists already: nothing planted, not touching it"
	fi
	check "the default lock is the directory /run/mmbench-nightly, mode 700, root's" \
		test "$(stat -c '%F %a %u' /run/mmbench-nightly)" = "directory 700 0"
	# A link planted at the new default (moved aside if free, put back).
	if exec 8</run/mmbench-nightly && flock -n 8; then
		exec 8<&-
		saved_lock=/run/mmbench-nightly.abuse-saved.$$
		mv /run/mmbench-nightly "$saved_lock"
		ln -s "$S/victim-dir" /run/mmbench-nightly
		judge "planted link /run/mmbench-nightly: refused, exit 1" 1 \
			"the lock /run/mmbench-nightly: a symbolic link" "$NIGHTLY" "$F"
		rm -f /run/mmbench-nightly
		mkdir -m 755 /run/mmbench-nightly
		judge "a /run/mmbench-nightly others can open: refused, exit 1" 1 \
			"the lock /run/mmbench-nightly: mode 755" "$NIGHTLY" "$F"
		rmdir /run/mmbench-nightly
		mv "$saved_lock" /run/mmbench-nightly
		saved_lock=
	else
		exec 8<&- 2>/dev/null
		skip "a link planted at /run/mmbench-nightly" "a nightly holds that lock now"
	fi
else
	skip "planted links in /run/lock" "needs root"
fi

# A stand-in apt: dpkg-query says every package is missing, apt-get fails.
mkdir -p "$S/c/stub"
printf '#!/bin/sh\necho "unknown ok not-installed"\nexit 0\n' >"$S/c/stub/dpkg-query"
printf '#!/bin/sh\necho "E: stub apt-get: no network here"\nexit 100\n' >"$S/c/stub/apt-get"
chmod +x "$S/c/stub/dpkg-query" "$S/c/stub/apt-get"
if [ ! -e /tmp/mmbench-apt.log ] && [ ! -L /tmp/mmbench-apt.log ]; then
	echo "precious" >/tmp/mmbench-apt.log.abuse-victim
	ln -s /tmp/mmbench-apt.log.abuse-victim /tmp/mmbench-apt.log && planted_apt=1
fi
TD=${TMPDIR:-/tmp}
apt_logs() { ls -d "$TD"/mmbench-apt.?????? 2>/dev/null | sort; }
logs0=$(apt_logs)
if [ "$(id -u)" = 0 ]; then
	judge "deps.sh: apt-get fails, with a link planted at /tmp/mmbench-apt.log" 1 \
		"deps.sh: apt-get failed, see $TD/mmbench-apt\.[A-Za-z0-9]{6}:" env PATH="$S/c/stub:$PATH" "$DEPS" build
	if [ "${planted_apt:-}" = 1 ]; then
		check "deps.sh: the planted link's target is untouched" \
			test "$(cat /tmp/mmbench-apt.log.abuse-victim 2>/dev/null)" = precious
	else
		skip "deps.sh: a link planted at /tmp/mmbench-apt.log" "it exists already: nothing planted, not touching it"
	fi
	new=$(comm -13 <(echo "$logs0") <(apt_logs))
	check "deps.sh: the log is a new file of mode 600 ($new)" \
		test -n "$new" -a -f "$new" -a ! -L "$new" -a "$(stat -c %a "$new" 2>/dev/null)" = 600
	rm -f $new
else
	skip "deps.sh: apt-get fails" "needs root (deps.sh installs only as root)"
fi
judge "deps.sh --check with packages missing" 1 "install them with: apt-get install" \
	env PATH="$S/c/stub:$PATH" "$DEPS" --check build
for a in nosuchgroup "build;touch $C-deps" "\$(touch $C-deps)" "--frob"; do
	judge "deps.sh argument '$a'" 2 "deps.sh: unknown argument '.*'" "$DEPS" "$a"
done

# ---------------------------------------------------------------- kbuild
# A stand-in kernel tree and a patch (nothing here compiles a kernel).
T=$S/c/tree
mkdir -p "$T/scripts/kconfig" "$T/mm"
printf 'kernelversion:\n\t@echo 9.9.9-abuse\n' >"$T/Makefile"
echo 'mainmenu "abuse"' >"$T/Kconfig"
printf '#!/bin/sh\nexit 1\n' >"$T/scripts/kconfig/merge_config.sh"
chmod +x "$T/scripts/kconfig/merge_config.sh"
printf 'int a(void)\n{\n\treturn 1;\n}\n' >"$T/mm/a.c"
P=$S/c/fix.diff
printf -- '--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1,4 +1,4 @@\n int a(void)\n {\n-\treturn 1;\n+\treturn 2;\n }\n' >"$P"
echo "just words" >"$S/c/words.txt"
cp /bin/true "$S/c/binary.patch"
cp "$P" "$S/c/\$(touch work-CANARY-pname).diff"
# Patches that climb out of the tree: the patched tree is
# c/cache/trees/KEY/patched, so five '..' reach the sandbox's outside/.
printf -- '--- a/../../../../../outside/file\n+++ b/../../../../../outside/file\n@@ -1 +1 @@\n-keep me\n+evil\n' >"$S/c/climb.diff"
printf -- '--- /dev/null\n+++ b/../../../../../outside/new\n@@ -0,0 +1 @@\n+evil\n' >"$S/c/climb2.diff"
printf -- 'diff --git a/../../../../../outside/new b/../../../../../outside/new\nnew file mode 100644\n--- /dev/null\n+++ b/../../../../../outside/new\n@@ -0,0 +1 @@\n+evil\n' >"$S/c/climb3.diff"
printf 'CONFIG_A=y\nCONFIG_B=$(touch %s-frag)\n' "$C" >"$S/c/evil.config"
printf 'CONFIG_A=y\nCONFIG_B=`touch %s-frag`\n' "$C" >"$S/c/evil2.config"
printf 'CONFIG_A=y\n$(touch %s-frag)\n' "$C" >"$S/c/evil3.config"
printf 'CONFIG_A=y\nCONFIG_B="a\x1b[31m"\n' >"$S/c/evil4.config"
head -c 2000000 /dev/zero | tr '\0' '\n' >"$S/c/huge.config"
kb() { judge "kbuild $1" "$2" "$3" "$KBUILD" "${@:4}"; }
kb "without arguments" 2 "kbuild: no tree"
kb "--tree only" 2 "kbuild: no patch" --tree "$T"
kb "without --out" 2 "kbuild: no output directory" --tree "$T" --patch "$P"
kb "--out= (empty)" 2 "kbuild: no output directory" --tree "$T" --patch "$P" --out=
kb "--tree missing its value" 2 "kbuild: --tree needs a value" --tree
kb "an unknown option" 2 "kbuild: unknown option '--frobnicate'" --frobnicate
kb "a tree that does not exist" 2 "--tree '$S/c/nope': no such file" --tree "$S/c/nope" --patch "$P" --patch-only
for h in "${HOSTILE[@]}"; do
	kb "--tree '$h'" 2 "kbuild: --tree '.*': no such file or directory" --tree "$h" --patch "$P" --patch-only
	kb "--patch '$h'" 2 "kbuild: --patch '.*': no such readable file" --tree "$T" --patch "$h" --patch-only
	kb "--jobs '$h'" 2 "kbuild: --jobs '.*': not a whole number" --tree "$T" --patch "$P" --jobs "$h" --patch-only
	kb "--base-config '$h'" 2 "kbuild: --base-config '.*': use tinyconfig or defconfig" --tree "$T" --patch "$P" --base-config "$h" --patch-only
done
kb "--jobs 0" 2 "--jobs '0'" --tree "$T" --patch "$P" --jobs 0 --patch-only
kb "--jobs 010" 2 "--jobs '010'" --tree "$T" --patch "$P" --jobs 010 --patch-only
kb "--jobs 99999999999999999999" 2 "--jobs '9+'" --tree "$T" --patch "$P" --jobs 99999999999999999999 --patch-only
kb "a patch of plain words" 2 "--patch '.*words.txt': no diff in it" --tree "$T" --patch "$S/c/words.txt" --patch-only
kb "a binary as the patch" 2 "--patch '.*binary.patch': no diff in it" --tree "$T" --patch "$S/c/binary.patch" --patch-only
kb "a directory as the patch" 2 "--patch '$S/c': no such readable file" --tree "$T" --patch "$S/c" --patch-only
kb "a patch named like a command applies" 0 "patched tree:" --tree "$T" --patch "$S/c/\$(touch work-CANARY-pname).diff" --patch-only
kb "a patch climbing out of the tree (../../../../../outside/file)" 1 "does not apply" --tree "$T" --patch "$S/c/climb.diff" --patch-only
kb "a patch creating ../../../../../outside/new" 1 "does not apply" --tree "$T" --patch "$S/c/climb2.diff" --patch-only
kb "a git diff creating ../../../../../outside/new" 1 "does not apply" --tree "$T" --patch "$S/c/climb3.diff" --patch-only
check "kbuild: nothing was created outside the tree" test ! -e "$S/outside/new"
kb "a fragment value \$(...)" 2 "evil.config:2: 'CONFIG_B=\\\$\(touch .*': the value is not" --tree "$T" --patch "$P" --config-fragment "$S/c/evil.config" --patch-only
kb "a fragment value in backticks" 2 "evil2.config:2: .*the value is not" --tree "$T" --patch "$P" --config-fragment "$S/c/evil2.config" --patch-only
kb "a fragment line \$(...)" 2 "evil3.config:2: .*not a Kconfig fragment line" --tree "$T" --patch "$P" --config-fragment "$S/c/evil3.config" --patch-only
kb "a fragment string with an escape" 2 "evil4.config:2: .*the value is not" --tree "$T" --patch "$P" --config-fragment "$S/c/evil4.config" --patch-only
kb "a 2 MB fragment" 2 "huge.config': larger than 1 MiB" --tree "$T" --patch "$P" --config-fragment "$S/c/huge.config" --patch-only
kb "a missing fragment" 2 "--config-fragment '$S/c/nofrag': no such readable file" --tree "$T" --patch "$P" --config-fragment "$S/c/nofrag" --patch-only
kb "a tree that is no kernel tree" 2 "--tree '$S/outside': not a kernel source tree" --tree "$S/outside" --patch "$P" --patch-only
kb "--out is an existing file" 2 "--out '$S/c/fix.diff': cannot create it" --tree "$T" --patch "$P" --out "$P"
mkdir -p "$S/c/out"
ln -s "$S/victim" "$S/c/out/.lock"
kb "a link planted as OUT/.lock" 2 "--out '$S/c/out': $S/c/out/.lock is a symbolic link" --tree "$T" --patch "$P" --out "$S/c/out"
rm -f "$S/c/out/.lock"
if [ "$(id -u)" = 0 ]; then
	logs0=$(apt_logs)
	judge "kbuild --tree linux-source-9.9 (not installed; apt-get fails)" 2 \
		"kbuild: --tree linux-source-9.9: apt-get install failed \($TD/mmbench-apt\.[A-Za-z0-9]{6}: E: stub" \
		env PATH="$S/c/stub:$PATH" "$KBUILD" --tree linux-source-9.9 --patch "$P" --patch-only
	if [ "${planted_apt:-}" = 1 ]; then
		check "kbuild: the planted /tmp/mmbench-apt.log link's target is untouched" \
			test "$(cat /tmp/mmbench-apt.log.abuse-victim 2>/dev/null)" = precious
	else
		skip "kbuild: a link planted at /tmp/mmbench-apt.log" "it exists already: nothing planted"
	fi
	rm -f $(comm -13 <(echo "$logs0") <(apt_logs))
else
	skip "kbuild --tree linux-source-9.9 with apt-get failing" "needs root"
fi

# ---------------------------------------------------------------- kbuild-pair
# Every input below is refused before anything is built or booted.
kp() { judge "kbuild-pair $1" "$2" "$3" "$KPAIR" "${@:4}"; }
kp "without arguments" 2 "kbuild-pair: no tree"
kp "--vm-build only" 2 "kbuild-pair: no patch" --vm-build "$T"
kp "an unknown option" 2 "kbuild-pair: unknown option '--frob'" --frob
kp "--vm (the kernels come from the build)" 2 "kbuild-pair: (unknown option '--vm'|--vm: the kernels come from)" --vm bookworm
kp "--iterations without a value" 2 "--iterations needs a value" --vm-build "$T" --patch "$P" --iterations
kp "a missing patch" 2 "--patch '$S/c/nope': no such file" --vm-build "$T" --patch "$S/c/nope"
kp "a missing fragment" 2 "--config-fragment '$S/c/nope': no such file" --vm-build "$T" --patch "$P" --config-fragment "$S/c/nope"
kp "a missing suite" 2 "--suite 'nosuch': no such file" --vm-build "$T" --patch "$P" --suite nosuch
for h in "${HOSTILE[@]:0:5}"; do
	kp "--suite '$h'" 2 "--suite '.*': no such file" --vm-build "$T" --patch "$P" --suite "$h"
	kp "--label-base '$h'" 2 "label '.*': use letters" --vm-build "$T" --patch "$P" --label-base "$h"
	kp "--label-patched 'x$h'" 2 "label '.*': use letters" --vm-build "$T" --patch "$P" --label-patched "x$h"
	kp "--vm-nodes '$h'" 2 "--vm-nodes '.*': not a positive integer" --vm-build "$T" --patch "$P" --vm-nodes "$h"
	kp "--vm-mem-per-node '$h'" 2 "--vm-mem-per-node '.*': not a size" --vm-build "$T" --patch "$P" --vm-mem-per-node "$h"
	kp "--vm-disk '$h'" 2 "--vm-disk '.*': not a size" --vm-build "$T" --patch "$P" --vm-disk "$h"
done
kp "--label-base ../x" 2 "label '../x': use letters" --vm-build "$T" --patch "$P" --label-base ../x
kp "--vm-nodes 0" 2 "--vm-nodes '0': not a positive integer" --vm-build "$T" --patch "$P" --vm-nodes 0
kp "--vm-mem-per-node 1T" 2 "--vm-mem-per-node '1T': not a size" --vm-build "$T" --patch "$P" --vm-mem-per-node 1T

echo "# $n_inputs hostile inputs"
check "at least 80 inputs were tried ($n_inputs)" test "$n_inputs" -ge 80
finish
