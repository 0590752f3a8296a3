# Container image of fsmcp: builds the release binary, then ships it alone on a distroless
# runtime as a non-root user, serving the directory mounted at /workspace over stdio.
#
# UNTESTED: no container engine on the machine this was written on could pull or run images,
# so this recipe has never been built or run. tests/release_manifest.rs checks it statically
# (labels, entry point, the flags it passes start the binary), scripts/lint-container runs
# hadolint on it, and docs/container.md says what to verify on the first real build.
#
# Usage (from the repository root; VERSION must equal Cargo.toml's `version`, the build stops
# otherwise):
#   docker build --build-arg VERSION="$(scripts/release version)" -t ghcr.io/fsmcp/fsmcp:0.1.0 .
#   docker run -i --rm -v "$PWD:/workspace" ghcr.io/fsmcp/fsmcp
#   docker run -i --rm -v "$PWD:/workspace" ghcr.io/fsmcp/fsmcp --include 'src/**' --tools fs

# Rust 1.88 is the oldest the crate builds with (Cargo.toml `rust-version`); this pins the one
# the test suite runs on. Bookworm on both sides: the binary links glibc dynamically, so the
# runtime's glibc (Debian 12's 2.36) must be at least the builder's.
ARG RUST_VERSION=1.95.0
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM docker.io/library/rust:${RUST_VERSION}-bookworm AS build
ARG VERSION
WORKDIR /src
# Only what the build reads (the .dockerignore admits nothing else): the manifests, the two
# crates, and the bench and example targets Cargo.toml declares (cargo refuses a manifest
# whose declared targets are missing).
COPY Cargo.toml Cargo.lock ./
COPY crates crates
COPY src src
COPY benches benches
COPY examples examples
# The full image carries gcc, which the tree-sitter grammars (C) need.
RUN cargo build --release --locked --bin fsmcp \
    && mkdir -p /out/workspace \
    && cp target/release/fsmcp /out/fsmcp
# The version lives in Cargo.toml alone: a VERSION build argument (which stamps the label
# below) that is missing or disagrees with the built binary stops the build here.
RUN built="$(/out/fsmcp --version)" \
    && if [ "$built" != "$VERSION" ]; then \
        echo "build with --build-arg VERSION=$built (Cargo.toml's version), not '$VERSION'" >&2; \
        exit 1; \
    fi

FROM ${RUNTIME_IMAGE}
ARG VERSION
ARG REVISION=unknown
# The registry reads the first label to prove this image belongs to the server it lists.
LABEL io.modelcontextprotocol.server.name="io.github.fsmcp/fsmcp" \
      org.opencontainers.image.title="fsmcp" \
      org.opencontainers.image.description="A root-confined filesystem server for AI agents over the Model Context Protocol" \
      org.opencontainers.image.source="https://github.com/fsmcp/fsmcp" \
      org.opencontainers.image.url="https://github.com/fsmcp/fsmcp" \
      org.opencontainers.image.documentation="https://github.com/fsmcp/fsmcp/blob/main/docs/container.md" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /out/fsmcp /usr/local/bin/fsmcp
COPY LICENSE /usr/share/doc/fsmcp/LICENSE
# An empty root owned by the runtime user, so the image starts even when nothing is mounted.
COPY --from=build --chown=65532:65532 /out/workspace /workspace
# distroless's `nonroot`, by number, so a runtime that insists on a non-root user can tell.
USER 65532:65532
WORKDIR /workspace
# Only for `--http 0.0.0.0:8080` (see docs/container.md); stdio needs no port.
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/fsmcp", "--root", "/workspace"]
CMD ["--include", "**"]
