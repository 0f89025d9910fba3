#!/usr/bin/env bash
# Abuse suite, core part: hostile input to the real bench/mmbench. Labels
# (quotes, backticks, $(...), control characters, '..', '/', too long),
# parameter values (010, 0x10, 1e3, ' 5', -0, huge, shell code), suite
# files (long lines, NULs, many words, bad parameters, control
# characters), --set paths outside sysfs/procfs and planted links, crafted
# settings journals, files that are not result files for `mmbench
# summary`, planted links in a run directory, full disks at every size
# from 8 KiB up, and kills of the driver at many moments of a run.
# Every input must give its documented exit code with a message naming
# it, run no command (a canary file that any $(...) or backtick would
# create), change nothing outside the run directories (the files of the
# sandbox, the targets of planted links, and every THP knob under
# /sys/kernel/mm/transparent_hugepage are compared before and after), and
# lose no row that reached the disk. Each PASS/FAIL line names the input.
# THP knobs that other tests change (enabled, defrag, shmem_enabled and
# the 64kB/512kB/2048kB sizes) are left out of the comparison, as those
# tests may run at the same time; the knobs this suite sets are others.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then skip "abuse core" "not root (mounts, knobs)"; exit 4; fi
T=/sys/kernel/mm/transparent_hugepage
K=$T/khugepaged
[ -w $K/pages_to_scan ] || { skip "abuse core" "no $K/pages_to_scan"; exit 4; }
S=$(tmpdir)
FS=$S/fs
cleanup() {
	umount "$FS" 2>/dev/null
	for f in $K/pages_to_scan $K/scan_sleep_millisecs; do
		v=$(grep "^$f:" "$S/knobs.orig" 2>/dev/null | cut -d: -f2)
		[ -n "$v" ] && echo "$v" >"$f"
	done
	rm -rf "$S"
}
trap cleanup EXIT
MM=$MMBENCH
mkdir -p "$S/root" "$S/work" "$S/outside/sub" "$S/victim-dir" "$FS"
echo precious >"$S/victim"
echo "keep me" >"$S/outside/file"
echo "keep me too" >"$S/victim-dir/file"
C=$S/CANARY
HOSTILE=("\$(touch $C-dollar)" "\`touch $C-backtick\`" "; touch $C-semicolon" "| touch $C-pipe"
	"&& touch $C-and" "\$(touch\${IFS}$C-ifs)" "'\$(touch $C-quoted)'" "\"\`touch $C-dq\`\"")
SHARED='^(enabled|defrag|shmem_enabled|hugepages-(64|512|2048)kB/.*)$'

# Every writable THP knob but the shared ones (not the stats/ counters).
mapfile -t KNOBS < <(cd $T && find . -type f -perm -u=w | sed 's|^\./||' | grep -v '/stats/' |
	grep -Ev "$SHARED" | sort | sed "s|^|$T/|")
