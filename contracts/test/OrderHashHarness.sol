// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {XchainOrder} from "../src/XchainOrder.sol";

/// @notice Exposes the library to tests: the on-chain side of the quote-hash check.
contract OrderHashHarness {
    function hashOrder(XchainOrder.Order calldata order) external pure returns (bytes32) {
        return XchainOrder.hash(order);
    }

    function hashReferrers(XchainOrder.Referrer[] calldata referrers) external pure returns (bytes32) {
        return XchainOrder.hashReferrers(referrers);
    }
}
