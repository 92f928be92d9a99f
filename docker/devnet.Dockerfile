# The local chains (tools/devnet `serve`: anvils with the contracts, the operator wallet equipped,
# and the Solana stand-in) as an image, for docker/compose.devnet.yaml. Development only: it starts
# from docker/Dockerfile's build stage (tagged localhost/xchain/build:local by
# docker/podman/images.sh), which holds anvil, solc and litesvm among the dev packages.
ARG BUILD_IMAGE=localhost/xchain/build:local
FROM ${BUILD_IMAGE}
WORKDIR /src
ENV DATA_DIR=/data DEVNET_HOST=0.0.0.0 SOLANA_STANDIN_HOST=0.0.0.0
EXPOSE 8545 8546 8547 8899
ENTRYPOINT ["node", "dist/tools/devnet/src/main.js", "serve"]
