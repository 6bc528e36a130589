#!/usr/bin/env bash
# Usage: docker_save_tarball.sh BINARY TAG OUTPUT
# Writes OUTPUT in the `docker save` format (manifest.json, the image config named after its
# sha256, one layer.tar) for an image holding only BINARY as /hello, its entrypoint. Every
# tar entry has a fixed owner, mode and mtime, in sorted order, so the same BINARY always gives
# the same bytes, the same config digest and so the same image id.
set -euo pipefail
binary=$1 tag=$2 output=$3

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
reproducible_tar() {
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu "$@"
}

mkdir "$staging/rootfs"
cp "$binary" "$staging/rootfs/hello"
chmod 0755 "$staging/rootfs/hello"
reproducible_tar -C "$staging/rootfs" -cf "$staging/layer.tar" hello
layer_digest=$(sha256sum "$staging/layer.tar" | cut -d' ' -f1)

case "$(uname -m)" in
  aarch64) architecture=arm64 ;;
  *) architecture=amd64 ;;
esac
printf '{"architecture":"%s","os":"linux","config":{"Entrypoint":["/hello"]},' "$architecture" \
  >"$staging/config.json"
printf '"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},' "$layer_digest" >>"$staging/config.json"
printf '"history":[{"created_by":"bazel build //hello:image.tar"}]}' >>"$staging/config.json"
config_digest=$(sha256sum "$staging/config.json" | cut -d' ' -f1)
mv "$staging/config.json" "$staging/$config_digest.json"

printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$config_digest" "$tag" \
  >"$staging/manifest.json"
reproducible_tar -C "$staging" -cf "$output" manifest.json "$config_digest.json" layer.tar
