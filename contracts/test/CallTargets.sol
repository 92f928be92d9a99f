// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// Test-only targets of destination calls.

/// @notice A vault that credits a beneficiary with what was delivered to it: the router sends the
/// tokens first, then calls `deposit(token, beneficiary)`, which credits everything that arrived
/// since the last deposit (so calldata fixed before the quote need not know the amount). Its owner
/// can pause it, after which every deposit reverts (`Paused`).
contract DevVault {
    error Paused();
    error NothingDelivered();

    event Credited(address indexed beneficiary, address token, uint256 amount);

    address public immutable owner;
    bool public paused;
    mapping(address token => uint256) public accounted;
    mapping(address beneficiary => mapping(address token => uint256)) public balanceOf;

    constructor() {
        owner = msg.sender;
    }

    function setPaused(bool value) external {
        require(msg.sender == owner, "owner only");
        paused = value;
    }

    /// @notice `token` zero: the native asset, sent with the call.
    function deposit(address token, address beneficiary) external payable {
        if (paused) revert Paused();
        uint256 held = token == address(0) ? address(this).balance : IERC20(token).balanceOf(address(this));
        uint256 amount = held - accounted[token];
        if (amount == 0) revert NothingDelivered();
        accounted[token] = held;
        balanceOf[beneficiary][token] += amount;
        emit Credited(beneficiary, token, amount);
    }
}

/// @notice Reverts every call with a reason; and `burn(n)` spends gas in a loop (for gas limits).
contract DevReverter {
    uint256 public counter;

    fallback() external payable {
        revert("DevReverter: no");
    }

    receive() external payable {
        revert("DevReverter: no");
    }

    function burn(uint256 rounds) external payable {
        for (uint256 i = 0; i < rounds; i++) counter += 1;
    }
}
