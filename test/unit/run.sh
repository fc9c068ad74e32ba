#!/bin/sh
# Run the unit test binaries (built with ASan+UBSan); a sanitizer report
# fails the test.  Prints PASS/FAIL lines on stderr and the counts as
# shell assignments on stdout for test/run.sh.
passed=0
failed=0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
for t in "$@"; do
	name=$(basename "$t")
	if out=$("$t" 2>&1); then
		passed=$((passed + 1))
		echo "PASS unit/$name" >&2
	else
		failed=$((failed + 1))
		echo "FAIL unit/$name" >&2
		printf '%s\n' "$out" | tail -40 >&2
	fi
done
echo "UNIT_PASSED=$passed"
echo "UNIT_FAILED=$failed"
