#!/usr/bin/env bash
# Checks the Dockerfile without a Docker engine (make lint): the stages and
# final image are the intended ones, and the builder's `go build` succeeds
# on the files the build context holds (git's tracked and untracked, less
# those .dockerignore excludes) and gives a static binary.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
fail() { echo "Dockerfile: $*" >&2; exit 1; }

df=Dockerfile
[ -f "$df" ] || fail "missing"
[ -f .dockerignore ] || fail ".dockerignore missing"
grep -qx '\.git' .dockerignore || fail ".dockerignore does not exclude .git"

mapfile -t froms < <(grep -E '^FROM ' "$df")
[ "${#froms[@]}" -ge 2 ] || fail "want a multi-stage build (builder and final image), found ${#froms[@]} FROM"
[[ ${froms[0]} =~ ^FROM\ golang:1\.26[^\ ]*\ AS\ ([A-Za-z0-9_-]+)$ ]] || fail "first stage is not 'FROM golang:1.26… AS <name>': ${froms[0]}"
builder=${BASH_REMATCH[1]}
final=${froms[-1]}
[[ $final =~ ^FROM\ (gcr\.io/distroless/static[^\ ]*|scratch)$ ]] || fail "final image is not distroless static or scratch: $final"

# The final stage: from its FROM to the end.
last=$(awk '/^FROM /{n=NR} END{print n}' "$df")
stage=$(tail -n +"$last" "$df")
grep -qE '^ENTRYPOINT \["[^"]*/cqlload"' <<<"$stage" || fail "final stage has no exec-form ENTRYPOINT running cqlload"
user=$(grep -E '^USER ' <<<"$stage" | tail -1 | awk '{print $2}')
if [[ $final != *:nonroot* ]] && { [ -z "$user" ] || [[ $user =~ ^(root|0)(:|$) ]]; }; then
  fail "final stage runs as root"
fi
while read -r from; do
  [ "$from" = "$builder" ] || fail "COPY --from=$from names no stage"
done < <(grep -oE -- '--from=[A-Za-z0-9_-]+' "$df" | cut -d= -f2 | sort -u)
grep -q 'CGO_ENABLED=0' "$df" || fail "the build does not set CGO_ENABLED=0"

# The build command, replayed on a copy of the build context.
cmd=$(grep -oE 'go build [^&\\]*\./cmd/cqlload' "$df") || fail "no 'go build … ./cmd/cqlload' in the builder"
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mapfile -t ignore < <(grep -vE '^\s*(#|$)' .dockerignore)
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue # deleted in the work tree
  for p in "${ignore[@]}"; do
    p=${p#/}
    # Patterns as .dockerignore reads them: a path, a directory prefix,
    # or **/ for any depth (glob characters as the shell matches them).
    # shellcheck disable=SC2053
    if [[ $f == $p || $f == $p/* || ( $p == '**/'* && ( $f == ${p#\*\*/} || $f == */${p#\*\*/} ) ) ]]; then
      continue 2
    fi
  done
  mkdir -p "$ctx/$(dirname "$f")"
  cp "$f" "$ctx/$f"
done
out=$ctx/out/cqlload
cmd=${cmd/\/out\/cqlload/$out}
(cd "$ctx" && eval "CGO_ENABLED=0 GOOS=linux GOFLAGS= ${cmd/#go /$GO }") || fail "the builder's '$cmd' fails on the build context"
"$GO" version -m "$out" | grep -q 'CGO_ENABLED=0' || fail "the binary is not built with CGO_ENABLED=0"
echo "Dockerfile: ok (stages ${builder} → ${final#FROM }; build context builds a static cqlload)"
