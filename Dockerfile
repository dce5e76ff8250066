# courier in a container: `courier forward` by default, as an unprivileged user, its state in the
# /data volume, the bot token from a secret file. Built for linux/amd64 and linux/arm64 by
# .github/workflows/release.yml; compose.yaml shows how to run it.
#
#   docker build -t courier .
#   docker run -d --init -v courier-data:/data -v "$PWD/config.yml:/etc/courier/config.yml:ro" \
#     -e COURIER_MESSENGER_AUTH_TOKEN_FILE=/run/secrets/messenger_auth_token ... courier

ARG DENO_VERSION=2.9.6

# The binary is built on the target's own platform (QEMU for a foreign one), so the native
# libsql addon inside it is the target's, as in the release workflow.
FROM denoland/deno:${DENO_VERSION} AS build
WORKDIR /src
COPY deno.json deno.lock main.ts ./
COPY src ./src
RUN deno install --frozen \
 && deno compile --allow-all --v8-flags=--max-semi-space-size=2,--optimize-for-size --output /out/courier main.ts \
 && /out/courier --version \
 && mkdir /out/data

# glibc and libgcc, nothing else: no shell, no package manager; "nonroot" is uid 65532.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/courier /usr/local/bin/courier
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# Two glibc arenas: a lower peak for a tick of thousands of feeds (bench/NOTES.md).
ENV COURIER_CONFIG=/etc/courier/config.yml MALLOC_ARENA_MAX=2
# The config's data_dir must be /data: the database and the last-success file live there.
VOLUME /data
# /healthz, /readyz and /metrics with --metrics :9464.
EXPOSE 9464
# courier handles SIGTERM itself, also as PID 1: runs under way finish within --grace (30 s).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/courier", "healthcheck", "127.0.0.1:9464"]
ENTRYPOINT ["/usr/local/bin/courier"]
CMD ["forward", "--metrics", ":9464"]
