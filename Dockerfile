# courier in a container: `courier forward` by default, as an unprivileged user, its state in the
# /data volume, the bot token from a secret file. Built for linux/amd64 and linux/arm64 by
# .github/workflows/release.yml; compose.yaml shows how to run it.
#
#   docker build -t courier .
#   docker run -d --init -v courier-data:/data -v "$PWD/config.yml:/etc/courier/config.yml:ro" \
#     -e COURIER_MESSENGER_AUTH_TOKEN_FILE=/run/secrets/messenger_auth_token ... courier

# The bases are pinned by tag and digest (a multi-platform index), so a rebuild uses the very
# images this file was written against; the tag says which, the digest makes it so. To move to a
# newer base: `docker buildx imagetools inspect IMAGE:TAG` prints the index's digest.
#
# The binary is built on the target's own platform (QEMU for a foreign one), so the native
# libsql addon inside it is the target's, as in the release workflow.
FROM denoland/deno:2.9.6@sha256:2014dc167ece617ef7e7ba40631ac2234c59e75ce693e7cc2dc2602b3c87859d AS build
WORKDIR /src
COPY deno.json deno.lock main.ts ./
COPY src ./src
RUN deno install --frozen \
 && deno compile --allow-all --v8-flags=--max-semi-space-size=2,--heap-growing-percent=20 --output /out/courier main.ts \
 && /out/courier --version \
 && mkdir /out/data

# glibc and libgcc, nothing else: no shell, no package manager; "nonroot" is uid 65532.
FROM gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f
COPY --from=build /out/courier /usr/local/bin/courier
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# Two glibc arenas: a lower peak for a tick of thousands of feeds (bench/NOTES.md).
ENV COURIER_CONFIG=/etc/courier/config.yml MALLOC_ARENA_MAX=2
# The state lives in /data: set data_dir: /data in the config (without it, the state would go
# beside the config, which is mounted read-only). /data is also the working directory, where a
# relative path given on the command line (a database to browse, a file to preview) is found.
VOLUME /data
WORKDIR /data
# /healthz, /readyz and /metrics with --metrics :9464.
EXPOSE 9464
# courier handles SIGTERM itself, also as PID 1: runs under way finish within --grace (30 s).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/courier", "healthcheck", "127.0.0.1:9464"]
ENTRYPOINT ["/usr/local/bin/courier"]
CMD ["forward", "--metrics", ":9464"]
