#!/usr/bin/env bash
# expect_failures.sh "CHECK..." KIT ARGS...: runs the conformance kit and passes when it fails
# exactly the named checks, no more and no fewer (a kit that catches a broken scheduler for the
# wrong reason, or stops catching one, fails this test).
set -uo pipefail
expected=$1
shift
report=$("$@" 2>&1)
status=$?
echo "$report"
failed=$(sed -n 's/^FAIL \([a-z_]*\):.*/\1/p' <<<"$report" | tr '\n' ' ')
if [[ $status -eq 0 || "$failed" != "$expected " ]]; then
  echo "expected the kit to fail exactly: $expected; it failed: ${failed:-nothing} (exit $status)"
  exit 1
fi
echo "the kit failed exactly: $expected"
