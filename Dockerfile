# The ctrlsim command in a container image, for the Indexed Job of deploy/explore-job.yaml
# (or any other runner). Built from the Go module proxy, like everything else here:
#
#   docker build -t ctrlsim .
#
# The build stage's Go is the go.mod's (a test in cmd/ctrlsim checks the two agree); the
# runtime stage is distroless, with nothing but the static binary, run as a non-root user.

FROM golang:1.26 AS build
ENV GOPROXY=https://proxy.golang.org,direct GOTOOLCHAIN=local CGO_ENABLED=0
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -o /out/ctrlsim ./cmd/ctrlsim/internal/ctrlsim

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ctrlsim /usr/local/bin/ctrlsim
# 65532 is distroless's "nonroot" user; the Job's securityContext asks for it too.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/ctrlsim"]
