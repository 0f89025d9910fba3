#!/usr/bin/env bash
# VM lab pieces without a boot: mirror discovery in apt configuration, the
# kernel cache, the initramfs (libraries, modules in load order from .ko,
# .ko.xz and .ko.zst), the results demultiplexer, and usage errors.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir); trap 'rm -rf "$t"' EXIT

# ---- mirrors: one-line and deb822 sources, disabled and commented entries
mkdir -p "$t/apt/sources.list.d"
cat >"$t/apt/sources.list" <<'EOT'
# deb http://commented.invalid/debian bookworm main
deb [arch=amd64 signed-by=/k.gpg] http://one.invalid/debian bookworm main contrib
EOT
cat >"$t/apt/sources.list.d/a.sources" <<'EOT'
Types: deb
URIs: http://disabled.invalid/debian
Suites: trixie
Enabled: no

Types: deb deb-src
URIs: http://sec.invalid/debian-security
Suites: bookworm-security
Components: main
EOT
out=$(MMBENCH_APT_ETC=$t/apt "$vm/fetch-kernel" --print-mirrors)
[ "$out" = $'archive http://one.invalid/debian\nsecurity http://sec.invalid/debian-security' ] &&
	pass "fetch-kernel: archive and security URIs from one-line and deb822 sources" ||
	fail "fetch-kernel: mirrors" "got: $out"
rm "$t/apt/sources.list"
out=$(MMBENCH_APT_ETC=$t/apt "$vm/fetch-kernel" --print-mirrors)
[ "$out" = "security http://sec.invalid/debian-security" ] &&
	pass "fetch-kernel: a disabled deb822 stanza is ignored" || fail "fetch-kernel: Enabled: no" "got: $out"

"$vm/fetch-kernel" jessie 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown Debian release 'jessie'" "$t/err" &&
	pass "fetch-kernel: unknown release is a usage error naming it" ||
	fail "fetch-kernel: bad release" "rc=$rc $(cat "$t/err")"

# ---- the kernel cache. The first call may download; the second must not
# touch the network at all: every apt download goes to a closed local port.
kd=$("$vm/fetch-kernel" bookworm 2>"$t/err")
if [ $? -ne 0 ] || [ ! -f "$kd/vmlinuz" ]; then
	fail "fetch-kernel: bookworm" "$(tail -3 "$t/err")"
	finish
fi
pass "fetch-kernel: bookworm kernel in the cache"
dead="-o Acquire::http::Proxy=http://127.0.0.1:9 -o Acquire::https::Proxy=http://127.0.0.1:9 -o Acquire::Retries=0"
before=$(stat -c %Y "$kd/vmlinuz")
kd2=$(MMBENCH_APT_OPTS=$dead "$vm/fetch-kernel" bookworm 2>"$t/err")
[ $? = 0 ] && [ "$kd2" = "$kd" ] && grep -q 'no download' "$t/err" &&
	[ "$(stat -c %Y "$kd/vmlinuz")" = "$before" ] &&
	pass "fetch-kernel: second fetch served from the cache, network unreachable" ||
	fail "fetch-kernel: cache" "$kd2 vs $kd: $(cat "$t/err")"
kd2=$(MMBENCH_APT_OPTS=$dead "$vm/fetch-kernel" --refresh bookworm 2>"$t/err")
[ $? = 0 ] && [ "$kd2" = "$kd" ] && grep -q 'could not refresh; using cached' "$t/err" &&
	pass "fetch-kernel: a failed refresh falls back to the cached kernel, saying so" ||
	fail "fetch-kernel: refresh fallback" "$(cat "$t/err")"
rel=$(cat "$kd/release")
. "$vm/lib.sh"
[ "$(vm_bzimage_release "$kd/vmlinuz")" = "$rel" ] && [[ $rel == 6.1.* ]] &&
	pass "bzImage header: release $rel read from the boot protocol header" ||
	fail "bzImage header" "$(vm_bzimage_release "$kd/vmlinuz") vs $rel"
[ -f "$kd/lib/modules/$rel/modules.dep" ] && pass "fetch-kernel: module tree indexed by depmod" ||
	fail "fetch-kernel: modules.dep" "missing in $kd/lib/modules/$rel"

# ---- modules: a copy of the ext4 chain compressed three ways must land
# as plain .ko files identical to the originals, dependencies first.
mk=$t/k/lib/modules/$rel
mkdir -p "$mk"
cp "$kd/release" "$t/k/"
cp "$kd/lib/modules/$rel"/modules.{order,builtin,builtin.modinfo} "$mk/"
while read -r m; do
	src=$kd/lib/modules/$rel/$m
	mkdir -p "$mk/$(dirname "$m")"
	case "$m" in
	*/ext4.ko|*/crc16.ko) xz -c "$src" >"$mk/$m.xz" ;;
	*/jbd2.ko|*/crc32c_generic.ko) zstd -q -c "$src" >"$mk/$m.zst" ;;
	*) cp "$src" "$mk/$m" ;;
	esac
