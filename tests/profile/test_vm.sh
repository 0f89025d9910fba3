#!/usr/bin/env bash
# --profile in the VM lab: one short guest (Debian bookworm's 6.1, TCG).
# The host's perf and its libraries travel into the initramfs, the guest
# samples its own kernel (no counters under TCG: cpu-clock, said in
# meta.csv), kernel symbols resolve inside the guest (kallsyms), and the
# raw data comes home over the results channel, checked and unpacked.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
if [ "$(id -u)" != 0 ]; then skip "profile in the VM lab" "not root"; exit 4; fi
command -v perf >/dev/null || { skip "profile in the VM lab" "no perf on the host (linux-perf)"; exit 4; }
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
export MMBENCH

"$vm/fetch-kernel" bookworm >/dev/null 2>"$t/err" || {
	fail "profile in the VM lab: bookworm kernel" "$(tail -3 "$t/err")"; finish; }
cat >"$t/suite" <<'EOT'
pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 2 -w 0
EOT
"$TOP/run.sh" --vm bookworm --suite "$t/suite" --out "$t/res" --profile=callgraph \
	--probe try_to_unmap_one >"$t/out" 2>"$t/err"
rc=$?
d=$(sed -n 's/^results: //p' "$t/out" | head -1)
if [ $rc != 0 ] || [ ! -d "$d" ]; then
	fail "profile in the VM lab" "run.sh exited $rc: $(tail -5 "$t/err")"
	finish
fi
ev=$(meta_get "$d/meta.csv" profile_event)
acc=$(meta_get "$d/meta.csv" vm_accel)
ps=$(meta_get "$d/meta.csv" profile_status)
if [ "$ps" = ok ] && { [ "$acc" != tcg ] || [ "$ev" = cpu-clock ]; }; then
	pass "guest: perf runs in the guest ($ev under $acc)"
else
	fail "guest: perf" "status '$ps', event '$ev' under '$acc'"
fi
st=$("$MMBENCH" field "$d/profile_iterations.csv" iteration status | tr '\t\n' '  ')
raw=$("$MMBENCH" field "$d/profile_iterations.csv" perf_data | head -n 1)
if [ "$st" = "0 ok 1 ok " ] && [ -s "$d/$raw" ] && [ -s "$d/${raw%.perf.data}.kallsyms" ] &&
	[ -s "$d/profile/kernel_functions.fnv32" ] && ! ls "$d"/profile.*.b64 >/dev/null 2>&1; then
	pass "guest: both iterations profiled; raw data, its kernel symbols and the function hashes came home"
else
	fail "guest: iterations" "statuses '$st', raw '$raw': $(ls -a "$d" "$d/profile" | tr '\n' ' ')"
fi
# kernel symbols resolved in the guest: pageout's own path is in the profile
if grep -q ',madvise_pageout,\[kernel.kallsyms\],' "$d/profile.csv"; then
	pass "guest: kernel symbols resolved inside the guest (madvise_pageout in profile.csv)"
else
	fail "guest: kernel symbols" "no madvise_pageout row: $(grep -c 'kernel.kallsyms' "$d/profile.csv") kernel rows"
fi
# the guest has kprobe events: the probed function is the claim's (first
# in a comparison) and its kprobe was armed while perf sampled (said)
fo=$("$MMBENCH" field --where key=note_profile_focus "$d/meta.csv" value)
ar=$("$MMBENCH" field --where key=note_profile_probes "$d/meta.csv" value)
if [ "$fo" = "pageout: try_to_unmap_one" ] && [ "$ar" = "pageout: try_to_unmap_one" ]; then
	pass "guest: meta.csv names the focus (--probe) and the kprobes armed while sampling"
else
	fail "guest: focus and probes notes" "focus '$fo', probes '$ar'"
fi
# the raw data reads on the host with the guest's symbols
if perf report -i "$d/$raw" --kallsyms "$d/${raw%.perf.data}.kallsyms" --stdio -q \
	--no-children -g none --sort sym 2>/dev/null | grep -q 'madvise\|pageout\|clear_page\|safe_halt'; then
	pass "host: perf report reads the guest's raw data with its kernel symbols"
else
	fail "host: perf report" "no guest kernel symbol in the report of $raw"
fi
finish
