# placesim container: a static binary plus the solver and partitioners the
# MIP and partitioning placers call. Build: docker build -t placesim .
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/placesim ./cmd/placesim

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends coinor-cbc scotch metis \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/placesim /usr/local/bin/placesim
COPY scenarios /scenarios
WORKDIR /work
ENTRYPOINT ["placesim"]