done < <(modprobe -d "$kd" -S "$rel" --show-depends ext4 |
	sed -n "s|^insmod $kd/lib/modules/$rel/||p" | cut -d' ' -f1)
depmod -b "$t/k" "$rel"
ls "$mk"/kernel/fs/ext4/ext4.ko.xz "$mk"/kernel/fs/jbd2/jbd2.ko.zst >/dev/null 2>&1 ||
	fail "modules: fixture" "no compressed copies in $mk"
"$vm/mkinitramfs" -o "$t/i.cpio" -k "$t/k" --no-default-modules -m ext4 \
	-m no_such_module -b "$MMBENCH=/usr/bin/mmbench" 2>"$t/err"
rc=$?
[ $rc = 0 ] && pass "mkinitramfs: builds" || fail "mkinitramfs" "rc=$rc $(cat "$t/err")"
grep -q 'module no_such_module is neither' "$t/err" &&
	pass "mkinitramfs: a missing module is reported, not fatal" || fail "mkinitramfs: missing module" ""
mkdir "$t/x" && (cd "$t/x" && cpio -id --quiet <"$t/i.cpio")
same=1
while read -r p _; do
	orig=$kd/lib/modules/$rel/${p#/lib/modules/$rel/}
	cmp -s "$orig" "$t/x$p" || same=0
done <"$t/x/etc/mmbench/modules.load"
[ -s "$t/x/etc/mmbench/modules.load" ] && [ $same = 1 ] &&
	pass "modules: .ko, .ko.xz and .ko.zst all staged as the plain module" ||
	fail "modules: staged copies differ" "$(cat "$t/x/etc/mmbench/modules.load")"
order=$(cut -f1 "$t/x/etc/mmbench/modules.load" | sed 's|.*/||' | tr '\n' ' ')
pos() { awk -v m="$1" '{ for (i = 1; i <= NF; i++) if ($i == m) print i }' <<<"$order"; }
[ "$(pos ext4.ko)" = "$(echo "$order" | wc -w)" ] && [ -n "$(pos jbd2.ko)" ] &&
	[ "$(pos jbd2.ko)" -lt "$(pos ext4.ko)" ] && [ -n "$(pos crc32c_generic.ko)" ] &&
	pass "modules: load order puts dependencies (and ext4's crc32c softdep) first: $order" ||
	fail "modules: order" "$order"
grep -q 'kernel/fs/ext4/ext4.ko:' "$t/x/lib/modules/$rel/modules.dep" &&
	pass "modules: guest modules.dep for the kernel's request_module" || fail "modules: guest depmod" ""
missing=""
for lib in $(ldd "$MMBENCH" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }'); do
	[ -f "$t/x$lib" ] || missing="$missing $lib"
done
[ -z "$missing" ] && [ -x "$t/x/usr/bin/mmbench" ] &&
	pass "initramfs: mmbench with every library ldd lists, and the loader" ||
	fail "initramfs: libraries" "missing:$missing"
[ -x "$t/x/init" ] && [ -x "$t/x/bin/busybox" ] && [ -x "$t/x/sbin/mke2fs" ] &&
	! ldd "$t/x/bin/busybox" >/dev/null 2>&1 &&
	pass "initramfs: /init, static busybox, mke2fs" || fail "initramfs: base" ""
# The default set: ext4's chain always loaded, zram's only with swap.
"$vm/mkinitramfs" -o "$t/d.cpio" -k "$kd" 2>"$t/err" &&
	cpio -i --quiet --to-stdout etc/mmbench/modules.load <"$t/d.cpio" >"$t/load"
grep -q $'/ext4.ko\talways$' "$t/load" && grep -q $'/jbd2.ko\talways$' "$t/load" &&
	grep -q $'/zram.ko\tswap$' "$t/load" && grep -q $'/brd.ko\talways$' "$t/load" &&
	pass "mkinitramfs: default modules, zram's group loaded only with swap" ||
	fail "mkinitramfs: default modules" "$(cat "$t/err" "$t/load")"
echo hello >"$t/hello"
"$vm/mkinitramfs" --bare -o "$t/b.cpio" -f "$t/hello=/etc/mmbench/hello" &&
	[ "$(cpio -it --quiet <"$t/b.cpio" | grep -v '^\.$' | sort | tr '\n' ' ')" = "etc etc/mmbench etc/mmbench/hello " ] &&
	pass "mkinitramfs --bare: only the given files, to append to a cached base" ||
	fail "mkinitramfs --bare" "$(cpio -it --quiet <"$t/b.cpio" | tr '\n' ' ')"
"$vm/mkinitramfs" -k "$t/k" 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q 'missing -o' "$t/err" && pass "mkinitramfs: usage error" ||
	fail "mkinitramfs: usage" "rc=$rc"

# ---- demux: records split back into files, a torn last line dropped, a
# quoted field's line break kept, unsafe names refused.
printf '%s\n' '@@MM meta.csv key,value' '@@MM meta.csv run_id,20250101-000000-h' \
	'@@MM meta.csv label,lab' '@@MM results.csv a,b' '@@MM results.csv 1,"x' 'y"' \
	'@@MM ../evil.csv 1' '@@MMVM exit 1' >"$t/m"
printf '@@MM results.csv 2,torn' >>"$t/m"
out=$("$vm/demux" "$t/m" "$t/res" fb fbid)
d=$t/res/lab/20250101-000000-h
[ "$(sed -n 's/^dir=//p' <<<"$out")" = "$d" ] && pass "demux: run dir named from the mirrored meta.csv" ||
	fail "demux: dir" "$out"
[ "$(cat "$d/results.csv")" = $'a,b\n1,"x\ny"' ] && pass "demux: records intact, torn last line dropped" ||
	fail "demux: results.csv" "$(cat "$d/results.csv")"
grep -q '^exit=1$' <<<"$out" && grep -q '^dropped=2$' <<<"$out" && [ ! -e "$t/res/evil.csv" ] &&
	pass "demux: guest exit status read, unsafe file name refused" || fail "demux: control" "$out"
out=$("$vm/demux" "$t/m" "$t/res" fb fbid 2>/dev/null)
[ "$(sed -n 's/^dir=//p' <<<"$out")" = "$d.2" ] && [ "$(cat "$d/results.csv")" = $'a,b\n1,"x\ny"' ] &&
	pass "demux: a second run with the same run_id never mixes into the first" ||
	fail "demux: collision" "$out"
printf '@@MM run.log booting\n' >"$t/m2"
out=$("$vm/demux" "$t/m2" "$t/res" fb fbid)
[ -f "$t/res/fb/fbid/run.log" ] && grep -q '^exit=none$' <<<"$out" &&
	pass "demux: fallback name when the guest died before meta.csv" || fail "demux: fallback" "$out"

# ---- progress: the channel read as CSV (a comma inside quotes, a quoted
# line break continued on the next channel line), N from the guest's plan
printf '%s\n' '@@MMVM boot 2.1 6.1.0' '@@MM plan.csv workload,case,iterations,warmups' \
	'@@MM plan.csv thp_storm,"mthp=64kB,512kB;threads=1",1,0' '@@MM plan.csv pageout,instances=1,1,0' \
	'@@MM plan.csv pageout,instances=2,1,0' '@@MMVM start 3.0' \
	'@@MM started.csv schema,run_id,label,kernel,workload,case,start_time' \
	'@@MM started.csv 1,r,l,k,thp_storm,"mthp=64kB,512kB;threads=1",2026-01-01T00:00:00Z' \
	'@@MM run.log a "quoted, log' 'line' \
	'@@MM cases.csv schema,run_id,label,kernel,workload,case,status,reason,signal,duration_s' \
	'@@MM cases.csv 1,r,l,k,thp_storm,"mthp=64kB,512kB;threads=1",skip,"no mTHP, ""6.8+""' \
	'here",0,0.1' \
	'@@MM started.csv 1,r,l,k,pageout,instances=1,2026-01-01T00:00:01Z' \
	'@@MM results.csv 1,r,l,k,pageout,instances=1,0,loops,4,loops,higher' \
	'@@MM cases.csv 1,r,l,k,pageout,instances=1,pass,,0,1.0' \
	'@@MM started.csv 1,r,l,k,pageout,instances=2,2026-01-01T00:00:02Z' \
	'@@MM cases.csv 1,r,l,k,pageout,instances=2,fail,"pageout: madvise failed: x",0,1.0' \
	'@@MMVM exit 1' >"$t/p"
"$vm/progress" "$t/p" 2>"$t/err" >"$t/out"
[ "$(grep -c '^\[' "$t/err")" = 5 ] &&
	grep -q '^lab: mmbench started in the guest: 3 case(s) planned$' "$t/err" &&
	grep -qx '\[1/3\] thp_storm mthp=64kB,512kB;threads=1' "$t/err" &&
	grep -qx '\[1/3\] skip: thp_storm mthp=64kB,512kB;threads=1: no mTHP, "6.8+" here' "$t/err" &&
	grep -q '^\[2/3 [0-9][0-9]:[0-9][0-9] elapsed, ETA [0-9][0-9]:[0-9][0-9]\] pageout instances=1$' "$t/err" &&
	grep -q '^\[3/3 .*\] pageout instances=2$' "$t/err" &&
	grep -qx '\[3/3\] fail: pageout instances=2: pageout: madvise failed: x' "$t/err" &&
	[ ! -s "$t/out" ] &&
	pass "progress: case n/N from plan.csv and started.csv, quoted commas and line breaks, outcomes" ||
	fail "progress" "$(cat "$t/err" "$t/out")"
grep -v plan.csv "$t/p" >"$t/p2"
"$vm/progress" "$t/p2" 2>"$t/err"
grep -qx '\[1/?\] thp_storm mthp=64kB,512kB;threads=1' "$t/err" &&
	pass "progress: without a plan N is '?', never guessed" || fail "progress: no plan" "$(cat "$t/err")"
"$MMBENCH" suite /dev/stdin --dry-run -i 2 >"$t/out" <<'EOT'
pageout -p instances=1,3 -p size_mb=8
thp_storm -p mthp=64kB,512kB -p threads=1 -w 0
EOT
[ "$(head -n1 "$t/out")" = workload,case,iterations,warmups ] && [ "$(wc -l <"$t/out")" = 4 ] &&
	grep -q '^pageout,.*instances=3;.*,2,1$' "$t/out" &&
	grep -q '^thp_storm,"[^"]*mthp=64kB,512kB;[^"]*threads=1",2,0$' "$t/out" &&
	pass "mmbench suite --dry-run: the expanded cases as CSV, nothing run" ||
	fail "mmbench --dry-run" "$(cat "$t/out")"
printf '%s\n' '# count calls' '--probe try_to_unmap_one' 'pageout -p size_mb=8' >"$t/ps"
printf '%s\n' 'pageout -p size_mb=8' '--probe bad-name' >"$t/ps2"
"$MMBENCH" suite "$t/ps" --dry-run >/dev/null 2>"$t/err" &&
	! "$MMBENCH" suite "$t/ps2" --dry-run >/dev/null 2>"$t/err2" &&
	grep -q "ps2:2: in this --probe line" "$t/err2" &&
	pass "suite --probe line: accepted, a bad one refused with FILE:LINE" ||
	fail "suite --probe line" "$(cat "$t/err" "$t/err2")"

# ---- accelerator: TCG whenever KVM cannot work; KVM itself only where a
# usable /dev/kvm and vmx/svm exist (a probe boot then decides).
a=$("$vm/kvm-probe" -v 2>"$t/err")
if [ ! -e /dev/kvm ] || ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
	[ "$a" = tcg ] && grep -q 'tcg:' "$t/err" &&
		pass "kvm-probe: tcg, because $(sed 's/.*tcg: //' "$t/err")" || fail "kvm-probe" "said '$a'"
else
	skip "kvm-probe: tcg fallback" "this host has a usable-looking KVM; test_lab covers the probe boot"
fi

# ---- lab usage errors: exit 2, naming the input
lab_usage() {
	local name=$1 want=$2; shift 2
	"$vm/lab" "$@" >/dev/null 2>"$t/err"
	local rc=$?
	[ $rc = 2 ] && grep -q -- "$want" "$t/err" && pass "lab usage: $name" ||
		fail "lab usage: $name" "rc=$rc $(cat "$t/err")"
}
lab_usage "no kernel" "no kernel"
lab_usage "kernel neither file nor release" "'/no/such/bzImage': not a file" --vm /no/such/bzImage
lab_usage "kernel not a bzImage" "not a bzImage" --vm "$t/m"
lab_usage "nodes" "'zero' is not a positive integer" --vm bookworm --vm-nodes zero
lab_usage "memory size" "'12Q' is not a size" --vm bookworm --vm-mem-per-node 12Q
lab_usage "cpus per node" "at least one CPU per node" --vm bookworm --vm-nodes 2 --vm-cpus 1
lab_usage "labels per kernel" "one per --vm" --vm bookworm --vm bullseye --label x
lab_usage "suite" "--suite 'nosuch'" --vm bookworm --suite nosuch
lab_usage "unknown option" "unknown option '--vm-bogus'" --vm bookworm --vm-bogus 1
lab_usage "pair syntax" "expected BASE,PATCHED" --vm-pair bookworm
lab_usage "entry" "'efi' is not auto, pvh or bzimage" --vm bookworm --vm-entry efi
lab_usage "alpha" "--alpha needs a value" --vm bookworm --vm bullseye --alpha
finish
