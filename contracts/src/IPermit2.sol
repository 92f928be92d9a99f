// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title The part of the canonical Uniswap Permit2 (ISignatureTransfer) the gasless executor calls.
/// @notice Declared here, field for field with Permit2's own interface, so our contracts compile
/// without Permit2's sources; the deployed Permit2 at 0x000000000022D473030F116dDEE9F6B43aC78BA3
/// is the one that answers.
interface IPermit2 {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    /// @dev Permit2 checks the owner's signature over the permit with `spender = msg.sender` and
    /// the witness folded in under `witnessTypeString`, burns the nonce, then moves the tokens.
    function permitWitnessTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;

    function nonceBitmap(address owner, uint256 wordPos) external view returns (uint256);

    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
