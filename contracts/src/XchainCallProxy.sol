// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The caller of destination calls.
/// @notice The router runs an order's destination call through this contract, never itself: the
/// target sees this contract as `msg.sender`, which holds nothing and may do nothing anywhere, so
/// calldata chosen by a user cannot act with the router's authority (its deposits, its roles).
/// Anyone may call `run`; it only makes the proxy call a target with the gas and value given.
contract XchainCallProxy {
    /// @notice Not enough gas left to give the target its whole `gasLimit` (EIP-150 keeps 1/64 back).
    error InsufficientGas();
    /// @notice The target reverted; `reason` is its revert data.
    error CallReverted(bytes reason);

    /// @notice Calls `target` with `data`, exactly `gasLimit` gas and the value sent; reverts
    /// `CallReverted` with the target's revert data when it reverts.
    function run(address target, uint256 gasLimit, bytes calldata data) external payable {
        // The call below would get less than gasLimit without this margin: the caller could starve
        // the target on purpose so that it fails and the tokens fall back.
        if (gasleft() < (gasLimit * 64) / 63 + 12_000) revert InsufficientGas();
        (bool ok, bytes memory ret) = target.call{value: msg.value, gas: gasLimit}(data);
        if (!ok) revert CallReverted(ret);
    }
}