knobs() { grep -H '' "${KNOBS[@]}" 2>/dev/null; }	# "path:value" lines
knobs >"$S/knobs.orig"
snapshot() {
	(cd "$S" && find . -mindepth 1 -path ./root -prune -o -path ./work -prune -o -path ./fs -prune -o \
		-path ./knobs.orig -prune -o -path ./out -prune -o -printf '%p %y %s %m %T@\n' | sort)
	knobs
}
n_inputs=0
# judge NAME RC MSG CMD...: CMD (run in work/) must exit RC, print a line
# matching the ERE MSG (none when MSG is empty), create no canary, change
# nothing outside root/, work/ and fs/, and leave every knob as it was.
judge() {
	local name=$1 want=$2 msg=$3 rc before after why='' canaries
	shift 3
	n_inputs=$((n_inputs + 1))
	before=$(snapshot)
	(cd "$S/work" && "$@" >"$S/out" 2>&1 </dev/null)
	rc=$?
	after=$(snapshot)
	[ "$rc" = "$want" ] || why+="exit $rc, want $want; "
	[ -z "$msg" ] || grep -qE -- "$msg" "$S/out" || why+="no /$msg/ in: $(head -c 300 "$S/out"); "
	canaries=$(find "$S" -name '*CANARY*' 2>/dev/null)
	if [ -n "$canaries" ]; then
		why+="a command ran: $(echo $canaries); "
		rm -rf $canaries
	fi
	[ "$before" = "$after" ] ||
		why+="changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -4 | tr '\n' ' '); "
	local shown
	shown=$(printf '%q' "$name")
	[ ${#shown} -gt 120 ] && shown="${shown:0:117}..."
	if [ -z "$why" ]; then pass "$shown"; else fail "$shown" "$why"; fi
}
small=(-p instances=1 -p size_mb=1 -p duration_s=0.05 -i 1 -w 0)

# ---- labels: the one rule, for check-label, --label (run, suite,
# --dry-run) and --meta label=
long=$(printf '%*s' 101 '' | tr ' ' 'L')
huge=$(printf '%*s' 5000 '' | tr ' ' 'L')
labels=("${HOSTILE[@]}" "a'b" 'a"b' 'a b' a/b ../up .. a..b .dot -rf "$long" "$huge"
	"$(printf 'a\tb')" "$(printf 'a\rb')" "$(printf 'a\033[31mb')" "$(printf 'a\x7fb')"
	'a,b' 'a;b' 'a*b' 'a\b' 'a$b' 'a#b' 'a%b' 'a~b' "$(printf 'caf\xc3\xa9')")
for l in "${labels[@]}"; do
	judge "label: run --label $l" 2 "label" "$MM" run pageout --label "$l" --root "$S/root" "${small[@]}"
	judge "label: check-label $l" 2 "^mmbench: label" "$MM" check-label "$l"
done
for l in "${HOSTILE[@]:0:3}"; do
	judge "label: --dry-run --label $l" 2 "label" "$MM" run pageout --label "$l" --dry-run
	judge "label: --meta label=$l" 2 "label" "$MM" run pageout --meta "label=$l" -o "$S/root/m" "${small[@]}"
done
for l in 6.18.0-rc1+ base patched_v2 6.1.0-18-amd64 "$(printf '%*s' 100 '' | tr ' ' 'x')"; do
	judge "label: check-label ${l:0:40} (valid)" 0 "" "$MM" check-label "$l"
done
[ -z "$(ls "$S/root")" ] && pass "labels: no run directory was made for a refused label" ||
	fail "labels: run directories" "$(ls "$S/root")"

# ---- parameter values
for v in 0x10 1e3 ' 5' '5 ' +5 -0 -1 0 99999999999999999999 9223372036854775808 abc 1,,2 , 1, 0b1 '1 2' "${HOSTILE[@]}"; do
	judge "param: size_mb=$v" 2 "size_mb" "$MM" run pageout -p "size_mb=$v" --dry-run
done
judge "param: size_mb=010 is ten" 0 "size_mb=10," "$MM" run pageout -p size_mb=010 --dry-run
judge "param: instances=08 is eight" 0 "instances=8;" "$MM" run pageout -p instances=08 --dry-run
for v in 0x1p3 inf -inf nan 1e999 ' 0.5' 0.5x 1e "${HOSTILE[@]:0:2}"; do
	judge "param: duration_s=$v" 2 "duration_s" "$MM" run pageout -p "duration_s=$v" --dry-run
done
for v in "${HOSTILE[@]:0:4}" FILE; do
	judge "param: backing=$v" 2 "backing" "$MM" run pageout -p "backing=$v" --dry-run
	judge "param: name $v=1" 2 "unknown parameter|expected key=value" "$MM" run pageout -p "$v=1" --dry-run
done
for o in -i -w --timeout; do
	for v in 0x5 ' 5' 1e1 -1 99999999999 "${HOSTILE[0]}"; do
		judge "option: $o '$v'" 2 "is not a number in" "$MM" run pageout "$o" "$v" --dry-run
	done
done
# A string parameter is data: a hostile dir is a directory name that does
# not exist (the case fails, exit 1), never a command. (';' and '=' are
# refused in string values: exit 2.)
for v in "${HOSTILE[0]}" "${HOSTILE[1]}" "${HOSTILE[4]}"; do
	judge "param: dir=$v (run)" 1 "dir" "$MM" run pageout -p "dir=$v" -o "$S/root/dir$((n_inputs))" "${small[@]}"
done
judge "param: dir=${HOSTILE[2]}" 2 "may not contain" "$MM" run pageout -p "dir=${HOSTILE[2]}" --dry-run
judge "workload: \$(touch) as a name" 2 "unknown workload" "$MM" run "${HOSTILE[0]}" --dry-run

# ---- suite files
sf=$S/outside/suites
mkdir -p "$sf"
ok="pageout -p instances=1 -p size_mb=1 -p duration_s=0.05"
suite() {	# suite FILE RC MSG [NAME]: the file $sf/FILE, checked with --dry-run
	judge "suite: ${4:-$1}" "$2" "$3" "$MM" suite "$sf/$1" --dry-run
}
{ printf '# %*s' 5000 '' | tr ' ' x; printf ' pageout -p dir=%s\n' "${HOSTILE[0]}"; echo "$ok"; } >"$sf/longcomment"
suite longcomment 0 "^pageout,"
[ "$(grep -c '^pageout,' "$S/out")" = 1 ] && pass "suite: a long comment's tail is not a line" ||
	fail "suite: long comment's tail" "$(cat "$S/out")"
{ printf '# %*s\n' 9000 '' | tr ' ' x; echo "pageout -p size_mb=zz"; } >"$sf/lineno"
suite lineno 2 "lineno:2: pageout: parameter 'size_mb'"
printf '%s\0 -p bogus=1\n' "$ok" >"$sf/nul"; suite nul 2 "nul:1: NUL byte"
printf '%s\n\0\n' "$ok" >"$sf/nul2"; suite nul2 2 "nul2:2: NUL byte"
{ printf 'pageout'; for _ in $(seq 1 130); do printf ' -w 0'; done; echo ' -p bogus=1'; } >"$sf/words"
suite words 2 "words:1: pageout: unknown parameter 'bogus'"
{ printf 'pageout'; for _ in $(seq 1 1100); do printf ' -w 0'; done; echo; } >"$sf/manywords"
suite manywords 2 "manywords:1: more than 1022 words"
{ echo "$ok"; printf 'pageout -p dir=%*s\n' 70000 '' | tr ' ' d; } >"$sf/longline"
suite longline 2 "longline:2: line longer than"
for c in 01 07 08 0b 0c 1b 7f; do
	printf '%s -p dir=a\x'$c'b\n' "$ok" >"$sf/ctrl$c"
	suite "ctrl$c" 2 "ctrl$c:1: control character 0x$c"
done
for w in -h --help "--label x" "--set $K/pages_to_scan=1" "--root /" "-o /tmp/x" "--meta a=b" "--timeout 1"; do
	echo "$ok $w" >"$sf/opt"
	suite opt 2 "opt:1: only -p, -i and -w belong on a suite line" "option on a line: $w"
done
for l in "${HOSTILE[@]:0:4}"; do
	printf '%s\n' "$l" >"$sf/hostile"
	suite hostile 2 "hostile:1: " "a line: $l"
done
printf '%s -p size_mb=%s\n' pageout 0x10 >"$sf/hex"; suite hex 2 "hex:1: .*'0x10'"
printf '%s -p size_mb=%s\n' pageout 010 >"$sf/oct"; suite oct 0 "size_mb=10,"
: >"$sf/empty"; suite empty 2 "has no workload lines"
printf '# only\n\n   \n' >"$sf/comments"; suite comments 2 "has no workload lines"
for i in $(seq 1 300); do echo "$ok"; done >"$sf/many"; suite many 2 "many:257: more than 256 workload lines"
head -c 2000 "$MM" >"$sf/binary"; suite binary 2 "binary:1: (NUL byte|control character)"
judge "suite: a directory" 2 "suite '$sf'" "$MM" suite "$sf" --dry-run
judge "suite: missing file" 2 "nosuch" "$MM" suite "$sf/nosuch" --dry-run
judge "suite: /dev/zero" 2 "line longer than" "$MM" suite /dev/zero --dry-run

# ---- --set and --meta
echo precious >"$S/victim"
ln -sf "$S/victim" "$S/link"
ln -sf $K/pages_to_scan "$S/link-in"
mkfifo "$S/fifo"
for p in "$S/victim" "$S/link" "$S/link-in" "$S/fifo" /dev/null /proc/self/oom_score_adj \
	"/proc/sys/../..$S/victim" "/sys/../$S/victim" $K/../enabled /sys//kernel/mm /sys/kernel/mm/ \
	relative "$K/nosuch" "$(printf '%s\tx' $K/pages_to_scan)" "${HOSTILE[1]}"; do
	judge "--set $p=1" 2 "--set '" timeout -s KILL 300 "$MM" run pageout --set "$p=1" -o "$S/root/set" "${small[@]}"
done
judge "--set without =" 2 "expected /ABSOLUTE/PATH=VALUE" "$MM" run pageout --set $K/pages_to_scan --dry-run
judge "--set a value with a newline" 2 "control character" "$MM" run pageout --set "$K/pages_to_scan=$(printf '1\n2')" --dry-run
for v in "${HOSTILE[@]:0:3}" notanumber; do
	judge "--set a refused value: $v" 2 "pages_to_scan=.*Invalid argument" \
		"$MM" run pageout --set "$K/pages_to_scan=$v" -o "$S/root/setv" "${small[@]}"
done
for m in "A=b" "a b=c" "=x" "x" "a=$(printf 'b\nc')" "$(printf 'a\033=b')" "${HOSTILE[0]}=x"; do
	judge "--meta $m" 2 "--meta" "$MM" run pageout --meta "$m" --dry-run
done

# ---- crafted settings journals
jr() { mkdir -p "$S/root/$1"; shift; }
journal() {	# journal NAME RC MSG LINES...: restore of a run dir holding LINES
	local d=$S/root/j-$1 name=$1 rc=$2 msg=$3
	shift 3
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/settings.journal"
	judge "journal: $name" "$rc" "$msg" "$MM" restore "$d"
}
p2s=$(cat $K/pages_to_scan)
journal "regular file" 2 "settings.journal:1:" "save,$S/victim,pwned"
journal "link into sysfs" 2 "settings.journal:1:" "save,$S/link-in,1"
journal "proc fd" 2 "settings.journal:1:" "save,/proc/self/fd/2,pwned"
journal "dotdot" 2 "settings.journal:1:" "save,/sys/../$S/victim,pwned"
journal "4 fields" 2 "settings.journal:1: 4 fields" "save,$K/pages_to_scan,$p2s,x"
journal "2 fields" 2 "settings.journal:1: 2 fields" "save,$K/pages_to_scan"
journal "unknown op" 2 "settings.journal:1: unknown record" "grab,$K/pages_to_scan,$p2s"
journal "done with a value" 2 "settings.journal:1: a done record has no value" "done,$K/pages_to_scan,1"
journal "control in value" 2 "settings.journal:1: control character" "save,$K/pages_to_scan,$(printf '1\0332')"
journal "unterminated quote" 2 "settings.journal:1: not a CSV record" "save,\"$K/pages_to_scan,1"
journal "hostile value" 2 "settings.journal:2:" "save,$K/pages_to_scan,$p2s" "save,${HOSTILE[0]},1"
journal "valid" 0 "restored $K/pages_to_scan" "save,$K/pages_to_scan,$p2s"
d=$S/root/j-wr; mkdir -p "$d"; echo "save,$K/pages_to_scan,$p2s" >"$d/settings.journal"; chmod 666 "$d/settings.journal"
judge "journal: writable by others" 2 "not trusted" "$MM" restore "$d"
d=$S/root/j-ln; mkdir -p "$d"; ln -s "$S/victim" "$d/settings.journal"
judge "journal: a symlink" 2 "symbolic links" "$MM" restore "$d"
judge "restore: no journal" 2 "no settings journal" "$MM" restore "$S/root/nosuch"

# ---- mmbench summary on files that are not result files
hdr="schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better"
row="1,r,l,k,pageout,c,0,loops,5,count,higher"
summ() {	# summ NAME MSG CONTENT-CMD...: results.csv from CMD, summary exits 2
	local d=$S/root/s-$1 name=$1 msg=$2
	shift 2
	mkdir -p "$d"
	"$@" >"$d/results.csv"
	judge "summary: $name" 2 "$msg" "$MM" summary "$d"
}
summ binary "results.csv:1: NUL byte" head -c 4096 "$MM"
summ empty "results.csv:1: empty" true
summ wide "results.csv:1: not the header of schema 1 \(10000 fields" seq -s, 1 10000
summ "12 fields" "results.csv:3: 12 fields" printf '%s\n%s\n%s,x\n' "$hdr" "$row" "$row"
summ "10 fields" "results.csv:2: 10 fields" printf '%s\n%s\n' "$hdr" "1,r,l,k,pageout,c,0,loops,5,count"
summ "hex value" "results.csv:2: value '0x10'" printf '%s\n%s\n' "$hdr" "1,r,l,k,pageout,c,0,loops,0x10,count,higher"
summ "hostile value" "results.csv:2: value" printf '%s\n%s\n' "$hdr" "1,r,l,k,pageout,c,0,loops,${HOSTILE[0]// /},count,higher"
summ "bad better" "results.csv:2: better" printf '%s\n%s\n' "$hdr" "1,r,l,k,pageout,c,0,loops,1,count,\`id\`"
summ "open quote" "results.csv" printf '%s\n"%s\n' "$hdr" "$row"
summ "old header" "results.csv:1: not the header" printf 'a,b,c\n%s\n' "$row"
summ "huge field" "results.csv:2: a field longer" printf '%s\n1,r,l,k,pageout,%05000d,0,loops,1,count,higher\n' "$hdr" 0
judge "summary: a missing directory" 2 "results.csv" "$MM" summary "$S/root/nosuch"

# ---- planted links and foreign directories around a run directory
# (each link checked planted first, and still a link after: a check of a
# link that was never planted would pass on nothing)
planted() { [ -L "$1" ] && [ "$(readlink "$1")" = "$S/victim" ]; }
d=$S/root/planted1; mkdir -p "$d"; ln -s "$S/victim" "$d/results.csv"
check "run dir: results.csv planted as a link (setup)" planted "$d/results.csv"
judge "run dir: results.csv planted as a link: the case fails, the link not followed" 1 \
	"cannot open results.csv: Too many levels of symbolic links" "$MM" run pageout -o "$d" "${small[@]}"
check "run dir: the planted results.csv is still the link" planted "$d/results.csv"
d=$S/root/planted2; mkdir -p "$d"; ln -s "$S/victim" "$d/topology.xml"
check "run dir: topology.xml planted as a link (setup)" planted "$d/topology.xml"
judge "run dir: topology.xml planted as a link: not written through, said" 0 \
	"hwloc could not export .*/topology.xml" "$MM" run pageout -o "$d" "${small[@]}"
check "run dir: the planted topology.xml is still the link" planted "$d/topology.xml"
d=$S/root/planted3; mkdir -p "$d"; ln -s "$S/victim" "$d/settings.journal"
check "run dir: settings.journal planted as a link (setup)" planted "$d/settings.journal"
judge "run dir: settings.journal planted as a link" 2 "symbolic links" "$MM" run pageout --set "$K/pages_to_scan=$((p2s + 1))" -o "$d" "${small[@]}"
d=$S/root/foreign; mkdir -p "$d"; chown nobody "$d"
judge "run dir: owned by another user" 2 "not ours alone" "$MM" run pageout -o "$d" "${small[@]}"
d=$S/root/shared; mkdir -p "$d"; chmod 777 "$d"
judge "run dir: writable by others" 2 "not ours alone" "$MM" run pageout -o "$d" "${small[@]}"
judge "--mirror planted as a link" 2 "--mirror" "$MM" run pageout --mirror "$S/link" -o "$S/root/mirror" "${small[@]}"
[ "$(cat "$S/victim")" = precious ] && pass "planted links: the victim is untouched" || fail "planted: victim" "$(head -c 80 "$S/victim")"

# ---- full disks: every size; the invariant whatever the size
whole() {
	local f
	for f in "$1"/*.csv; do
		[ -s "$f" ] || continue
		[ "$(tail -c1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || return 1
	done
	for f in "$1/results.csv" "$1/warmup.csv"; do
		[ ! -e "$f" ] || awk -F, 'NF != 11 { exit 1 }' "$f" || return 1
	done
}
mkdir -p "$S/data"
for size in 8k 12k 16k 20k 24k 28k 32k 40k 48k 64k 96k 1m; do
	n_inputs=$((n_inputs + 1))
	umount "$FS" 2>/dev/null
	mount -t tmpfs -o "size=$size" tmpfs "$FS"
	"$MM" run pageout -p instances=1 -p size_mb=2 -p duration_s=0.2 -p dir="$S/data" -i 3 -w 1 \
		-o "$FS/r" >"$S/out" 2>&1
	rc=$?
	ok=1 why=
	whole "$FS/r" || { ok=0; why+="a torn row; "; }
	if [ $rc = 0 ]; then
		# a pass: every row of every iteration is there, and its case row
		[ "$(grep -c ',pass,' "$FS/r/cases.csv" 2>/dev/null)" = 1 ] || { ok=0; why+="exit 0 without a pass row; "; }
		[ "$("$MMBENCH" field "$FS/r/results.csv" iteration | sort -u | tr -d '\n')" = 012 ] ||
			{ ok=0; why+="exit 0 without all 3 iterations; "; }
	else
		[ $rc = 1 ] || { ok=0; why+="exit $rc; "; }
		grep -q 'No space left on device' "$S/out" || { ok=0; why+="no reason on stderr; "; }
		grep -q ' 1 passed' "$S/out" && { ok=0; why+="says passed; "; }
	fi
	[ $ok = 1 ] && pass "full disk: $size tmpfs (exit $rc)" || fail "full disk: $size tmpfs" "$why $(tail -2 "$S/out" | tr '\n' '|')"
done
umount "$FS"

# ---- kills of the driver at many moments: once results.csv has N rows
# (the moment depends on the machine; the checks do not): restore exits 0,
# every knob is back, nothing of the run is left, every row is whole.
run_procs() { pgrep -f -- "-o $1( |$)"; }
no_procs() { ! run_procs "$1" >/dev/null; }
# N rows, or the run is over (then the kill meets a finished run: also a moment)
rows_at_least() { [ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ] || ! kill -0 $pid 2>/dev/null; }
s16=$T/hugepages-16kB/enabled
sets=(--set "$K/pages_to_scan=$((p2s + 8))" --set "$K/scan_sleep_millisecs=$(($(cat $K/scan_sleep_millisecs) + 1))")
[ -w $s16 ] && sets+=(--set "$s16=$(grep -q '\[never\]' $s16 && echo inherit || echo never)")
for n in 1 2 5 10 20 34 40 60 80 100; do
	n_inputs=$((n_inputs + 1))
	d=$S/root/kill$n
	"$MM" run pageout -p instances=2 -p size_mb=1 -p duration_s=0.05 -i 4 -w 0 "${sets[@]}" \
		-o "$d" >/dev/null 2>&1 &
	pid=$!
	wait_until 300 rows_at_least "$d/results.csv" "$n"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	"$MM" restore "$d" >"$S/out" 2>&1
	rc=$?
	wait_until 300 no_procs "$d"
	left=$(run_procs "$d" | tr '\n' ' ')
	why=
	[ $rc = 0 ] || why+="restore exit $rc; "
	[ -z "$left" ] || { why+="left running: $left; "; kill -KILL $left; }
	[ "$(knobs)" = "$(cat "$S/knobs.orig")" ] || why+="knobs: $(diff <(knobs) "$S/knobs.orig" | grep '^[<>]' | tr '\n' ' '); "
	whole "$d" || why+="a torn row; "
	[ -z "$why" ] && pass "kill after $n rows: restored, nothing left, rows whole" ||
		fail "kill after $n rows" "$why"
done

echo "abuse core: $n_inputs inputs"
finish
