#!/usr/bin/env bash
# Workload table unit tests (ASan+UBSan build): tests/core/tables_unit.c
. "$(dirname "$0")/../lib.sh"
bin=$TOP/tests/core/tables_unit.bin
[ -x "$bin" ] || { fail "tables: built" "$bin missing (make tests/core/tables_unit.bin)"; finish; }
"$bin"
