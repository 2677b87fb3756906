# check=skip=InvalidDefaultArgInFrom
# One image per service: a static binary on an empty base, running as uid 65532. Build from the
# repository root, naming the service:
#   docker build --build-arg SERVICE=leads -t bizassist/leads:dev .
# SERVICE is required: one of identity, leads, assistant, analytics, integrations, console (without it the
# build stops at the last FROM: stage name "service-" is invalid). tools/images writes the same
# image (binary, passwd/group, CA bundle, entrypoint, user) without a container engine, and its
# tests check that this file agrees with it.
ARG SERVICE

FROM golang:1.26-bookworm AS build
ARG SERVICE
ENV CGO_ENABLED=0 GOWORK=off
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY libs/go.mod libs/go.sum libs/
COPY services/${SERVICE}/go.mod services/${SERVICE}/go.sum services/${SERVICE}/
RUN cd services/${SERVICE} && go mod download
COPY libs/ libs/
COPY services/${SERVICE}/ services/${SERVICE}/
RUN cd services/${SERVICE} && go build -trimpath -ldflags="-s -w" -o /out/usr/local/bin/${SERVICE} ./cmd/${SERVICE}
RUN mkdir -p /out/etc/ssl/certs && mkdir -m 1777 /out/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ \
 && echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' >/out/etc/passwd \
 && echo 'nonroot:x:65532:' >/out/etc/group

FROM scratch AS runtime
COPY --from=build /out/ /
ENV PATH=/usr/local/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
EXPOSE 8080

# ENTRYPOINT takes no build arguments, so each service has a stage naming its binary and the
# last stage is picked by SERVICE. (CMD follows ENTRYPOINT: setting ENTRYPOINT clears CMD.)
FROM runtime AS service-identity
ENTRYPOINT ["/usr/local/bin/identity"]
CMD ["serve"]

FROM runtime AS service-leads
ENTRYPOINT ["/usr/local/bin/leads"]
CMD ["serve"]

FROM runtime AS service-assistant
ENTRYPOINT ["/usr/local/bin/assistant"]
CMD ["serve"]

FROM runtime AS service-analytics
ENTRYPOINT ["/usr/local/bin/analytics"]
CMD ["serve"]

FROM runtime AS service-integrations
ENTRYPOINT ["/usr/local/bin/integrations"]
CMD ["serve"]

FROM runtime AS service-console
ENTRYPOINT ["/usr/local/bin/console"]
CMD ["serve"]

FROM service-${SERVICE}
