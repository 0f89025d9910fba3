#!/usr/bin/env bash
# Core unit tests (ASan+UBSan build): tests/core/unit.c
. "$(dirname "$0")/../lib.sh"
bin=$TOP/tests/core/unit.bin
[ -x "$bin" ] || { fail "unit: built" "$bin missing (make tests/core/unit.bin)"; finish; }
"$bin"
