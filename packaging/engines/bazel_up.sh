#!/usr/bin/env bash
# Makes Bazel usable with no network for the bazel packagers and examples/bazel (Debian 12, root):
#   1. installs Debian's Bazel 4 (bazel-bootstrap), its Java rules (bazel-rules-java) and the
#      Python pieces the built-in pkg_tar tool imports (python3-absl, python3-six) when missing,
#      plus python-is-python3 (Bazel's py_binary stub starts with `#!/usr/bin/env python`),
#   2. puts six.py back into Bazel's embedded tools: Debian strips it, but build_tar imports it,
#   3. checks that `bazel version` answers.
# Idempotent: a second run only checks. The workspace side (local_repository stand-ins for the
# rules Bazel 4 would download, and a .bazelrc) is in examples/bazel; see docs/bazel-packagers.md.
set -euo pipefail
source "$(dirname "$0")/../apt.sh"

fail() {
  echo "bazel_up.sh: $*" >&2
  exit 1
}

missing=()
for package in bazel-bootstrap bazel-rules-java python3-absl python3-six python-is-python3; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  apt_install "${missing[@]}"
fi

six_source=/usr/lib/python3/dist-packages/six.py
six_target=/usr/share/bazel/embedded_tools/third_party/py/six/six.py
if [[ ! -f "$six_target" ]]; then
  [[ -f "$six_source" ]] || fail "$six_source is missing (package python3-six)"
  mkdir -p "$(dirname "$six_target")"
  cp "$six_source" "$six_target"
  echo "copied $six_source to $six_target"
fi

# The client and its embedded JVM server must start. Debian's build carries no version stamp, so
# `bazel version` answers "Version information not available" (exit 2) once the server ran.
answer=$(cd / && bazel --batch version 2>&1) ||
  grep -q 'Version information not available' <<<"$answer" ||
  fail "\`bazel version\` failed: $(tail -n 5 <<<"$answer")"
echo "bazel ready: Debian bazel-bootstrap $(dpkg-query -W -f='${Version}' bazel-bootstrap)"
