#!/bin/sh
echo "coverage tools are not available offline (examples/bazel/third_party/coverage_tools_stub)" >&2
exit 1
