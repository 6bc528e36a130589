#!/usr/bin/env bash
# Builds sortie-test/python:3.11, the stand-in for python:3.11-slim that the python_container
# packager tests and examples build on (no registry is reachable here, so nothing can be pulled):
# FROM scratch, with this Debian's own /usr/bin/python3.11, the shared libraries `ldd` lists for
# it and its extension modules, /usr/lib/python3.11 without test/ and __pycache__, and the static
# busybox as /bin/sh and the usual tools. Needs the Engine docker_up.sh starts (root, Debian 12).
# Idempotent and fast: nothing is rebuilt while the image carries the current recipe label.
set -euo pipefail

image=sortie-test/python:3.11
recipe=1  # bump when the image's content changes; the image is rebuilt when its label differs
source "$(dirname "$0")/engine_socket.sh"
source "$(dirname "$0")/../apt.sh"

current=$(engine "http://localhost/images/$image/json" 2>/dev/null |
  sed -n 's/.*"sortie-test.recipe":"\([^"]*\)".*/\1/p' | head -n 1) ||
  fail "no Docker Engine answers on $socket (run docker_up.sh first)"
if [[ "$current" == "$recipe" ]]; then
  echo "test image $image ready"
  exit 0
fi

missing=()
[[ -x /usr/bin/python3.11 ]] || missing+=(python3.11)
[[ -x /bin/busybox ]] && /bin/busybox --list 2>/dev/null | grep -qx sh || missing+=(busybox-static)
if ((${#missing[@]})); then
  apt_install "${missing[@]}"
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
rootfs=$context/rootfs
mkdir -p "$rootfs/bin" "$rootfs/usr/bin"
cp /bin/busybox "$rootfs/bin/busybox"
cp /usr/bin/python3.11 "$rootfs/usr/bin/python3.11"
# The standard library, symlinks resolved (sitecustomize.py points into /etc); config-3.11-*
# only serves building C extensions and links to the large libpython.
tar -C / -chf - --exclude=usr/lib/python3.11/test --exclude=__pycache__ \
  --exclude='usr/lib/python3.11/config-3.11-*' usr/lib/python3.11 | tar -C "$rootfs" -xf -
# Every library the interpreter and its extension modules load, at the path the loader finds.
libraries=$(ldd /usr/bin/python3.11 /usr/lib/python3.11/lib-dynload/*.so 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(/ {print $1}' | sort -u)
for library in $libraries; do
  mkdir -p "$rootfs$(dirname "$library")"
  cp -L "$library" "$rootfs$library"
done

cat >"$context/Dockerfile" <<EOF_DOCKERFILE
FROM scratch
COPY rootfs/ /
RUN ["/bin/busybox", "sh", "-c", "/bin/busybox --install -s /bin && mkdir -p /tmp /root /etc && chmod 1777 /tmp && echo root:x:0:0:root:/root:/bin/sh >/etc/passwd && echo root:x:0: >/etc/group && ln -s python3.11 /usr/bin/python3 && ln -s python3.11 /usr/bin/python"]
ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
LABEL sortie-test.recipe=$recipe
CMD ["python3"]
EOF_DOCKERFILE
engine_build "$image" "$context"
engine "http://localhost/images/$image/json" | grep -q '"sortie-test.recipe"' ||
  fail "$image is missing after the build"
echo "built test image $image"
