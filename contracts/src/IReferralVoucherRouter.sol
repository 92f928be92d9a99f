// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Referral voucher router
/// @notice Pays referral rewards against vouchers the partner-service signs with EIP-712.
/// @dev EIP-712 domain: name "XchainReferralVouchers", version "1", with no chainId and no
/// verifyingContract: both are fields of the voucher itself, so a single domain also covers
/// vouchers redeemed on Solana. A router must check `voucher.chainId == block.chainid` and
/// `voucher.router == bytes32(uint256(uint160(address(this))))`.
interface IReferralVoucherRouter {
    /// @notice A referral reward. Addresses are bytes32 so EVM and Solana vouchers share the
    /// struct: an EVM address is left-padded with zeros, a Solana key is its 32 bytes.
    struct Voucher {
        /// @dev Unique per voucher; a voucher is redeemed at most once.
        bytes32 id;
        /// @dev The chain the voucher pays out on.
        uint256 chainId;
        /// @dev The router (or Solana program) that pays it.
        bytes32 router;
        /// @dev The token paid; zero is the native asset.
        bytes32 token;
        /// @dev The account paid.
        bytes32 referrer;
        /// @dev The amount paid, in the token's base units.
        uint256 amount;
    }

    /// @notice Emitted when a voucher is paid out.
    /// @param id The voucher id.
    /// @param referrer The account paid.
    /// @param token The token paid.
    /// @param amount The amount paid.
    event VoucherRedeemed(bytes32 indexed id, bytes32 indexed referrer, bytes32 token, uint256 amount);

    /// @notice Pays `voucher.amount` of `voucher.token` to `voucher.referrer`.
    /// @dev Reverts when the signature is not the voucher signer's, when the voucher is for
    /// another chain or router, or when it was already redeemed.
    /// @param voucher The voucher.
    /// @param signature The 65-byte (r, s, v) EIP-712 signature over the voucher.
    function redeem(Voucher calldata voucher, bytes calldata signature) external;

    /// @notice Whether the voucher with this id has been redeemed.
    /// @param id The voucher id.
    /// @return True once the voucher was redeemed.
    function redeemed(bytes32 id) external view returns (bool);
}
