// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The order every xchain quote binds.
/// @notice `quote_hash = keccak256(abi.encode(order))`. The API returns every field in the quote's
/// `order` object, so a client recomputes the hash with viem alone, and the router computes the
/// same hash on chain from the same struct.
library XchainOrder {
    struct Referrer {
        /// @dev Referrer address on the source chain, left-padded to 32 bytes (a Solana key as is).
        bytes32 account;
        uint16 bps;
    }

    struct Order {
        /// @dev Layout version of this struct; 1.
        uint8 version;
        /// @dev Random per quote, so two identical requests never share a hash.
        bytes32 salt;
        uint64 srcChainId;
        uint64 dstChainId;
        /// @dev Token addresses: EVM left-padded to 32 bytes (zero = native), Solana mint bytes (zero = SOL).
        bytes32 srcToken;
        bytes32 dstToken;
        /// @dev Deposit, source base units.
        uint256 amountIn;
        /// @dev Expected output net of every fee, destination base units.
        uint256 amountOut;
        /// @dev A fulfilment delivering less does not land.
        uint256 minAmountOut;
        bytes32 recipient;
        bytes32 refundAddress;
        /// @dev Native asset delivered on the destination, base units.
        uint256 gasDrop;
        /// @dev 1 exact input, 2 expected output, 3 exact input guaranteed output, 4 exact output.
        uint8 tradeType;
        uint16 slippageBps;
        uint16 srcSlippageBps;
        /// @dev Destination fulfilment gas priced in, destination native base units.
        uint256 dstGasNative;
        /// @dev Relay gas of a gasless order, source token base units (charged to the user or the sponsor).
        uint256 sponsorGas;
        bool gasless;
        bool sponsorFees;
        /// @dev keccak256(abi.encode(Referrer[])) of the referrers, or zero when there are none.
        bytes32 referrersHash;
        /// @dev Unix seconds.
        uint64 issuedAt;
        uint64 expiresAt;
        /// @dev The contract (or Solana program) the deposit goes to.
        bytes32 depositTarget;
    }

    function hash(Order memory order) internal pure returns (bytes32) {
        return keccak256(abi.encode(order));
    }

    function hashReferrers(Referrer[] memory referrers) internal pure returns (bytes32) {
        return referrers.length == 0 ? bytes32(0) : keccak256(abi.encode(referrers));
    }
}
