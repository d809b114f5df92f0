# cqlload in a container: a static binary on distroless (no shell, no
# libc, user nonroot).
#   docker build -t cqlload .
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/data" --network host \
#     cqlload --hosts 127.0.0.1 --table ks.tbl data.csv
# Needs BuildKit (the default builder since Docker 23) for the cache mounts.

FROM golang:1.26 AS build
WORKDIR /src
# The modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# Set by BuildKit from --platform; the Go toolchain cross-compiles.
ARG TARGETOS TARGETARCH
# The build context has no .git (see .dockerignore), so there is no VCS
# information to stamp: cqlload --version reports "devel" here. The
# release archives' binaries (goreleaser, built from a tag) report it.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/cqlload ./cmd/cqlload \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cqlload /usr/local/bin/cqlload
# The working directory, where error files are written by default; mount
# the directory holding the CSV files here.
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/cqlload"]
