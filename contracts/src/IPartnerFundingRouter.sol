// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Partner funding router
/// @notice Partners top up their xchain balance by calling `fund` with the funding id the
/// partner-service issued; the service credits the balance when it sees the `Funded` event.
interface IPartnerFundingRouter {
    /// @notice Emitted once per successful `fund` call.
    /// @param fundingId The funding id the partner-service issued.
    /// @param token The asset funded; the zero address is the chain's native asset.
    /// @param from The account that paid (`msg.sender`).
    /// @param amount The amount received, in the token's base units.
    event Funded(bytes32 indexed fundingId, address indexed token, address indexed from, uint256 amount);

    /// @notice Funds a partner balance.
    /// @dev With `token == address(0)` the native asset is funded and `msg.value` must equal
    /// `amount`. For an ERC-20 `msg.value` must be 0 and the router pulls `amount` from
    /// `msg.sender` with `transferFrom`, so the payer approves the router first.
    /// @param fundingId The funding id the partner-service issued.
    /// @param token The asset: the zero address for native, else an ERC-20.
    /// @param amount The amount, in the token's base units; greater than zero.
    function fund(bytes32 fundingId, address token, uint256 amount) external payable;
}
